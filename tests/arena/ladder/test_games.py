"""A ladder game's result and the pairs' records (:mod:`arena.ladder.games`)."""

from __future__ import annotations

import math

import pytest

from arena.ladder.games import GameResult, pair_records


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
    records = pair_records(games)
    assert set(records) == {("ann", "bob"), ("ann", "cat")}
    record = records[("ann", "bob")]
    assert record.adjusted == (-10.0, 30.0) and record.raw == (-100.0, -50.0)
    assert record.hand_count == 400 and record.game_count == 2
    assert record.adjusted_estimate().mean == 10.0
    assert record.raw_estimate().mean == -75.0


def test_unrated_games_stay_out_of_the_records() -> None:
    games = [GameResult("ann", "bob", 10.0, 10.0, 200, is_rated=False)]
    assert pair_records(games) == {}


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
