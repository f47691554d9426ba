"""Matchmaking for ring tables: how a rated game's table is filled
(:mod:`arena.ladder.matchmaking`, ``table_size`` above 2)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ladder.games import GameResult
from arena.ladder.matchmaking import (
    Entrant,
    GameKind,
    GameRequest,
    LadderState,
    MatchmakingSettings,
    Pairing,
    next_game,
)
from arena.ladder.ratings import Standings, fit
from arena.ladder.sums import pair_sums

#: Eight placed bots, best first, 100 mbb/hand apart, each its own team.
TRUTH = {name: 100.0 * (7 - index) for index, name in enumerate("abcdefgh")}


def _standings(truth: dict[str, float] = TRUTH) -> Standings:
    rng = random.Random(3)
    names = list(truth)
    games = [
        GameResult(a, b, score, score, 200)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        for _ in range(4)
        for score in (rng.gauss(truth[a] - truth[b], 300.0),)
    ]
    return fit(pair_sums(games))


STANDINGS = _standings()


def _state(teams: dict[str, str] | None = None, **fields: object) -> LadderState:
    teams = teams or {bot: f"team-{bot}" for bot in TRUTH}
    values: dict[str, object] = {
        "entrants": tuple(Entrant(bot, teams[bot], 20, 95) for bot in TRUTH),
        "standings": STANDINGS,
        "game_number": 100,
    }
    values.update(fields)
    return LadderState(**values)  # type: ignore[arg-type]


def _next(state: LadderState, size: int, **knobs: object) -> Pairing:
    matchmaking = MatchmakingSettings(table_size=size, **knobs)  # type: ignore[arg-type]
    pairing = next_game(state, matchmaking, random.Random(5))
    assert pairing is not None
    return pairing


def test_a_rated_table_is_filled_to_its_size_with_the_pairs_neighbours_in_the_standings() -> None:
    pairing = _next(_state(), 4)
    assert pairing.is_rated and len(pairing.bots) == 4 and len(set(pairing.bots)) == 4
    order = STANDINGS.order
    places = sorted(order.index(bot) for bot in pairing.bots)
    # The pair plus its nearest neighbours: four consecutive places.
    assert places == list(range(places[0], places[0] + 4))


def test_heads_up_is_the_default_and_a_pairing_has_no_other_seats() -> None:
    pairing = _next(_state(), 2)
    assert pairing.others == () and pairing.bots == (pairing.first, pairing.second)


def test_a_table_never_seats_two_versions_of_one_team() -> None:
    # a, b, c, d of one team: a table of 5 must take at most one of them.
    teams = {bot: ("big" if bot in "abcd" else f"team-{bot}") for bot in TRUTH}
    for seed in range(10):
        pairing = next_game(
            _state(teams), MatchmakingSettings(table_size=5, team_cap=10), random.Random(seed)
        )
        assert pairing is not None
        seated = [teams[bot] for bot in pairing.bots]
        assert len(seated) == len(set(seated))


def test_with_too_few_teams_free_the_table_is_smaller_but_never_below_the_pair() -> None:
    # Every team but a's, b's and c's is at its cap: at most 3 seats can be filled.
    busy = tuple(Pairing(x, y, GameKind.UNCERTAINTY) for x, y in ("de", "fg", "hd", "fe", "gh"))
    pairing = _next(_state(in_flight=busy), 6, team_cap=2)
    assert sorted(pairing.bots) == ["a", "b", "c"]
    # Only a and c free (neighbours in the standings): the table is the pair alone.
    busier = (*busy, Pairing("b", "d", GameKind.UNCERTAINTY), Pairing("b", "e", GameKind.TEST))
    assert sorted(_next(_state(in_flight=busier), 6, team_cap=2).bots) == ["a", "c"]


def test_the_bots_with_the_fewest_games_in_flight_fill_the_seats_first() -> None:
    playing = tuple(Pairing(x, y, GameKind.UNCERTAINTY) for x, y in ("bc", "fg"))
    pairing = _next(_state(in_flight=playing), 3, team_cap=10)
    idle = set(TRUTH) - set("bcfg")
    assert set(pairing.others) <= idle


def test_unplaced_versions_do_not_fill_seats_but_everyone_does_while_bootstrapping() -> None:
    entrants = tuple(Entrant(bot, bot, 20 if bot in "abcde" else 1, 95) for bot in TRUTH)
    state = _state(entrants=entrants)
    # f, g, h place first (against placed opponents: more are placed than placing, so this
    # is no ladder's start), and only a..e are placed to fill.
    pairing = _next(state, 4, placement_games=5)
    assert pairing.kind is GameKind.PLACEMENT
    assert set(pairing.bots) - {pairing.first} <= set("abcde")
    fresh = tuple(Entrant(bot, bot) for bot in "xyz")
    boot = _next(_state(entrants=fresh, standings=fit({}, bots="xyz")), 3)
    assert sorted(boot.bots) == ["x", "y", "z"]


def test_version_tests_and_test_games_stay_heads_up() -> None:
    for kind in (GameKind.VERSION_TEST, GameKind.TEST):
        request = GameRequest("team-c", "c", "e", kind)
        pairing = _next(_state(requests=(request,)), 5)
        assert pairing.kind is kind and pairing.others == ()


def test_a_table_in_flight_counts_every_team_once_and_every_pair_and_bot() -> None:
    # One 4-seat table of a, b, c, d in flight: with a cap of 1 those four teams are busy.
    table = Pairing("a", "b", GameKind.UNCERTAINTY, others=("c", "d"))
    pairing = _next(_state(in_flight=(table,)), 3, team_cap=1)
    assert not set(pairing.bots) & set("abcd")


@st.composite
def ring_states(draw: st.DrawFn) -> tuple[LadderState, MatchmakingSettings]:
    bots = list(TRUTH)
    teams = {bot: f"t{draw(st.integers(0, 5))}" for bot in bots}
    entrants = tuple(
        Entrant(bot, teams[bot], draw(st.integers(0, 8)), draw(st.none() | st.integers(0, 99)))
        for bot in bots
    )
    rng = random.Random(draw(st.integers(0, 2**32)))
    in_flight = tuple(
        Pairing(table[0], table[1], GameKind.UNCERTAINTY, others=tuple(table[2:]))
        for table in (
            rng.sample(bots, draw(st.integers(2, 4))) for _ in range(draw(st.integers(0, 4)))
        )
    )
    state = _state(entrants=entrants, in_flight=in_flight)
    matchmaking = MatchmakingSettings(
        table_size=draw(st.integers(2, 10)),
        team_cap=draw(st.integers(1, 4)),
        placement_games=draw(st.integers(0, 5)),
    )
    return state, matchmaking


@settings(max_examples=80, deadline=None)
@given(ring_states(), st.integers(0, 1000))
def test_a_table_respects_the_cap_seats_each_team_once_and_repeats_with_the_seed(
    drawn: tuple[LadderState, MatchmakingSettings], seed: int
) -> None:
    state, matchmaking = drawn
    pairing = next_game(state, matchmaking, random.Random(seed))
    assert next_game(state, matchmaking, random.Random(seed)) == pairing
    if pairing is None:
        return
    team = {entrant.bot: entrant.team for entrant in state.entrants}
    busy = Counter(name for game in state.in_flight for name in {team[b] for b in game.bots})
    seated = [team[bot] for bot in pairing.bots]
    assert len(seated) == len(set(seated)) and 2 <= len(seated) <= matchmaking.table_size
    assert all(busy[name] < matchmaking.team_cap for name in seated)
    free_teams = {
        team[e.bot]
        for e in state.entrants
        if busy[team[e.bot]] < matchmaking.team_cap
        and (e.game_count >= matchmaking.placement_games)
    }
    # Filled to the size whenever enough placed teams are free.
    if pairing.is_rated and len(free_teams | set(seated)) >= matchmaking.table_size:
        assert len(seated) == matchmaking.table_size


@pytest.mark.parametrize(
    ("first", "second", "others"),
    [("ann", "ann", ()), ("ann", "bob", ("ann",)), ("ann", "bob", ("cat", "cat"))],
)
def test_a_pairing_that_seats_a_version_twice_is_refused_naming_the_seats(
    first: str, second: str, others: tuple[str, ...]
) -> None:
    with pytest.raises(ValueError, match="seats each bot version once"):
        Pairing(first, second, GameKind.UNCERTAINTY, others=others)
