"""The new pages fit a 1,280 px window and a phone's (375 px) without a horizontal scroll
bar: each page, as the site renders it with its style sheet, is laid out in Chromium and its
width measured (a wide table scrolls inside its own box, never the page)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from arena.server.site.models import SiteSettings, VersionStatus
from tests.arena.server.factories import PASSWORD, make_team, make_version
from tests.arena.server.test_history import _match

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright)"
)

from tests.arena.report.test_report_in_chromium import CHROMIUM  # noqa: E402

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium found (apt-get install chromium, or set ARENA_CHROMIUM to its path)",
)

STYLE_SHEET = Path(__file__).resolve().parents[3] / "arena/server/site/static/arena/site.css"
#: The widths a page must fit: a laptop's window and a phone's.
WIDTHS = (1280, 375)


def _pages(db: None) -> dict[str, str]:
    """The history, version and match pages of a team whose names are long (the widest
    cells a page has), as a member sees them."""
    long_name = "a-team-with-a-rather-long-name-indeed"
    ours = make_team(long_name)
    theirs = make_team("another-team-with-a-long-name-too")
    version = make_version(ours, status=VersionStatus.ACCEPTED)
    other = make_version(theirs, status=VersionStatus.ACCEPTED)
    matches = [_match(number, version, other, chips=12345 - number) for number in range(1, 30)]
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "showdowns"})
    client = Client()
    assert client.login(username=f"{long_name}-1", password=PASSWORD)
    urls = {
        "team history": f"/teams/{ours.pk}/matches/",
        "version history": f"/versions/{version.pk}/matches/?result=won",
        "version": f"/versions/{version.pk}/",
        "match": f"/matches/{matches[0].pk}/",
    }
    style = STYLE_SHEET.read_text(encoding="utf-8")
    link = '<link rel="stylesheet" href="/static/arena/site.css">'
    pages = {}
    for name, url in urls.items():
        html = client.get(url).content.decode()
        assert link in html
        pages[name] = html.replace(link, f"<style>{style}</style>")
    return pages


def test_the_new_pages_fit_a_laptop_and_a_phone(db: None) -> None:
    pages = _pages(db)  # rendered first: Django's database is not for Playwright's loop
    too_wide = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            for name, html in pages.items():
                for width in WIDTHS:
                    page = browser.new_page(viewport={"width": width, "height": 800})
                    page.set_content(html)
                    scrolled = page.evaluate("document.documentElement.scrollWidth")
                    page.close()
                    if scrolled > width:
                        too_wide.append(f"{name} at {width} px: {scrolled} px wide")
        finally:
            browser.close()
    assert not too_wide, too_wide
