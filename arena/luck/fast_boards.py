"""Faster sampled boards: the sampler's shuffle and its completions' card-key sums.

The plain way (:class:`arena.luck.equity.BoardSampler`) shuffles the unseen cards with a
:class:`engine.seeds.StreamRandom`, one iterator call per byte, and
:class:`arena.luck.fast_ranks.BoardSums` then adds up each sampled completion's card keys
card by card (a dict of keys per card, five cards a board before the flop). Here the same
bytes are read as one SHAKE-256 digest (the stream *is* that digest, read in order), and
each completion's sum is read through the sampler's own design from the list of the
shuffled cards' keys, so a completion's sum costs one getter call and one ``sum``. The
numbers are the plain way's, bit for bit (``tests/arena/luck/test_fast_boards.py`` checks
the shuffle, the sums and whole estimates); the value function uses this module when
:data:`USE_FAST_BOARDS` is true.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import repeat
from operator import call
from typing import Any

from engine._eval_tables import CARD_KEYS
from engine.cards import Card

__all__ = ["USE_FAST_BOARDS", "design_sums", "shuffled"]

#: The switch: false makes the sampler shuffle with the stream and the sums add card by
#: card (read when a value function is made, so a test can turn it off).
USE_FAST_BOARDS = True

#: Bytes read first: a shuffle of up to 52 cards rejects a byte now and then, rarely more
#: than a few; a longer digest is made in the rare case that these run out.
_FIRST_BYTES = 80


#: Per pool size ``n`` (up to 256), the bytes below which a byte is kept: the largest
#: multiple of ``n`` (each index below ``n`` then equally likely).
_LIMITS = [0] + [256 - 256 % n for n in range(1, 257)]


@lru_cache(maxsize=64)
def _steps(length: int) -> tuple[tuple[int, int, int], ...]:
    """The steps of a whole shuffle of ``length`` cards: for each position ``k`` but the
    last, ``(k, n, limit)``: ``n`` cards left to draw from, and the bytes kept below
    ``limit`` (the last step, one card left, takes a byte and moves nothing: it is left
    out, and the stream is not read after the shuffle)."""
    return tuple((k, length - k, _LIMITS[length - k]) for k in range(length - 1))


def shuffled(key: bytes, cards: Sequence[Card], *, first_bytes: int = _FIRST_BYTES) -> list[Card]:
    """``cards`` after the whole Fisher-Yates shuffle that
    :func:`arena.luck.equity.sample_subsets` makes with ``StreamRandom(key)`` (each index
    below ``n`` one byte, bytes at or above the largest multiple of ``n`` rejected);
    ``first_bytes``: how many bytes to read at first (the shuffle starts again on a
    digest twice as long, which starts with the shorter one, if they run out)."""
    deck = list(cards)
    next_byte = iter(hashlib.shake_256(key).digest(first_bytes)).__next__
    try:
        for k, n, limit in _steps(len(deck)):
            byte = next_byte()
            while byte >= limit:
                byte = next_byte()
            j = k + byte % n
            deck[k], deck[j] = deck[j], deck[k]
    except StopIteration:
        return shuffled(key, cards, first_bytes=2 * first_bytes)
    return deck


def design_sums(
    cards: Sequence[Card], getters: Sequence[Callable[[Any], tuple[int, ...]]]
) -> list[int]:
    """The card-key sum of each completion ``getter(cards)``, for each of ``getters``: the
    cards' keys are looked up once, then each completion's keys are read by its getter."""
    keys = list(map(CARD_KEYS.__getitem__, cards))
    # operator.call over the getters keeps the whole loop in C.
    return list(map(sum, map(call, getters, repeat(keys))))
