"""Poker hand evaluation: the best five-card hand among 5, 6 or 7 cards.

Two entry points:

* :func:`rank_class` is the fast path for the dealer: the Cactus Kev class number of the
  best five-card hand, 1 (royal flush) .. 7462 (7-5-4-3-2 offsuit); lower is better.
  Same numbering as treys.
* :func:`evaluate` validates the cards and returns a :class:`HandRank` with the category,
  the best five cards and a description; a better hand compares greater.

>>> from engine.cards import parse_cards
>>> hand = evaluate(parse_cards("Qs Qh 4c Qd 4s 2d 9h"))
>>> hand.description
'full house, queens full of fours'
>>> hand.class_number, hand.category.label
(200, 'full house')
>>> " ".join(str(card) for card in hand.best_five)
'Qs Qh Qd 4s 4c'
>>> evaluate(parse_cards("Ah Kh Qh Jh Th")) > hand
True
>>> rank_class(parse_cards("5c 4d 3h 2s Ac"))
1609
>>> best_hand_indexes([parse_cards("As Ad 7c 8d 9h"), parse_cards("Kc Kd 7h 8h 9d")])
[0]

The tables are built at the first hand ranked; see :mod:`engine._eval_tables` for how they work.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations

from engine._eval_tables import (
    CARD_KEYS,
    CATEGORY_WORST_CLASSES,
    FIRST_CARD_KEYS,
    FIVE_CARD_KEYS,
    FIVE_FIRST_CARD_KEYS,
    FIVE_FLUSH_SUITS,
    FIVE_FOUR_BITS,
    FIVE_NONFLUSH_CLASSES,
    FIVE_RANK_SHIFT,
    FIVE_SUIT_BITS,
    FLUSH_BITS,
    FLUSH_CLASSES,
    FLUSH_SUIT_BY_BITS,
    NONFLUSH_CLASSES,
    RANK_SHIFT,
    fill_tables,
)
from engine.cards import FULL_DECK, Card

__all__ = [
    "RANK_NAMES",
    "HandCategory",
    "HandRank",
    "InvalidHandError",
    "best_hand_indexes",
    "category_of",
    "compare_hands",
    "evaluate",
    "hand_description",
    "rank_class",
]

#: The worst (highest) class number: 7-5-4-3-2 offsuit.
WORST_CLASS = 7462


class InvalidHandError(ValueError):
    """The cards are not 5, 6 or 7 distinct cards."""

    code = "bad_hand"


class HandCategory(IntEnum):
    """The kind of five-card hand; a better category compares greater."""

    HIGH_CARD = 1
    ONE_PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9

    @property
    def label(self) -> str:
        """Lower-case words, as in descriptions: ``"full house"``."""
        return self.name.lower().replace("_", " ")


@dataclass(frozen=True, slots=True, eq=False)
class HandRank:
    """The value of a hand: a better hand compares greater, equal strength compares equal.

    Equality and hashing use the class number only, so two hands that would split a pot
    are equal even when their suits differ.

    >>> from engine.cards import parse_cards
    >>> flush = evaluate(parse_cards("Ad Jd 8d 4d 2d Kc Ks"))
    >>> flush.category, flush.description
    (<HandCategory.FLUSH: 6>, 'flush, ace high')
    >>> flush > evaluate(parse_cards("9c Td Jh Qs Kc"))
    True
    """

    #: 1 (royal flush) .. 7462; lower is better (Cactus Kev / treys numbering).
    class_number: int
    category: HandCategory
    #: The five cards that make the hand: the ranks that count most first
    #: (``Qs Qh Qd 4s 4c``), straights from the top card down (the wheel ends with the ace).
    best_five: tuple[Card, ...]
    description: str

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandRank):
            return NotImplemented
        return self.class_number == other.class_number

    def __hash__(self) -> int:
        return hash(self.class_number)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, HandRank):
            return NotImplemented
        return self.class_number > other.class_number

    def __le__(self, other: object) -> bool:
        if not isinstance(other, HandRank):
            return NotImplemented
        return self.class_number >= other.class_number

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, HandRank):
            return NotImplemented
        return self.class_number < other.class_number

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, HandRank):
            return NotImplemented
        return self.class_number <= other.class_number


# Hot-path tables, keyed by the Card objects themselves: a Card finds itself by identity
# (as fast as a list index), and anything that is not one of the 52 cards misses, so bad
# values fail loudly instead of indexing from the end of a list.
_KEY: dict[int, int] = dict(zip(FULL_DECK, CARD_KEYS, strict=True))
_KEY0: dict[int, int] = dict(zip(FULL_DECK, FIRST_CARD_KEYS, strict=True))
_FIVE_KEY: dict[int, int] = dict(zip(FULL_DECK, FIVE_CARD_KEYS, strict=True))
_FIVE_KEY0: dict[int, int] = dict(zip(FULL_DECK, FIVE_FIRST_CARD_KEYS, strict=True))
_FIVE = FIVE_NONFLUSH_CLASSES
_SIX = NONFLUSH_CLASSES[6]
_SEVEN = NONFLUSH_CLASSES[7]


def rank_class(cards: Sequence[int]) -> int:
    """Class number 1..7462 of the best five-card hand in 5, 6 or 7 cards; lower is better.

    The fast path: it does not look for duplicate cards (a dealt hand has none; use
    :func:`evaluate` to check), but a wrong card count or a value that is not a card
    raises :class:`InvalidHandError`.
    """
    try:
        count = len(cards)
        # Unrolled per length: loops cost more than the lookups themselves in CPython.
        if count == 7:
            a, b, c, d, e, f, g = cards
            total = _KEY0[a] + _KEY[b] + _KEY[c] + _KEY[d] + _KEY[e] + _KEY[f] + _KEY[g]
            if total & FLUSH_BITS:
                return _flush_class(cards, total)
            return _SEVEN[total >> RANK_SHIFT]
        if count == 5:
            a, b, c, d, e = cards
            # Five cards have their own, smaller keys (see FIVE_OFFSET for why).
            total = _FIVE_KEY0[a] + _FIVE_KEY[b] + _FIVE_KEY[c] + _FIVE_KEY[d] + _FIVE_KEY[e]
            # Some suit holds four or five of the cards (rare): check for five.
            if total & FIVE_FOUR_BITS and total & FIVE_SUIT_BITS in FIVE_FLUSH_SUITS:
                # All five cards are suited: their ranks are the flush.
                return FLUSH_CLASSES[
                    (1 << (a >> 2))
                    | (1 << (b >> 2))
                    | (1 << (c >> 2))
                    | (1 << (d >> 2))
                    | (1 << (e >> 2))
                ]
            return _FIVE[total >> FIVE_RANK_SHIFT]
        if count == 6:
            a, b, c, d, e, f = cards
            total = _KEY0[a] + _KEY[b] + _KEY[c] + _KEY[d] + _KEY[e] + _KEY[f]
            if total & FLUSH_BITS:
                return _flush_class(cards, total)
            return _SIX[total >> RANK_SHIFT]
    except (LookupError, TypeError):
        if not _FIVE:  # the first hand this process ranks: the tables are still empty
            fill_tables()
            return rank_class(cards)
        # Not a sized sequence of cards, or a rank multiset no deck holds (duplicates):
        # let the checked path explain, or rank a valid hand given as a plain iterable.
    return rank_class(_checked(cards))


def _flush_class(cards: Sequence[int], total: int) -> int:
    suit = FLUSH_SUIT_BY_BITS[total & FLUSH_BITS]
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << (card >> 2)
    return FLUSH_CLASSES[mask]


def evaluate(cards: Iterable[int]) -> HandRank:
    """Rank 5, 6 or 7 distinct cards; raises :class:`InvalidHandError` for anything else."""
    hand = _checked(cards)
    class_number = rank_class(hand)
    category = category_of(class_number)
    best_five = _order(_best_five(hand, class_number), category)
    return HandRank(
        class_number=class_number,
        category=category,
        best_five=best_five,
        description=_describe(best_five, category, class_number),
    )


def hand_description(cards: Sequence[int], class_number: int) -> str:
    """``evaluate(cards).description`` for 5, 6 or 7 valid cards whose ``rank_class`` is
    ``class_number``, without looking for the best five cards.

    A description names the category and one or two ranks, which the class number (for
    straights) or the cards' rank counts give directly.

    >>> from engine.cards import parse_cards
    >>> cards = parse_cards("Qs Qh 4c Qd 4s 2d 9h")
    >>> hand_description(cards, rank_class(cards))
    'full house, queens full of fours'
    """
    category = category_of(class_number)
    if category is HandCategory.STRAIGHT_FLUSH or category is HandCategory.STRAIGHT:
        if class_number == 1:
            return "royal flush"
        # Ten classes each, the ace-high one first and the wheel (five high) last.
        first = 1 if category is HandCategory.STRAIGHT_FLUSH else _FIRST_STRAIGHT_CLASS
        return f"{_LABELS[category]}, {RANK_NAMES[12 - (class_number - first)]} high"
    if category is HandCategory.FLUSH:
        suits = [card & 3 for card in cards]
        suit = max(range(4), key=suits.count)  # the suit of five cards or more
        top = max(card >> 2 for card in cards if card & 3 == suit)
        return f"flush, {RANK_NAMES[top]} high"
    if category is HandCategory.HIGH_CARD:
        return f"high card, {RANK_NAMES[max(cards) >> 2]}"
    counts = [0] * 13
    for card in cards:
        counts[card >> 2] += 1
    # Ranks from the ace down: the groups that play are the highest ones.
    if category is HandCategory.FULL_HOUSE:
        trips = next(rank for rank in _RANKS_DOWN if counts[rank] >= 3)
        pair = next(rank for rank in _RANKS_DOWN if counts[rank] >= 2 and rank != trips)
        return f"full house, {_PLURAL[trips]} full of {_PLURAL[pair]}"
    if category is HandCategory.TWO_PAIR:
        high, low = [rank for rank in _RANKS_DOWN if counts[rank] == 2][:2]
        return f"two pair, {_PLURAL[high]} and {_PLURAL[low]}"
    size = _GROUP_SIZES[category]
    top = next(rank for rank in _RANKS_DOWN if counts[rank] == size)
    return f"{_LABELS[category]}, {_PLURAL[top]}"


def category_of(class_number: int) -> HandCategory:
    """The category of a class number: ``category_of(1)`` is a straight flush."""
    if not 1 <= class_number <= WORST_CLASS:
        raise InvalidHandError(f"class number {class_number!r} is not in 1..{WORST_CLASS}")
    return HandCategory(9 - bisect_left(CATEGORY_WORST_CLASSES, class_number))


def compare_hands(first: Sequence[int], second: Sequence[int]) -> int:
    """1 if ``first`` is the better hand, -1 if ``second`` is, 0 for a split."""
    first_class = rank_class(first)
    second_class = rank_class(second)
    return (first_class < second_class) - (first_class > second_class)


def best_hand_indexes(hands: Iterable[Sequence[int]]) -> list[int]:
    """Indexes of the hands that share the best rank (more than one means a split pot)."""
    classes = [rank_class(hand) for hand in hands]
    if not classes:
        return []
    best = min(classes)
    return [index for index, class_number in enumerate(classes) if class_number == best]


def _checked(cards: Iterable[int]) -> tuple[Card, ...]:
    """The cards as a tuple of Card after checking count, values and duplicates."""
    try:
        values = tuple(cards)
    except TypeError:
        raise InvalidHandError(f"expected 5, 6 or 7 cards, got {cards!r}") from None
    for value in values:
        if type(value) is not Card and (
            not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 52
        ):
            raise InvalidHandError(
                f"not a card: {value!r} (expected a Card or an index 0..51) in {_show(values)}"
            )
    hand = tuple(Card(value) for value in values)
    if len(hand) not in (5, 6, 7):
        raise InvalidHandError(f"expected 5, 6 or 7 cards, got {len(hand)}: {_show(hand)}")
    if len(set(hand)) != len(hand):
        duplicate = next(card for card, seen in Counter(hand).items() if seen > 1)
        raise InvalidHandError(f"duplicate card {duplicate} in {_show(hand)}")
    return hand


def _show(values: tuple[object, ...]) -> str:
    return " ".join(str(value) if type(value) is Card else repr(value) for value in values)


def _best_five(hand: tuple[Card, ...], class_number: int) -> tuple[Card, ...]:
    # Searching the subsets of the cards in descending order makes the choice among
    # equivalent fives (a kicker of the same rank in another suit) independent of input order.
    ordered = sorted(hand, reverse=True)
    return next(five for five in combinations(ordered, 5) if rank_class(five) == class_number)


def _order(five: tuple[Card, ...], category: HandCategory) -> tuple[Card, ...]:
    if category in (HandCategory.STRAIGHT, HandCategory.STRAIGHT_FLUSH):
        by_rank = sorted(five, reverse=True)
        if by_rank[0] >> 2 == 12 and by_rank[1] >> 2 == 3:
            # The wheel: the ace plays low, so it goes last (5-4-3-2-A).
            return (*by_rank[1:], by_rank[0])
        return tuple(by_rank)
    # Groups first (the trips of a full house, then its pair), then kickers, high to low.
    counts = Counter(card >> 2 for card in five)
    return tuple(sorted(five, key=lambda card: (counts[card >> 2], card), reverse=True))


#: The ranks in words, from two (index 0) to ace (12): ``RANK_NAMES[card >> 2]``.
RANK_NAMES = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
_PLURAL = tuple("sixes" if name == "six" else name + "s" for name in RANK_NAMES)


def _describe(five: tuple[Card, ...], category: HandCategory, class_number: int) -> str:
    top = five[0] >> 2
    if category is HandCategory.STRAIGHT_FLUSH and class_number == 1:
        return "royal flush"
    if category in (HandCategory.FULL_HOUSE, HandCategory.TWO_PAIR):
        joiner = " full of " if category is HandCategory.FULL_HOUSE else " and "
        detail = _PLURAL[top] + joiner + _PLURAL[five[3] >> 2]
    elif category in (HandCategory.STRAIGHT_FLUSH, HandCategory.FLUSH, HandCategory.STRAIGHT):
        detail = RANK_NAMES[top] + " high"
    elif category is HandCategory.HIGH_CARD:
        detail = RANK_NAMES[top]
    else:
        detail = _PLURAL[top]
    return f"{category.label}, {detail}"


_LABELS = {category: category.label for category in HandCategory}
_RANKS_DOWN = range(12, -1, -1)
# The first straight's class number: the one after the last flush.
_FIRST_STRAIGHT_CLASS = CATEGORY_WORST_CLASSES[HandCategory.STRAIGHT_FLUSH - HandCategory.FLUSH] + 1
_GROUP_SIZES = {
    HandCategory.FOUR_OF_A_KIND: 4,
    HandCategory.THREE_OF_A_KIND: 3,
    HandCategory.ONE_PAIR: 2,
}
