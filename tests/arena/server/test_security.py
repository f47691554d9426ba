"""The site's security rules, each tried: another team's objects are 404 with its session
and its token, on every URL that names one; every form needs its CSRF token; team and bot
strings are escaped under a Content-Security-Policy; log-in is rate-limited; cookies are
Secure, HttpOnly and SameSite behind TLS; the admin pages need staff."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from arena.server.middleware import CONTENT_SECURITY_POLICY
from arena.server.site import ratelimit, throttle
from arena.server.site.models import (
    ApiToken,
    Match,
    MatchSeat,
    MatchStatus,
    SiteSettings,
    Team,
    VersionStatus,
)
from arena.server.site_folder import security_settings
from tests.arena.server.factories import (
    PASSWORD,
    make_team,
    make_token,
    make_version,
    write_hands,
)

pytestmark = pytest.mark.usefixtures("db")


@dataclass
class Owned:
    """Team A's objects, and a client for each team by session and by token."""

    ids: dict[str, Any]
    own_session: Client
    own_token: str
    other_session: Client
    other_token: str


@pytest.fixture
def owned(tmp_path: Path) -> Owned:
    ants = make_team("ants", member="ann")
    make_team("bees", member="bob")
    active = make_version(ants, status=VersionStatus.ACCEPTED)
    Team.objects.filter(pk=ants.pk).update(active_version=active)
    version = make_version(ants, status=VersionStatus.ACCEPTED)
    token = make_token(ants)
    hands = write_hands(tmp_path / "hands.jsonl", count=1)
    match = Match.objects.create(
        status=MatchStatus.FINISHED, source="ladder", external_id="m1", hands_file=str(hands)
    )
    MatchSeat.objects.create(match=match, seat_index=0, name="ants", team=ants, version=version)
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "nothing"})
    ids: dict[str, Any] = {
        "fmt": "phh",
        "version_id": version.pk,
        "token_id": ApiToken.objects.get(team=ants).pk,
        "match_id": match.pk,
        "team_id": ants.pk,
        "membership_id": ants.memberships.get().pk,
    }
    own, other = Client(), Client()
    assert own.login(username="ann", password=PASSWORD)
    assert other.login(username="bob", password=PASSWORD)
    return Owned(ids, own, token, other, make_token(Team.objects.get(name="bees")))


