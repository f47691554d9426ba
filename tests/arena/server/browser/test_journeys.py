"""A team's journey through a live site in headless Chromium (driven by Playwright).

The site is real: ``arena server init`` and ``arena server run`` (waitress and a validation
worker) on a free loopback port, in the test's folder, stopped at its end (see
:mod:`tests.arena.server.browser.live`); the organiser has imported a tournament in which
one bot bears the first team's name (so that match is the team's). Through the pages, as
a person would: sign up, make a team, upload a starter bot
(``sample_bots/python_calling_station`` packed as tar.gz) with the form, watch the
version's page until validation says "accepted", open the leaderboard, the team's match
and that match's hand viewer. A second team, in its own browser context, is refused the
first team's version page and its log (404), by its session and by an API token it made
on the tokens page; the first team's own token reads the version, and ``arena submit``
uploads its next version with that token and gets "accepted" (exit code 0). In a hand
won by a fold, the team sees its own hole cards only and the other team none.

Every page must load without a script error or a dialog, and the browser may reach
nothing but the site (every other request is aborted). Against SQLite, a real PostgreSQL
and through nginx over https, all in the slow run. Skipped, with the reason, where
Playwright or a Chromium is not installed.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.uploads import pack
from tests import REPO_ROOT
from tests.arena.report.runs import write_tournament
from tests.arena.server.browser.live import LiveSite, arena, init_site, live_site, running_site
from tests.arena.server.browser.proxy import HOST, behind_nginx, missing_tool
from tests.postgres import PostgresServer, database_urls, postgres_server  # noqa: F401

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright)"
)

from tests.arena.server.browser.chromium import CHROMIUM, Visitor, new_visitor  # noqa: E402

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium found (apt-get install chromium, or set ARENA_CHROMIUM to its path)",
)

#: The longest a starter bot's validation may take here (a loaded machine; the benchmark
#: measures the real figure).
VALIDATION_MS = 180_000


def _import_tournament(site: LiveSite, folder: Path) -> None:
    """The organiser puts a tournament on the site: "ann" is the first team's bot."""
    import subprocess

    run = write_tournament(folder / "run", bots=("ann", "bob"), deals=4, block_deals=2)
    done = subprocess.run(
        arena("server", "import-tournament", str(site.root), str(run)),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


@dataclass(frozen=True)
class Served:
    """A live site, the address the browser uses and the certificate to trust (None:
    plain HTTP)."""

    site: LiveSite
    url: str
    cert: Path | None = None


@contextlib.contextmanager
def _served(tmp_path: Path, database: str | None, tls: bool) -> Iterator[Served]:
    """A live site and the address the browser uses: its own, or with ``tls`` nginx's
    in front of it over https (the deployment docs/server.md shows)."""
    if not tls:
        with live_site(tmp_path / "live", database=database) as site:
            yield Served(site, site.url)
        return
    root = init_site(tmp_path / "live", database=database,
                     options=["--behind-tls", "--host-name", HOST])  # fmt: skip
    with (
        running_site(root, options=["--trusted-proxy", "127.0.0.1"]) as site,
        behind_nginx(tmp_path / "nginx", site) as proxied,
    ):
        yield Served(site, proxied.url, proxied.cert)


def _journey(browser: Any, tmp_path: Path, database: str | None, *, tls: bool = False) -> None:
    with _served(tmp_path, database, tls) as served:
        site, url = served.site, served.url
        ann = new_visitor(browser, url)
        ann.sign_up_with_team("ann-1", "ann")
        _import_tournament(site, tmp_path)

        # Upload a starter bot through the form; its page follows validation live.
        archive = pack(REPO_ROOT / "sample_bots" / "python_calling_station")
        ann.go("upload/")
        ann.page.set_input_files(
            "#id_archive",
            files=[{"name": "bot.tar.gz", "mimeType": "application/gzip", "buffer": archive}],
        )
        ann.page.click("button:text('Upload')")
        ann.page.wait_for_url(re.compile(r"/versions/\d+/$"))
        version_path = ann.page.url.removeprefix(url)
        status = ann.page.locator("#status")
        sync_api.expect(status).to_have_text(re.compile("accepted|rejected"), timeout=VALIDATION_MS)
        steps = ann.page.locator("#steps").inner_text()
        assert status.inner_text() == "accepted", f"{steps}\n{site.log()[-3000:]}"
        assert ann.page.locator("#steps li").count() >= 3, steps

        # The leaderboard: the imported tournament, its "ann" row linked to the team.
        ann.go("")
        rows = ann.page.locator("table tbody tr")
        assert rows.count() == 2
        assert ann.page.locator("table tbody a", has_text="ann").count() == 1

        # Another team sees neither the version nor its log, as if they did not exist.
        bob = new_visitor(browser, url)
        bob.sign_up_with_team("bob-1", "bob rivals")
        bob.missing.add(url + version_path)
        refused = bob.go(version_path)
        assert refused.status == 404
        assert "accepted" not in bob.page.content()
        assert "python calling station" not in bob.page.content()
        assert bob.go("team/").status == 200  # its own pages work
        version_api = "api/v1/" + version_path.removeprefix("/")
        assert bob.api(version_api, bob.make_token("laptop")).status == 404
        bob.check_clean()

        # A token made on the tokens page reads the version through the API, and
        # `arena submit` uploads the next version with it and waits for the verdict.
        token = ann.make_token("laptop")
        seen = ann.api(version_api, token)
        assert seen.status == 200 and seen.json()["status"] == "accepted"
        _submit(served, token, tmp_path)

        # The team's match, and its hands in the report's viewer.
        ann.go("")
        ann.page.locator("table tbody a", has_text="ann").click()
        ann.page.locator("a[href^='/matches/']").first.click()
        ann.page.wait_for_url(re.compile(r"/matches/\d+/$"))
        assert ann.page.locator("table tbody tr").count() == 2  # the two seats
        ann.page.click("text=Watch the hands")
        _watch_a_hand(ann)

        # Cards of a hand that ended without a showdown (the site shows showdowns): the
        # team sees its own two and not the other's; another team sees none.
        hands_path = ann.page.url.removeprefix(url).split("#")[0]
        assert _hole_cards_of_a_folded_hand(ann).count(HIDDEN) == 2
        bob.go(hands_path)
        assert _hole_cards_of_a_folded_hand(bob) == [HIDDEN] * 4
        bob.check_clean()


def _submit(served: Served, token: str, folder: Path) -> None:
    """``arena submit`` of a starter bot with ``token``: accepted, exit code 0 (over https
    trusting the site's certificate, as Python's ssl reads ``SSL_CERT_FILE``)."""
    import subprocess

    token_file = folder / "token"
    token_file.write_text(token + "\n", encoding="utf-8")
    bot = REPO_ROOT / "sample_bots" / "python_random"
    env = dict(os.environ)
    if served.cert is not None:
        env["SSL_CERT_FILE"] = str(served.cert)
    done = subprocess.run(
        arena("submit", str(bot), "--server", served.url, "--token-file", str(token_file),
              "--timeout", str(VALIDATION_MS // 1000), "--poll-interval", "0.5"),
        capture_output=True, text=True, timeout=VALIDATION_MS / 1000 + 60, check=False,
        env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr + served.site.log()[-3000:]
    assert "accepted" in done.stdout


#: How the viewer shows a card its visitor may not see.
HIDDEN = "??"


def _watch_a_hand(visitor: Visitor) -> None:
    """The viewer page drawn by the report's script: open the first hand, step to its end."""
    page = visitor.page
    page.wait_for_selector("body[data-ready]", state="attached")
    hands = page.locator("#hands tbody tr")
    assert hands.count() > 0
    page.locator("#hands tbody tr a").first.click()
    sync_api.expect(page.locator("#viewer")).to_be_visible()  # drawn on the hash change
    page.keyboard.press("End")
    sync_api.expect(page.locator("#viewer-result")).to_have_text(re.compile(r"\S"))
    visitor.check_clean()


def _hole_cards_of_a_folded_hand(visitor: Visitor) -> list[str]:
    """The cards on the viewer's table at the first step of the first hand won by a fold."""
    page = visitor.page
    page.wait_for_selector("body[data-ready]", state="attached")
    row = page.locator("#hands tbody tr", has_text="others folded").first
    hand = row.get_attribute("data-hand")
    row.locator("a").first.click()
    sync_api.expect(page.locator("#viewer h2")).to_have_text(f"Hand {hand}")
    page.keyboard.press("Home")
    sync_api.expect(page.locator("#viewer-counter")).to_have_text(re.compile(r"^step 1 of "))
    cards: list[str] = page.locator("#viewer-table g.card").evaluate_all(
        "nodes => nodes.map(node => node.dataset.card)"
    )
    assert len(cards) == 4, cards  # two seats' hole cards, no board yet
    return cards


# In make test-long (with its PostgreSQL and https runs): make test has the participant's
# journey (test_participant.py), which goes through the same site, its sign-up, its
# validation and its viewer in Chromium; this one costs 15 s of CPU more.
@pytest.mark.slow
def test_a_team_signs_up_uploads_a_starter_bot_and_watches_it_accepted(
    browser: Any, tmp_path: Path
) -> None:
    _journey(browser, tmp_path, None)


@pytest.mark.slow
def test_the_same_journey_on_postgresql(
    browser: Any,
    tmp_path: Path,
    postgres_server: PostgresServer,  # noqa: F811
) -> None:
    for url in database_urls(postgres_server):
        assert url is not None
        _journey(browser, tmp_path, url)
        # The site kept its rows there: the administrator and the two teams' members.
        name = url.rsplit("/", 1)[1]
        with postgres_server.connect(name) as connection:
            users = connection.execute("SELECT username FROM auth_user ORDER BY username")
            assert [row[0] for row in users.fetchall()] == ["admin", "ann-1", "bob-1"]


@pytest.mark.slow
def test_the_same_journey_through_nginx_over_https(browser: Any, tmp_path: Path) -> None:
    # The deployment docs/server.md shows: the site made --behind-tls, run with
    # --trusted-proxy, nginx ending TLS in front (tests/arena/server/browser/proxy.py).
    why = missing_tool()
    if why is not None:
        pytest.skip(why)
    _journey(browser, tmp_path, None, tls=True)
