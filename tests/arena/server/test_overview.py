"""The competition's overview page: its name on every page's title, its description, the
rules a bot plays under read from the settings (never typed twice), the deadline with a
countdown, the protocol and the starter bots to download, and how to submit."""

from __future__ import annotations

import io
import re
import tarfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.test import Client, override_settings

from arena.server.competition import Competition, SiteRules, read_competition
from arena.server.overview import DEFAULT_TITLE, competition_rules, countdown, starter_bots
from arena.server.site.models import SiteSettings
from arena.server.site.views.pages import PROTOCOL_FILE
from arena.tournament.config import TournamentConfig
from tests.arena.server.factories import PASSWORD, make_team

pytestmark = pytest.mark.usefixtures("db")

COMPETITION = """\
title = "Spring heads-up"
description = "Bots play pot-limit hold'em heads-up until May."
[game]
betting = "pot_limit"
small_blind = 2
big_blind = 4
starting_stack = 400
[limits]
decision_timeout = "250ms"
memory_bytes = "512MiB"
[ladder]
deadline = "{deadline}"
"""


@pytest.fixture
def competition_file(tmp_path: Path) -> Path:
    deadline = (datetime.now(UTC) + timedelta(days=2, hours=6, minutes=30)).isoformat()
    path = tmp_path / "competition.toml"
    path.write_text(COMPETITION.format(deadline=deadline), encoding="utf-8")
    return path


def _title(page: str) -> str:
    found = re.search(r"<title>(.*?)</title>", page, re.S)
    assert found is not None
    return found.group(1)


def test_the_overview_shows_the_competition_and_the_rules_read_from_its_settings(
    competition_file: Path,
) -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"validation_allowed_faults": 2})
    with override_settings(ARENA_COMPETITION_FILE=str(competition_file)):
        page = Client().get("/overview/").content.decode()
    assert _title(page) == "Overview · Spring heads-up"
    assert "<h1>Spring heads-up</h1>" in page
    assert "Bots play pot-limit hold&#x27;em heads-up until May." in page
    assert "pot-limit hold&#x27;em, blinds 2/4, every hand starts with 400 chips (100 big" in page
    assert "0.25 s of wall-clock time" in page and "memory 512 MiB" in page
    assert "with at most 2 faults" in page
    assert "(in 2 days, 6 hours)" in page
    assert "arena submit my_bot --server http://testserver --token-file" in page
    for name in starter_bots():
        assert f'href="/starters/{name}.tar.gz"' in page
    assert 'href="/protocol/"' in page


def test_the_rules_are_the_competitions_and_the_sites_values() -> None:
    rules = dict(competition_rules(Competition(TournamentConfig(bots=())), SiteRules(), deals=7))
    assert rules["A ladder game"].startswith("7 deals, each played twice")
    assert rules["Validation"].endswith("without a fault")
    assert rules["Table"] == "heads-up: two bots"


def test_a_ring_competition_says_its_table_and_rotations(tmp_path: Path) -> None:
    path = tmp_path / "ring.toml"
    path.write_text('format = "ring"\n[ring]\nseats = 4\n', encoding="utf-8")
    rules = dict(competition_rules(read_competition(path), SiteSettings.current().rules(),
                                   deals=10))  # fmt: skip
    assert rules["Table"] == "ring tables of 4 bots"
    assert rules["A ladder game"] == (
        "10 deals, each played 4 times, once in each rotation of the seats"
    )


def test_every_page_title_names_the_competition(competition_file: Path) -> None:
    make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password=PASSWORD)
    with override_settings(ARENA_COMPETITION_FILE=str(competition_file)):
        for url, title in (("/", "Leaderboard"), ("/ladder/", "Ladder"),
                           ("/upload/", "Upload a bot"), ("/tokens/", "API tokens")):  # fmt: skip
            assert _title(client.get(url).content.decode()) == f"{title} · Spring heads-up"
        assert "Spring heads-up" in Client().get("/login/").content.decode()
        assert _title(Client().get("/overview/").content.decode()) == "Overview · Spring heads-up"
    assert _title(Client().get("/").content.decode()) == f"Leaderboard · {DEFAULT_TITLE}"


