"""The ladder's running sums and its stored fit: each game counted once, the fit on the
sums refreshed at most every few seconds by one worker, matchmaking and the pages reading
the sums and the last fit (never the games), the rating history and its chart, and a
ladder of two identical bots that keeps playing."""

from __future__ import annotations

import dataclasses
import importlib
import logging
import math
from datetime import timedelta

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from arena.ladder.games import GameResult
from arena.ladder.matchmaking import candidate_pairs
from arena.ladder.sums import pair_sums as pure_pair_sums
from arena.server.ladder import config
from arena.server.ladder import state as ladder_state_module
from arena.server.ladder.fitting import (
    CADENCE,
    FIT_INTERVAL_S,
    may_be_due,
    refresh_if_due,
    refresh_ratings,
)
from arena.server.ladder.models import (
    Game,
    GameStatus,
    PairSumsRow,
    Rating,
    RatingFit,
    RatingPoint,
    VersionSumsRow,
    version_label,
)
from arena.server.ladder.state import ladder_state
from arena.server.ladder.sums import FitTimes, count_results, pair_columns, pair_sums
from arena.server.site.models import BotVersion, LeaderboardRow, Team
from tests.arena.server.factories import PASSWORD, make_team
from tests.arena.server.ladder.conftest import accepted, team_with

#: The migration that started the games-done counter (its name starts with a digit).
scale_migration = importlib.import_module("arena.server.ladder.migrations.0005_scale")


def _played(first: BotVersion, second: BotVersion, adjusted: float, **fields: object) -> Game:
    values: dict[str, object] = {"kind": "uncertainty", "seed": "7", "deals": 4,
                                 "status": GameStatus.DONE, "hand_count": 8, **fields}  # fmt: skip
    return Game.objects.create(first=first, second=second, adjusted_mbb=adjusted,
                               raw_mbb=adjusted + 10.0, **values)  # fmt: skip


@pytest.fixture
def pair(small_ladder: None) -> tuple[BotVersion, BotVersion]:
    return (
        accepted(make_team("ants"), b"ants"),
        accepted(make_team("bees"), b"bees"),
    )


