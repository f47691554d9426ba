"""The admin's pages as :mod:`arena.server.site.admin_access` and the admin's style sheet
make them, for axe-core (whose check of every page is the browser journey's,
tests/arena/server/browser/every_page.py): every input labelled, and links told from
text by more than their colour."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.server.site.models import VersionStatus
from tests.arena.server.factories import PASSWORD, make_team, make_version
from tests.arena.server.test_history import _match

pytestmark = pytest.mark.usefixtures("db")


@pytest.fixture
def staff() -> Client:
    User.objects.create_superuser("root", password=PASSWORD)
    client = Client()
    assert client.login(username="root", password=PASSWORD)
    return client


def _labelled_ids(html: str) -> set[str]:
    return set(re.findall(r'<label[^>]* for="([^"]+)"', html))


def test_a_date_and_time_field_names_each_of_its_two_inputs(staff: Client) -> None:
    # Django's caption of a date and time field labels neither input (since Django 4.0).
    ours = make_version(make_team("ants"), status=VersionStatus.ACCEPTED)
    theirs = make_version(make_team("bees"), status=VersionStatus.ACCEPTED)
    match = _match(1, ours, theirs, chips=10)
    html = staff.get(f"/admin/arena_server/match/{match.pk}/change/").content.decode()
    assert 'aria-label="Finished: date"' in html and 'aria-label="Finished: time"' in html


def test_an_inline_labels_its_inputs_and_its_delete_box(staff: Client) -> None:
    # A tabular inline's column headings labelled none of its inputs: the inlines are stacked.
    team = make_team("ants", member="ann")
    html = staff.get(f"/admin/arena_server/team/{team.pk}/change/").content.decode()
    inputs = set(re.findall(r'<(?:input|select)[^>]* id="(id_memberships-0-[^"]+)"', html))
    assert {"id_memberships-0-user", "id_memberships-0-DELETE"} <= inputs
    assert inputs - {"id_memberships-0-id", "id_memberships-0-team"} <= _labelled_ids(html)


def test_users_and_groups_choose_from_the_browsers_own_list(staff: Client) -> None:
    # The admin's two-box widget (SelectFilter2.js) drew icons with a forbidden aria-label.
    for url in ("/admin/auth/user/1/change/", "/admin/auth/group/add/"):
        html = staff.get(url).content.decode()
        assert "SelectFilter2.js" not in html and "selectfilter" not in html
        assert re.search(r"<select[^>]* multiple", html)


def test_every_admin_page_loads_the_sites_additions(staff: Client) -> None:
    for url in ("/admin/", "/admin/arena_server/", "/admin/auth/user/"):
        html = staff.get(url).content.decode()
        assert '<link rel="stylesheet" href="/static/arena/admin.css">' in html
    style = staff.get("/static/arena/admin.css")
    assert b".breadcrumbs a" in b"".join(style.streaming_content)  # type: ignore[attr-defined]
