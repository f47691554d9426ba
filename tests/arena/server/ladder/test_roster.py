"""A claim's partial state: when every active version is placed and the roster is the
fit's, a claim reads a few numbers and the versions the floor may owe a game, and
matchmaking picks the very pairing it picks on the whole state; any change of the roster
since the fit (a version activated, renamed, disabled or placed), a table in flight, other
knobs or a fit made before the roster was stored, and the claim reads everything."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import random

import pytest
from django.test import override_settings

from arena.ladder.matchmaking import GameKind, next_game
from arena.server.ladder import config
from arena.server.ladder.fitting import refresh_ratings
from arena.server.ladder.models import (
    Game,
    GameStatus,
    RatingFit,
    UnrankedRequest,
    version_label,
)
from arena.server.ladder.roster import ClaimRows, read_roster, roster_digest
from arena.server.ladder.state import Prefetched, floor_interval_guess, known_fit, ladder_view
from arena.server.ladder.sums import count_results
from arena.server.site.models import BotVersion, Team
from tests.arena.server.factories import make_team
from tests.arena.server.ladder.conftest import SMALL, accepted

#: Teams enough that the floor's interval (twice the teams) leaves some versions overdue.
NAMES = ("ants", "bees", "cats", "dogs", "eels", "fish", "gnus")


def _played(first: BotVersion, second: BotVersion, adjusted: float) -> Game:
    return Game.objects.create(first=first, second=second, adjusted_mbb=adjusted,
                               raw_mbb=adjusted, kind="uncertainty", seed="7", deals=4,
                               status=GameStatus.DONE, hand_count=8)  # fmt: skip


@pytest.fixture
def ladder(small_ladder: None) -> list[BotVersion]:
    """Seven placed versions: every one played its neighbours early, then the top four
    played on (the bottom three are overdue for the floor); fitted."""
    versions = [accepted(make_team(name), name.encode()) for name in NAMES]
    rng = random.Random(3)
    for first, second in itertools.pairwise(versions):
        _played(first, second, 40.0 + rng.gauss(0.0, 30.0))
    for _ in range(20):
        first, second = rng.sample(versions[:4], 2)
        _played(first, second, rng.gauss(20.0, 60.0))
    count_results()
    refresh_ratings()
    return versions


def _both(table_size: int = 2) -> tuple[object, object]:
    settings = config.current()
    partial = ladder_view(settings, table_size=table_size)
    whole = ladder_view(settings, table_size=table_size, partial=False)
    return partial, whole


def test_a_partial_state_picks_what_the_whole_state_picks(ladder: list[BotVersion]) -> None:
    settings = config.current()
    matchmaking = settings.matchmaking()
    # Two games in flight (one of the overdue versions plays) and a team's request.
    Game.objects.create(first=ladder[0], second=ladder[1], kind="uncertainty", seed="1",
                        deals=4, status=GameStatus.CLAIMED, claimed_by="w")  # fmt: skip
    Game.objects.create(first=ladder[5], second=ladder[4], kind="floor", seed="2", deals=4,
                        status=GameStatus.CLAIMED, claimed_by="w")  # fmt: skip
    # An unrated test game in flight counts for the teams' caps, not for the floor.
    Game.objects.create(first=ladder[6], second=ladder[0], kind="test", is_rated=False,
                        seed="3", deals=4, status=GameStatus.QUEUED)  # fmt: skip
    # A team's request is read alike and goes first.
    request = UnrankedRequest.objects.create(team=ladder[2].team, bot=ladder[2],
                                             opponent=ladder[3], games_left=3)  # fmt: skip
    (partial, ids), (whole, whole_ids) = (ladder_view(settings),
                                          ladder_view(settings, partial=False))  # fmt: skip
    assert partial.requests == whole.requests and len(partial.requests) == 1
    chosen = next_game(partial, matchmaking, random.Random(0))
    assert chosen == next_game(whole, matchmaking, random.Random(0))
    assert chosen is not None and chosen.kind is GameKind.TEST
    assert ids["cats-v1"] == whole_ids["cats-v1"] == ladder[2].pk
    request.delete()
    (partial, ids), (whole, whole_ids) = (ladder_view(settings),
                                          ladder_view(settings, partial=False))  # fmt: skip
    assert partial.is_partial and not whole.is_partial
    assert partial.entrant_count == len(whole.entrants) == len(NAMES)
    # Only the overdue versions come as entrants (the floor's interval: twice the teams).
    interval = matchmaking.floor_interval(len(NAMES))
    overdue = {e.bot for e in whole.entrants
               if e.last_game_number is not None
               and whole.game_number - e.last_game_number >= interval}  # fmt: skip
    # (and those overdue by their finished games that play now, which the floor skips)
    playing = {bot for pairing in whole.in_flight for bot in pairing.bots}
    assert overdue <= {entrant.bot for entrant in partial.entrants} <= overdue | playing
    assert len(partial.entrants) < len(NAMES)
    assert partial.game_number == whole.game_number and partial.in_flight
    assert set(partial.in_flight) == set(whole.in_flight)
    kinds = set()
    for seed in range(40):
        chosen = next_game(partial, matchmaking, random.Random(seed))
        assert chosen == next_game(whole, matchmaking, random.Random(seed))
        assert chosen is not None and ids[chosen.first] == whole_ids[chosen.first]
        kinds.add(chosen.kind)
    assert GameKind.FLOOR in kinds  # the overdue versions' own pairs were priced
    # With a tight cap the floor's first choices are held: still the same pairings.
    capped = dataclasses.replace(matchmaking, team_cap=1)
    for seed in range(10):
        assert next_game(partial, capped, random.Random(seed)) == next_game(
            whole, capped, random.Random(seed)
        )


def test_the_roster_s_digest_is_the_fit_s_until_the_roster_changes(
    ladder: list[BotVersion],
) -> None:
    needed = config.current().matchmaking().placement_games
    roster = read_roster(needed)
    expected = roster_digest((v.pk, True, version_label(v)) for v in ladder)
    assert (roster.size, roster.placing, roster.digest) == (len(NAMES), 0, expected)
    assert roster.game_number == Game.objects.order_by("-pk").first().pk  # type: ignore[union-attr]
    assert read_roster(needed + 100).placing == len(NAMES)  # none has that many games
    # A team renamed since the fit: another digest (its label changed), the whole state.
    Team.objects.filter(pk=ladder[0].team_id).update(name="apes")
    assert read_roster(needed).digest != expected
    assert not ladder_view(config.current())[0].is_partial
    Team.objects.filter(pk=ladder[0].team_id).update(name="ants")
    assert ladder_view(config.current())[0].is_partial
    # A version disabled since the fit leaves the roster.
    BotVersion.objects.filter(pk=ladder[1].pk).update(is_disabled=True)
    assert read_roster(needed).size == len(NAMES) - 1
    assert not ladder_view(config.current())[0].is_partial


def test_a_version_activated_since_the_fit_or_owed_placement_reads_everything(
    ladder: list[BotVersion],
) -> None:
    newcomer = accepted(make_team("hens"), b"hens")  # no game: owed placement games
    state = ladder_view(config.current())[0]
    assert not state.is_partial and "hens-v1" in {entrant.bot for entrant in state.entrants}
    _played(newcomer, ladder[0], 10.0)  # placed now (one game places here), not in the fit
    count_results()
    assert not ladder_view(config.current())[0].is_partial
    refresh_ratings()
    assert ladder_view(config.current())[0].is_partial


def test_a_table_in_flight_other_knobs_or_an_old_fit_read_everything(
    ladder: list[BotVersion],
) -> None:
    settings = config.current()
    # A fit made under other knobs (no placement games: the same versions placed).
    with override_settings(ARENA_LADDER={**SMALL, "placement_games": 0}):
        refresh_ratings()
    assert not ladder_view(settings)[0].is_partial
    refresh_ratings()
    # A fit stored before its roster was: the arrays alone.
    row = RatingFit.objects.get()
    stored = bytes(row.snapshot)
    arrays_only = stored[: stored.index(b'{"digest"')]
    RatingFit.objects.update(snapshot=arrays_only)
    assert not ladder_view(settings)[0].is_partial
    RatingFit.objects.update(snapshot=stored)
    assert ladder_view(settings)[0].is_partial
    # A ring table in flight: its seats are read with the whole state.
    Game.objects.create(first=ladder[0], second=ladder[1], kind="uncertainty", seed="1",
                        deals=4, seat_count=3, status=GameStatus.CLAIMED)  # fmt: skip
    assert not ladder_view(settings)[0].is_partial
    # A ring competition's claim never takes the shortcut.
    Game.objects.filter(seat_count=3).delete()
    assert ladder_view(settings)[0].is_partial
    assert not ladder_view(settings, table_size=3)[0].is_partial


def test_without_a_fit_the_claim_reads_everything(small_ladder: None) -> None:
    accepted(make_team("ants"), b"ants")
    assert not ladder_view(config.current())[0].is_partial
    assert read_roster(1).digest != ""
    Team.objects.update(active_version=None)
    assert read_roster(1) == (0, 0, "", 0, None, 0.0, 0.0, "")


def test_a_claim_unpacks_the_fit_once_and_keeps_it_until_the_next_fit(
    ladder: list[BotVersion],
) -> None:
    # The snapshot is sent (PostgreSQL) and unpacked only when it is not the one this
    # process holds: a roster that brings none but names the one held reads that one.
    settings = config.current()
    placement = settings.matchmaking().placement_games
    ladder_view(settings)  # unpacked and kept
    held = known_fit()
    assert held == hashlib.md5(bytes(RatingFit.objects.get().snapshot)).hexdigest()
    roster = read_roster(placement, held)._replace(snapshot=None)  # as PostgreSQL sends it
    partial, _ids = ladder_view(settings, roster=roster)
    assert partial.is_partial
    whole = ladder_view(settings, partial=False)[0]
    picks = [next_game(state, settings.matchmaking(), random.Random(0))
             for state in (partial, whole)]  # fmt: skip
    assert picks[0] is not None and picks[0] == picks[1]
    # Another fit (a game more): another snapshot, sent and kept in place of the last.
    _played(ladder[5], ladder[6], 10.0)
    count_results()
    refresh_ratings()
    fresh = read_roster(placement, held)
    assert fresh.snapshot is not None and fresh.fit_digest != held
    ladder_view(settings, roster=fresh)
    assert known_fit() == fresh.fit_digest
    # One it does not hold: the claim reads everything (a thread of its own kept another).
    assert not ladder_view(settings, roster=roster)[0].is_partial


def test_rows_read_for_another_floor_interval_are_read_again(ladder: list[BotVersion]) -> None:
    # A claim reads its rows with its first statements for the last roster's interval;
    # they stand only when the roster now has that interval.
    settings = config.current()
    interval = settings.matchmaking().floor_interval(len(NAMES))
    nothing = ClaimRows([], [], [])  # (no request, no game in flight, nobody overdue)
    used, _ids = ladder_view(settings, rows=Prefetched(interval, nothing))
    assert used.is_partial and used.entrants == ()
    assert floor_interval_guess() == interval
    again, _ids = ladder_view(settings, rows=Prefetched(interval + 1, nothing))
    assert again.is_partial and again.entrants == ladder_view(settings)[0].entrants != ()
