"""Cards on the wire: ``{"rank": "A", "suit": "hearts"}`` (a ten is ``"10"``), by rank and suit.

The conversions are table look-ups over the 52 interned cards, so they cost next to
nothing on the hot path.

>>> from engine.cards import parse_cards
>>> cards_to_wire(parse_cards("Th 2c"))
[{'rank': '10', 'suit': 'hearts'}, {'rank': '2', 'suit': 'clubs'}]
>>> card_from_wire({"rank": "10", "suit": "hearts"})
Card('Th')
>>> card_from_wire({"rank": "T", "suit": "hearts"}) is None
True
>>> text_cards_to_wire(["As"])
[{'rank': 'A', 'suit': 'spades'}]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.cards import FULL_DECK, Card

__all__ = ["card_from_wire", "cards_to_wire", "text_cards_to_wire"]

# Each card's (rank, suit) on the wire, by card and by the engine's text ("As"), and back.
_WIRE_PAIRS: dict[Card, tuple[str, str]] = {
    card: (wire["rank"], wire["suit"]) for card in FULL_DECK for wire in (card.to_wire(),)
}
_WIRE_PAIRS_BY_TEXT: dict[str, tuple[str, str]] = {
    str(card): pair for card, pair in _WIRE_PAIRS.items()
}
_BY_WIRE: dict[tuple[object, object], Card] = {pair: card for card, pair in _WIRE_PAIRS.items()}


def cards_to_wire(cards: Iterable[Card]) -> list[dict[str, str]]:
    """Each card in wire form (fresh dicts, safe to change)."""
    return [{"rank": rank, "suit": suit} for rank, suit in map(_WIRE_PAIRS.__getitem__, cards)]


def card_from_wire(obj: Any) -> Card | None:
    """The card a wire object names, or ``None`` if it names none."""
    if type(obj) is not dict:
        return None
    rank, suit = obj.get("rank"), obj.get("suit")
    if type(rank) is not str or type(suit) is not str:
        return None
    return _BY_WIRE.get((rank, suit))


def text_cards_to_wire(texts: Iterable[str]) -> list[dict[str, str]]:
    """Engine event cards (``"As"``) in wire form; a non-card is an engine bug (KeyError)."""
    pairs = map(_WIRE_PAIRS_BY_TEXT.__getitem__, texts)
    return [{"rank": rank, "suit": suit} for rank, suit in pairs]
