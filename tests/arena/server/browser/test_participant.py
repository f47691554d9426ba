"""A new participant's journey through a live site in headless Chromium, and axe-core's
accessibility check of every page it shows, then of every other page of the site.

The site is real (``arena server init`` and ``arena server run``: waitress, a validation
worker and a ladder worker, see :mod:`tests.arena.server.browser.live`), with short
validation matches and short ladder games. A participant, as a person would:

1. reads the competition's overview and downloads a starter bot from it;
2. signs up, makes a team and an API token;
3. changes the starter (a bot that folds to every bet, and crashes once in a ladder game,
   writing a line of its own to its stderr) and submits it with ``arena submit``, the real
   command in a subprocess: the server's upload limits pass, it is accepted and plays by
   itself; submitting the same folder again is recognised, not validated again;
4. sees it play on the ladder without a click (the ladder worker plays it against another
   team's bot, which crashes once too, writing its own line);
5. sees its own fault's reason and hand and its own stderr, and never the other team's
   (nor does the other team see its);
6. opens a game it lost and that game's match, and its hands in the viewer;
7. sees its rating history (the chart on the version's ladder page), downloads its hands
   (the match's PHH download and every game of the version in one) and its lost games in
   its match history.

Each page is photographed into a folder for review (``ARENA_SCREENSHOTS``, else the test's
temporary folder; the test prints which) and checked by axe-core: no serious or critical
violation on any page. In the slow run, after the journey, on the same site and in the same
browser, every other page of the site is shown and checked too (:mod:`every_page`: team
management, the finals played and their report, the administrator's pages, a closed sign-up,
a one-time password link...), and every URL pattern of the site is then either a page that
was checked or named as no page of its own (an API answer, a download, a POST), with why.
The journey runs against SQLite in the default suite; the journey and every other page
against a real PostgreSQL in the slow run (the other pages cost about 25 s of CPU more).
"""

from __future__ import annotations

import json
import re
import subprocess
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.arena.server.browser.live import LiveSite, arena, competition, live_site
from tests.postgres import PostgresServer, database_urls, postgres_server  # noqa: F401

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright)"
)

from tests.arena.server.browser.chromium import (  # noqa: E402
    CHROMIUM,
    PASSWORD,
    Camera,
    Visitor,
    new_visitor,
)
from tests.arena.server.browser.every_page import (  # noqa: E402
    Cast,
    unvisited,
    visit_every_other_page,
)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium found (apt-get install chromium, or set ARENA_CHROMIUM to its path)",
)

#: Hands of a validation match, and deals of a ladder game (each played twice, seats
#: swapped): a ladder game is longer, so a bot can tell the two apart by ``hand_count``.
VALIDATION_HANDS = 6
LADDER_DEALS = 8
#: The ladder's pace (games an hour) in the journey, and in the slow run's every-page tour.
LADDER_GAMES_PER_HOUR = "120"
LADDER_GAMES_PER_HOUR_EVERY_PAGE = "720"
#: The hand at whose start each team's bot crashes, once, in a ladder match.
CRASH_AT_HAND = 3
#: The longest wait for a verdict or a ladder game on a loaded machine.
WAIT_S = 240.0

#: What each team's bot writes to its stderr when it crashes: each team reads its own only.
ANN_STDERR = "ann's own stderr: giving up at hand"
BOB_STDERR = "bob's secret stderr: never shown to ann"

#: A bot that checks when it can and else folds (with ``CALLS`` it calls instead), and in a
#: match longer than a validation's dies at the start of hand CRASH_AT_HAND, saying so.
_BOT = """import json, sys
crash = False
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        crash = (message["game"].get("hand_count") or 0) > VALIDATION_HANDS
    if kind == "hand_start" and crash and message["hand_number"] == CRASH_AT_HAND:
        sys.stderr.write("STDERR " + str(CRASH_AT_HAND) + "\\n")
        sys.stderr.flush()
        sys.exit(3)
    if kind == "hello":
        reply = {"type": "ready", "name": "journey", "protocol_version": 1}
    elif kind == "act":
        legal = message["legal_actions"]
        reply = {"type": "action", "action": next(a for a in ORDER if a in legal)}
    elif kind == "draw":
        reply = {"type": "discard", "cards": []}
    elif kind == "match_end":
        break
    else:
        continue
    reply["seq"] = message["seq"]
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""


def bot_program(stderr: str, *, calls: bool) -> str:
    """The bot's ``bot.py``: a folder (``calls`` False) or a caller, writing ``stderr``."""
    order = ("CHECK", "CALL", "FOLD") if calls else ("CHECK", "FOLD")
    return (
        _BOT.replace("VALIDATION_HANDS", str(VALIDATION_HANDS))
        .replace("CRASH_AT_HAND", str(CRASH_AT_HAND))
        .replace("STDERR", json.dumps(stderr)[1:-1])
        .replace("ORDER", repr(order))
    )


