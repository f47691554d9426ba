"""Every page of the site checked by axe-core, not only the participant journey's: the
team's management (a wrong join code, a second member, the team's match history), a
ladder page with its message, the finals played (their page and their report), the
administrator's pages (log-in, index, an application's index, each registered model's
list and change form, one add form, one history and one delete confirmation, a user's
password form, the administrator's own password change), a closed sign-up, a one-time
password link (its form, its end, and the link used twice), a refused log-in and a page
that is not there.

Which pages there are comes from the site's own URL patterns (:func:`page_names`), so a
new page is checked or the test says it is not: each visited address is resolved to its
pattern, and :func:`unvisited` names the patterns no checked page came from, bar
:data:`NOT_PAGES` (each with why it shows no page of its own).

The same site and browser as the journey's (:mod:`test_participant`): one site, one
Chromium, every page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver, resolve

from tests.arena.server.browser.chromium import PASSWORD, Camera, Visitor, new_visitor, sync_api
from tests.arena.server.browser.live import ADMIN_PASSWORD, LiveSite

__all__ = ["NOT_PAGES", "Cast", "page_names", "unvisited", "visit_every_other_page"]

#: The site's addresses that show no page of their own, and why; every other pattern of
#: :func:`page_names` must be shown and checked.
NOT_PAGES = {
    "protocol-text": "the protocol's file as text, a download (its page is 'protocol')",
    "starter": "a starter bot's tar.gz, a download",
    "logout": "POST only, then the leaderboard",
    "team-rotate-code": "POST only, then the team's page",
    "team-remove-member": "POST only, then the team's page (or the page to make or join one)",
    "token-revoke": "POST only, then the tokens' page",
    "version-activate": "POST only, then the version's page",
    "ladder-promotion": "POST only, then the ladder version's page with its message",
    "ladder-test-games": "POST only, then the ladder version's page with its message",
    "ladder-settings": "POST only, then the ladder version's page with its message",
    "arena.server.site.views.pages.no_icon": "/favicon.ico: an empty answer (204)",
    "django.contrib.staticfiles.views.serve": "the style sheets and scripts",
    "admin:login": "hidden: /admin/login/ is the site's own log-in (checked as such)",
    "admin:logout": "POST only, then the admin's log-in",
    "admin:autocomplete": "JSON for the admin's search boxes (no model uses one)",
    "admin:jsi18n": "the admin's translations, a script",
    "admin:view_on_site": "a redirect to the object's page on the site",
    "django.views.generic.base.RedirectView": "the admin's /<id>/, a redirect to its change form",
    "django.contrib.admin.sites.AdminSite.catch_all_view": "the admin's 404 (or a slash added)",
}

#: The prefix of the API's patterns: JSON and downloads for programs, no page.
API_PREFIX = "api-"

#: The admin's pages of a model that are one template for every model: each is shown for
#: one model (a model's list and change form are shown for each: their columns and fields
#: are the model's own).
ONCE_PER_SITE = ("add", "history", "delete")


def _names(patterns: Iterable[URLPattern | URLResolver], namespace: str) -> Iterator[str]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _names(pattern.url_patterns, inner)
        else:
            yield f"{namespace}{pattern.name}" if pattern.name else pattern.lookup_str


def page_names() -> set[str]:
    """Every URL pattern of the site, by its name (``admin:`` for the admin's), or by its
    view's dotted path where it has none."""
    return set(_names(get_resolver().url_patterns, ""))


def _admin_model_kind(name: str) -> str | None:
    """``add``, ``history`` or ``delete`` for an admin model's page of that kind."""
    kind = name.rsplit("_", 1)[-1]
    return kind if name.startswith("admin:") and kind in ONCE_PER_SITE else None


def unvisited(paths: Iterable[str]) -> set[str]:
    """The page patterns none of ``paths`` (addresses below the site's) resolves to: each
    pattern of :func:`page_names` but :data:`NOT_PAGES` and the API's, and of the admin's
    add, history and delete pages the kinds none was shown of."""
    seen = {resolve(path).view_name for path in paths}
    wanted = {
        name
        for name in page_names()
        if name not in NOT_PAGES and not name.startswith(API_PREFIX) and not _admin_model_kind(name)
    }
    kinds_seen = {_admin_model_kind(name) for name in seen}
    missing_kinds = {
        f"admin: any model's {kind}" for kind in ONCE_PER_SITE if kind not in kinds_seen
    }
    return (wanted - seen) | missing_kinds


@dataclass(frozen=True)
class Cast:
    """The journey's site and people: ann (whose team has a version on the ladder), and
    carol (an account without a team)."""

    site: LiveSite
    ann: Visitor
    carol: Visitor
    version_id: int


def visit_every_other_page(browser: Any, cast: Cast, camera: Camera) -> None:
    """The pages of the module docstring, each photographed and checked by ``camera``."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        # The organiser plays the finals meanwhile (its own command, a process of its own).
        finals = pool.submit(cast.site.manage, "ladder_finals", "--now")
        _team_management(cast, camera)
        _ladder_message(cast, camera)
        admin = _administrator_logs_in(browser, cast.site, camera)
        _closed_sign_up(browser, cast.site, admin, camera)
        _one_time_password(browser, cast.site, admin, camera)
        finals.result()
    _finals(browser, cast, camera)
    _admin_model_pages(admin, camera)
    for person in (cast.ann, cast.carol, admin):
        person.check_clean()


def _team_management(cast: Cast, camera: Camera) -> None:
    """carol tries a wrong join code, then joins ann's team; ann sees two members (and may
    remove the one who joined after her), then removes her."""
    ann, carol = cast.ann, cast.carol
    carol.go("team/new/")
    carol.missing.add(carol.site + "team/join/")  # the wrong code's page is a 400
    carol.page.fill("#id_code", "not-a-team-code")
    carol.page.click("button:text('Join')")
    sync_api.expect(carol.page.locator(".errorlist")).to_contain_text("no team has that code")
    camera.shoot(carol, "a wrong join code")
    ann.go("team/")
    code = ann.page.locator("main p code").first.inner_text().strip()
    carol.go("team/new/")
    carol.page.fill("#id_code", code)
    carol.page.click("button:text('Join')")
    carol.page.wait_for_url(re.compile(r"/team/$"))
    ann.go("team/")
    sync_api.expect(ann.page.locator("button:text('Remove')")).to_have_count(1)
    camera.shoot(ann, "a team of two: a member to remove")
    ann.page.click("button:text('Remove')")
    sync_api.expect(ann.page.locator("button:text('Remove')")).to_have_count(0)
    history = ann.page.locator("a", has_text="Match history").get_attribute("href")
    assert history is not None
    ann.go(history)
    camera.shoot(ann, "the team's match history")


def _ladder_message(cast: Cast, camera: Camera) -> None:
    """A form of the ladder version's page answered with its message."""
    ann = cast.ann
    ann.go(f"ladder/versions/{cast.version_id}/")
    ann.page.click("form[action$='/settings/'] button")
    sync_api.expect(ann.page.locator("#message")).to_have_text("settings saved")
    camera.shoot(ann, "a ladder page's message")


