"""Each hand's randomness, derived from the match seed alone.

A match has one seed; hand ``n`` is shuffled by ``hand_rng(match_seed, n)``. Nothing else is
random in the engine, so the same match seed and the same actions replay the same match,
and any single hand can be dealt again without the hands before it.
"""

from __future__ import annotations

import random

__all__ = ["hand_rng", "hand_seed"]


def hand_seed(match_seed: int | str, hand_number: int) -> str:
    """The seed of hand ``hand_number`` of a match, derived from the match seed.

    >>> hand_seed(42, 7)
    '42:7'
    """
    return f"{match_seed}:{hand_number}"


def hand_rng(match_seed: int | str, hand_number: int) -> random.Random:
    """A generator for one hand, derived only from the match seed and the hand number.

    Seeding with a string hashes it with SHA-512 (not Python's salted ``hash``), so the
    same match seed deals the same cards in every process and on every platform, and a
    single hand can be dealt again without replaying the hands before it.

    >>> hand_rng(42, 7).random() == hand_rng(42, 7).random()
    True
    """
    return random.Random(hand_seed(match_seed, hand_number))
