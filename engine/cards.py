"""Playing cards: 52 interned values that are also small integers.

A :class:`Card` is an ``int`` subclass (``rank_index * 4 + suit_index``) so that the
hand evaluator can use it directly as a table index, while it still prints, parses and
compares like a card.

>>> card = Card.parse("As")
>>> str(card), card.rank, card.suit
('As', 'A', 's')
>>> card.to_wire()
{'rank': 'A', 'suit': 'spades'}
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "CARD_TEXTS",
    "FULL_DECK",
    "RANKS",
    "SUITS",
    "Card",
    "CardParseError",
    "parse_cards",
]

RANKS = "23456789TJQKA"
SUITS = "cdhs"

_SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
# On the wire a ten is "10" (the wire's card form); in text it is "T".
_WIRE_RANK = {rank: ("10" if rank == "T" else rank) for rank in RANKS}


class CardParseError(ValueError):
    """A string or wire object does not name a card."""

    code = "bad_card"


class Card(int):
    """One of the 52 cards; ``Card.parse("As")`` and ``str(card) == "As"``.

    Ranks are ``23456789TJQKA``, suits ``cdhs``. Instances are interned: there is exactly
    one object per card, so ``is`` and ``==`` agree.
    """

    __slots__ = ()

    _instances: tuple[Card, ...] = ()

    def __new__(cls, index: int) -> Card:
        # Every card exists once (built below with int.__new__); this only looks it up.
        if not 0 <= index < 52:
            raise CardParseError(f"card index {index!r} is not in 0..51")
        return cls._instances[index]

    @classmethod
    def of(cls, rank_index: int, suit_index: int) -> Card:
        """The card with rank index 0..12 (deuce..ace) and suit index 0..3 (``cdhs``)."""
        return cls(rank_index * 4 + suit_index)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a two-character card such as ``"As"`` or ``"Td"``."""
        if not isinstance(text, str) or len(text) != 2:
            raise CardParseError(f"not a card: {text!r} (expected rank+suit like 'As')")
        rank, suit = text[0].upper(), text[1].lower()
        if rank not in RANKS or suit not in SUITS:
            raise CardParseError(
                f"not a card: {text!r} (ranks {RANKS}, suits {SUITS})",
            )
        return cls.of(RANKS.index(rank), SUITS.index(suit))

    @property
    def rank_index(self) -> int:
        """0 for a deuce up to 12 for an ace."""
        return int(self) >> 2

    @property
    def suit_index(self) -> int:
        """0..3 for clubs, diamonds, hearts, spades."""
        return int(self) & 3

    @property
    def rank(self) -> str:
        """The rank letter, one of ``23456789TJQKA``."""
        return RANKS[int(self) >> 2]

    @property
    def suit(self) -> str:
        """The suit letter, one of ``cdhs``."""
        return SUITS[int(self) & 3]

    def to_wire(self) -> dict[str, str]:
        """The wire form: ``{"rank": "A", "suit": "hearts"}``, ten as ``"10"``."""
        return {"rank": _WIRE_RANK[self.rank], "suit": _SUIT_NAMES[self.suit]}

    def __str__(self) -> str:
        return RANKS[int(self) >> 2] + SUITS[int(self) & 3]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


Card._instances = tuple(int.__new__(Card, index) for index in range(52))

#: All 52 cards in index order (2c, 2d, 2h, 2s, 3c, ... As).
FULL_DECK: tuple[Card, ...] = Card._instances

#: Each card's text (``str(card)``) by its number: ``CARD_TEXTS[card]``, a look-up where a
#: whole deck or board is written (``str`` is a Python call per card).
CARD_TEXTS: tuple[str, ...] = tuple(str(card) for card in FULL_DECK)


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"AsKd"``, ``"As Kd"`` or ``["As", "Kd"]`` into cards.

    >>> parse_cards("AsKd 7c")
    [Card('As'), Card('Kd'), Card('7c')]
    """
    if isinstance(text, str):
        compact = "".join(text.split())
        if len(compact) % 2:
            raise CardParseError(f"not a list of cards: {text!r}")
        return [Card.parse(compact[i : i + 2]) for i in range(0, len(compact), 2)]
    return [Card.parse(item) for item in text]