def _finals(browser: Any, cast: Cast, camera: Camera) -> None:
    """A visitor reads the finals' page and their report, once played."""
    visitor = new_visitor(browser, cast.site.url)
    visitor.go("ladder/finals/")
    assert visitor.page.locator("table").count() >= 1, visitor.page.content()[:2000]
    camera.shoot(visitor, "the finals, played")
    visitor.go("ladder/finals/report/")
    visitor.page.wait_for_selector("body[data-ready]", state="attached")
    camera.shoot(visitor, "the finals' report")
    visitor.check_clean()


def _administrator_logs_in(browser: Any, site: LiveSite, camera: Camera) -> Visitor:
    """The administrator logs in (a wrong password first): the admin's index and an
    application's."""
    admin = new_visitor(browser, site.url)
    admin.go("admin/login/?next=/admin/")
    admin.page.fill("#id_username", "admin")
    admin.page.fill("#id_password", "not the password")
    admin.page.click("button:text('Log in')")
    sync_api.expect(admin.page.locator(".errorlist")).to_be_visible()
    camera.shoot(admin, "a refused log-in (the admin's)")
    admin.page.fill("#id_password", ADMIN_PASSWORD)
    admin.page.click("button:text('Log in')")
    admin.page.wait_for_url(re.compile(r"/admin/$"))
    camera.shoot(admin, "admin: index")
    admin.go("admin/arena_server/")
    camera.shoot(admin, "admin: an application")
    return admin


