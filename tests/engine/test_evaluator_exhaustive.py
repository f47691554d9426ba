"""Known answers: every 5-card hand, and every 7-card hand by equivalence classes."""

from __future__ import annotations

import importlib.util
from collections import Counter
from itertools import combinations
from math import comb
from types import ModuleType

from engine.cards import FULL_DECK
from engine.evaluator import HandCategory, category_of, rank_class
from tests import REPO_ROOT

FIVE_CARD_COUNTS = {
    HandCategory.STRAIGHT_FLUSH: 40,
    HandCategory.FOUR_OF_A_KIND: 624,
    HandCategory.FULL_HOUSE: 3_744,
    HandCategory.FLUSH: 5_108,
    HandCategory.STRAIGHT: 10_200,
    HandCategory.THREE_OF_A_KIND: 54_912,
    HandCategory.TWO_PAIR: 123_552,
    HandCategory.ONE_PAIR: 1_098_240,
    HandCategory.HIGH_CARD: 1_302_540,
}

_SCRIPT = REPO_ROOT / "bench" / "seven_card_counts.py"


def load_seven_card_script() -> ModuleType:
    """bench/ is not a package: load the script by path, as its own module."""
    spec = importlib.util.spec_from_file_location("seven_card_counts", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_all_five_card_hands_reproduce_the_published_category_counts() -> None:
    # Counter(map(...)) keeps the 2,598,960-hand loop in C: about a second.
    by_class = Counter(map(rank_class, combinations(FULL_DECK, 5)))
    assert sum(by_class.values()) == comb(52, 5) == 2_598_960
    assert len(by_class) == 7_462
    by_category: Counter[HandCategory] = Counter()
    for class_number, count in by_class.items():
        category = category_of(class_number)
        by_category[category] += count
        # A flush class is one set of five ranks, in any of the four suits; a class of five
        # distinct ranks without a flush is those ranks in any suits but four flushes.
        if category in (HandCategory.FLUSH, HandCategory.STRAIGHT_FLUSH):
            assert count == 4
        elif category in (HandCategory.HIGH_CARD, HandCategory.STRAIGHT):
            assert count == 4**5 - 4
    assert by_category == FIVE_CARD_COUNTS


def test_seven_card_counts_script_reproduces_the_published_counts() -> None:
    script = load_seven_card_script()
    counts, classes = script.category_counts(7)
    assert counts == script.SEVEN_CARD_COUNTS
    assert sum(counts.values()) == comb(52, 7) == 133_784_560
    assert len(classes) == script.SEVEN_CARD_CLASS_COUNT == 4_824


def test_seven_card_method_reproduces_the_five_card_counts() -> None:
    # The same weighting on five cards must agree with the exhaustive enumeration.
    script = load_seven_card_script()
    counts, classes = script.category_counts(5)
    assert counts == FIVE_CARD_COUNTS
    assert len(classes) == 7_462
