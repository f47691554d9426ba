"""The deck commitment: how every bot can check, once the match is over, that the decks it
was dealt came from one seed fixed before the first hand (protocol/PROTOCOL.md,
"Checking the deal" and "Withheld seeds").

Theory of operation. The seed decides every deck (:func:`engine.seeds.hand_rng`), so it
stays secret while the match is played. At ``hello`` every bot gets a commitment,
``sha256(salt + seed text)``, the salt being 32 random bytes made for this match alone; at
``match_end`` the seed and the salt are told. The salt keeps the commitment from giving
a small seed away (``--seed 7``: a bot could hash every small number); it is not written
in the hand history, so the same seed still gives the same bytes there.

A seed another match still deals from (the other seatings of a duplicate block) must not
be told at this match's end: such a commitment is *withheld*
(:meth:`DeckCommitment.withheld`): ``match_end`` reveals nothing, and the salt is made from
the seed (:func:`withheld_salt`), so whoever learns the seed once the block is over checks
the commitment with nothing else. Such a seed is derived from the tournament's secret
seed: no bot can guess it, which is what the random salt is for elsewhere."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

__all__ = [
    "SALT_BYTES",
    "WITHHELD_SALT_DOMAIN",
    "DeckCommitment",
    "commitment_of",
    "new_salt",
    "withheld_salt",
]

#: How many random bytes salt a commitment (as many as the hash has).
SALT_BYTES = 32


def new_salt() -> bytes:
    """A fresh salt from the operating system's generator: one per match."""
    return os.urandom(SALT_BYTES)


#: The first bytes of a withheld commitment's salt (a purpose and a version).
WITHHELD_SALT_DOMAIN = b"poker-arena withheld salt v1|"


def withheld_salt(seed: int) -> bytes:
    """The salt of a withheld commitment: SHA-256 of :data:`WITHHELD_SALT_DOMAIN` and the
    seed's decimal text, so the seed alone opens the commitment.

    >>> withheld_salt(7) == hashlib.sha256(b"poker-arena withheld salt v1|7").digest()
    True
    """
    return hashlib.sha256(WITHHELD_SALT_DOMAIN + str(seed).encode()).digest()


def commitment_of(seed: int, salt: bytes) -> str:
    """The commitment to ``seed``: SHA-256 of the salt then the seed's decimal text, in
    lower-case hexadecimal (what ``hello`` carries as ``deck_commitment``).

    >>> commitment_of(7, bytes(32)) == hashlib.sha256(bytes(32) + b"7").hexdigest()
    True
    """
    return hashlib.sha256(salt + str(seed).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class DeckCommitment:
    """A match's seed with the salt of its commitment; the arena keeps it until
    ``match_end`` reveals both, unless it is withheld (``is_withheld``: another match
    still deals from the seed; see :meth:`withheld`). Its ``repr`` shows neither seed nor
    salt (it may end up in a log).

    >>> deck = DeckCommitment(7, bytes(32))
    >>> deck.commitment == commitment_of(7, bytes(32))
    True
    >>> deck
    DeckCommitment(commitment=6e9be5fe...)
    """

    seed: int
    # new_salt is looked up when a commitment is made, so a test can pin the salt.
    salt: bytes = field(default_factory=lambda: new_salt())
    is_withheld: bool = False

    @classmethod
    def withheld(cls, seed: int) -> DeckCommitment:
        """The commitment of a match whose seed another match still deals from: its salt
        is :func:`withheld_salt` and ``match_end`` reveals nothing.

        >>> deck = DeckCommitment.withheld(7)
        >>> deck.revealed, deck.commitment == commitment_of(7, withheld_salt(7))
        (None, True)
        """
        return cls(seed, withheld_salt(seed), is_withheld=True)

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise TypeError(f"a deck seed must be an integer, got {self.seed!r}")
        if not isinstance(self.salt, bytes) or len(self.salt) != SALT_BYTES:
            raise ValueError(f"a deck salt must be {SALT_BYTES} bytes, got {self.salt!r}")

    def __repr__(self) -> str:
        return f"DeckCommitment(commitment={self.commitment[:8]}...)"

    @property
    def commitment(self) -> str:
        """What every bot is told at ``hello``."""
        return commitment_of(self.seed, self.salt)

    @property
    def revealed(self) -> tuple[int, bytes] | None:
        """The seed and salt ``match_end`` tells; None when they are withheld."""
        return None if self.is_withheld else (self.seed, self.salt)
