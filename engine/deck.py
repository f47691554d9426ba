"""A deck of cards shuffled only by a ``random.Random`` that the caller passes in.

The shuffle is our own Fisher-Yates over ``getrandbits`` with rejection sampling, so the
order depends only on the generator's bit stream (stable across platforms and Python
versions), not on the implementation details of ``random.shuffle``.

>>> import random
>>> deck = Deck.shuffled(random.Random(7))
>>> first = deck.deal(2)
>>> first == Deck.shuffled(random.Random(7)).deal(2)
True
>>> Deck.stacked("As Kd").deal(2)
[Card('As'), Card('Kd')]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from engine.cards import FULL_DECK, Card, CardParseError, parse_cards
from engine.seeds import StreamRandom

__all__ = ["Deck", "DeckExhaustedError", "shuffle_in_place"]


class DeckExhaustedError(RuntimeError):
    """More cards were asked for than the deck holds (a dealer bug, never a bot's)."""

    code = "deck_exhausted"


def shuffle_in_place(items: list[Card], rng: random.Random) -> None:
    """Fisher-Yates shuffle of ``items`` driven only by ``rng``.

    For ``i`` from the last index down to 1, an index ``j`` below ``i + 1`` is drawn by
    rejection sampling (``getrandbits`` of ``(i + 1).bit_length()`` bits until the draw is
    below ``i + 1``) and items ``i`` and ``j`` swap. Inlined because shuffling is on the
    dealer's hot path (one shuffle per hand).

    A :class:`~engine.seeds.StreamRandom` is read byte by byte through its C-level
    ``next_byte``: the same draws as its ``getrandbits`` (a draw of at most 8 bits is the low
    bits of the next byte), one call per draw instead of a Python method.
    """
    count = len(items)
    is_full_deck = count == len(FULL_DECK)
    if isinstance(rng, StreamRandom) and count <= _BYTE_DRAWS_UP_TO:
        next_byte = rng.next_byte
        for i, bound, mask in _FULL_DECK_MASKS if is_full_deck else _masks(count):
            j = next_byte() & mask
            while j >= bound:
                j = next_byte() & mask
            items[i], items[j] = items[j], items[i]
        return
    getrandbits = rng.getrandbits
    for i, bound, bits in _FULL_DECK_STEPS if is_full_deck else _steps(count):
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


def _steps(count: int) -> tuple[tuple[int, int, int], ...]:
    """Fisher-Yates steps for ``count`` items: (index, bound, bits of the bound)."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in range(count - 1, 0, -1))


def _masks(count: int) -> tuple[tuple[int, int, int], ...]:
    """The same steps with the mask of the bits instead of their number (byte draws)."""
    return tuple((i, bound, (1 << bits) - 1) for i, bound, bits in _steps(count))


# Worked out once: every hand shuffles 52 cards.
_FULL_DECK_STEPS = _steps(len(FULL_DECK))
_FULL_DECK_MASKS = _masks(len(FULL_DECK))
# Up to 256 items every draw has at most 8 bits: one byte of a stream.
_BYTE_DRAWS_UP_TO = 256


class Deck:
    """An ordered stub of cards; ``deal`` takes from the top, ``burn`` discards one."""

    __slots__ = ("_burned", "_cards", "_position")

    def __init__(self, cards: Sequence[Card]) -> None:
        if len(set(cards)) != len(cards):
            raise CardParseError(f"deck has duplicate cards: {[str(c) for c in cards]}")
        self._cards: list[Card] = list(cards)
        self._position = 0
        self._burned: list[Card] = []

    @classmethod
    def shuffled(cls, rng: random.Random) -> Deck:
        """A full 52-card deck in the order given by ``rng``."""
        cards = list(FULL_DECK)
        shuffle_in_place(cards, rng)
        # A permutation of FULL_DECK cannot hold duplicates: skip the check in __init__.
        deck = cls.__new__(cls)
        deck._cards = cards
        deck._position = 0
        deck._burned = []
        return deck

    @classmethod
    def stacked(cls, top: str | Iterable[str | Card], *, fill: bool = True) -> Deck:
        """A deck whose top cards are ``top`` (in dealing order), for tests and replays.

        With ``fill`` the remaining cards follow in index order, so the deck has 52 cards.
        """
        if isinstance(top, str):
            head = parse_cards(top)
        else:
            head = [c if isinstance(c, Card) else Card.parse(c) for c in top]
        if fill:
            present = set(head)
            head += [c for c in FULL_DECK if c not in present]
        return cls(head)

    @property
    def order(self) -> tuple[Card, ...]:
        """Every card in the deck in its original order (for hand histories)."""
        return tuple(self._cards)

    @property
    def remaining_count(self) -> int:
        """How many cards are left in the stub."""
        return len(self._cards) - self._position

    @property
    def burned(self) -> tuple[Card, ...]:
        """The burn cards so far, in order."""
        return tuple(self._burned)

    def deal(self, count: int = 1) -> list[Card]:
        """Take ``count`` cards from the top."""
        if count < 0 or count > self.remaining_count:
            raise DeckExhaustedError(
                f"cannot deal {count} cards, {self.remaining_count} left",
            )
        start = self._position
        self._position += count
        return self._cards[start : self._position]

    def deal_one(self) -> Card:
        """Take the top card."""
        return self.deal(1)[0]

    def burn(self) -> Card:
        """Discard the top card face down (before the flop, turn and river)."""
        card = self.deal_one()
        self._burned.append(card)
        return card

    def replace_stub(self, cards: Sequence[Card]) -> None:
        """Make ``cards`` the new stub (five-card draw reshuffles discards when it runs out)."""
        self._cards = self._cards[: self._position] + list(cards)