def _admin_model_pages(admin: Visitor, camera: Camera) -> None:
    """Each model's list and a row's change form, and the pages each model shares."""
    # A group, so that every model has a row whose change form shows.
    admin.go("admin/auth/group/add/")
    camera.shoot(admin, "admin: an add form")
    admin.page.fill("#id_name", "referees")
    admin.page.click("input[name='_save']")
    admin.page.wait_for_url(re.compile(r"/admin/auth/group/$"))
    _promotion_test(admin)
    for link in _model_lists(admin):
        admin.go(link)
        camera.shoot(admin, f"admin: {link}")
        rows = admin.page.locator("#result_list tbody tr a[href*='/change/']")
        assert rows.count() >= 1, f"no row to open in {link}"
        admin.go(str(rows.first.get_attribute("href")))
        camera.shoot(admin, f"admin: a row of {link}")
    team = "admin/arena_server/team/1/"  # ann's, the site's first team
    for path, what in ((f"{team}history/", "a history"), (f"{team}delete/", "a deletion"),
                       ("admin/auth/user/1/password/", "a user's password"),
                       ("admin/password_change/", "its own password"),
                       ("admin/password_change/done/", "its password changed")):  # fmt: skip
        admin.go(path)
        camera.shoot(admin, f"admin: {what}")


def _model_lists(admin: Visitor) -> list[str]:
    """The list page of every model the admin's index shows."""
    admin.go("admin/")
    links = admin.page.locator("#content-main th[scope='row'] a").evaluate_all(
        "nodes => nodes.map(node => node.getAttribute('href'))"
    )
    assert len(links) >= 10, links
    return [str(link) for link in links]


def _promotion_test(admin: Visitor) -> None:
    """A promotion test made in the admin (its decided status: nothing plays), so that its
    list has a row."""
    admin.go("admin/arena_ladder/promotiontest/add/")
    for field in ("team", "candidate", "incumbent"):
        admin.page.select_option(f"#id_{field}", index=1)
    admin.page.select_option("#id_status", "cancelled")
    admin.page.click("input[name='_save']")
    admin.page.wait_for_url(re.compile(r"/admin/arena_ladder/promotiontest/$"))


def _closed_sign_up(browser: Any, site: LiveSite, admin: Visitor, camera: Camera) -> None:
    """The administrator closes sign-up in the site's settings; a visitor is told so (and
    shown the page of an address that is not there)."""
    admin.go("admin/arena_server/sitesettings/1/change/")
    admin.page.fill("#id_signup", "admin")
    admin.page.click("input[name='_save']")
    admin.page.wait_for_url(re.compile(r"/admin/arena_server/sitesettings/$"))
    visitor = new_visitor(browser, site.url)
    visitor.missing.add(site.url + "signup/")  # 403: closed
    assert visitor.go("signup/").status == 403
    camera.shoot(visitor, "sign-up closed")
    visitor.missing.add(site.url + "matches/999999/")
    assert visitor.go("matches/999999/").status == 404
    camera.shoot(visitor, "a page that is not there")
    visitor.check_clean()


def _one_time_password(browser: Any, site: LiveSite, admin: Visitor, camera: Camera) -> None:
    """The administrator makes a one-time password link for carol (the Users page's
    action); carol, logged out, sets a password with it; the link then says it is used."""
    admin.go("admin/auth/user/?q=carol")
    admin.page.locator("#result_list input.action-select").first.check()
    admin.page.select_option("select[name='action']", "make_password_links")
    admin.page.click("button[name='index']")
    message = admin.page.locator("ul.messagelist li", has_text="one-time password link")
    link = re.search(r"https?://\S+", message.inner_text())
    assert link is not None, message.inner_text()
    person = new_visitor(browser, site.url)
    person.page.goto(link.group(0))
    sync_api.expect(person.page.locator("#id_new_password1")).to_be_visible()
    camera.shoot(person, "a one-time password link")
    person.page.fill("#id_new_password1", PASSWORD + " again")
    person.page.fill("#id_new_password2", PASSWORD + " again")
    person.page.click("button:text('Set the password')")
    person.page.wait_for_url(re.compile(r"/reset/done/$"))
    camera.shoot(person, "a password set")
    person.page.goto(link.group(0))
    sync_api.expect(person.page.locator("p.error")).to_contain_text("has been used")
    camera.shoot(person, "a one-time link used twice")
    person.check_clean()