def test_a_competition_file_that_cannot_be_read_is_said_on_the_overview(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('description = ""\n', encoding="utf-8")
    with override_settings(ARENA_COMPETITION_FILE=str(bad)):
        response = Client().get("/overview/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "cannot be read" in page and "1 to 2,000 characters" in page
    assert _title(page) == f"Overview · {DEFAULT_TITLE}"


def test_without_a_file_or_deadline_the_overview_says_so() -> None:
    page = Client().get("/overview/").content.decode()
    assert "None: the ladder plays on" in page and f"<h1>{DEFAULT_TITLE}</h1>" in page


def test_a_starter_bot_downloads_as_the_archive_submit_sends() -> None:
    name = starter_bots()[0]
    response = Client().get(f"/starters/{name}.tar.gz")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{name}.tar.gz"'
    with tarfile.open(fileobj=io.BytesIO(response.content), mode="r:gz") as archive:
        assert "bot.toml" in archive.getnames()
    assert Client().get("/starters/nothing.tar.gz").status_code == 404


def test_the_protocol_is_a_page_of_the_site_and_its_text_a_download() -> None:
    # It was served as plain text: no landmarks or headings to move by, no competition in
    # the title. Now a page drawn from the same file, the file itself linked for download.
    page = Client().get("/protocol/")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert "<title>The protocol · " in html and "<main>" in html
    assert '<h1 id="the-bot-protocol-version-1">The bot protocol, version 1</h1>' in html
    assert 'href="/protocol/PROTOCOL.md" download' in html
    text = Client().get("/protocol/PROTOCOL.md")
    assert text["Content-Type"].startswith("text/plain")
    assert text.content == PROTOCOL_FILE.read_bytes()


def test_every_link_of_the_protocol_page_leads_somewhere() -> None:
    # The document's links to its own sections find a heading's anchor (GitHub's); a link
    # to another file of the repository ("schemas/"), which the site does not serve, is
    # shown as its text; raw HTML in the file would be shown as text, never as markup.
    html = Client().get("/protocol/").content.decode()
    anchors = set(re.findall(r'<h[1-6] id="([^"]+)"', html))
    targets = re.findall(r'<a href="([^"]+)"', html.split('<article id="protocol">')[1])
    assert targets and all(t.startswith(("#", "http")) for t in targets), targets
    assert {t[1:] for t in targets if t.startswith("#")} <= anchors
    assert "schemas/" in html and 'href="schemas/"' not in html
    # A code block scrolls in its box: it takes the keyboard's focus to be scrolled.
    assert html.count('<pre tabindex="0">') == html.count("<pre") > 0


def test_raw_html_in_the_protocol_is_shown_as_text(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from arena.server.site.views import protocol

    document = tmp_path / "PROTOCOL.md"
    document.write_text("# T\n\n<script>alert(1)</script> [x](other.md) [y](#t)\n")
    monkeypatch.setattr(protocol, "PROTOCOL_FILE", document)
    protocol.protocol_html.cache_clear()
    try:
        html = str(protocol.protocol_html())
    finally:
        protocol.protocol_html.cache_clear()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '<h1 id="t">T</h1>' in html and '<a href="#t">y</a>' in html
    assert "other.md" not in html and " x " in html


def test_the_countdown_names_two_units_or_says_it_has_passed() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert countdown(now + timedelta(minutes=5, seconds=3), now=now) == "in 5 minutes"
    assert countdown(now + timedelta(seconds=30), now=now) == "in less than a minute"
    assert countdown(now - timedelta(seconds=1), now=now) == "it has passed"
    assert countdown(now + timedelta(days=1, minutes=1), now=now) == "in 1 day, 1 minute"


def test_no_starter_bots_where_the_folder_is_missing(tmp_path: Path) -> None:
    assert starter_bots(tmp_path / "nowhere") == []


def test_the_rules_follow_every_time_and_sandbox_setting(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        'sandbox = "limits"\n[game]\nante = 1\n[limits]\ncheck_on_timeout = true\n'
        'time_bank = "2s"\ntime_basis = "cpu"\n',
        encoding="utf-8",
    )
    rules = dict(competition_rules(read_competition(path), SiteRules(), deals=10))
    assert ", ante 1, every hand" in rules["Game"]
    assert rules["Time per decision"] == (
        "5 s of CPU time, plus a time bank of 2 s a match; a bot out of time checks when "
        "checking is free, else folds"
    )
    assert rules["Sandbox"].startswith("limits (resource limits")
