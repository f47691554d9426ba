"""Which game the ladder plays next (:mod:`arena.ladder.matchmaking`)."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from arena.ladder.games import GameResult
from arena.ladder.matchmaking import (
    Entrant,
    GameKind,
    GameRequest,
    LadderState,
    MatchmakingSettings,
    Pairing,
    candidate_pairs,
    next_game,
)
from arena.ladder.ratings import Standings, fit
from arena.ladder.sums import pair_sums

# Five placed bots: a and b far apart, c and d close (their order is uncertain), e far below.
TRUTH = {"a": 300.0, "b": 150.0, "c": 20.0, "d": 0.0, "e": -200.0}


def _standings(
    per_pair: int = 6, extra: tuple[str, ...] = (), truth: dict[str, float] = TRUTH
) -> Standings:
    rng = random.Random(2)
    names = list(truth)
    games = []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            for _ in range(per_pair):
                score = rng.gauss(truth[first] - truth[second], 60.0)
                games.append(GameResult(first, second, score, score, 200))
    return fit(pair_sums(games), bots=extra)


def _state(**fields: object) -> LadderState:
    values: dict[str, object] = {
        "entrants": tuple(Entrant(bot, f"team-{bot}", 20, 95) for bot in TRUTH),
        "standings": _standings(),
        "game_number": 100,
    }
    values.update(fields)
    return LadderState(**values)  # type: ignore[arg-type]


def _next(state: LadderState, settings: MatchmakingSettings | None = None) -> Pairing | None:
    return next_game(state, settings or MatchmakingSettings(), random.Random(1))


def test_matchmaking_picks_the_neighbours_whose_order_is_uncertain() -> None:
    pairing = _next(_state())
    assert pairing is not None and pairing.kind is GameKind.UNCERTAINTY and pairing.is_rated
    assert pairing.pair == ("c", "d")


def _two_equal_pairs() -> LadderState:
    """p-q and r-s: two pairs with the same uncertain results, far from each other."""
    games = [GameResult(a, b, s, s, 200) for a, b in (("p", "q"), ("r", "s")) for s in (0.0, 10.0)]
    games += [GameResult("q", "r", 500.0 + s, 0.0, 200) for s in (0.0, 10.0)]
    entrants = tuple(Entrant(bot, bot, 10, 9) for bot in "pqrs")
    return _state(entrants=entrants, standings=fit(pair_sums(games)), game_number=10)


#: Every place weighs the same, so that the two pairs of :func:`_two_equal_pairs` tie.
EVEN = MatchmakingSettings(place_weight=0.0, team_cap=10)


def test_games_in_flight_spread_the_next_games_over_other_pairs() -> None:
    # Each game in flight counts as played: ten workers asking one after the other share
    # themselves between the two pairs instead of piling onto one.
    in_flight: list[Pairing] = []
    for _ in range(10):
        state = replace(_two_equal_pairs(), in_flight=tuple(in_flight))
        pairing = _next(state, EVEN)
        assert pairing is not None
        in_flight.append(pairing)
    counts = [sum(p.pair == pair for p in in_flight) for pair in (("p", "q"), ("r", "s"))]
    assert counts == [5, 5]


def test_a_new_version_plays_placement_games_first_against_a_spread_of_opponents() -> None:
    entrants = (*_state().entrants, Entrant("new", "team-new", 0, None))
    standings = _standings(extra=("new",))
    opponents = []
    in_flight: list[Pairing] = []
    for _ in range(4):
        state = _state(entrants=entrants, standings=standings, in_flight=tuple(in_flight))
        pairing = _next(state, MatchmakingSettings(placement_games=4, team_cap=10))
        assert pairing is not None and pairing.kind is GameKind.PLACEMENT
        assert pairing.first == "new"
        opponents.append(pairing.second)
        in_flight.append(pairing)
    # The middle of the ladder first, then the quartiles: four different opponents.
    assert opponents[0] == "c" and len(set(opponents)) == 4
    assert {"a", "e"} & set(opponents) or {"b", "d"} <= set(opponents)


def test_when_nobody_is_placed_yet_the_versions_place_against_each_other() -> None:
    entrants = tuple(Entrant(bot, f"team-{bot}") for bot in ("x", "y", "z"))
    pairing = _next(_state(entrants=entrants, standings=fit({}, bots=("x", "y", "z"))))
    assert pairing is not None and pairing.kind is GameKind.PLACEMENT
    assert pairing.first == "x" and pairing.second in ("y", "z")


def test_versions_arriving_together_are_placed_side_by_side() -> None:
    # Six new versions at once: the one with the fewest placement games (finished or in
    # flight) goes first, so the first three games place three different versions (the
    # pairing's first; the second is the opponent at the ladder's middle), instead of the
    # first one in the list playing all its placement games before the others start.
    names = ("u", "v", "w", "x", "y", "z")
    entrants = tuple(Entrant(bot, f"team-{bot}") for bot in names)
    state = _state(entrants=entrants, standings=fit({}, bots=names))
    in_flight: list[Pairing] = []
    for _ in range(3):
        pairing = _next(
            replace(state, in_flight=tuple(in_flight)), MatchmakingSettings(team_cap=10)
        )
        assert pairing is not None and pairing.kind is GameKind.PLACEMENT
        in_flight.append(pairing)
    assert [pairing.first for pairing in in_flight] == ["u", "v", "w"]


def test_at_a_ladders_start_the_versions_still_placing_play_each_other() -> None:
    # Nobody placed yet; w has its last placement game in flight, x, y, z owe two each.
    # x's next opponent is at the top of the (tied, so by name) order, where w sits: but w
    # is owed nothing, so x plays y, and the game places two versions instead of one.
    names = ("w", "x", "y", "z")
    entrants = (Entrant("w", "team-w", 4, 9), *(Entrant(b, f"team-{b}", 3, 9) for b in "xyz"))
    state = _state(
        entrants=entrants,
        standings=fit({}, bots=names),
        in_flight=(Pairing("w", "old", GameKind.PLACEMENT),),
        game_number=10,
    )
    pairing = _next(state, MatchmakingSettings(placement_games=5, team_cap=10))
    assert pairing == Pairing("x", "y", GameKind.PLACEMENT, "placement 4 of 5")


def test_while_more_versions_place_than_are_placed_they_place_against_each_other() -> None:
    # One version placed, three placing: still a ladder's start, so x plays another placing
    # version instead of all three spending every placement game on the one placed (w).
    names = ("w", "x", "y", "z")
    entrants = (Entrant("w", "team-w", 5, 9), *(Entrant(b, f"team-{b}", 3, 9) for b in "xyz"))
    state = _state(entrants=entrants, standings=fit({}, bots=names), game_number=10)
    pairing = _next(state, MatchmakingSettings(placement_games=5, team_cap=10))
    assert pairing is not None and pairing.kind is GameKind.PLACEMENT
    assert {pairing.first, pairing.second} <= {"x", "y", "z"}


def test_a_lone_placing_version_at_the_start_plays_any_other_version() -> None:
    # Nobody placed, and the only other version has its last placement game in flight
    # (owed nothing, placed by no finished game): the placing one still gets its game.
    state = _state(
        entrants=(Entrant("v", "team-v", 4, 3), Entrant("n", "team-n")),
        standings=fit({}, bots=("v", "n")),
        in_flight=(Pairing("v", "old", GameKind.PLACEMENT),),
        game_number=4,
    )
    pairing = _next(state, MatchmakingSettings(placement_games=5, team_cap=10))
    assert pairing == Pairing("n", "v", GameKind.PLACEMENT, "placement 1 of 5")


def test_a_placing_version_the_last_fit_does_not_know_waits_and_the_next_one_plays() -> None:
    # "new" was activated after the fit (not in its standings): it has no place to be
    # placed from yet, so the placement game goes to the next version owed one, "v".
    entrants = (
        Entrant("new", "team-new"),
        Entrant("v", "team-v", 1, 3),
        *(Entrant(bot, f"team-{bot}", 20, 95) for bot in TRUTH),
    )
    state = _state(entrants=entrants, standings=_standings(extra=("v",)))
    pairing = _next(state)
    assert pairing is not None and pairing.kind is GameKind.PLACEMENT
    assert pairing.first == "v" and "new" not in pairing.bots


def test_a_low_version_with_a_wide_interval_challenges_the_last_focus_place() -> None:
    # a is far and surely above b; z played one game (against c) and sits last, but its
    # interval is wide enough that it may be above a. With only the first place in focus
    # and the places below weighing nothing, the neighbour pairs are worth nothing: the
    # game that can still change the top is z challenging a, though they are no neighbours.
    rng = random.Random(3)
    games = [GameResult("a", "b", rng.gauss(150.0, 60.0), 0.0, 200) for _ in range(30)]
    games += [GameResult("b", "c", rng.gauss(50.0, 60.0), 0.0, 200) for _ in range(30)]
    games.append(GameResult("z", "c", -50.0, -50.0, 200))
    standings = fit(pair_sums(games))
    assert standings.order == ("a", "b", "c", "z")
    entrants = tuple(Entrant(bot, f"team-{bot}", 20, 95) for bot in "abcz")
    settings = MatchmakingSettings(focus_places=1, place_weight=50.0, team_cap=10)
    pairing = _next(_state(entrants=entrants, standings=standings), settings)
    assert pairing is not None and pairing.kind is GameKind.UNCERTAINTY
    assert pairing.pair == ("a", "z")


def test_the_focus_places_weigh_alike_and_the_places_below_them_less() -> None:
    # p-q (place 1) and r-s (place 3) are equally uncertain. With the importance falling
    # from the first place (focus_places 1), p-q always wins; with the top three places
    # weighing alike, the two tie and the seeded generator picks either.
    state = _two_equal_pairs()
    top_only = MatchmakingSettings(focus_places=1, team_cap=10)
    top_three = MatchmakingSettings(focus_places=3, team_cap=10)
    picks_top_only: set[tuple[str, str]] = set()
    picks_top_three: set[tuple[str, str]] = set()
    for seed in range(20):
        for settings, picks in ((top_only, picks_top_only), (top_three, picks_top_three)):
            pairing = next_game(state, settings, random.Random(seed))
            assert pairing is not None and pairing.kind is GameKind.UNCERTAINTY
            picks.add(pairing.pair)
    assert picks_top_only == {("p", "q")}
    assert picks_top_three == {("p", "q"), ("r", "s")}


@pytest.mark.parametrize(
    ("games", "opponent"),
    [
        (6, "e"),  # the 7th fraction, 7/8 of the way down b c d e: a pair in no doubt
        (7, "b"),  # 1/16: the top
        (9, "c"),  # 5/16
        (13, "d"),  # 13/16
    ],
)
def test_the_floor_gives_a_version_that_waited_too_long_an_opponent_spread_over_the_ladder(
    games: int, opponent: str
) -> None:
    # The floor's opponents carry on the placement's fractions from the version's game
    # count, whatever the gaps say: games chosen by the fit's doubt measure the gaps too
    # wide (matchmaking's docstring), these tie the version to the whole field.
    entrants = list(_state().entrants)
    entrants[0] = Entrant("a", "team-a", games, 0)  # a started nothing for 100 games
    pairing = _next(_state(entrants=tuple(entrants)), MatchmakingSettings(floor_share=0.25))
    assert pairing is not None and pairing.kind is GameKind.FLOOR
    assert pairing.pair == ("a", opponent)


def test_the_floor_passes_over_its_own_team_and_teams_at_their_cap() -> None:
    overdue = Entrant("a", "team-a", 7, 0)  # owed a game against the top, b
    entrants = (overdue, *(Entrant(bot, f"team-{bot}", 20, 95) for bot in "cde"))
    mate = _state(entrants=(*entrants, Entrant("b", "team-a", 20, 95)))
    # b is a's team: 1/16 of the way down c d e is c.
    assert _next(mate).pair == ("a", "c")  # type: ignore[union-attr]
    # b and e are playing each other and each team's cap is one game: c is the nearest free.
    everyone = (overdue, *(Entrant(bot, f"team-{bot}", 20, 95) for bot in "bcde"))
    capped = _state(in_flight=(Pairing("b", "e", GameKind.UNCERTAINTY),), entrants=everyone)
    pairing = _next(capped, MatchmakingSettings(team_cap=1))
    assert pairing is not None and pairing.kind is GameKind.FLOOR and pairing.pair == ("a", "c")
    alone = _state(entrants=(overdue, Entrant("b", "team-a", 20, 95)))
    assert _next(alone) is None  # a's only other version is of its own team


def test_the_floor_interval_is_a_share_of_an_even_share_of_games() -> None:
    # An even share is one game in n / 2; a floor of a quarter of it is one in 2n.
    assert MatchmakingSettings(floor_share=0.25).floor_interval(5) == 10
    assert MatchmakingSettings(floor_share=1.0).floor_interval(1) == 1


def test_a_team_at_its_cap_gets_no_more_games() -> None:
    busy = tuple(Pairing("c", "b", GameKind.UNCERTAINTY) for _ in range(2))
    pairing = _next(_state(in_flight=busy), MatchmakingSettings(team_cap=2))
    assert pairing is not None and "c" not in (pairing.first, pairing.second)
    assert "b" not in (pairing.first, pairing.second)


def test_with_every_team_at_its_cap_there_is_no_game() -> None:
    busy = tuple(Pairing(a, b, GameKind.UNCERTAINTY) for a, b in ("ab", "cd", "ea"))
    assert _next(_state(in_flight=busy), MatchmakingSettings(team_cap=1)) is None


def test_a_version_test_comes_before_rated_games() -> None:
    request = GameRequest("team-c", "c-new", "c", GameKind.VERSION_TEST)
    pairing = _next(_state(requests=(request,)))
    assert pairing == Pairing("c-new", "c", GameKind.VERSION_TEST, "is c-new better than c?")
    assert not pairing.is_rated


def test_unranked_test_games_are_rate_limited_per_team() -> None:
    request = GameRequest("team-a", "a", "e", GameKind.TEST, games_left=5)
    settings = MatchmakingSettings(test_games_per_window=2, test_window_s=3600.0)
    recent = {"team-a": (1000.0, 2000.0)}
    limited = _next(_state(requests=(request,), now_s=3000.0, recent_test_starts=recent), settings)
    assert limited is not None and limited.kind is GameKind.UNCERTAINTY
    # An hour after the first start, one more is allowed.
    allowed = _next(_state(requests=(request,), now_s=4700.0, recent_test_starts=recent), settings)
    assert allowed is not None and allowed.kind is GameKind.TEST
    assert (allowed.first, allowed.second) == ("a", "e")
    done = GameRequest("team-a", "a", "e", GameKind.TEST, games_left=0)
    after = _next(_state(requests=(done,)), settings)
    assert after is not None and after.kind is GameKind.UNCERTAINTY


def test_the_same_state_and_seed_give_the_same_pairing() -> None:
    # Equal priorities are broken by the random.Random passed in, and by nothing else.
    state = _two_equal_pairs()
    picks = {seed: next_game(state, EVEN, random.Random(seed)) for seed in range(8)}
    assert {pairing.pair for pairing in picks.values() if pairing} == {("p", "q"), ("r", "s")}
    for seed, pairing in picks.items():
        assert next_game(state, EVEN, random.Random(seed)) == pairing


def test_a_pairing_exports_its_kind() -> None:
    pairing = Pairing("a", "b", GameKind.FLOOR, "floor")
    assert pairing.to_dict() == {
        "first": "a",
        "second": "b",
        "kind": "floor",
        "reason": "floor",
        "others": [],
    }
    assert Pairing("a", "b", GameKind.FLOOR, others=("c",)).to_dict()["others"] == ["c"]


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"placement_games": -1}, "placement_games must be an integer of 0 or more"),
        ({"team_cap": 0}, "team_cap must be 1 or more"),
        ({"floor_share": 0.0}, "floor_share must be in"),
        ({"test_window_s": 0.0}, "test_window_s must be a positive number"),
        ({"place_weight": -1.0}, "place_weight must be 0 or more"),
        ({"focus_places": 0}, "focus_places must be 1 or more, got 0"),
        ({"focus_places": 1.5}, "focus_places must be an integer of 0 or more, got 1.5"),
        ({"table_size": 1}, "table_size must be an integer from 2 to 10, got 1"),
        ({"table_size": 11}, "table_size must be an integer from 2 to 10, got 11"),
    ],
)
def test_bad_matchmaking_settings_are_refused_naming_the_setting(
    fields: dict[str, float], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        MatchmakingSettings(**fields)  # type: ignore[arg-type]


def test_a_request_needs_a_test_kind_and_two_versions() -> None:
    with pytest.raises(ValueError, match="version test or a test game"):
        GameRequest("t", "a", "b", GameKind.FLOOR)
    with pytest.raises(ValueError, match="'a' twice"):
        GameRequest("t", "a", "a")


def test_a_partial_state_decides_as_the_whole_one_and_refuses_what_it_cannot_answer() -> None:
    settings = MatchmakingSettings()
    # e last started a game long ago: the floor owes it one.
    recent = [Entrant(bot, f"team-{bot}", 20, 95) for bot in TRUTH if bot != "e"]
    whole = _state(entrants=(*recent, Entrant("e", "team-e", 20, 10)))
    candidates = candidate_pairs(whole.entrants, whole.standings, settings)
    assert candidates.teams == tuple(f"team-{bot}" for bot in candidates.bots)
    # A server's partial state: the overdue e alone, the count, the candidates with teams,
    # standings that carry only the spread of one game.
    spread = Standings.from_band([], [], np.zeros((0, 8)), game_sd=whole.standings.game_sd,
                                 confidence=0.95)  # fmt: skip
    partial = replace(whole, entrants=(whole.entrants[-1],), standings=spread,
                      candidates=candidates, entrant_total=len(TRUTH))  # fmt: skip
    assert partial.entrant_count == len(TRUTH) and partial.is_partial
    chosen = _next(partial)
    assert chosen == _next(whole) and chosen is not None and chosen.kind is GameKind.FLOOR
    with pytest.raises(ValueError, match="must bring its candidate pairs"):
        _next(replace(partial, candidates=None))
    with pytest.raises(ValueError, match="ring table"):
        _next(partial, replace(settings, table_size=3))
    placing = replace(partial, entrants=(Entrant("e", "team-e", 0, None),))
    with pytest.raises(ValueError, match="owed placement games: e"):
        _next(placing)
