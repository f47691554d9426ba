"""Each hand's randomness, derived from the match seed alone by a cryptographic stream.

A match has one seed; hand ``n`` is shuffled by ``hand_rng(match_seed, n)``. Nothing else is
random in the engine, so the same match seed and the same actions replay the same match,
and any single hand can be dealt again without the hands before it.

Why a cryptographic stream. The generator is not Mersenne Twister: its state can be rebuilt
from its outputs, and a bot that sees enough cards could then predict the rest. Every bit
here is read from SHAKE-256 (an extendable-output function: ``digest(n)`` is a prefix of
``digest(2 * n)``) of a key that names what it is for::

    b"poker-arena deck v1|" + str(match_seed).encode() + b"|" + str(hand_number).encode()

Without the seed the stream cannot be told from random bytes, so the cards seen so far say
nothing about the cards to come; with it (revealed when the match is over), anyone can
deal every hand again with ``hashlib`` alone.

How the stream is read (the recipe a bot repeats, see ``protocol/PROTOCOL.md``): bytes in
order from the first; a draw of ``k`` bits, 1 to 8, takes the next byte and keeps its low
``k`` bits (``byte & (2**k - 1)``); a wider draw takes the next ``ceil(k / 8)`` bytes as a
big-endian integer and keeps its low ``k`` bits. ``random()`` is a 53-bit draw over 2**53.

>>> hand_rng(42, 7).getrandbits(8) == hashlib.shake_256(b"poker-arena deck v1|42|7").digest(1)[0]
True
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Callable, Iterator

__all__ = ["DECK_DOMAIN", "StreamRandom", "hand_key", "hand_rng", "hand_seed"]

#: The first bytes of every deck key: names the purpose and the version of the recipe, so
#: that the same seed keys different streams for different uses.
DECK_DOMAIN = b"poker-arena deck v1|"

# The first read of the stream: a 52-card shuffle reads about 76 bytes on average and
# rarely more than 100; past it, each read doubles the bytes made.
_FIRST_READ_BYTES = 128
_TWO_TO_MINUS_53 = 2.0**-53


def hand_seed(match_seed: int | str, hand_number: int) -> str:
    """The label of hand ``hand_number`` of a match (written in hand histories).

    >>> hand_seed(42, 7)
    '42:7'
    """
    return f"{match_seed}:{hand_number}"


def hand_key(match_seed: int | str, hand_number: int) -> bytes:
    """The key of hand ``hand_number``'s stream: the deck domain, the seed and the number.

    >>> hand_key(42, 7)
    b'poker-arena deck v1|42|7'
    """
    return DECK_DOMAIN + str(match_seed).encode() + b"|" + str(hand_number).encode()


def hand_rng(match_seed: int | str, hand_number: int) -> StreamRandom:
    """The generator of one hand, derived only from the match seed and the hand number.

    The same match seed deals the same cards in every process and on every platform, and a
    single hand can be dealt again without replaying the hands before it.

    >>> hand_rng(42, 7).random() == hand_rng(42, 7).random()
    True
    """
    return StreamRandom(hand_key(match_seed, hand_number))


class StreamRandom(random.Random):
    """A ``random.Random`` whose every bit is read from SHAKE-256 of ``key`` (the recipe is
    in the module docstring).

    ``next_byte`` is the stream's next byte as a C-level call, for the shuffle's hot path
    (:func:`engine.deck.shuffle_in_place`); ``getrandbits`` reads the same stream. A stream
    has no state to save: make a new one from the key instead.

    >>> stream = StreamRandom(b"example")
    >>> stream.next_byte() == hashlib.shake_256(b"example").digest(1)[0]
    True
    """

    next_byte: Callable[[], int]

    def __init__(self, key: bytes) -> None:
        super().__init__(key)

    def seed(self, a: object = None, version: int = 2) -> None:
        """Start the stream of key ``a`` (bytes) from its first byte.

        The engine has no entropy of its own: a missing or non-bytes key is refused.
        """
        if not isinstance(a, bytes):
            raise TypeError(f"a stream's key must be bytes, got {a!r}")
        self.key = a
        self._bytes = itertools.chain.from_iterable(_stream_chunks(a))
        # The bound method of the iterator: one C call per byte, no Python frame.
        self.next_byte = self._bytes.__next__
        self.gauss_next = None

    def getrandbits(self, k: int, /) -> int:
        """A ``k``-bit draw: the next byte's low ``k`` bits when ``k`` is 1 to 8, else the
        next ``ceil(k / 8)`` bytes (big-endian) masked to ``k`` bits."""
        if 0 < k <= 8:
            return self.next_byte() & ((1 << k) - 1)
        if k < 0:
            raise ValueError(f"number of bits must be non-negative, got {k}")
        data = bytes(itertools.islice(self._bytes, (k + 7) // 8))
        return int.from_bytes(data, "big") & ((1 << k) - 1)

    def random(self) -> float:
        """A float in [0, 1): a 53-bit draw over 2**53."""
        return self.getrandbits(53) * _TWO_TO_MINUS_53

    def getstate(self) -> tuple[int, ...]:
        """Refused: a stream is not saved but made again from its key."""
        raise TypeError("a StreamRandom has no state to save: make a new one from its key")

    def setstate(self, state: tuple[object, ...]) -> None:
        """Refused, as :meth:`getstate`."""
        raise TypeError("a StreamRandom has no state to restore: make a new one from its key")


def _stream_chunks(key: bytes) -> Iterator[bytes]:
    """SHAKE-256 of ``key`` in consecutive pieces, each read doubling the bytes made (the
    output of a longer read starts with the shorter one, so the pieces join seamlessly)."""
    xof = hashlib.shake_256(key)
    made, length = 0, _FIRST_READ_BYTES
    while True:
        yield xof.digest(length)[made:]
        made, length = length, 2 * length
