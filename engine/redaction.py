"""Redaction: what one viewer may see. The only place where hidden cards are removed.

Event dicts are redacted here (:func:`public_dict`, :func:`blank_private`), those of a
hand's views too (:class:`engine.speed.view_cache.ViewCache` builds the views). A private
event names its owner in ``seat_index`` and lists its secret fields in ``private_fields``;
anyone else sees those fields as ``None`` (the number of cards stays visible, as it is at a
real table). Other seats' hole cards appear in a view only once they were shown at
showdown; the deck, the burn cards and mucked hands never appear.

Redaction reads a hand only through :class:`HandReader`, a read-only protocol with just
what a view shows, and an event only through :class:`RedactableEvent`; it imports neither
``engine.hand`` nor ``engine.events``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from engine.actions import LegalActions
    from engine.cards import Card
    from engine.config import GameConfig
    from engine.phases import Phase, PlayerStatus
    from engine.pots import Pot
    from engine.seating import SeatSetup

__all__ = ["HandReader", "RedactableEvent", "blank_private", "public_dict"]


class RedactableEvent(Protocol):
    """What redaction reads of an event (``engine.events.Event`` is one).

    A private event also has a ``seat_index``: its owner, who sees it in full.
    """

    private_fields: ClassVar[tuple[str, ...]]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form with a ``type`` key."""
        ...  # pragma: no cover - a protocol


class HandReader(Protocol):
    """The read-only parts of a hand that a view shows (``engine.hand.Hand`` is one)."""

    @property
    def config(self) -> GameConfig:
        """The game being played."""
        ...  # pragma: no cover - a protocol

    @property
    def hand_number(self) -> int:
        """The hand's number in its match."""
        ...  # pragma: no cover - a protocol

    @property
    def button_index(self) -> int:
        """The button's seat index."""
        ...  # pragma: no cover - a protocol

    @property
    def small_blind_index(self) -> int | None:
        """The small blind's seat index, if the game has one."""
        ...  # pragma: no cover - a protocol

    @property
    def big_blind_index(self) -> int | None:
        """The big blind's seat index, if the game has one."""
        ...  # pragma: no cover - a protocol

    @property
    def positions(self) -> dict[int, str]:
        """Position names (``button``, ``small_blind``, ``big_blind``) by seat index."""
        ...  # pragma: no cover - a protocol

    @property
    def seats(self) -> tuple[SeatSetup, ...]:
        """The seats as they were set up, in seat order."""
        ...  # pragma: no cover - a protocol

    @property
    def phase(self) -> Phase:
        """Where the hand is now."""
        ...  # pragma: no cover - a protocol

    @property
    def board(self) -> tuple[Card, ...]:
        """The community cards dealt so far."""
        ...  # pragma: no cover - a protocol

    @property
    def pot_total(self) -> int:
        """Every chip committed in the hand."""
        ...  # pragma: no cover - a protocol

    @property
    def current_bet(self) -> int:
        """The highest commitment on the current betting round."""
        ...  # pragma: no cover - a protocol

    @property
    def actor_index(self) -> int | None:
        """The seat index of the player to act, if any."""
        ...  # pragma: no cover - a protocol

    @property
    def is_over(self) -> bool:
        """True once the hand is complete."""
        ...  # pragma: no cover - a protocol

    @property
    def shown_cards(self) -> dict[int, tuple[Card, ...]]:
        """Hole cards shown at showdown, by seat index."""
        ...  # pragma: no cover - a protocol

    @property
    def events(self) -> Sequence[RedactableEvent]:
        """Every event of the hand so far, in order."""
        ...  # pragma: no cover - a protocol

    def hole_cards(self, seat_index: int) -> tuple[Card, ...]:
        """One seat's hole cards (an unknown seat raises ``SetupError``)."""
        ...  # pragma: no cover - a protocol

    def seat_rows(self) -> list[tuple[int, PlayerStatus, int, int, int | None]]:
        """Per seat: stack, status, street and hand commitment, discard count."""
        ...  # pragma: no cover - a protocol

    def gathered_pots(self) -> list[Pot]:
        """Pots from the betting rounds already finished."""
        ...  # pragma: no cover - a protocol

    def legal_actions(self) -> LegalActions | None:
        """What the player to act may do now."""
        ...  # pragma: no cover - a protocol


def public_dict(event: RedactableEvent, viewer: int | None) -> dict[str, Any]:
    """The plain-JSON form of ``event`` that seat ``viewer`` may see (None: a spectator).

    >>> from engine.cards import parse_cards
    >>> from engine.events import HoleCardsDealt
    >>> event = HoleCardsDealt(seat_index=1, cards=tuple(parse_cards("AsKd")))
    >>> public_dict(event, 1)["cards"], public_dict(event, 0)["cards"]
    (['As', 'Kd'], None)
    """
    data = event.to_dict()
    if event.private_fields and viewer != getattr(event, "seat_index", None):
        blank_private(event, data)
    return data


def blank_private(event: RedactableEvent, data: dict[str, Any]) -> dict[str, Any]:
    """Blank ``event``'s private fields in its dict ``data`` (in place); return ``data``."""
    for name in event.private_fields:
        data[name + "_count"] = len(data[name])  # how many cards is public
        data[name] = None
    return data
