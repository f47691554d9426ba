"""Count the best-hand categories over every 7-card hand (all 133,784,560 of them).

Evaluating each hand would take minutes, so the hands are grouped into classes that must
get the same answer, one representative of each is ranked with ``rank_class``, and the
answer is weighted by the size of its class:

* hands with five or more cards of one suit: the best hand is that flush whatever the
  other cards are (they can make at most trips or two pair), so a class is one suit and
  the set of its ranks, of size ``4 * C(39, cards left)``;
* all other hands: the best hand depends only on the multiset of ranks, so a class is a
  multiset, of size "suit assignments with no suit holding five", which depends only on
  how many times each rank appears.

The same function works for 5-card hands (checked against the published counts in the
tests). Run: ``.venv/bin/python bench/seven_card_counts.py``.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb, prod

from engine.cards import Card
from engine.evaluator import HandCategory, category_of, rank_class

#: Published counts of the best five-card hand among seven cards.
SEVEN_CARD_COUNTS = {
    HandCategory.STRAIGHT_FLUSH: 41_584,
    HandCategory.FOUR_OF_A_KIND: 224_848,
    HandCategory.FULL_HOUSE: 3_473_184,
    HandCategory.FLUSH: 4_047_644,
    HandCategory.STRAIGHT: 6_180_020,
    HandCategory.THREE_OF_A_KIND: 6_461_620,
    HandCategory.TWO_PAIR: 31_433_400,
    HandCategory.ONE_PAIR: 58_627_800,
    HandCategory.HIGH_CARD: 23_294_460,
}
#: Of the 7,462 five-card classes, only these many can be the best hand of seven cards.
SEVEN_CARD_CLASS_COUNT = 4_824


@cache
def nonflush_weight(rank_counts: tuple[int, ...]) -> int:
    """Ways to give suits to a rank multiset (times each held rank appears) with no flush."""
    every = prod(comb(4, count) for count in rank_counts)
    # Ways to put exactly j of the cards in one given suit: the coefficient of x**j in the
    # product over ranks of (C(3, c) + C(3, c - 1) x) - a rank either skips that suit or not.
    poly = [1]
    for count in rank_counts:
        low, high = comb(3, count), comb(3, count - 1)
        poly = [
            (poly[j] * low if j < len(poly) else 0) + (poly[j - 1] * high if j else 0)
            for j in range(len(poly) + 1)
        ]
    # At most nine cards: two suits can't both hold five, so the four suits' cases are disjoint.
    return every - 4 * sum(poly[5:])


def category_counts(card_count: int = 7) -> tuple[Counter[HandCategory], set[int]]:
    """Hands of ``card_count`` cards per category of their best five, and the classes seen."""
    counts: Counter[HandCategory] = Counter()
    classes: set[int] = set()
    for suited_count in range(5, card_count + 1):
        weight = 4 * comb(39, card_count - suited_count)
        # The other cards (of another suit) cannot change a flush: any of them will do.
        filler = [Card.of(rank, 1) for rank in range(card_count - suited_count)]
        for ranks in combinations(range(13), suited_count):
            class_number = rank_class([*(Card.of(rank, 0) for rank in ranks), *filler])
            counts[category_of(class_number)] += weight
            classes.add(class_number)
    for ranks in combinations_with_replacement(range(13), card_count):
        rank_counts = Counter(ranks)
        if max(rank_counts.values()) > 4:
            continue
        # A representative without a flush: deal suits round-robin, so each rank's cards get
        # different suits and no suit gets more than two of seven cards.
        hand = [Card.of(rank, position % 4) for position, rank in enumerate(ranks)]
        class_number = rank_class(hand)
        counts[category_of(class_number)] += nonflush_weight(tuple(sorted(rank_counts.values())))
        classes.add(class_number)
    return counts, classes


def main() -> int:
    """Count, compare with the published figures, print the time taken and OK or FAILED."""
    start = time.perf_counter()
    counts, classes = category_counts(7)
    elapsed = time.perf_counter() - start
    is_ok = counts == SEVEN_CARD_COUNTS and len(classes) == SEVEN_CARD_CLASS_COUNT
    for category in sorted(HandCategory, reverse=True):
        expected = SEVEN_CARD_COUNTS[category]
        mark = "" if counts[category] == expected else f"   expected {expected:,}"
        print(f"{category.label:16s} {counts[category]:>12,}{mark}")
    total = sum(counts.values())
    print(f"{'total':16s} {total:>12,}   (C(52, 7) = {comb(52, 7):,})")
    print(f"distinct classes {len(classes):>12,}   (expected {SEVEN_CARD_CLASS_COUNT:,})")
    print(f"{'OK' if is_ok else 'FAILED'} in {elapsed:.2f} s")
    return 0 if is_ok else 1


if __name__ == "__main__":
    sys.exit(main())
