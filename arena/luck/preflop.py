"""Exact heads-up pre-flop equities, read from a table instead of sampled.

Before the flop with only two hands dealt, a seat's showdown equity is a function of the
four hole cards alone: the board is five of the other 48 cards, every one of the
1,712,304 boards equally likely (a burned card is never seen, so it is one of them).
Relabelling the suits changes no equity, so the 812,175 pairs of hands fall into a few
tens of thousands of classes; :data:`TABLE_FILE` holds, per class, how many boards the
first hand of the class's representative wins and how many it ties, counted once by
``bench/make_preflop_equities.py`` (every board of every class, in C) and checked by the
tests against a count in Python. The value function reads it (:func:`first_share`) for a
heads-up pot before the flop: an exact equity, where it sampled 32 to 1,024 boards before
(estimator version 5 on). The table's digest is part of the estimator's name.

A class is named by its key (:func:`class_key`): the four cards, each hand's higher rank
first (both orders of a pair are tried), the suits renamed in order of first appearance,
packed six bits a card; the smallest of those, over both orders of the two hands.
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path

from arena.luck.parameters import PARAMETERS
from engine.cards import Card

__all__ = [
    "BOARDS",
    "TABLE_FILE",
    "cards_of",
    "class_key",
    "first_share",
    "load_table",
    "matchup_key",
    "table_digest",
]

#: How many five-card boards the 48 cards left after two hands make.
BOARDS = 1_712_304

#: The table: per class, three little-endian unsigned 32-bit numbers: its key, the boards
#: the first hand wins, the boards it ties; sorted by key.
TABLE_FILE = Path(__file__).with_name("preflop_equities.bin")


def _orders(hole: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """``hole``'s cards higher rank first; a pair both ways (its order depends on suits)."""
    a, b = hole
    if a >> 2 > b >> 2:
        return ((a, b),)
    if a >> 2 < b >> 2:
        return ((b, a),)
    return ((a, b), (b, a))


def _relabelled(cards: tuple[int, ...]) -> int:
    """The cards with their suits renamed 0, 1, ... in order of first appearance, six bits
    a card, the first card highest."""
    names: dict[int, int] = {}
    key = 0
    for card in cards:
        name = names.setdefault(card & 3, len(names))
        key = key << 6 | (card & ~3) | name
    return key


def matchup_key(first: tuple[int, int], second: tuple[int, int]) -> int:
    """The key of ``first`` against ``second`` (in that order), the same for every
    relabelling of the suits.

    >>> c = Card.parse
    >>> matchup_key((c("As"), c("Kh")), (c("Qd"), c("Qs"))) == matchup_key(
    ...     (c("Kc"), c("Ad")), (c("Qh"), c("Qd")))  # spades -> diamonds -> hearts -> clubs
    True
    >>> matchup_key((c("As"), c("Kh")), (c("Qd"), c("Qs"))) == matchup_key(
    ...     (c("Kc"), c("Ad")), (c("Qh"), c("Qc")))  # the queens share no suit with the ace
    False
    """
    return min(_relabelled(a + b) for a in _orders(first) for b in _orders(second))


def class_key(first: tuple[int, int], second: tuple[int, int]) -> tuple[int, bool]:
    """The class of the two hands, and whether the class's first hand is ``second``."""
    forward = matchup_key(first, second)
    backward = matchup_key(second, first)
    return (forward, False) if forward <= backward else (backward, True)


def cards_of(key: int) -> tuple[tuple[Card, Card], tuple[Card, Card]]:
    """A class's representative: the two hands its key packs (the first may be either
    hand given to :func:`class_key`: here the other, whose key is smaller).

    >>> key, swapped = class_key((Card.parse("As"), Card.parse("Kh")), (Card(0), Card(5)))
    >>> cards_of(key), swapped
    (((Card('3c'), Card('2d')), (Card('Ah'), Card('Ks'))), True)
    """
    cards = [Card(key >> shift & 63) for shift in (18, 12, 6, 0)]
    return (cards[0], cards[1]), (cards[2], cards[3])


@lru_cache(maxsize=1)
def load_table() -> tuple[array[int], array[int], array[int]]:
    """The table's keys, wins and ties (read once per process: a match's estimator
    process is forked after its match read it)."""
    data = TABLE_FILE.read_bytes()
    published = PARAMETERS["heads_up_preflop_sha256"]
    if _digest(data) != published:
        raise RuntimeError(
            f"{TABLE_FILE} is not the published table (SHA-256 {_digest(data)}..., "
            f"the estimator's parameters name {published}...)"
        )
    numbers = array("I")
    numbers.frombytes(data)
    if numbers.itemsize != 4 or sys.byteorder != "little":  # pragma: no cover
        raise RuntimeError("the table is read as little-endian 32-bit unsigned integers")
    return numbers[0::3], numbers[1::3], numbers[2::3]


def table_digest() -> str:
    """The first 16 hex digits of the table file's SHA-256 (the estimator's parameters
    name it: :data:`~arena.luck.parameters.PARAMETERS`)."""
    return _digest(TABLE_FILE.read_bytes())


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


#: Shares already read, by the two hands (a match meets the same few thousand).
_SHARES: dict[tuple[tuple[Card, ...], tuple[Card, ...]], float] = {}
_SHARES_KEPT = 1 << 16


def first_share(first: tuple[Card, ...], second: tuple[Card, ...]) -> float:
    """``first``'s expected fraction of a pot against ``second`` over every board (ties
    split): ``(wins + ties / 2) / BOARDS``, as :func:`arena.luck.equity.pot_shares`
    counts it; ``second``'s is one minus it."""
    share = _SHARES.get((first, second))
    if share is None:
        if len(_SHARES) >= _SHARES_KEPT:
            _SHARES.clear()
        key, swapped = class_key((first[0], first[1]), (second[0], second[1]))
        keys, wins, ties = load_table()
        index = bisect_left(keys, key)
        if index == len(keys) or keys[index] != key:
            raise LookupError(f"no pre-flop class {key:#x} in {TABLE_FILE.name}")
        won = BOARDS - wins[index] - ties[index] if swapped else wins[index]
        share = _SHARES[(first, second)] = (won + 0.5 * ties[index]) / BOARDS
    return share
