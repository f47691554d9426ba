"""Per-match seeds derived from one tournament seed.

A tournament has one seed (given in its configuration, or a secret 256-bit one drawn when
it starts). Every block of duplicate matches and every freezeout gets its own seed from
it::

    derive_seed(tournament_seed, key) =
        the first 8 bytes of SHA-256(f"{tournament_seed}/{key}"), big-endian,
        with the top bit cleared

where ``key`` is the block's id (``rr-001-b01-alice-vs-bob``, ``ring-004-b02``,
``sng-007``). So the same tournament seed reproduces the whole tournament, match by match,
whatever order the matches run in and however many workers play them; and two blocks never
share their deals unless their ids are equal.

Why 63 bits: a derived seed is stored and shown in many places (the results database,
whose integers are signed 64-bit, and every hand history); 2**63 seeds are far beyond any
search a bot could make while a match is running. No bot is told a block's seed while the
block is played (its seatings' ``match_end`` withhold it: :mod:`arena.match.fairness`); a
published block seed tells nothing about the other blocks' seeds as long as the tournament
seed itself cannot be guessed: a small seed given by hand
(``seed = 7``) is for a tournament that must be played again exactly, not for one between
bots whose authors might try every small number.

>>> derive_seed(7, "rr-001-b01-alice-vs-bob") == derive_seed(7, "rr-001-b01-alice-vs-bob")
True
>>> derive_seed(7, "sng-001") != derive_seed(8, "sng-001")
True
>>> 0 <= derive_seed(7, "sng-001") < 2**63
True
"""

from __future__ import annotations

import hashlib

__all__ = ["DERIVED_SEED_BITS", "derive_seed", "ordering_key"]

#: Bits of a derived seed (it fits a signed 64-bit integer).
DERIVED_SEED_BITS = 63


def _digest(tournament_seed: int, key: str) -> bytes:
    if not isinstance(tournament_seed, int) or isinstance(tournament_seed, bool):
        raise TypeError(f"tournament seed must be an integer, got {tournament_seed!r}")
    return hashlib.sha256(f"{tournament_seed}/{key}".encode()).digest()


def derive_seed(tournament_seed: int, key: str) -> int:
    """The seed of the block or freezeout named ``key`` (see the module docstring)."""
    value = int.from_bytes(_digest(tournament_seed, key)[:8], "big")
    return value & ((1 << DERIVED_SEED_BITS) - 1)


def ordering_key(tournament_seed: int, key: str) -> bytes:
    """A value to sort by for a random-looking but reproducible order (the whole digest).

    Sorting the bots by ``ordering_key(seed, f"{draw}/{name}")`` is a uniformly random
    permutation drawn from the seed, with no generator whose algorithm could change
    between Python versions.
    """
    return _digest(tournament_seed, key)