def _submit(site: LiveSite, folder: Path, token: str, work: Path) -> str:
    """``arena submit FOLDER`` with ``token``, as a participant runs it; its output."""
    token_file = work / f"token-{folder.name}"
    token_file.write_text(token + "\n", encoding="utf-8")
    done = subprocess.run(
        arena("submit", str(folder), "--server", site.url, "--token-file", str(token_file),
              "--timeout", str(WAIT_S), "--poll-interval", "0.5"),
        capture_output=True, text=True, timeout=WAIT_S + 60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr + site.log()[-3000:]
    return done.stdout


def _version_id(submitted: str) -> int:
    found = re.search(r"/versions/(\d+)/", submitted)
    assert found, submitted
    return int(found.group(1))


def _ladder_games(visitor: Visitor, version_id: int, token: str) -> list[dict[str, Any]]:
    answer = visitor.api(f"api/v1/ladder/versions/{version_id}/", token)
    assert answer.status == 200, answer.text()
    games: list[dict[str, Any]] = answer.json()["games"]
    return games


def _until_a_game_with_own_faults(
    visitor: Visitor, version_id: int, token: str, site: LiveSite
) -> list[dict[str, Any]]:
    """The version's ladder games once one is done with its own faults' details (the
    ladder worker plays by itself: nobody clicks anything)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        games = _ladder_games(visitor, version_id, token)
        if any(game["status"] == "done" and game["fault_details"] for game in games):
            return games
        time.sleep(1.0)
    raise AssertionError(f"no ladder game in {WAIT_S:.0f} s: {site.log()[-3000:]}")


def participant_journey(
    browser: Any, tmp_path: Path, database: str | None, *, every_page: bool
) -> Camera:
    """The journey of the module docstring on a new site; the camera that photographed
    and checked every page it showed. ``every_page``: then also every other page the site
    has, the administrator's too (about 25 s of CPU more: make test-long does it)."""
    camera = Camera.for_test(tmp_path, "participant" if database is None else "participant-pg")
    # The journey needs one ladder game: the first (played once both versions are active)
    # has both faults, is lost by ann's bot and is followed by the ratings' fit its history
    # shows. More only take the cores from the browser while the pages are read (a game
    # every 5 s played seven to ten in the journey: 2 to 3 s of CPU more). The slow run,
    # which then tours every other page of the site, keeps a game every 5 s.
    environment = {
        "ARENA_LADDER": json.dumps({"deals": LADDER_DEALS}),
        "ARENA_SERVER_LADDER_GAMES_PER_HOUR": LADDER_GAMES_PER_HOUR_EVERY_PAGE
        if every_page
        else LADDER_GAMES_PER_HOUR,
    }
    # One match at a time on the ladder worker's pool: a game is two short matches, and a
    # second pool worker is one more interpreter and referee zygote to start (0.5 s of CPU).
    rules = f"concurrency = 1\n{competition(VALIDATION_HANDS)}"
    with live_site(tmp_path / "live", competition=rules,
                   database=database, environment=environment) as site:  # fmt: skip
        ann = new_visitor(browser, site.url)

        # 1. The overview: the rules a bot plays under, and a starter bot to download.
        ann.go("overview/")
        assert ann.page.locator("#rules tbody tr").count() >= 5
        camera.shoot(ann, "overview")
        with ann.page.expect_download() as download_info:
            ann.page.locator("#starters a", has_text="python_random").click()
        starter = tmp_path / "python_random.tar.gz"
        download_info.value.save_as(starter)
        mine = tmp_path / "my_bot"
        with tarfile.open(starter) as archive:
            archive.extractall(mine, filter="data")
        assert (mine / "bot.toml").is_file() and (mine / "bot.py").is_file()

        # 2. An account, a team and a token.
        ann.go("signup/")
        camera.shoot(ann, "sign up")
        ann.sign_up_with_team("ann-1", "ann")
        camera.shoot(ann, "my team")
        token = ann.make_token("laptop")
        camera.shoot(ann, "API tokens")

        # Another team enters a bot of its own (through its own browser and `arena submit`).
        bob = new_visitor(browser, site.url)
        bob.sign_up_with_team("bob-1", "bob")
        bob_token = bob.make_token("laptop")
        theirs = tmp_path / "bob_bot"
        theirs.mkdir()
        (theirs / "bot.toml").write_text('name = "bob"\ncommand = ["{python}", "bot.py"]\n')
        (theirs / "bot.py").write_text(bot_program(BOB_STDERR, calls=True))
        bob_version = _version_id(_submit(site, theirs, bob_token, tmp_path))

        # 3. The starter changed, submitted with `arena submit`: accepted, and it plays.
        (mine / "bot.py").write_text(bot_program(ANN_STDERR, calls=False))
        submitted = _submit(site, mine, token, tmp_path)
        assert "not sent" not in submitted  # within the server's upload limits
        assert "accepted" in submitted.splitlines()
        assert "plays now: version 1 plays on the ladder now" in submitted, submitted
        version_id = _version_id(submitted)
        again = _submit(site, mine, token, tmp_path)
        assert "identical to version 1" in again and "not validated again" in again, again
        ann.go(f"versions/{version_id}/")
        sync_api.expect(ann.page.locator("#status")).to_have_text("accepted")
        camera.shoot(ann, "version (validation)")

        # 4. It plays without a click: the ladder worker plays it against bob's.
        games = _until_a_game_with_own_faults(ann, version_id, token, site)
        ann.page.click("text=This version on the ladder")
        ann.page.wait_for_url(re.compile(rf"/ladder/versions/{version_id}/$"))
        assert ann.page.locator("#games tbody tr").count() >= 1

        # 5. Its own fault: the reason, the hand, its own stderr; never bob's.
        faults = ann.page.locator("#faults")
        sync_api.expect(faults).to_contain_text(f"at hand {CRASH_AT_HAND}")
        ann.page.locator("#faults details summary").first.click()
        sync_api.expect(ann.page.locator("#faults pre.stderr").first).to_contain_text(
            f"{ANN_STDERR} {CRASH_AT_HAND}"
        )
        camera.shoot(ann, "ladder version: games, faults and own stderr")
        assert BOB_STDERR not in ann.page.content()
        assert BOB_STDERR not in json.dumps(games)
        bob.go(f"ladder/versions/{bob_version}/")
        assert ANN_STDERR not in bob.page.content()
        sync_api.expect(bob.page.locator("#faults")).to_contain_text(BOB_STDERR)

        # 6. A game it lost, and that game's match.
        done = [game for game in games if game["status"] == "done" and game["matches"]]
        lost = min(done, key=lambda game: game["adjusted_mbb"])
        assert lost["adjusted_mbb"] < 0, done  # a bot that folds to every bet loses
        match_id = lost["matches"][0]
        ann.go(f"matches/{match_id}/")
        assert ann.page.locator("table tbody tr").count() == 2  # the two seats
        assert BOB_STDERR not in ann.page.content()
        camera.shoot(ann, "a lost game's match")
        ann.page.click("text=Watch the hands")
        ann.page.wait_for_selector("body[data-ready]", state="attached")
        assert BOB_STDERR not in ann.page.content()
        camera.shoot(ann, "the match's hands")

        # 7. Its rating history: the chart of its rating inside its interval (a point per
        # fit, the first at the first fit after its games), on the version's ladder page.
        ann.go(f"ladder/versions/{version_id}/")
        assert ann.page.locator("#games tbody tr").count() >= 1
        deadline = time.monotonic() + 60
        while not ann.page.locator("#rating-history svg").count():
            assert time.monotonic() < deadline, "no rating history a minute after its games"
            time.sleep(1)
            ann.go(f"ladder/versions/{version_id}/")
        sync_api.expect(ann.page.locator("#rating-history figcaption")).to_contain_text(
            re.compile(r"Now: -?[\d.]+ ± [\d.]+, place \d+ after \d+ games")
        )
        camera.shoot(ann, "rating history")
        # Its hands: the lost match's own download, and every game of the version in one
        # streamed download from the version's page (the other seat's cards hidden).
        hands = ann.page.request.get(f"{site.url}api/v1/matches/{match_id}/hands.phh")
        assert hands.status == 200
        assert "attachment" in hands.headers["content-disposition"]
        assert '"d dh p1 ' in hands.text() and "ann-v1" in hands.text(), hands.text()[:500]
        ann.go(f"versions/{version_id}/")
        with ann.page.expect_download() as bulk_info:
            ann.page.click("a.button:text('phh')")
        bulk = Path(bulk_info.value.path()).read_text()
        assert f"# match {match_id}" in bulk and '"d dh p1 ' in bulk, bulk[:500]
        camera.shoot(ann, "the version and its downloads")
        ann.go(f"versions/{version_id}/matches/?result=lost")
        assert ann.page.locator("table tbody tr").count() >= 1
        camera.shoot(ann, "match history, lost games")

        # Every other page a participant or a visitor opens.
        for path, what in (("", "leaderboard"), ("ladder/", "ladder"),
                           ("ladder/finals/", "finals"), ("protocol/", "protocol"),
                           ("upload/", "upload"), ("password/", "password change"),
                           ("team/", "team")):  # fmt: skip
            ann.go(path)
            camera.shoot(ann, what)
        teams = ann.api("api/v1/teams/", token).json()["teams"]
        ann.go(f"teams/{next(team['id'] for team in teams if team['name'] == 'bob')}/")
        camera.shoot(ann, "another team")
        visitor = new_visitor(browser, site.url)
        for path, what in (("login/", "log in"), ("", "leaderboard (visitor)"),
                           ("ladder/", "ladder (visitor)")):  # fmt: skip
            visitor.go(path)
            camera.shoot(visitor, what)
        # A new member before it has a team, and a change of password to its end.
        visitor.go("signup/")
        visitor.page.fill("#id_username", "carol-1")
        visitor.page.fill("#id_password1", PASSWORD)
        visitor.page.fill("#id_password2", PASSWORD)
        visitor.page.click("button:text('Sign up')")
        sync_api.expect(visitor.page.locator("h1")).to_have_text("Your team")
        camera.shoot(visitor, "a team to make or join")
        visitor.go("password/")
        visitor.page.fill("#id_old_password", PASSWORD)
        visitor.page.fill("#id_new_password1", PASSWORD + " changed")
        visitor.page.fill("#id_new_password2", PASSWORD + " changed")
        visitor.page.click("button:text('Set the password')")
        visitor.page.wait_for_url(re.compile(r"/password/changed/$"))
        camera.shoot(visitor, "password changed")
        for person in (ann, bob, visitor):
            person.check_clean()
        if every_page:  # every other page the site has, the administrator's too
            visit_every_other_page(browser, Cast(site, ann, visitor, version_id), camera)
    if every_page:  # each page of the site's URL patterns was shown and checked
        assert unvisited(camera.paths) == set()
    print(f"{len(camera.taken)} pages photographed in {camera.folder}")
    return camera


def test_a_new_participant_enters_from_the_command_line_and_sees_why_it_lost(
    browser: Any, tmp_path: Path
) -> None:
    camera = participant_journey(browser, tmp_path, None, every_page=False)
    # Every page the journey showed passes axe-core: no serious or critical violation.
    assert camera.failing_pages() == {}, json.dumps(camera.failing_pages(), indent=1)


@pytest.mark.slow
def test_the_participants_journey_on_postgresql(
    browser: Any,
    tmp_path: Path,
    postgres_server: PostgresServer,  # noqa: F811
) -> None:
    for url in database_urls(postgres_server):
        assert url is not None
        camera = participant_journey(browser, tmp_path, url, every_page=True)
        assert camera.failing_pages() == {}, json.dumps(camera.failing_pages(), indent=1)