def test_each_game_is_counted_once_and_the_sums_are_the_pure_ones(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    # Games stored either way round: the row keeps one side, the labels' order another.
    for first, second, score in ((ants, bees, 30.0), (bees, ants, 10.0), (ants, bees, -5.0)):
        _played(first, second, score)
    assert count_results() == 3
    assert count_results() == 0  # counted already: nothing added twice
    games = [
        GameResult(version_label(g.first), version_label(g.second), g.adjusted_mbb or 0.0,
                   g.raw_mbb or 0.0, g.hand_count)
        for g in Game.objects.order_by("pk")
    ]  # fmt: skip
    expected = pure_pair_sums(games)
    stored = pair_sums()
    assert stored.keys() == expected.keys()
    for key, sums in expected.items():
        assert stored[key].adjusted_estimate().mean == pytest.approx(sums.adjusted_estimate().mean)
        assert stored[key].mean == pytest.approx(sums.mean)
        assert stored[key].variance == pytest.approx(sums.variance)
        assert stored[key].raw_estimate().mean == pytest.approx(sums.raw_estimate().mean)
    versions = dict(VersionSumsRow.objects.values_list("version", "game_count"))
    assert versions == {ants.pk: 3, bees.pk: 3}
    # The fit's columns (on PostgreSQL read as binary arrays) hold the same sums.
    columns = pair_columns()
    assert len(columns.first) == len(expected)
    for k in range(len(columns.first)):
        key = tuple(sorted((columns.bots[columns.first[k]], columns.bots[columns.second[k]])))
        sign = 1.0 if columns.bots[columns.first[k]] == key[0] else -1.0
        assert sign * columns.mean[k] == pytest.approx(expected[key].mean)
        assert columns.variance[k] == pytest.approx(expected[key].variance)
    # The games done are counted as they are added: a fit copies the count.
    assert RatingFit.objects.get(pk=1).done_count == 3


def test_the_fit_reads_no_pair_from_an_empty_ladder_and_the_migration_counts_done_games(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    assert len(pair_columns().first) == 0
    ants, bees = pair
    _played(ants, bees, 10.0, counted=True)  # counted before the counter existed
    _played(ants, bees, 10.0, status=GameStatus.BOT_FAULT, counted=True)
    scale_migration.count_done(django_apps, None)
    assert RatingFit.objects.get(pk=1).done_count == 1


def test_unrated_and_infrastructure_games_are_marked_but_add_nothing(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    _played(ants, bees, 50.0, is_rated=False)
    _played(ants, bees, 50.0, status=GameStatus.FAILED_INFRASTRUCTURE)
    _played(ants, bees, 50.0, status=GameStatus.CLAIMED)  # in flight: not yet
    assert count_results() == 2
    assert not PairSumsRow.objects.exists() and not VersionSumsRow.objects.exists()
    assert Game.objects.filter(counted=False).count() == 1


def test_a_result_the_fit_cannot_use_is_logged_and_left_out(
    pair: tuple[BotVersion, BotVersion], caplog: pytest.LogCaptureFixture
) -> None:
    ants, bees = pair
    bad = _played(ants, bees, math.inf)
    _played(ants, bees, 20.0)
    with caplog.at_level(logging.WARNING, logger="arena.server.ladder.sums"):
        assert count_results() == 2
    assert f"game {bad.pk}: a result the fit cannot use" in caplog.text
    assert PairSumsRow.objects.get().game_count == 1
    # The version's last game still moves the floor's clock; its count holds results only.
    row = VersionSumsRow.objects.get(version=ants)
    assert (row.game_count, row.last_game) == (1, Game.objects.order_by("pk").last().pk)  # type: ignore[union-attr]
    refresh_ratings()  # and the fit goes on
    assert Rating.objects.count() == 2


def test_a_fit_writes_ratings_the_leaderboard_its_time_and_a_history_point(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    for score in (100.0, 120.0, 80.0):
        _played(ants, bees, score)
    now = timezone.now()
    standings = refresh_ratings(now)
    assert list(Rating.objects.values_list("version", flat=True)) == [ants.pk, bees.pk]
    top = Rating.objects.get(version=ants)
    assert top.strength == pytest.approx(standings.strength(version_label(ants)))
    assert top.game_count == 3 and top.covariances == [
        pytest.approx(standings.covariance(version_label(ants), version_label(bees)))
    ]
    assert LeaderboardRow.objects.filter(board="ladder").count() == 2
    fitted = RatingFit.objects.get()
    assert fitted.fitted == now and fitted.game_count == 3
    assert RatingPoint.objects.filter(version=ants).count() == 1
    # A fit a moment later writes no second point: the history keeps one per interval.
    refresh_ratings(now + timedelta(seconds=1))
    assert RatingPoint.objects.filter(version=ants).count() == 1


def test_a_fit_is_due_only_after_its_interval_and_only_one_worker_takes_it(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    _played(ants, bees, 40.0)
    now = timezone.now()
    assert refresh_if_due(now)
    # A fit as slow as a thousand versions' (1 s): the cadence's longest interval holds.
    RatingFit.objects.update(seconds=1.0)
    assert not refresh_if_due(now + timedelta(seconds=FIT_INTERVAL_S / 2))
    later = now + timedelta(seconds=FIT_INTERVAL_S)
    # Another worker is fitting (its claim still runs): this one goes back to playing.
    RatingFit.objects.update(claimed_until=later + timedelta(seconds=30))
    assert not refresh_if_due(later)
    RatingFit.objects.update(claimed_until=None)
    assert refresh_if_due(later)
    assert RatingFit.objects.get().fitted == later


def test_a_cheap_fit_comes_again_sooner_its_interval_following_its_last_duration(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    # The cadence's rule: the fit at most CADENCE.fit_share of the time, so a fit that
    # took 0.04 s is due again 2 s later (0.04 / 0.02), not after the longest interval.
    ants, bees = pair
    _played(ants, bees, 40.0)
    now = timezone.now()
    assert refresh_if_due(now)
    RatingFit.objects.update(seconds=0.04)
    interval = CADENCE.interval_s(0.04)
    assert interval == pytest.approx(2.0) and interval < FIT_INTERVAL_S
    assert not refresh_if_due(now + timedelta(seconds=interval - 0.1))
    assert refresh_if_due(now + timedelta(seconds=interval))
    # An interval given overrides the cadence's.
    then = now + timedelta(seconds=interval)
    assert not refresh_if_due(then + timedelta(seconds=interval), interval_s=FIT_INTERVAL_S)
    assert refresh_if_due(then + timedelta(seconds=FIT_INTERVAL_S), interval_s=FIT_INTERVAL_S)
    # may_be_due reads no duration: it lets through whatever the shortest interval allows.
    times = FitTimes(fitted=now, claimed_until=None)
    assert not may_be_due(times, now + timedelta(seconds=CADENCE.min_interval_s / 2))
    assert may_be_due(times, now + timedelta(seconds=CADENCE.min_interval_s))


def test_matchmaking_reads_the_same_queries_however_many_games_were_played(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    settings = config.current()

    def queries(partial: bool) -> int:
        count_results()
        refresh_ratings()
        with CaptureQueriesContext(connection) as captured:
            state = ladder_state(settings, partial=partial)
        if partial:  # every version placed: the versions the floor may owe a game alone
            assert state.is_partial and state.entrant_count == 2
            assert state.candidates is not None
            assert set(state.candidates.bots) == {"ants-v1", "bees-v1"}
        else:
            assert {entrant.bot for entrant in state.entrants} == {"ants-v1", "bees-v1"}
        return len(captured)

    _played(ants, bees, 10.0)
    few = {partial: queries(partial) for partial in (True, False)}
    for score in range(40):
        _played(bees, ants, float(score))
    # Constant work: the games are in the sums, the claim reads those and the fit.
    assert {partial: queries(partial) for partial in (True, False)} == few
    state = ladder_state(settings, partial=False)
    assert {e.bot: e.game_count for e in state.entrants} == {"ants-v1": 41, "bees-v1": 41}
    assert state.standings.order == ("bees-v1", "ants-v1")


def test_a_version_activated_since_the_last_fit_is_in_the_standings_at_zero(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    _played(ants, bees, 300.0)
    refresh_ratings()
    accepted(make_team("cats"), b"cats")
    standings = ladder_state(config.current()).standings
    assert standings.order == ("ants-v1", "cats-v1", "bees-v1")
    assert standings.strength("cats-v1") == 0.0


def test_the_version_page_draws_its_rating_history_and_the_ladder_marks_the_team(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    _played(ants, bees, 60.0)
    now = timezone.now()
    refresh_ratings(now - timedelta(hours=1))
    _played(ants, bees, 80.0)
    refresh_ratings(now)
    client = Client()
    assert client.login(username="ants-1", password=PASSWORD)
    page = client.get(reverse("ladder-version", args=[ants.pk])).content.decode()
    assert 'id="rating-history"' in page and "<polygon" in page and "<polyline" in page
    api = client.get(reverse("api-ladder-version", args=[ants.pk])).json()
    history = api["rating_history"]
    assert [point["games"] for point in history] == [1, 2]
    assert history[0]["low"] < history[0]["rating"] < history[0]["high"]
    # The caption reads the newest point (a list has no ``.last`` in a template: it printed
    # "Now: ± , place after games."), and every fit's point is drawn, a lone one included.
    last = history[-1]
    assert f"Now: {last['rating']} ± {last['plus_minus']}, place {last['place']} after 2" in page
    assert page.count("<circle") == 2
    ladder = client.get(reverse("ladder")).content.decode()
    assert ladder.count('class="mine"') == 1 and "(your team)" in ladder
    rows = client.get(reverse("api-ladder")).json()["ratings"]
    assert [row["is_mine"] for row in rows] == [True, False]
    assert Client().get(reverse("ladder")).content.decode().count('class="mine"') == 0


def test_the_history_ends_with_the_rating_now_between_two_recorded_points(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    # Points are recorded at most every few minutes; a fit a minute after a point records
    # none, yet the page's "now" must be that fit's rating, not the point's.
    ants, bees = pair
    _played(ants, bees, 60.0)
    now = timezone.now()
    refresh_ratings(now - timedelta(minutes=1))
    _played(ants, bees, 80.0)
    refresh_ratings(now)
    client = Client()
    assert client.login(username="ants-1", password=PASSWORD)
    history = client.get(reverse("api-ladder-version", args=[ants.pk])).json()["rating_history"]
    assert [point["games"] for point in history] == [1, 2]
    page = client.get(reverse("ladder-version", args=[ants.pk])).content.decode()
    assert "after 2 games" in page


def test_a_version_without_a_fit_says_it_has_no_rating_yet(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    client = Client()
    assert client.login(username="ants-1", password=PASSWORD)
    page = client.get(reverse("ladder-version", args=[pair[0].pk])).content.decode()
    assert "No rating yet" in page
    assert (
        client.get(reverse("api-ladder-version", args=[pair[0].pk])).json()["rating_history"] == []
    )


@pytest.mark.parametrize(
    # Twenty games in make test-long; in make test three, past the second, where it broke
    # (the twenty cost 7 s of CPU).
    "game_count",
    [3, pytest.param(20, marks=pytest.mark.slow)],
)
def test_two_identical_bots_play_games_and_stay_rated(small_ladder: None, game_count: int) -> None:
    # Two copies of the calling station score every game alike: the fit used to raise
    # "not positive definite" at the second game and kill the worker on every store.
    _team, first = team_with("ants", "station")
    _team, second = team_with("bees", "station")
    call_command("ladder_worker", "--games", str(game_count))
    games = Game.objects.filter(status=GameStatus.DONE)
    assert games.count() == game_count
    assert all(abs(game.adjusted_mbb or 0.0) < 1e-9 for game in games)  # alike, to rounding
    refresh_ratings()
    ratings = {row.version_id: row for row in Rating.objects.all()}
    assert set(ratings) == {first.pk, second.pk}
    for rating in ratings.values():
        assert rating.game_count == game_count
        assert rating.strength == pytest.approx(0.0, abs=1e-6)
        assert rating.low < rating.strength < rating.high


def test_the_ladder_reads_a_fits_rows_once_and_a_new_fit_at_once(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    _played(ants, bees, 60.0)
    refresh_ratings()
    client = Client()
    first = client.get(reverse("api-ladder")).json()
    with CaptureQueriesContext(connection) as again:
        assert client.get(reverse("api-ladder")).json() == first
    _played(bees, ants, 500.0)  # not in the page until a fit has it
    assert client.get(reverse("api-ladder")).json()["ratings"][0]["bot"] == "ants-v1"
    refresh_ratings(timezone.now() + timedelta(seconds=2))
    with CaptureQueriesContext(connection) as fresh:
        latest = client.get(reverse("api-ladder")).json()
    assert latest["ratings"][0]["bot"] == "bees-v1" and latest["fitted"] != first["fitted"]
    # The repeat read only the fit's time, the games in flight and the site's settings.
    assert len(again) < 5 < len(fresh)


def test_the_admin_shows_the_last_fit_and_lets_nobody_edit_it(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    from django.contrib.auth.models import User

    ants, bees = pair
    _played(ants, bees, 60.0)
    refresh_ratings()
    User.objects.create_superuser("boss", password=PASSWORD)
    staff = Client()
    assert staff.login(username="boss", password=PASSWORD)
    listing = staff.get("/admin/arena_ladder/ratingfit/")
    assert listing.status_code == 200 and "0 ratings fit" not in listing.content.decode()
    assert staff.get("/admin/arena_ladder/ratingfit/add/").status_code == 403
    page = staff.get("/admin/arena_ladder/ratingfit/1/change/").content.decode()
    assert 'name="_save"' not in page and "game sd" in page.lower()  # a view, nothing to save
    assert staff.post("/admin/arena_ladder/ratingfit/1/delete/").status_code == 403


def test_a_version_deactivated_since_the_fit_leaves_and_its_neighbours_keep_their_gap(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    cats = accepted(make_team("cats"), b"cats")
    for score in (200.0, 150.0):
        _played(ants, bees, score)
        _played(bees, cats, score)
    fitted = refresh_ratings()
    assert fitted.order == ("ants-v1", "bees-v1", "cats-v1")
    Team.objects.filter(pk=bees.team_id).update(active_version=None)
    standings = ladder_state(config.current()).standings
    assert standings.order == ("ants-v1", "cats-v1")
    # The covariance kept two places down still pairs ants with cats.
    assert standings.gap("ants-v1", "cats-v1") == pytest.approx(fitted.gap("ants-v1", "cats-v1"))


def test_a_claim_reads_the_fit_s_candidates_until_the_placed_versions_change(
    pair: tuple[BotVersion, BotVersion],
) -> None:
    ants, bees = pair
    cats = accepted(make_team("cats"), b"cats")
    settings = config.current()
    needed = settings.matchmaking().placement_games
    for score in range(needed):
        _played(ants, bees, float(score))
        _played(bees, cats, float(score) / 2)
        _played(ants, cats, 5.0)
    refresh_ratings()
    state = ladder_state(settings)  # every version placed: a partial state
    whole = ladder_state(settings, partial=False)
    made = candidate_pairs(whole.entrants, whole.standings, settings.matchmaking())
    for read in (state, whole):  # the fit's, as matchmaking would make them now
        assert read.candidates is not None
        assert read.candidates.bots == made.bots
        assert read.candidates.wrong.tolist() == made.wrong.tolist()
        assert read.candidates.variance.tolist() == made.variance.tolist()
    assert state.is_partial and state.candidates is not None
    assert state.candidates.teams == made.teams
    state = whole
    # Other knobs than the fit's (a changed competition file): made again, not read.
    active = {entrant.bot: entrant for entrant in state.entrants}
    numbers = {version_label(v): v.pk for v in (ants, bees, cats)}
    other = dataclasses.replace(settings.matchmaking(), place_weight=2.0)
    counts = {numbers[bot]: entrant.game_count for bot, entrant in active.items()}
    labels = {number: bot for bot, number in numbers.items()}
    assert ladder_state_module._stored_view(labels, counts, other)[1] is None
    assert ladder_state_module._stored_view(labels, counts, settings.matchmaking())[1]
    # A version placed since the fit: the candidates are made again from the standings.
    dogs = accepted(make_team("dogs"), b"dogs")
    assert ladder_state(settings).candidates is None  # another version active
    for _ in range(needed):
        _played(dogs, ants, 1.0)
    count_results()
    changed = ladder_state(settings)
    assert changed.candidates is None
    assert "dogs-v1" in changed.standings  # at the prior's 0 until the next fit
    refresh_ratings()
    assert ladder_state(settings).candidates is not None
