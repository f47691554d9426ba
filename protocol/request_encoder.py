"""The arena's fast writer of one seat's ``hand_start`` and ``act``/``draw`` request lines.

:class:`RequestEncoder` writes, byte for byte, ``encode`` of the message builders of
:mod:`protocol.messages` (the tests hold it to that over thousands of random hands), with
the writers :mod:`protocol.layout` generates from the one layout, and keeps, per seat, what a
hand's next request will reuse: the history's text (a decision's history is the previous
one's plus a few events), the seats' and pots' text, the cards', and the text of the fields
that stay the same all hand long.

Its caches belong to it and live as long as it does (one encoder per seat: what a seat sees
of private events differs from seat to seat). Cached text is keyed by the objects it was
made from, which the cache keeps alive, so an identity is never mistaken for another
object's; a history that does not begin with the events seen before (a new hand) starts
afresh. The encoders of a match's seats may share an :class:`EventTextCache`, so that a
public event (one dict, shared by every viewer) is encoded once for the table.

:func:`protocol.request_decoder.legal_from_request` is the inverse for the legal actions: a
request decoded gives back the engine's ``LegalActions`` (a round-trip property test holds
the two together).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import Card
from engine.view import PotView, SeatPublicView, SeatView
from protocol.codec import json_text
from protocol.errors import ArenaBugError
from protocol.layout import (
    ACT_REQUEST,
    DEFAULT_MAX_ATTEMPTS,
    DRAW_REQUEST,
    EVENT_CARD_FIELDS,
    HAND_START,
    POT_STATE,
    SEAT_STATE,
    TEXT_CARD_TEXTS,
    actor_legal,
    cards_text,
    own_seat,
    wire_event,
)

__all__ = ["EventTextCache", "RequestEncoder"]

_EVENT_CARD_FIELD_SET = frozenset(EVENT_CARD_FIELDS)

# For EventTextCache.event_text: each event key's JSON text with its colon ('"amount":') and
# each string value's JSON text. Keyed by value (a pure function's memo, shared by every
# encoder, warm from one hand to the next) and bounded: emptied when full.
_EVENT_KEY_TEXTS: dict[str, str] = {}
_EVENT_STRING_TEXTS: dict[str, str] = {}
_MAX_EVENT_MEMO_COUNT = 1024


class EventTextCache:
    """The wire JSON text of a hand's events, by their place in the history.

    The engine hands out the same event dicts all hand long (shared, never mutated), and a
    public event is the same dict in every seat's history, so the encoders of one table may
    share one cache: an event is encoded once for them all. A place holds the last event
    met there and keeps it alive (so it is compared by identity safely); a private event
    (a seat's own hole cards, which the others see hidden) is a different dict per seat,
    so its text never crosses from one seat to another. The cache holds one hand's worth
    of events; the next hand's overwrite them.
    """

    __slots__ = ("_slots",)

    def __init__(self) -> None:
        self._slots: list[tuple[Mapping[str, Any], str]] = []

    def text(self, index: int, event: Mapping[str, Any]) -> str:
        """The text of ``event``, the ``index``-th of its history."""
        slots = self._slots
        if index < len(slots):
            hit = slots[index]
            if hit[0] is event:
                return hit[1]
            text = self.event_text(event)
            slots[index] = (event, text)
            return text
        text = self.event_text(event)
        if index == len(slots):
            slots.append((event, text))
        return text

    def event_text(self, event: Mapping[str, Any]) -> str:
        """``json_text(wire_event(event))``, written here for the flat events of a history.

        Integers, strings, booleans, ``None`` and card lists are written directly (as
        :func:`~protocol.codec.scalar_text` does, but inline: this runs for every value of
        every event); any other value (a list of objects) goes through the JSON encoder,
        and so does the whole event when a key is not a string (the encoder's rules apply
        then).
        """
        keys = _EVENT_KEY_TEXTS
        strings = _EVENT_STRING_TEXTS
        parts = []
        for key, value in event.items():
            key_text = keys.get(key)
            if key_text is None:
                if type(key) is not str:
                    return json_text(wire_event(event))
                if len(keys) >= _MAX_EVENT_MEMO_COUNT:
                    keys.clear()
                key_text = keys[key] = json_text(key) + ":"
            kind = type(value)
            if kind is int:
                parts.append(key_text + int.__repr__(value))
            elif kind is str:
                text = strings.get(value)
                if text is None:
                    if len(strings) >= _MAX_EVENT_MEMO_COUNT:
                        strings.clear()
                    text = strings[value] = json_text(value)
                parts.append(key_text + text)
            elif kind is bool:
                parts.append(key_text + ("true" if value else "false"))
            elif value is None:
                parts.append(key_text + "null")
            elif key in _EVENT_CARD_FIELD_SET and isinstance(value, list):
                # What text_cards_to_wire makes of it; a non-card is an engine bug (KeyError).
                cards = ",".join([TEXT_CARD_TEXTS[card] for card in value])
                parts.append(f"{key_text}[{cards}]")
            else:
                parts.append(key_text + json_text(value))
        return "{" + ",".join(parts) + "}"


class RequestEncoder:
    """One seat's request and ``hand_start`` lines, byte for byte ``encode`` of the
    builders', written from cached text (see the module's docstring)."""

    __slots__ = (
        "_board",
        "_event_texts",
        "_events",
        "_history",
        "_hole",
        "_pots",
        "_seats",
        "_table",
        "blinds",
        "header",
    )

    def __init__(self, event_texts: EventTextCache | None = None) -> None:
        self._event_texts = EventTextCache() if event_texts is None else event_texts
        self._events: list[Mapping[str, Any]] = []  # the history encoded so far
        self._history = "[]"  # its wire JSON
        self._seats: dict[int, tuple[SeatPublicView, str]] = {}  # seat index: view, text
        self._table: tuple[tuple[SeatPublicView, ...], str] = ((), "[]")  # the last
        self._pots: tuple[tuple[PotView, ...], str] = ((), "[]")  # the last
        self._hole: tuple[tuple[Card, ...], str] = ((), "[]")  # the last hole cards
        self._board: tuple[tuple[Card, ...], str] = ((), "[]")  # the last board
        # The text of the layout's groups (protocol.layout), named as there: values, text.
        self.header: tuple[tuple[object, ...], str] = ((), "")
        self.blinds: tuple[tuple[object, ...], str] = ((), "")

    def request(
        self,
        view: SeatView,
        *,
        seq: int,
        hand_id: str,
        time_limit_ms: int,
        attempt: int = 1,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    ) -> bytes:
        """The line asking the seat of ``view`` to act (or, when it is to draw, to draw)."""
        legal = actor_legal(view)
        if not 1 <= attempt <= max_attempts:
            raise ArenaBugError(f"attempt {attempt} is outside 1..{max_attempts}")
        layout = DRAW_REQUEST if legal.can_draw else ACT_REQUEST
        own = own_seat(view)
        text = layout.line(
            self, view, legal, own, seq, hand_id, time_limit_ms, attempt, max_attempts
        )
        return _line(text, layout.name)

    def hand_start(self, view: SeatView, *, hand_id: str) -> bytes:
        """The ``hand_start`` line; the seats' text is kept for the requests after it."""
        return _line(HAND_START.line(self, view, own_seat(view), hand_id), "hand_start")

    def prepare(self, view: SeatView) -> None:
        """Encode ahead of time what of ``view`` this seat's next request will reuse.

        The arena calls this while another bot thinks: the history so far, the seats and
        the pots are then already text when this seat is asked, and only what changed
        since is encoded. The next request's bytes are the same either way.
        """
        self.history_text(view.history)
        self.table_text(view.seats)
        self.pots_text(view.pots)
        self.board_text(view.board)

    # The same as text, for the layout's writers.

    def hole_text(self, cards: tuple[Card, ...]) -> str:
        """The seat's hole cards (kept while they stay the same)."""
        last = self._hole
        if cards != last[0]:
            last = self._hole = (cards, cards_text(cards))
        return last[1]

    def board_text(self, cards: tuple[Card, ...]) -> str:
        """The board (kept while it stays the same)."""
        last = self._board
        if cards != last[0]:
            last = self._board = (cards, cards_text(cards))
        return last[1]

    def pots_text(self, pots: tuple[PotView, ...]) -> str:
        """The pots (kept while they stay equal)."""
        last = self._pots
        if pots is not last[0] and pots != last[0]:
            texts = ",".join([POT_STATE.text(pot) for pot in pots])
            last = self._pots = (pots, f"[{texts}]")
        return last[1]

    def table_text(self, seats: tuple[SeatPublicView, ...]) -> str:
        """Every seat; a seat whose view is the same object as last time keeps its text."""
        last = self._table
        if len(seats) == len(last[0]) and all(map(operator.is_, seats, last[0])):
            return last[1]
        known = self._seats
        texts = []
        for seat in seats:
            cached = known.get(seat.seat_index)
            if cached is not None and cached[0] is seat:
                texts.append(cached[1])
            else:
                text = SEAT_STATE.text(seat)
                known[seat.seat_index] = (seat, text)
                texts.append(text)
        self._table = (seats, "[" + ",".join(texts) + "]")
        return self._table[1]

    def history_text(self, history: Sequence[Mapping[str, Any]]) -> str:
        """The history; only the events after those encoded before are encoded."""
        events = self._events
        known = len(events)
        if known > len(history) or not all(map(operator.is_, events, history)):
            events.clear()
            self._history = "[]"
            known = 0
        if len(history) > known:
            texts = self._event_texts
            added = ",".join(
                [texts.text(index, history[index]) for index in range(known, len(history))]
            )
            self._history = f"{self._history[:-1]},{added}]" if known else f"[{added}]"
            events.extend(history[known:])
        return self._history


def _line(text: str, message_type: str) -> bytes:
    """``text`` as a line, as :func:`~protocol.codec.encode` fails on it."""
    try:
        # A lone surrogate in a string cannot be UTF-8: UnicodeEncodeError.
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ArenaBugError(f"cannot encode {message_type!r} message as JSON: {exc}") from exc
