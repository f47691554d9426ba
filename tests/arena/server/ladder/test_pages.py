"""The ladder's pages and API: ratings with their intervals and chances, each pair's
result raw and luck-adjusted, the site's leaderboard fed by the ladder, a version's page
(faults with their reasons, the promotion test's chart) for its team only, the forms
(promotion test, test games rate-limited, auto-activation)."""

from __future__ import annotations

import gzip
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import timezone

from arena.ladder.matchmaking import GameKind
from arena.server.ladder import config, views
from arena.server.ladder.fitting import refresh_ratings
from arena.server.ladder.models import (
    Game,
    GameStatus,
    LadderTeamSettings,
    PromotionTest,
    UnrankedRequest,
)
from arena.server.site.models import BotVersion, LeaderboardRow, Team
from arena.server.site.views import pages
from tests import REPO_ROOT
from tests.arena.server.factories import PASSWORD, make_team, make_token
from tests.arena.server.ladder.conftest import accepted


def _played(
    first: BotVersion, second: BotVersion, adjusted: float, raw: float, **fields: object
) -> Game:
    values: dict[str, object] = {"kind": "uncertainty", "seed": "7", "deals": 4,
                                 "status": GameStatus.DONE, "hand_count": 8, **fields}  # fmt: skip
    return Game.objects.create(first=first, second=second, adjusted_mbb=adjusted, raw_mbb=raw,
                               **values)  # fmt: skip


@pytest.fixture
def three(small_ladder: None) -> dict[str, BotVersion]:
    """Three teams' active versions with a few games played."""
    versions = {
        name: accepted(make_team(name), b"x" + name.encode()) for name in ("ants", "bees", "cats")
    }
    ants, bees, cats = versions["ants"], versions["bees"], versions["cats"]
    for adjusted in (300.0, 250.0, 280.0):
        _played(ants, bees, adjusted, adjusted + 100.0)
        _played(bees, cats, adjusted / 3, adjusted / 3 - 50.0)
    _played(cats, ants, 750.0, 750.0, status=GameStatus.BOT_FAULT, second_at_fault=True,
            end_reason="ants-v1 did not start: it forfeits the game")  # fmt: skip
    refresh_ratings()
    return versions


def _client(name: str) -> Client:
    client = Client()
    assert client.login(username=f"{name}-1", password=PASSWORD)
    return client


def test_the_ladder_shows_ratings_chances_and_pairs_raw_and_adjusted(
    three: dict[str, BotVersion],
) -> None:
    data = Client().get("/api/v1/ladder/").json()
    assert sorted(row["bot"] for row in data["ratings"]) == ["ants-v1", "bees-v1", "cats-v1"]
    assert [row["place"] for row in data["ratings"]] == [1, 2, 3]
    first = data["ratings"][0]
    assert (
        first["low"] < first["rating"] < first["high"] and 0.5 <= first["chance_above_next"] <= 1.0
    )
    (pair,) = [p for p in data["pairs"] if (p["first"], p["second"]) == ("ants-v1", "bees-v1")]
    assert pair["games"] == 3 and pair["adjusted"] == pytest.approx(276.7, abs=0.1)
    assert pair["raw"] == pytest.approx(376.7, abs=0.1) and pair["luck"] == pytest.approx(100.0)
    page = Client().get("/ladder/").content.decode()
    assert "bees-v1" in page and "above next" in page
    # The head-to-head grid of the best rated versions, read from the same running sums.
    grid = data["grid"]
    assert grid["played"] and grid["bots"] == [row["bot"] for row in data["ratings"]]
    ants, bees = grid["bots"].index("ants-v1"), grid["bots"].index("bees-v1")
    cell = grid["rows"][ants]["cells"][bees]
    assert (cell["games"], cell["adjusted"], cell["raw"]) == (3, 276.7, 376.7)
    assert grid["rows"][bees]["cells"][ants]["adjusted"] == -276.7
    assert grid["kind"] in page
    # The site's leaderboard reads the ladder's ratings (its "ladder" board), named as
    # ratings, in their order (issue 32: they were headed "mbb/hand", read as raw).
    front = Client().get("/").content.decode()
    assert "<th>rating (luck-adjusted mbb/hand against the field)</th>" in front
    board = Client().get("/api/v1/leaderboard/").json()["boards"]["ladder"]
    assert {row["kind"] for row in board} == {"rating"}
    assert [row["name"] for row in board] == [row["bot"] for row in data["ratings"]]
    assert [r["mbb_per_hand"] for r in board] == sorted(
        (r["mbb_per_hand"] for r in board), reverse=True
    )