def _patterns(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if str(entry.pattern) != "admin/":  # the admin: see test_the_admin_pages_need_staff
                yield from _patterns(entry, prefix + str(entry.pattern))
            continue
        yield prefix + str(entry.pattern), entry


#: Every URL naming an object, how it is asked for (the page's method), by its parameter.
PRIVATE_URLS = {
    "versions/<int:version_id>/": "get",
    "versions/<int:version_id>/activate/": "post",
    "api/v1/versions/<int:version_id>/": "get",
    "api/v1/versions/<int:version_id>/activate/": "post",
    "tokens/<int:token_id>/revoke/": "post",
    "team/members/<int:membership_id>/remove/": "post",
    "matches/<int:match_id>/": "get",
    "matches/<int:match_id>/hands/": "get",
    "api/v1/matches/<int:match_id>/": "get",
    "api/v1/matches/<int:match_id>/hands.<str:fmt>": "get",
    "versions/<int:version_id>/matches/": "get",
    "api/v1/versions/<int:version_id>/matches/": "get",
    "api/v1/versions/<int:version_id>/hands.<str:fmt>": "get",
    # The ladder's (arena.server.ladder).
    "ladder/versions/<int:version_id>/": "get",
    "ladder/versions/<int:version_id>/promotion/": "post",
    "ladder/versions/<int:version_id>/test-games/": "post",
    "ladder/versions/<int:version_id>/settings/": "post",
    "api/v1/ladder/versions/<int:version_id>/": "get",
}
#: URLs naming an object that every team may see.
PUBLIC_URLS = {"teams/<int:team_id>/", "api/v1/teams/<int:team_id>/",
               "teams/<int:team_id>/matches/", "api/v1/teams/<int:team_id>/matches/",
               "starters/<str:name>.tar.gz"}  # fmt: skip


def test_every_url_naming_an_object_is_in_the_table() -> None:
    named = {route for route, _ in _patterns(get_resolver()) if ":" in route and "<" in route}
    assert named == set(PRIVATE_URLS) | PUBLIC_URLS


def _fill(route: str, ids: dict[str, Any]) -> str:
    return "/" + re.sub(r"<(?:int|str):(\w+)>", lambda m: str(ids[m.group(1)]), route)


@pytest.mark.parametrize("route", sorted(PRIVATE_URLS))
def test_another_teams_object_is_404_by_session_and_by_token(owned: Owned, route: str) -> None:
    url = _fill(route, owned.ids)
    method = PRIVATE_URLS[route]
    by_session = getattr(owned.other_session, method)(url)
    by_token = getattr(Client(), method)(
        url, headers={"Authorization": f"Bearer {owned.other_token}"}
    )
    assert (by_session.status_code, by_token.status_code) == (404, 404)
    visitor = getattr(Client(), method)(url)
    if visitor.status_code == 302:  # a visitor is sent to log in, never shown it
        assert visitor["Location"].startswith("/login/")
    else:
        assert visitor.status_code == 404
    own = getattr(owned.own_session, method)(url)
    # The owner reaches the view (which may still refuse a request without its form: 400).
    assert own.status_code in (200, 302, 400), f"{url}: the owner gets {own.status_code}"


def test_a_token_sees_its_own_version(owned: Owned) -> None:
    url = f"/api/v1/versions/{owned.ids['version_id']}/"
    response = Client().get(url, headers={"Authorization": f"Bearer {owned.own_token}"})
    assert response.status_code == 200 and response.json()["version"] == 2


def test_a_revoked_token_is_no_team(owned: Owned) -> None:
    ApiToken.objects.filter(team__name="ants").update(revoked="2026-01-01T00:00:00Z")
    url = f"/api/v1/versions/{owned.ids['version_id']}/"
    response = Client().get(url, headers={"Authorization": f"Bearer {owned.own_token}"})
    assert response.status_code == 404


#: Every form a browser posts.
FORMS = [
    "/signup/",
    "/login/",
    "/logout/",
    "/team/new/",
    "/team/join/",
    "/tokens/",
    "/upload/",
    "/versions/{version_id}/activate/",
    "/tokens/{token_id}/revoke/",
    "/team/code/",
    "/team/members/{membership_id}/remove/",
    "/password/",
    "/ladder/versions/{version_id}/promotion/",
    "/ladder/versions/{version_id}/test-games/",
    "/ladder/versions/{version_id}/settings/",
    "/admin/login/",
]


@pytest.mark.parametrize("form", FORMS)
def test_every_form_needs_its_csrf_token(owned: Owned, form: str) -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"signup": "open"})
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.get(username="ann"))
    response = client.post(form.format(**owned.ids), {"name": "x"})
    assert response.status_code == 403


def test_team_and_bot_strings_are_escaped_under_a_policy() -> None:
    hostile = '<script>alert("x")</script>'
    team = make_team(hostile, member="eve")
    version = make_version(team, status=VersionStatus.REJECTED)
    version.stderr = hostile
    version.reason = hostile
    version.save()
    client = Client()
    client.login(username="eve", password=PASSWORD)
    for url in (f"/teams/{team.pk}/", f"/versions/{version.pk}/"):
        response = client.get(url)
        text = response.content.decode()
        assert response.status_code == 200
        assert hostile not in text and "&lt;script&gt;alert(&quot;x&quot;)" in text
        assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert "script-src 'self'" in response["Content-Security-Policy"]


def test_log_in_is_rate_limited_per_account_from_one_address() -> None:
    make_team("ants", member="ann")
    client = Client()
    for _ in range(ratelimit.LOG_IN_PAIR.count):
        response = client.post("/login/", {"username": "ann", "password": "wrong"})
        assert response.status_code == 200
    # Now even the right password is refused from this address until the window passes.
    response = client.post("/login/", {"username": "ann", "password": PASSWORD})
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_failures_that_left_the_window_do_not_count(monkeypatch: pytest.MonkeyPatch) -> None:
    # The view asks ratelimit.is_limited: a failure a whole window old has left it.
    make_team("ants", member="ann")
    client = Client(REMOTE_ADDR="198.51.100.7")
    window = ratelimit.LOG_IN_PAIR.window
    real_now = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: real_now - timedelta(seconds=window))
    throttle.note(ratelimit.LOG_IN_PAIR, "198.51.100.7 ann")
    monkeypatch.setattr(timezone, "now", lambda: real_now - timedelta(seconds=60))
    for _ in range(ratelimit.LOG_IN_PAIR.count - 1):
        throttle.note(ratelimit.LOG_IN_PAIR, "198.51.100.7 ann")
    monkeypatch.setattr(timezone, "now", lambda: real_now)
    assert client.post("/login/", {"username": "ann", "password": PASSWORD}).status_code == 302
    throttle.note(ratelimit.LOG_IN_PAIR, "198.51.100.7 ann")
    assert client.post("/login/", {"username": "ann", "password": PASSWORD}).status_code == 429


