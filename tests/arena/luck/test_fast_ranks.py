"""The fast seven-card ranker gives the evaluator's answers, and the estimator the same
numbers with it on or off."""

from __future__ import annotations

import itertools
import random

import pytest

from arena.luck import estimate_hand, fast_ranks
from arena.luck.equity import hand_ranks
from arena.luck.fast_ranks import BoardSums, fast_hand_ranks
from engine._eval_tables import NONFLUSH_CLASSES
from engine.cards import FULL_DECK
from tests.arena.luck.play import random_record


@pytest.mark.parametrize("board_size", [0, 3, 4, 5])
def test_fast_ranks_equal_the_evaluators_on_random_boards(board_size: int) -> None:
    rng = random.Random(board_size)
    for _ in range(40):
        cards = rng.sample(FULL_DECK, 2 + board_size)
        hole, board = tuple(cards[:2]), tuple(cards[2:])
        pool = [c for c in FULL_DECK if c not in cards]
        missing = 5 - board_size
        completions = [tuple(rng.sample(pool, missing)) for _ in range(60)]
        sums = BoardSums(completions[:25])
        sums.extend(completions[25:])
        assert fast_hand_ranks(hole, board, sums) == hand_ranks(hole, board, completions)
        assert fast_hand_ranks(hole, board, sums, 30) == hand_ranks(hole, board, completions[30:])


def test_the_dense_table_holds_every_seven_card_class_and_is_made_once() -> None:
    table = fast_ranks.dense_classes()
    seven = NONFLUSH_CLASSES[7]
    assert all(table[total] == rank for total, rank in seven.items())
    assert len(table) == max(seven) + 1 and fast_ranks.dense_classes() is table


def test_fast_ranks_find_every_flush() -> None:
    hole = tuple(FULL_DECK[i] for i in (51, 47))  # As Ks
    spades = [c for c in FULL_DECK if c & 3 == 3 and c not in hole]
    completions = list(itertools.combinations(spades, 5))[:200]
    sums = BoardSums(completions)
    assert fast_hand_ranks(hole, (), sums) == hand_ranks(hole, (), completions)


@pytest.mark.parametrize("variant", ["holdem", "five_card_draw"])
def test_the_estimate_is_identical_with_the_fast_ranker_on_or_off(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [
        random_record(seed, variant=variant, seat_count=2 + seed % 4, mixed=True)
        for seed in range(12)
    ]
    fast = [estimate_hand(record) for record in records]
    monkeypatch.setattr(fast_ranks, "USE_FAST_RANKS", False)
    plain = [estimate_hand(record) for record in records]
    assert [luck.adjusted for luck in fast] == [luck.adjusted for luck in plain]