def test_another_team_sees_no_private_data(three: dict[str, BotVersion]) -> None:
    ants = three["ants"]
    own = _client("ants").get(f"/ladder/versions/{ants.pk}/")
    assert own.status_code == 200
    assert "ants-v1 did not start: it forfeits the game" in own.content.decode()
    bees = _client("bees")
    assert bees.get(f"/ladder/versions/{ants.pk}/").status_code == 404
    assert bees.post(f"/ladder/versions/{ants.pk}/promotion/").status_code == 404
    assert (
        bees.post(f"/ladder/versions/{ants.pk}/settings/", {"auto_activate": "on"}).status_code
        == 404
    )
    assert Client().get(f"/ladder/versions/{ants.pk}/").status_code == 404
    api = f"/api/v1/ladder/versions/{ants.pk}/"
    assert bees.get(api).status_code == 404
    token = make_token(Team.objects.get(name="bees"))
    assert Client().get(api, HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 404
    mine = Client().get(api, HTTP_AUTHORIZATION=f"Bearer {make_token(ants.team)}").json()
    forfeits = [game for game in mine["games"] if game["at_fault"]]
    assert [game["adjusted_mbb"] for game in forfeits] == [-750.0]
    # The deck seed would deal every card the hand histories hide: never published
    # under the default visibility (see test_hidden_cards).
    assert "did not start" in forfeits[0]["reason"] and forfeits[0]["seed"] is None


def test_a_promotion_test_is_asked_for_and_drawn(three: dict[str, BotVersion]) -> None:
    team = Team.objects.get(name="ants")
    candidate = accepted(team, b"newer", active=False)
    client = _client("ants")
    assert client.post(f"/ladder/versions/{candidate.pk}/promotion/").status_code == 302
    assert (
        client.post(
            f"/ladder/versions/{candidate.pk}/settings/", {"auto_activate": "on"}
        ).status_code
        == 302
    )
    assert LadderTeamSettings.of(team).auto_activate
    (test,) = PromotionTest.objects.all()
    assert test.candidate == candidate and test.incumbent == three["ants"]
    PromotionTest.objects.filter(pk=test.pk).update(
        llr_history=[[1, 0.4], [2, 1.1]], lower_bound=-2.94, upper_bound=2.94, game_count=2
    )
    page = client.get(f"/ladder/versions/{candidate.pk}/").content.decode()
    assert "<svg" in page and "<polyline" in page and "better 2.94" in page


def test_test_games_are_rate_limited_per_team(three: dict[str, BotVersion]) -> None:
    client = _client("ants")
    url = f"/ladder/versions/{three['ants'].pk}/test-games/"
    opponent = three["bees"].pk
    assert client.post(url, {"opponent": opponent, "games": 5}).status_code == 302
    assert client.post(url, {"opponent": opponent, "games": 5}).status_code == 302
    refused = client.post(url, {"opponent": opponent, "games": 1})
    assert refused.status_code == 429 and "at most 10 test games" in refused.content.decode()
    assert client.post(url, {"opponent": opponent, "games": 6}).status_code == 400
    assert client.post(url, {"opponent": "x"}).status_code == 400
    assert sum(UnrankedRequest.objects.values_list("games_left", flat=True)) == 10


def test_test_games_started_count_in_the_window_as_matchmaking_counts_them(
    three: dict[str, BotVersion],
) -> None:
    # The form asks the matchmaking's rule: games started within the window count (here
    # nine), one started a whole window ago has left it, requests waiting count too.
    team = Team.objects.get(name="ants")
    ants, bees = three["ants"], three["bees"]
    window = config.current().test_window_s
    for age in [60.0] * 9 + [window + 60.0]:
        game = Game.objects.create(kind=GameKind.TEST, first=ants, second=bees, seed="1",
                                   deals=4, requested_by=team)  # fmt: skip
        Game.objects.filter(pk=game.pk).update(created=timezone.now() - timedelta(seconds=age))
    client = _client("ants")
    url = f"/ladder/versions/{ants.pk}/test-games/"
    refused = client.post(url, {"opponent": bees.pk, "games": 2})
    assert refused.status_code == 429 and "(9 started, 0 waiting)" in refused.content.decode()
    assert client.post(url, {"opponent": bees.pk, "games": 1}).status_code == 302
    assert client.post(url, {"opponent": bees.pk, "games": 1}).status_code == 429


def _set_visibility(value: str) -> None:
    from arena.server.site.models import SiteSettings

    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": value})


def test_the_seed_is_published_only_under_visibility_everything(
    three: dict[str, BotVersion],
) -> None:
    # Where every card is shown anyway the seed hides nothing: the two teams that played
    # may check their deals; under any other visibility it would deal the hidden cards.
    ants = three["ants"]
    client = _client("ants")
    for visibility, seed in (("showdowns", None), ("nothing", None), ("everything", "7")):
        _set_visibility(visibility)
        games = client.get(f"/api/v1/ladder/versions/{ants.pk}/").json()["games"]
        assert {game["seed"] for game in games} == {seed}
        page = client.get(f"/ladder/versions/{ants.pk}/").content.decode()
        assert ("(kept secret)" in page) is (seed is None)


def test_visibility_nothing_hides_every_pair_s_games_from_the_public_ladder(
    three: dict[str, BotVersion],
) -> None:
    _set_visibility("nothing")
    data = Client().get("/api/v1/ladder/").json()
    # The ratings stay (the ladder's point); no pair's games, hands or results.
    assert len(data["ratings"]) == 3
    assert data["pairs"] == [] and data["tables"] == [] and not data["grid"]["played"]
    assert "ants-v1" not in str(data["pairs"]) and "hands" not in str(data["pairs"])
    page = Client().get("/ladder/").content.decode()
    assert "376.7" not in page  # the ants-bees pair's raw result


def test_the_version_page_shows_no_text_from_its_link(three: dict[str, BotVersion]) -> None:
    # A link with ?message= would let anyone put their words on a team's own page.
    ants = three["ants"]
    client = _client("ants")
    page = client.get(f"/ladder/versions/{ants.pk}/?message=call+us+at+555").content.decode()
    assert "call us at 555" not in page
    # The site's own messages arrive through Django's messages, once.
    response = client.post(f"/ladder/versions/{ants.pk}/settings/", {"auto_activate": "on"})
    assert response.status_code == 302 and "?" not in response["Location"]
    assert "settings saved" in client.get(response["Location"]).content.decode()
    assert "settings saved" not in client.get(response["Location"]).content.decode()


def test_a_promotion_test_says_no_games_yet_and_never_an_infinite_ratio_as_a_number(
    three: dict[str, BotVersion],
) -> None:
    # Issue 32: "log-likelihood ratio -1000000.00" after games that all ended 0.0, and
    # "bounds 0.00 and 0.00" before the first game.
    team = Team.objects.get(name="ants")
    candidate = accepted(team, b"newer", active=False)
    client = _client("ants")
    client.post(f"/ladder/versions/{candidate.pk}/promotion/")
    page = client.get(f"/ladder/versions/{candidate.pk}/").content.decode()
    assert "<strong>running</strong>,\nno games yet." in page
    assert "bounds" not in page and "<svg" not in page
    PromotionTest.objects.update(status="not_better", game_count=3, llr=-1e6,
                                 lower_bound=-2.94, upper_bound=2.94,
                                 llr_history=[[3, -1e6]])  # fmt: skip
    page = client.get(f"/ladder/versions/{candidate.pk}/").content.decode()
    assert "<strong>not better</strong>,\nafter 3 games, every one with the same result" in page
    assert "1000000" not in page.split("<svg")[0]
    PromotionTest.objects.update(game_count=1, llr=0.5, status="running")
    page = client.get(f"/ladder/versions/{candidate.pk}/").content.decode()
    assert "after 1 game (log-likelihood ratio 0.50, bounds -2.94 and 2.94)" in page


def test_the_version_page_fits_a_1280_pixel_window_with_a_long_seed(
    three: dict[str, BotVersion], tmp_path: Path
) -> None:
    # Issue 32: 78-digit seeds in a column made the page 1,641 px wide.
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.arena.report.test_report_in_chromium import CHROMIUM as chromium

    if chromium is None:
        pytest.skip("no Chromium found (apt-get install chromium)")
    Game.objects.update(seed="7" * 78)
    _set_visibility("everything")  # the only visibility under which a team sees a seed
    html = _client("ants").get(f"/ladder/versions/{three['ants'].pk}/").content.decode()
    assert "7" * 78 in html
    style = (REPO_ROOT / "arena/server/site/static/arena/site.css").read_text(encoding="utf-8")
    html = re.sub(r'<link rel="stylesheet"[^>]*>', f"<style>{style}</style>", html)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_content(html)
            width = page.evaluate("document.documentElement.scrollWidth")
        finally:
            browser.close()
    assert width <= 1280


def test_the_ladder_comes_a_page_at_a_time_and_a_team_finds_its_own_rows(
    three: dict[str, BotVersion], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(views, "RATINGS_PER_PAGE", 2)
    whole = Client().get("/api/v1/ladder/").json()
    assert (whole["page"], whole["pages"], whole["rated"], whole["per_page"]) == (1, 2, 3, 2)
    second = Client().get("/api/v1/ladder/?page=2").json()
    assert [row["place"] for row in whole["ratings"] + second["ratings"]] == [1, 2, 3]
    # The team's own version is on one of the pages, and the page says which.
    mine = _client("cats").get("/api/v1/ladder/").json()
    place = next(row["place"] for row in mine["ratings"] + second["ratings"]
                 if row["bot"] == "cats-v1")  # fmt: skip
    assert mine["my_pages"] == [1 + (place - 1) // 2]
    page = _client("cats").get("/ladder/?page=2").content.decode()
    assert 'rel="prev"' in page and "your team's rows" in page
    # A page that is not there, or not a number: 404 naming it.
    missing = Client().get("/api/v1/ladder/?page=3")
    assert missing.status_code == 404 and "page 3" in missing.json()["error"]
    bad = Client().get("/ladder/?page=two")
    assert bad.status_code == 404 and "'two'" in bad.content.decode()


def test_the_leaderboard_comes_a_page_at_a_time(
    three: dict[str, BotVersion], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "BOARD_ROWS_PER_PAGE", 2)
    first, second = Client().get("/"), Client().get("/?page=2")
    bots = [f"{name}-v1" for name in ("ants", "bees", "cats")]
    assert sum(bot in first.content.decode() for bot in bots) == 2
    assert sum(bot in second.content.decode() for bot in bots) == 1
    assert 'rel="next"' in first.content.decode()
    for wrong in ("0", "x"):
        refused = Client().get(f"/?page={wrong}")
        assert refused.status_code == 400 and repr(wrong) in refused.content.decode()


def test_the_ladder_s_tables_are_drawn_once_per_fit_page_and_team(
    three: dict[str, BotVersion], monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[str] = []
    real = render_to_string

    def counted(name: str, *args: Any, **kwargs: Any) -> str:
        drawn.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(views, "render_to_string", counted)
    monkeypatch.setattr(views, "_DRAWN", {})
    first, again = Client().get("/ladder/"), Client().get("/ladder/")
    assert first.content == again.content and len(drawn) == 1
    _client("ants").get("/ladder/")  # a team's own rows are marked: its own tables
    assert len(drawn) == 2
    refresh_ratings(timezone.now() + timedelta(seconds=10))  # a new fit: drawn again
    Client().get("/ladder/")
    assert len(drawn) == 3 and len(views._DRAWN) == 1  # the old fit's let go
    monkeypatch.setattr(views, "_DRAWN_MOST", 1)
    _client("bees").get("/ladder/")  # past the most kept: the others let go
    assert len(drawn) == 4 and len(views._DRAWN) == 1


# The pages as kept (arena.server.site.drawn_pages): a kept answer is drawn again once what
# it was drawn from changes, it is kept per reader's team, and a logged-in user's page is
# never kept.


def test_a_kept_ladder_page_is_drawn_again_when_the_fit_changes(
    three: dict[str, BotVersion],
) -> None:
    first, again = Client().get("/ladder/"), Client().get("/ladder/")
    assert first.content == again.content and first["ETag"] == again["ETag"]
    current = Client().get("/ladder/", headers={"If-None-Match": first["ETag"]})
    assert current.status_code == 304 and current.content == b""
    api = Client().get("/api/v1/ladder/").json()
    # A new game and a new fit: the kept page is not what the reader gets any more.
    _played(three["ants"], three["cats"], 90.0, 90.0)
    refresh_ratings(timezone.now() + timedelta(seconds=10))
    after = Client().get("/ladder/")
    assert after["ETag"] != first["ETag"]
    assert f"{api['games_played'] + 1} games played" in after.content.decode()
    fresh = Client().get("/api/v1/ladder/").json()
    assert fresh["games_played"] == api["games_played"] + 1 and fresh["fitted"] != api["fitted"]
    stale = Client().get("/ladder/", headers={"If-None-Match": first["ETag"]})
    assert stale.status_code == 200


def test_a_kept_ladder_page_counts_the_games_in_flight_now(three: dict[str, BotVersion]) -> None:
    assert "0 in flight" in Client().get("/ladder/").content.decode()
    assert Client().get("/api/v1/ladder/").json()["in_flight"] == 0
    Game.objects.create(first=three["ants"], second=three["bees"], kind="uncertainty",
                        seed="8", deals=4, status=GameStatus.QUEUED)  # fmt: skip
    assert "1 in flight" in Client().get("/ladder/").content.decode()
    assert Client().get("/api/v1/ladder/").json()["in_flight"] == 1


def test_a_kept_ladder_hides_the_games_at_once_when_the_visibility_becomes_nothing(
    three: dict[str, BotVersion],
) -> None:
    # Redaction stays at the source: the visibility is in every kept answer's key.
    assert Client().get("/api/v1/ladder/").json()["pairs"]
    assert "376.7" in Client().get("/ladder/").content.decode()
    _set_visibility("nothing")
    assert Client().get("/api/v1/ladder/").json()["pairs"] == []
    assert "376.7" not in Client().get("/ladder/").content.decode()


def test_one_team_never_gets_another_team_s_kept_ladder(three: dict[str, BotVersion]) -> None:
    readers = {name: Client(headers={"Authorization": f"Bearer {make_token(three[name].team)}"})
               for name in ("ants", "bees")}  # fmt: skip
    for _ in range(2):  # the second time from what was kept
        public = Client().get("/api/v1/ladder/")
        assert not any(row["is_mine"] for row in public.json()["ratings"])
        assert public["Cache-Control"] == "public, no-cache"
        for name, reader in readers.items():
            answer = reader.get("/api/v1/ladder/")
            mine = [row["bot"] for row in answer.json()["ratings"] if row["is_mine"]]
            assert mine == [f"{name}-v1"] and answer["Cache-Control"] == "private, no-cache"
            page = reader.get("/ladder/").content.decode()
            assert re.findall(r"<mark><a [^>]*>([^<]*)</a></mark>", page) == [f"{name}-v1"]
    assert "<mark>" not in Client().get("/ladder/").content.decode()


def test_a_logged_in_user_s_page_is_never_kept(three: dict[str, BotVersion]) -> None:
    # It holds the user's name and the log-out form's CSRF token: drawn for them each time.
    for name in ("ants", "bees"):
        for path in ("/ladder/", "/"):
            page = _client(name).get(path)
            assert f"Log out {name}-1" in page.content.decode() and "ETag" not in page
    anonymous = Client().get("/ladder/").content.decode()
    assert "csrfmiddlewaretoken" not in anonymous and "Log out" not in anonymous


def test_a_kept_leaderboard_is_drawn_again_when_its_rows_change(
    three: dict[str, BotVersion],
) -> None:
    first = Client().get("/")
    assert Client().get("/")["ETag"] == first["ETag"]
    row = LeaderboardRow.objects.create(board="spring open", position=1, name="ants-v1",
                                        team=three["ants"].team, mbb_per_hand=123.4)  # fmt: skip
    added = Client().get("/")
    assert "spring open" in added.content.decode() and "123.4" in added.content.decode()
    row.mbb_per_hand = 567.8
    row.save()  # the same rows, one changed
    assert "567.8" in Client().get("/").content.decode()
    row.delete()
    assert "spring open" not in Client().get("/").content.decode()


def test_a_kept_page_is_sent_gzipped_to_a_reader_who_takes_gzip(
    three: dict[str, BotVersion],
) -> None:
    plain = Client().get("/api/v1/ladder/")
    packed = Client().get("/api/v1/ladder/", headers={"Accept-Encoding": "gzip, br"})
    assert "Content-Encoding" not in plain and packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content) == plain.content
    assert "Accept-Encoding" in packed["Vary"] and packed["ETag"] == plain["ETag"]
    refused = Client().get("/api/v1/ladder/", headers={"Accept-Encoding": "gzip;q=0"})
    assert refused.content == plain.content


def test_before_the_first_fit_the_ladder_is_drawn_for_each_reader_and_not_kept(
    small_ladder: None,
) -> None:
    # No fit yet: what the page shows (the sums) is not stamped by a fit time to key on.
    page, api = Client().get("/ladder/"), Client().get("/api/v1/ladder/")
    assert "(none yet)" in page.content.decode() and api.json()["fitted"] is None
    assert "ETag" not in page and "ETag" not in api


def test_a_kept_ladder_s_page_past_the_last_or_not_a_number_is_404(
    three: dict[str, BotVersion],
) -> None:
    for path in ("/ladder/?page=9", "/api/v1/ladder/?page=9", "/api/v1/ladder/?page=two"):
        missing = Client().get(path)
        assert missing.status_code == 404 and "ETag" not in missing
    assert "'two'" in Client().get("/api/v1/ladder/?page=two").json()["error"]
    assert "page 9" in Client().get("/ladder/?page=9").content.decode()


def test_while_a_new_fit_is_read_the_last_one_is_shown_with_its_time_and_kept_as_its_own(
    three: dict[str, BotVersion],
) -> None:
    old = Client().get("/api/v1/ladder/").json()
    old_page = Client().get("/ladder/")
    refresh_ratings(timezone.now() + timedelta(seconds=10))
    # Another thread reading the new fit (the lock held): the readers get the last fit
    # read, named by its own time, and the pages kept for it, rather than wait.
    assert views._READING.acquire(blocking=False)
    try:
        meanwhile = Client().get("/api/v1/ladder/").json()
        assert meanwhile["fitted"] == old["fitted"]
        assert Client().get("/ladder/")["ETag"] == old_page["ETag"]
    finally:
        views._READING.release()
    assert Client().get("/api/v1/ladder/").json()["fitted"] != old["fitted"]
    assert Client().get("/ladder/")["ETag"] != old_page["ETag"]