def test_log_in_is_rate_limited_per_address() -> None:
    client = Client(REMOTE_ADDR="203.0.113.9")
    for number in range(ratelimit.LOG_IN_ADDRESS.count):
        client.post("/login/", {"username": f"guess{number}", "password": "wrong"})
    make_team("ants", member="ann")
    response = client.post("/login/", {"username": "ann", "password": PASSWORD})
    assert response.status_code == 429
    other = Client(REMOTE_ADDR="198.51.100.1")
    assert other.post("/login/", {"username": "ann", "password": PASSWORD}).status_code == 302


def test_cookies_are_secure_httponly_and_samesite_behind_tls() -> None:
    make_team("ants", member="ann")
    tls = security_settings(behind_tls=True, allowed_hosts=["testserver"])
    with override_settings(**tls):
        client = Client()
        plain = client.get("/login/")
        assert plain.status_code == 301 and plain["Location"].startswith("https://")
        # A header claiming https is not believed (waitress sets the scheme from the
        # trusted proxy only: test_proxy_headers); a request over https is served.
        forged = client.get("/login/", HTTP_X_FORWARDED_PROTO="https")
        assert forged.status_code == 301
        page = client.get("/login/", secure=True)
        assert page.status_code == 200
        response = client.post("/login/", {"username": "ann", "password": PASSWORD}, secure=True)
        assert response.status_code == 302
        session = response.cookies["sessionid"]
        assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"
        csrf = page.cookies["csrftoken"]
        assert csrf["secure"] and csrf["httponly"] and csrf["samesite"] == "Lax"


def test_the_admin_pages_need_staff() -> None:
    make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password=PASSWORD)
    for url in ("/admin/", "/admin/arena_server/botversion/", "/admin/arena_server/team/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    User.objects.filter(username="ann").update(is_staff=True, is_superuser=True)
    assert client.get("/admin/arena_server/botversion/").status_code == 200


def test_the_admins_log_in_is_the_rate_limited_one() -> None:
    make_team("ants", member="ann")
    User.objects.filter(username="ann").update(is_staff=True, is_superuser=True)
    client = Client()
    for _ in range(ratelimit.LOG_IN_PAIR.count):
        client.post("/admin/login/", {"username": "ann", "password": "wrong"})
    assert (
        client.post("/admin/login/", {"username": "ann", "password": PASSWORD}).status_code == 429
    )


@pytest.mark.parametrize(
    ("wanted", "landing"), [("/admin/", "/admin/"), ("https://evil.example/", "/")]
)
def test_log_in_goes_back_to_a_page_of_this_site_only(wanted: str, landing: str) -> None:
    make_team("ants", member="ann")
    response = Client().post("/login/", {"username": "ann", "password": PASSWORD, "next": wanted})
    assert response.status_code == 302 and response["Location"] == landing


def test_the_limit_counts_the_address_waitress_gives_never_a_header() -> None:
    # Behind the trusted proxy waitress puts the client's address (from that proxy's
    # X-Forwarded-For only) in REMOTE_ADDR (test_proxy_headers, test_tls_proxy); a header
    # that reaches the application could come from any client, who would then choose the
    # address its failures count against.
    from django.test import RequestFactory

    from arena.server.site.views.accounts import client_address

    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1",
                                   HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7")  # fmt: skip
    assert client_address(request) == "10.0.0.1"
    with override_settings(**security_settings(behind_tls=True, allowed_hosts=["testserver"])):
        assert client_address(request) == "10.0.0.1"
