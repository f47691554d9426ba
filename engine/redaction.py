"""Redaction: what one viewer may see. The only place where hidden cards are removed.

Two things are redacted, both here: event dicts (:func:`public_dict`) and the whole-hand
view (:func:`build_view`). A private event names its owner in ``seat_index`` and lists
its secret fields in ``private_fields``; anyone else sees those fields as ``None`` (the
number of cards stays visible, as it is at a real table). Other seats' hole cards appear
in a view only once they were shown at showdown; the deck, the burn cards and mucked
hands never appear.

Speed: the arena asks for a view before every decision, so each hand keeps a
:class:`ViewCache`. Events are frozen and only ever appended, so each event is turned into
its dict once (``to_dict()``, and once more redacted if it is private); a viewer's history
is the public dicts with that viewer's own private events in full. The parts every viewer
shares (seats, pots) are rebuilt only when the hand changed, which it does only in
``Hand.start`` and ``Hand.act``, each of which appends events: the event count is the key.
The cached dicts are shared between views and histories and must not be mutated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.view import PotView, SeatPublicView, SeatView

if TYPE_CHECKING:
    from engine.events import Event
    from engine.hand import Hand

__all__ = ["ViewCache", "build_view", "public_dict"]


def public_dict(event: Event, viewer: int | None) -> dict[str, Any]:
    """The plain-JSON form of ``event`` that seat ``viewer`` may see (None: a spectator).

    >>> from engine.cards import parse_cards
    >>> from engine.events import HoleCardsDealt
    >>> event = HoleCardsDealt(seat_index=1, cards=tuple(parse_cards("AsKd")))
    >>> public_dict(event, 1)["cards"], public_dict(event, 0)["cards"]
    (['As', 'Kd'], None)
    """
    data = event.to_dict()
    if event.private_fields and viewer != getattr(event, "seat_index", None):
        _blank_private(event, data)
    return data


def _blank_private(event: Event, data: dict[str, Any]) -> dict[str, Any]:
    """Blank ``event``'s private fields in its dict ``data`` (in place)."""
    for name in event.private_fields:
        data[name + "_count"] = len(data[name])  # how many cards is public
        data[name] = None
    return data


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
        "_full",
        "_histories",
        "_positions",
        "_pots",
        "_pots_key",
        "_public",
        "_seats",
        "_shared",
        "_shared_key",
    )

    def __init__(self) -> None:
        self._full: list[dict[str, Any]] = []  # every event's to_dict(), secrets included
        self._public: list[dict[str, Any]] = []  # what anyone but an event's owner sees
        self._histories: dict[int | None, tuple[dict[str, Any], ...]] = {}
        self._shared_key = -1
        self._shared: tuple[tuple[SeatPublicView, ...], tuple[PotView, ...]] = ((), ())
        # Per seat: what its view was built from, and the view (most seats do not change
        # between two decisions).
        self._seats: dict[int, tuple[tuple[Any, ...], SeatPublicView]] = {}
        self._positions: dict[int, str] | None = None  # fixed for the whole hand
        # The gathered pots change only when a round ends or a player folds or is all-in.
        self._pots_key: tuple[Any, ...] = ()
        self._pots: tuple[PotView, ...] = ()

    def _sync(self, events: Sequence[Event]) -> None:
        full = self._full
        public = self._public
        for event in events[len(full) :]:
            data = event.to_dict()
            full.append(data)
            public.append(_blank_private(event, dict(data)) if event.private_fields else data)

    def event_dicts(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        """``[event.to_dict() for event in events]``, each dict made once per event."""
        self._sync(events)
        return list(self._full)

    def history(self, events: Sequence[Event], viewer: int | None) -> tuple[dict[str, Any], ...]:
        """``tuple(public_dict(event, viewer) for event in events)``, built incrementally."""
        count = len(events)
        known = self._histories.get(viewer, ())
        if len(known) == count:
            return known
        self._sync(events)
        full = self._full
        public = self._public
        added = []
        for index in range(len(known), count):
            data = public[index]
            # Only a private event has a separate public dict; its owner sees it in full.
            if data is not full[index] and getattr(events[index], "seat_index", None) == viewer:
                data = full[index]
            added.append(data)
        known += tuple(added)
        self._histories[viewer] = known
        return known

    def shared(
        self, hand: Hand, event_count: int
    ) -> tuple[tuple[SeatPublicView, ...], tuple[PotView, ...]]:
        """The seats and gathered pots of ``hand`` (the same for every viewer)."""
        if event_count != self._shared_key:
            rows = hand.seat_rows()
            pots_key = tuple((row[3] - row[2], row[1]) for row in rows)
            if pots_key != self._pots_key:
                self._pots = _pot_views(hand)
                self._pots_key = pots_key
            self._shared = (self._public_seats(hand, rows), self._pots)
            self._shared_key = event_count
        return self._shared

    def _public_seats(
        self, hand: Hand, rows: Sequence[tuple[Any, ...]]
    ) -> tuple[SeatPublicView, ...]:
        shown = hand.shown_cards
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
                view = _seat_view(setup.seat_index, setup.player_id, key)
                known[seat_index] = (key, view)
                seats.append(view)
        return tuple(seats)


def _seat_view(seat_index: int, player_id: str, key: tuple[Any, ...]) -> SeatPublicView:
    stack, status, street, committed, discard_count, position, shown = key
    return SeatPublicView(
        seat_index=seat_index,
        player_id=player_id,
        stack=stack,
        status=str(status),
        street_committed=street,
        hand_committed=committed,
        position=position,
        shown_cards=shown,
        discard_count=discard_count,
    )


def _public_seats(hand: Hand) -> tuple[SeatPublicView, ...]:
    shown = hand.shown_cards
    positions = hand.positions
    return tuple(
        _seat_view(
            setup.seat_index,
            setup.player_id,
            (*row, positions.get(setup.seat_index, ""), shown.get(setup.seat_index)),
        )
        for setup, row in zip(hand.seats, hand.seat_rows(), strict=True)
    )


def _pot_views(hand: Hand) -> tuple[PotView, ...]:
    return tuple(PotView(p.amount, p.eligible) for p in hand.gathered_pots())


def build_view(hand: Hand, seat_index: int | None, cache: ViewCache | None = None) -> SeatView:
    """The hand as seen from ``seat_index`` (``None``: a spectator who sees no hole cards).

    With the hand's ``cache`` the event dicts, seats and pots are reused (see the module
    docstring); without it everything is built afresh.
    """
    events = hand.events
    if cache is None:
        seats, pots = _public_seats(hand), _pot_views(hand)
        history = tuple(public_dict(event, seat_index) for event in events)
    else:
        seats, pots = cache.shared(hand, len(events))
        history = cache.history(events, seat_index)
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
        seats=seats,
        pots=pots,
        pot_total=hand.pot_total,
        current_bet=hand.current_bet,
        actor_index=hand.actor_index,
        legal_actions=legal,
        history=history,
        is_over=hand.is_over,
    )
