"""Lookup tables behind :mod:`engine.evaluator`; the class tables are filled once, by
:func:`fill_tables` at the first hand ranked (about 0.2 s of CPU), not at import.

Theory of operation
-------------------
Every card has an integer *key*: a rank key shifted left by :data:`RANK_SHIFT` plus a
suit key ``1 << (4 * suit_index)`` in the low 16 bits. Adding the keys of a hand gives

* in the low 16 bits, four 4-bit suit counters. The first card's key also carries
  :data:`FLUSH_OFFSET` (3 in every counter), so a counter reaches 8 - bit 3 of its nibble
  set - exactly when five or more cards share that suit: ``total & FLUSH_BITS`` is the
  flush test. Counters stay below 16 (3 + 7), so they never carry into each other;
* above that, the sum of the rank keys. :data:`RANK_KEYS` are SKPokerEval's rank keys,
  chosen so that the sums of up to seven of them (at most four of each rank) are all
  distinct: the sum names the multiset of ranks, and one dict lookup gives the class of
  the best non-flush five-card hand in it.

For flushes the evaluator ORs the rank bits of the flush suit and looks the 13-bit mask up
in :data:`FLUSH_CLASSES`. With five or more cards of one suit among seven, no non-flush
hand can beat the flush (at most trips or two pair remain), so the flush answer is final.

Five-card hands (draw poker) use their own smaller keys, :data:`FIVE_CARD_KEYS`: the
five-card rank keys below three-bit suit counters, centred on zero, so that every sum is a
one-digit CPython integer (see :data:`FIVE_OFFSET`). A flush there is all five cards in one
suit, so its rank mask is simply the OR of all five cards' rank bits.

Class numbers follow Cactus Kev (and treys): 1 is the royal flush, 7462 is 7-5-4-3-2
offsuit; within a category hands are ordered by their ranks, most significant first.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

__all__ = [
    "CARD_KEYS",
    "CATEGORY_WORST_CLASSES",
    "FIRST_CARD_KEYS",
    "FIVE_CARD_KEYS",
    "FIVE_FIRST_CARD_KEYS",
    "FIVE_FLUSH_SUITS",
    "FIVE_FOUR_BITS",
    "FIVE_NONFLUSH_CLASSES",
    "FIVE_OFFSET",
    "FIVE_RANK_KEYS",
    "FIVE_RANK_SHIFT",
    "FIVE_SUIT_BITS",
    "FLUSH_BITS",
    "FLUSH_CLASSES",
    "FLUSH_OFFSET",
    "FLUSH_SUIT_BY_BITS",
    "NONFLUSH_CLASSES",
    "RANK_KEYS",
    "RANK_SHIFT",
    "fill_tables",
]

#: SKPokerEval's seven-card rank keys, deuce to ace: sums of up to 7 (<= 4 of each) are unique.
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
#: The rank-key sum sits above the four 4-bit suit counters.
RANK_SHIFT = 16
#: Added once per hand (via the first card's key): a counter then hits 8 at five of a suit.
FLUSH_OFFSET = 0x3333
#: Bit 3 of each suit counter.
FLUSH_BITS = 0x8888
#: Which suit a set flush bit belongs to (only one suit can have five of seven cards).
FLUSH_SUIT_BY_BITS = {0x8: 0, 0x80: 1, 0x800: 2, 0x8000: 3}

#: SKPokerEval's five-card rank keys: sums of five (<= 4 of each) are unique, and small.
FIVE_RANK_KEYS = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415)
#: Five-card keys keep four 3-bit suit counters (12 bits) below the rank sum.
FIVE_RANK_SHIFT = 12
# Half the largest five-card rank sum (4 aces + a king). Taking it off the first card centres
# every partial sum on zero, so that |total| < 2**30: CPython's one-digit integers, whose
# arithmetic is markedly faster than that of two-digit ones. Only five cards fit this way.
_FIVE_CENTRE = (4 * FIVE_RANK_KEYS[12] + FIVE_RANK_KEYS[11]) // 2
#: Subtracted once per five-card hand (via the first card's key).
FIVE_OFFSET = _FIVE_CENTRE << FIVE_RANK_SHIFT
#: The top bit of each 3-bit suit counter: set when a suit holds four or five of the cards.
FIVE_FOUR_BITS = 0x924
#: The three-bit suit counters of a five-card total.
FIVE_SUIT_BITS = 0xFFF
#: The suit counters of a five-card flush (all five in one suit).
FIVE_FLUSH_SUITS = frozenset({5, 5 << 3, 5 << 6, 5 << 9})

#: The worst class number of each category, best category first (straight flush .. high card).
CATEGORY_WORST_CLASSES = (10, 166, 322, 1599, 1609, 2467, 3325, 6185, 7462)

_RANK_COUNT = 13
# Ranks from ace down to deuce: Cactus Kev numbers better hands first.
_DESCENDING = tuple(range(_RANK_COUNT - 1, -1, -1))
# Best straight first: ace high (T-J-Q-K-A) down to the wheel (A-2-3-4-5, the ace plays low).
_STRAIGHT_MASKS = (*(0x1F << (top - 4) for top in range(12, 3, -1)), 0x100F)


def _mask(ranks: tuple[int, ...]) -> int:
    result = 0
    for rank in ranks:
        result |= 1 << rank
    return result


def _plain_five_masks() -> list[int]:
    """Five distinct ranks that are not a straight, best first (flushes and high cards)."""
    straights = set(_STRAIGHT_MASKS)
    masks = (_mask(ranks) for ranks in combinations(range(_RANK_COUNT), 5))
    # For two sets of five distinct ranks, comparing the bit masks as integers is the same
    # as comparing the ranks from the highest down, which is the poker order.
    return sorted((mask for mask in masks if mask not in straights), reverse=True)


def _build_flush_classes(plain_masks: list[int]) -> dict[int, int]:
    """Class of the best hand in a suit holding the ranks of a 13-bit mask (5..7 bits set)."""
    table: dict[int, int] = {}
    for index, mask in enumerate(_STRAIGHT_MASKS):
        table[mask] = 1 + index
    for index, mask in enumerate(plain_masks):
        table[mask] = 323 + index
    # Six or seven suited ranks: the best five is one card short, so take the best mask with
    # one bit removed. Ascending order guarantees the smaller masks are already filled in.
    for mask in range(1 << _RANK_COUNT):
        if mask.bit_count() in (6, 7):
            best = 7462
            bits = mask
            while bits:
                low = bits & -bits
                best = min(best, table[mask ^ low])
                bits ^= low
            table[mask] = best
    return table


def _build_five_card_classes(plain_masks: list[int], keys: tuple[int, ...]) -> dict[int, int]:
    """Rank-key sum of five cards (with these rank keys) -> class of that non-flush hand."""
    table: dict[int, int] = {}
    next_class = 11
    for quad in _DESCENDING:
        for kicker in _DESCENDING:
            if kicker != quad:
                table[4 * keys[quad] + keys[kicker]] = next_class
                next_class += 1
    for trips in _DESCENDING:
        for pair in _DESCENDING:
            if pair != trips:
                table[3 * keys[trips] + 2 * keys[pair]] = next_class
                next_class += 1
    # Flushes (323..1599) are not in this table.
    for index, mask in enumerate(_STRAIGHT_MASKS):
        table[_mask_key(mask, keys)] = 1600 + index
    next_class = 1610
    for trips in _DESCENDING:
        others = [rank for rank in _DESCENDING if rank != trips]
        # combinations() of a descending list yields kickers in descending poker order.
        for high, low in combinations(others, 2):
            table[3 * keys[trips] + keys[high] + keys[low]] = next_class
            next_class += 1
    for high_pair, low_pair in combinations(_DESCENDING, 2):
        for kicker in _DESCENDING:
            if kicker not in (high_pair, low_pair):
                table[2 * keys[high_pair] + 2 * keys[low_pair] + keys[kicker]] = next_class
                next_class += 1
    for pair in _DESCENDING:
        others = [rank for rank in _DESCENDING if rank != pair]
        for first, second, third in combinations(others, 3):
            table[2 * keys[pair] + keys[first] + keys[second] + keys[third]] = next_class
            next_class += 1
    for index, mask in enumerate(plain_masks):
        table[_mask_key(mask, keys)] = 6186 + index
    return table


def _mask_key(mask: int, keys: tuple[int, ...]) -> int:
    return sum(keys[rank] for rank in range(_RANK_COUNT) if mask >> rank & 1)


def _build_more_card_classes(smaller: dict[int, int], card_count: int) -> dict[int, int]:
    """Rank-key sum of ``card_count`` cards -> class of the best non-flush five among them.

    The best five of n cards is the best five of one of its (n-1)-card subsets, so each
    entry is the minimum over dropping one rank from the multiset.
    """
    table: dict[int, int] = {}
    # Multisets of rank keys, each sorted ascending like RANK_KEYS itself.
    for keys in combinations_with_replacement(RANK_KEYS, card_count):
        # Sorted: a rank held five times would show as keys[i] == keys[i + 4]; no deck has it.
        if keys[0] == keys[4] or (card_count > 5 and keys[1] == keys[5]):
            continue
        if card_count > 6 and keys[2] == keys[6]:
            continue
        total = sum(keys)
        table[total] = min([smaller[total - key] for key in set(keys)])
    return table


def _card_keys() -> list[int]:
    return [(RANK_KEYS[index >> 2] << RANK_SHIFT) | (1 << 4 * (index & 3)) for index in range(52)]


def _five_card_keys() -> list[int]:
    return [
        (FIVE_RANK_KEYS[index >> 2] << FIVE_RANK_SHIFT) | (1 << 3 * (index & 3))
        for index in range(52)
    ]


#: Card index -> key (rank key above the suit counter); the first card uses FIRST_CARD_KEYS.
CARD_KEYS: list[int] = _card_keys()
#: Card index -> key plus :data:`FLUSH_OFFSET`.
FIRST_CARD_KEYS: list[int] = [key + FLUSH_OFFSET for key in CARD_KEYS]
#: Card index -> five-card key (small rank key above three bits per suit).
FIVE_CARD_KEYS: list[int] = _five_card_keys()
#: Card index -> five-card key minus :data:`FIVE_OFFSET`.
FIVE_FIRST_CARD_KEYS: list[int] = [key - FIVE_OFFSET for key in FIVE_CARD_KEYS]

# The class tables start empty and are filled in place by fill_tables(), so that every
# module that imported them (and bound them to names of its own) sees them filled.
#: 13-bit mask of suited ranks -> class of the best flush or straight flush (5..7 bits).
#: A dict, not a list: a mask of fewer than five ranks (duplicate cards) is a KeyError.
FLUSH_CLASSES: dict[int, int] = {}
#: Card count -> (rank-key sum -> class of the best non-flush five cards).
NONFLUSH_CLASSES: dict[int, dict[int, int]] = {6: {}, 7: {}}
#: ``total >> FIVE_RANK_SHIFT`` of five cards (the centred rank sum) -> non-flush class.
FIVE_NONFLUSH_CLASSES: dict[int, int] = {}


def fill_tables() -> None:
    """Fill the class tables, once; later calls return at once.

    Not done at import: most processes that import the engine never rank a hand (a pool
    worker that hands its matches to referees, the command line, the site's web process),
    and each paid about 0.2 s of CPU for the tables. :data:`FIVE_NONFLUSH_CLASSES` is filled
    last, so a filled one says they all are; two threads that both find it empty both build
    the same numbers, and each ``update`` runs whole under the interpreter lock.
    """
    if FIVE_NONFLUSH_CLASSES:
        return
    plain = _plain_five_masks()
    flush = _build_flush_classes(plain)
    six = _build_more_card_classes(_build_five_card_classes(plain, RANK_KEYS), 6)
    seven = _build_more_card_classes(six, 7)
    five = _build_five_card_classes(plain, FIVE_RANK_KEYS)
    FLUSH_CLASSES.update(flush)
    NONFLUSH_CLASSES[6].update(six)
    NONFLUSH_CLASSES[7].update(seven)
    FIVE_NONFLUSH_CLASSES.update({total - _FIVE_CENTRE: rank for total, rank in five.items()})
