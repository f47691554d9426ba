"""Redaction: what one viewer may see. The only place where hidden cards are removed.

Two things are redacted, both here: event dicts (:func:`public_dict`) and the whole-hand
view (:func:`build_view`). A private event names its owner in ``seat_index`` and lists
its secret fields in ``private_fields``; anyone else sees those fields as ``None`` (the
number of cards stays visible, as it is at a real table). Other seats' hole cards appear
in a view only once they were shown at showdown; the deck, the burn cards and mucked
hands never appear.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.view import PotView, SeatPublicView, SeatView

if TYPE_CHECKING:
    from engine.events import Event
    from engine.hand import Hand

__all__ = ["build_view", "public_dict"]


def public_dict(event: Event, viewer: int | None) -> dict[str, Any]:
    """The plain-JSON form of ``event`` that seat ``viewer`` may see (None: a spectator).

    >>> from engine.cards import parse_cards
    >>> from engine.events import HoleCardsDealt
    >>> event = HoleCardsDealt(seat_index=1, cards=tuple(parse_cards("AsKd")))
    >>> public_dict(event, 1)["cards"], public_dict(event, 0)["cards"]
    (['As', 'Kd'], None)
    """
    data = event.to_dict()
    private = event.private_fields
    if private and viewer != getattr(event, "seat_index", None):
        for name in private:
            data[name + "_count"] = len(data[name])  # how many cards is public
            data[name] = None
    return data


def build_view(hand: Hand, seat_index: int | None) -> SeatView:
    """The hand as seen from ``seat_index`` (``None``: a spectator who sees no hole cards)."""
    shown = hand.shown_cards
    seats = []
    positions = hand.positions
    for seat in hand.seat_states():
        seats.append(
            SeatPublicView(
                seat_index=seat.seat_index,
                player_id=seat.player_id,
                stack=seat.stack,
                status=str(seat.status),
                street_committed=seat.street_committed,
                hand_committed=seat.hand_committed,
                position=positions.get(seat.seat_index, ""),
                shown_cards=shown.get(seat.seat_index),
                discard_count=seat.discard_count,
            ),
        )
    own: tuple[Any, ...] = ()
    if seat_index is not None:
        own = hand.hole_cards(seat_index)
    legal = hand.legal_actions() if seat_index is not None else None
    if legal is not None and legal.seat_index != seat_index:
        legal = None
    return SeatView(
        hand_number=hand.hand_number,
        variant=str(hand.config.variant),
        structure=str(hand.config.structure),
        phase=str(hand.phase),
        seat_index=seat_index,
        hole_cards=own,
        board=hand.board,
        button_index=hand.button_index,
        small_blind_index=hand.small_blind_index,
        big_blind_index=hand.big_blind_index,
        small_blind=hand.config.small_blind,
        big_blind=hand.config.big_blind,
        ante=hand.config.ante,
        seats=tuple(seats),
        pots=tuple(PotView(p.amount, p.eligible) for p in hand.gathered_pots()),
        pot_total=hand.pot_total,
        current_bet=hand.current_bet,
        actor_index=hand.actor_index,
        legal_actions=legal,
        history=tuple(public_dict(event, seat_index) for event in hand.events),
        is_over=hand.is_over,
    )
