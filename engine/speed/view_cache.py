"""One hand's memo of event dicts and shared view parts (a speed helper of ``engine.speed``).

The arena asks for a view before every decision. Events are frozen and only ever appended,
so each event is turned into its dict once (``to_dict()``, and once more redacted if it is
private, by :func:`engine.redaction.blank_private`); a viewer's history is the public dicts
with that viewer's own private events in full. The parts every viewer shares (phase,
board, seats, pots, bets, the actor) are read again only when the hand changed, which it
does only in ``Hand.start`` and ``Hand.act``, each of which appends events: the event
count is the key; the seats and pots are rebuilt only when the seats' chips or statuses
changed. What no action changes (variant, structure, blinds, button) is read once per hand.
The cached dicts are shared between views and histories and must not be mutated.

The tests check that its views equal views built from scratch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.redaction import HandReader, RedactableEvent, blank_private
from engine.view import PotView, SeatPublicView, SeatView

if TYPE_CHECKING:
    from engine.cards import Card
    from engine.phases import PlayerStatus

__all__ = ["ViewCache"]


class ViewCache:
    """One hand's memo of event dicts and of the parts of a view every viewer shares.

    >>> from engine.cards import parse_cards
    >>> from engine.events import HoleCardsDealt
    >>> events = [HoleCardsDealt(0, tuple(parse_cards("AsKd"))),
    ...           HoleCardsDealt(1, tuple(parse_cards("2c2d")))]
    >>> cache = ViewCache()
    >>> [event["cards"] for event in cache.history(events, 1)]
    [None, ['2c', '2d']]
    >>> [event["cards"] for event in cache.event_dicts(events)]
    [['As', 'Kd'], ['2c', '2d']]
    """

    __slots__ = (
        "_fixed",
        "_full",
        "_histories",
        "_owned",
        "_positions",
        "_pots",
        "_pots_key",
        "_public",
        "_rows",
        "_seat_views",
        "_seats",
        "_shown",
        "_state",
        "_state_key",
    )

    def __init__(self) -> None:
        self._full: list[dict[str, Any]] = []  # every event's to_dict(), secrets included
        self._public: list[dict[str, Any]] = []  # what anyone but an event's owner sees
        # Per owner (a private event's seat_index): the indexes of its private events.
        self._owned: dict[int | None, list[int]] = {}
        self._histories: dict[int | None, tuple[dict[str, Any], ...]] = {}
        # What no action changes: hand number, variant, structure, button and blinds.
        self._fixed: tuple[Any, ...] | None = None
        # What every viewer sees alike, and the event count it was built at.
        self._state_key = -1
        self._state: tuple[Any, ...] = ()
        # What the seats were built from (the rows of Hand.seat_rows and the shown cards),
        # and the seats.
        self._rows: list[tuple[Any, ...]] = []
        self._shown: dict[int, tuple[Card, ...]] = {}
        self._seat_views: tuple[SeatPublicView, ...] = ()
        # Per seat: what its view was built from, and the view (most seats do not change
        # between two decisions).
        self._seats: dict[int, tuple[tuple[Any, ...], SeatPublicView]] = {}
        self._positions: dict[int, str] | None = None  # fixed for the whole hand
        # The gathered pots change only when a round ends or a player folds or is all-in.
        self._pots_key: list[tuple[int, PlayerStatus]] = []
        self._pots: tuple[PotView, ...] = ()

    def _sync(self, events: Sequence[RedactableEvent]) -> None:
        full = self._full
        public = self._public
        for event in events[len(full) :]:
            data = event.to_dict()
            if event.private_fields:
                owner = getattr(event, "seat_index", None)
                self._owned.setdefault(owner, []).append(len(full))
                public.append(blank_private(event, dict(data)))
            else:
                public.append(data)
            full.append(data)

    def event_dicts(self, events: Sequence[RedactableEvent]) -> list[dict[str, Any]]:
        """``[event.to_dict() for event in events]``, each dict made once per event."""
        self._sync(events)
        return list(self._full)

    def history(
        self, events: Sequence[RedactableEvent], viewer: int | None
    ) -> tuple[dict[str, Any], ...]:
        """``tuple(public_dict(event, viewer) for event in events)``, built incrementally."""
        count = len(events)
        known = self._histories.get(viewer, ())
        start = len(known)
        if start == count:
            return known
        self._sync(events)
        added = self._public[start:count]
        # Only a private event has a separate public dict; its owner sees it in full.
        for index in self._owned.get(viewer, ()):
            if index >= start:
                added[index - start] = self._full[index]
        known += tuple(added)
        self._histories[viewer] = known
        return known

    def view(
        self, hand: HandReader, seat_index: int | None, events: Sequence[RedactableEvent]
    ) -> SeatView:
        """The hand as ``seat_index`` may see it (``None``: a spectator), from ``hand``'s
        ``events`` (its own list, not a copy)."""
        own: tuple[Card, ...] = ()
        if seat_index is not None:
            own = hand.hole_cards(seat_index)  # also rejects a seat not in the hand
        fixed = self._fixed
        if fixed is None:
            fixed = self._fixed = _fixed_parts(hand)
        count = len(events)
        if count != self._state_key:
            self._state = self._shared_state(hand)
            self._state_key = count
        phase, board, seats, pots, pot_total, current_bet, actor_index, is_over = self._state
        # Only the player to act sees the legal actions.
        legal = None
        if seat_index is not None and seat_index == actor_index:
            legal = hand.legal_actions()
        number, variant, structure, button, small_index, big_index, small, big, ante = fixed
        return SeatView(
            number,
            variant,
            structure,
            phase,
            seat_index,
            own,
            board,
            button,
            small_index,
            big_index,
            small,
            big,
            ante,
            seats,
            pots,
            pot_total,
            current_bet,
            actor_index,
            legal,
            self.history(events, seat_index),
            is_over,
        )

    def _shared_state(self, hand: HandReader) -> tuple[Any, ...]:
        """The parts of a view that every viewer sees alike (they change only with events)."""
        rows = hand.seat_rows()
        shown = hand.shown_cards
        if rows != self._rows or shown != self._shown:
            # The seats changed (a check, for one, changes none of them). The gathered pots
            # change only when a round ends or a player folds or is all-in.
            pots_key = [(row[3] - row[2], row[1]) for row in rows]
            if pots_key != self._pots_key:
                self._pots = _pot_views(hand)
                self._pots_key = pots_key
            self._seat_views = self._public_seats(hand, rows, shown)
            self._rows = rows
            self._shown = shown
        return (
            str(hand.phase),
            hand.board,
            self._seat_views,
            self._pots,
            hand.pot_total,
            hand.current_bet,
            hand.actor_index,
            hand.is_over,
        )

    def _public_seats(
        self,
        hand: HandReader,
        rows: Sequence[tuple[Any, ...]],
        shown: dict[int, tuple[Card, ...]],
    ) -> tuple[SeatPublicView, ...]:
        positions = self._positions
        if positions is None:
            positions = self._positions = hand.positions
        known = self._seats
        seats = []
        for setup, row in zip(hand.seats, rows, strict=True):
            seat_index = setup.seat_index
            key = (*row, positions.get(seat_index, ""), shown.get(seat_index))
            cached = known.get(seat_index)
            if cached is not None and cached[0] == key:
                seats.append(cached[1])
            else:
                stack, status, street, committed, discard_count, position, cards = key
                view = SeatPublicView(
                    seat_index,
                    setup.player_id,
                    stack,
                    str(status),
                    street,
                    committed,
                    position,
                    cards,
                    discard_count,
                )
                known[seat_index] = (key, view)
                seats.append(view)
        return tuple(seats)


def _fixed_parts(hand: HandReader) -> tuple[Any, ...]:
    config = hand.config
    return (
        hand.hand_number,
        str(config.variant),
        str(config.structure),
        hand.button_index,
        hand.small_blind_index,
        hand.big_blind_index,
        config.small_blind,
        config.big_blind,
        config.ante,
    )


def _pot_views(hand: HandReader) -> tuple[PotView, ...]:
    return tuple(PotView(p.amount, p.eligible) for p in hand.gathered_pots())
