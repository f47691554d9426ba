"""A ladder game's result and the pairs' records (:mod:`arena.ladder.games`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.ladder.games import GameResult, game_from_block
from arena.ladder.sums import PairColumns, pair_sums
from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome


def test_the_second_bots_score_is_the_first_bots_negated() -> None:
    game = GameResult("bob", "ann", adjusted_mbb=12.5, raw_mbb=-300.0, hand_count=200)
    assert game.score_for("bob") == 12.5 and game.score_for("ann") == -12.5
    assert game.raw_for("ann") == 300.0
    assert game.pair == ("ann", "bob")


def test_a_pair_record_reads_every_game_from_the_first_names_side() -> None:
    games = [
        GameResult("bob", "ann", 10.0, 100.0, 200),
        GameResult("ann", "bob", 30.0, -50.0, 200),
        GameResult("ann", "cat", 5.0, 5.0, 100),
    ]
    records = pair_sums(games)
    assert set(records) == {("ann", "bob"), ("ann", "cat")}
    record = records[("ann", "bob")]
    # Its sums: -10 and 30 (adjusted), -100 and -50 (raw) from ann's side.
    assert (record.adjusted_sum, record.adjusted_squares) == (20.0, 1000.0)
    assert (record.raw_sum, record.raw_squares) == (-150.0, 12500.0)
    assert record.hand_count == 400 and record.game_count == 2
    assert record.adjusted_estimate().mean == 10.0
    assert record.raw_estimate().mean == -75.0


def test_unrated_games_stay_out_of_the_records() -> None:
    games = [GameResult("ann", "bob", 10.0, 10.0, 200, is_rated=False)]
    assert pair_sums(games) == {}


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"first": ""}, "first must be a bot version's name"),
        ({"second": "ann"}, "'ann' twice"),
        ({"adjusted_mbb": math.nan}, "adjusted_mbb must be finite"),
        ({"raw_mbb": "12"}, "raw_mbb must be a number"),
        ({"hand_count": 0}, "hand_count must be a positive integer, got 0"),
        ({"hand_count": True}, "hand_count must be a positive integer"),
    ],
)
def test_a_bad_game_is_refused_naming_the_field(fields: dict[str, object], named: str) -> None:
    values: dict[str, object] = {
        "first": "ann",
        "second": "bob",
        "adjusted_mbb": 1.0,
        "raw_mbb": 1.0,
        "hand_count": 200,
    }
    values.update(fields)
    with pytest.raises(ValueError, match=named):
        GameResult(**values)  # type: ignore[arg-type]


def test_a_bot_that_did_not_play_has_no_score() -> None:
    with pytest.raises(ValueError, match="'cat' did not play"):
        GameResult("ann", "bob", 1.0, 1.0, 10).score_for("cat")


def _match(match_id: str, seats: tuple[str, str], hands: list[tuple[int, float]]) -> MatchOutcome:
    """A heads-up match: per hand, seat 0's net chips and adjusted result (big blind 10)."""
    return MatchOutcome(
        match_id=match_id,
        seats=tuple(SeatOutcome(i, bot, 0, i + 1, len(hands)) for i, bot in enumerate(seats)),
        hands=tuple(
            HandSummary(number, 10, (net, -net), adjusted=(adjusted, -adjusted))
            for number, (net, adjusted) in enumerate(hands, start=1)
        ),
        ended_reason="hand_count",
        hands_path=None,
        duration_s=0.0,
    )


def test_a_duplicate_block_makes_one_game_of_its_deals_luck_adjusted_and_raw() -> None:
    # ann wins 20 chips of deal 1 in one seat and loses 10 in the other: +5 chips, 500 mbb.
    block = [
        _match("b1", ("ann", "bob"), [(20, 2.0), (-4, 1.0)]),
        _match("b1-swap", ("bob", "ann"), [(10, -1.0), (6, -3.0)]),
    ]
    game = game_from_block(block, "ann", "bob")
    # Deal 1: raw (20 - 10) / 2 = 5 chips, adjusted (2 + 1) / 2 = 1.5; deal 2: raw -5, adj 2.
    assert game.raw_mbb == pytest.approx((500.0 - 500.0) / 2)
    assert game.adjusted_mbb == pytest.approx((150.0 + 200.0) / 2)
    assert game.hand_count == 4 and game.is_rated
    assert (
        game_from_block(block, "bob", "ann", is_rated=False).score_for("ann") == game.adjusted_mbb
    )


def test_a_block_of_other_bots_or_without_a_common_deal_makes_no_game() -> None:
    block = [_match("b1", ("ann", "bob"), [(20, 2.0)]), _match("b1-swap", ("bob", "ann"), [])]
    with pytest.raises(ValueError, match="not 'ann' and 'cat'"):
        game_from_block(block, "ann", "cat")
    with pytest.raises(ValueError, match="no deal was played by every match"):
        game_from_block(block, "ann", "bob")


def test_pair_columns_hold_each_pair_s_sums_and_refuse_columns_of_unequal_lengths() -> None:
    games = [GameResult("bob", "ann", 10.0, 0.0, 200), GameResult("ann", "bob", 30.0, 0.0, 200)]
    games.append(GameResult("ann", "cat", 5.0, 0.0, 200))
    sums = pair_sums(games)
    columns = PairColumns.of(sums)
    assert columns.bots == ("ann", "bob", "cat")
    for k, pair in enumerate(sums.values()):
        assert (columns.bots[columns.first[k]], columns.bots[columns.second[k]]) == (
            pair.first,
            pair.second,
        )
        assert columns.mean[k] == pair.mean and columns.variance[k] == pair.variance
    # One game: no spread yet (the pure sums' rule), and no information: a mean of 0.
    ones = np.zeros(1, dtype=np.int64)
    empty = PairColumns(("ann", "bob"), ones, ones, *(np.zeros(1) for _ in range(5)))
    assert empty.mean.tolist() == [0.0] and empty.variance.tolist() == [0.0]
    with pytest.raises(ValueError, match="unequal lengths"):
        PairColumns(("ann",), ones, ones, *(np.zeros(2) for _ in range(5)))
