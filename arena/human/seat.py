"""A person at a seat: the protocol's requests turned into prompts, entries into replies.

Theory of operation. A :class:`HumanSeat` speaks the bot protocol at the level of
messages: ``hello`` in, ``ready`` out (:meth:`~HumanSeat.start`); ``act`` or ``draw`` in,
``action`` or ``discard`` out (:meth:`~HumanSeat.ask`); other messages are shown
(:meth:`~HumanSeat.notify`) until ``match_end`` (:meth:`~HumanSeat.finish`). It sees only
its seat's messages, so the person sees only what a bot there would. The person reads and
types through a :class:`FrontEnd` (``show(text)``, ``prompt(text) -> str``): the terminal
is one, a chat another. :class:`arena.human.transport.HumanTransport` puts the seat behind
the watchdog's transport interface.

An entry that is no legal reply is refused at once, saying why and what is legal
(:mod:`arena.human.entry`), and the person is asked again: a typo is not a fault. ``q`` (or
the end of the input) raises :class:`LeftTableError`, which stops the match as an interrupt
does. With a time limit, the transport passes the time left to :meth:`~HumanSeat.ask`,
which stops asking when it is up (the arena then applies the default action)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from arena.human.entry import Command, EntryError, parse_entry
from arena.human.render import (
    HELP_TEXT,
    SeatNames,
    error_text,
    event_lines,
    hand_end_text,
    hand_start_text,
    hello_text,
    match_end_text,
    request_text,
)
from engine.config import DrawLimit

__all__ = ["DEFAULT_HUMAN_NAME", "FrontEnd", "HumanSeat", "LeftTableError"]

#: The name a person plays under when none is given.
DEFAULT_HUMAN_NAME = "human"

#: The prompts, one per kind of request (a front end may look for them).
BET_PROMPT = "your action> "
DRAW_PROMPT = "discard> "


class FrontEnd(Protocol):
    """Where a person reads and types: a terminal, a chat channel..."""

    def show(self, text: str) -> None:
        """Show ``text`` (one or more lines) to the person."""
        ...

    def prompt(self, text: str, *, timeout_s: float | None = None) -> str | None:
        """Show ``text`` and return what the person enters (one line).

        With ``timeout_s``, return None when nothing was entered in that time. Raise
        ``EOFError`` when the person can no longer answer (the input has ended).
        """
        ...


class LeftTableError(Exception):
    """The person left the table (``quit``, or their input ended); the match stops."""


class HumanSeat:
    """A person's seat at a match (see the module docstring).

    ``names`` maps the other players' ids (``p1``...) to the names shown for them;
    ``clock`` measures a time limit across the prompts of one decision.
    """

    def __init__(
        self,
        front_end: FrontEnd,
        *,
        name: str = DEFAULT_HUMAN_NAME,
        names: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.front_end = front_end
        self.name = name
        self.clock = clock
        self.names = SeatNames(None, names or {})
        self.draw_limit = DrawLimit.ANY
        self.is_finished = False
        # Events of the current hand already shown, so each request shows only what is new.
        self._hand_id: str | None = None
        self._events_shown = 0
        self._seat_players: dict[int, str] = {}  # seat index -> player id, this hand

    # -- the protocol's messages -----------------------------------------------------------

    def start(self, hello: Mapping[str, Any]) -> dict[str, Any]:
        """Greet the person (``hello``); returns the ``ready`` reply."""
        self.names = SeatNames(str(hello["player_id"]), self.names.names)
        self.draw_limit = DrawLimit(hello["game"].get("draw_limit", DrawLimit.ANY.value))
        self.is_finished = False
        self.front_end.show(hello_text(hello, self.names, name=self.name))
        return {"type": "ready", "seq": hello["seq"], "name": self.name}

    def notify(self, message: Mapping[str, Any]) -> None:
        """Show a message that expects no reply (``hand_start``, ``hand_end``, ``error``);
        types the seat does not know are skipped, as the protocol asks of bots."""
        kind = message.get("type")
        if kind == "hand_start":
            self._hand_id, self._events_shown = str(message["hand_id"]), 0
            self._seat_players = _seat_players(message)
            self.front_end.show(hand_start_text(message))
        elif kind == "hand_end":
            self.front_end.show(hand_end_text(message, self.names))
        elif kind == "error":
            self.front_end.show(error_text(message))
        elif kind == "match_end":
            self.finish(message)

    def finish(self, match_end: Mapping[str, Any]) -> None:
        """The match is over: show the standings."""
        self.is_finished = True
        self.front_end.show(match_end_text(match_end, self.names))

    def ask(
        self, request: Mapping[str, Any], *, timeout_s: float | None = None
    ) -> dict[str, Any] | None:
        """The person's reply to an ``act`` or ``draw`` request.

        Shows what happened since the last request, the table and what is legal, then
        prompts until the entry is a legal reply. Returns None when ``timeout_s`` runs out
        first; raises :class:`LeftTableError` when the person leaves.
        """
        self._show_new_events(request)
        self.front_end.show(request_text(request, self.names))
        deadline = None if timeout_s is None else self.clock() + timeout_s
        prompt = DRAW_PROMPT if request["type"] == "draw" else BET_PROMPT
        while True:
            left = None if deadline is None else deadline - self.clock()
            if left is not None and left <= 0:
                return None
            try:
                text = self.front_end.prompt(prompt, timeout_s=left)
            except EOFError:
                raise LeftTableError("the input ended") from None
            if text is None:
                return None
            try:
                entry = parse_entry(text, request, draw_limit=self.draw_limit)
            except EntryError as exc:
                self.front_end.show(str(exc))
                continue
            if entry is Command.HELP:
                self.front_end.show(HELP_TEXT)
            elif entry is Command.TABLE:
                self.front_end.show(request_text(request, self.names))
            elif entry is Command.QUIT:
                raise LeftTableError("the person quit")
            else:
                assert isinstance(entry, dict)
                return entry

    def hand_over(self, hand_id: str, history: Sequence[Mapping[str, Any]]) -> None:
        """Tell the rest of a hand that just ended, before its ``hand_end``: ``history`` is
        the hand's whole public history as this seat may see it (a request's ``history``
        at the end of the hand). Whatever came after the person's last decision is shown:
        their own action, the others' replies, the streets dealt, an uncalled bet returned.
        The shown hands are left to ``hand_end``, which tells them with the result."""
        if hand_id != self._hand_id:
            return  # not the hand this seat was told about
        told = [event for event in history[self._events_shown :] if event["type"] != "hand_shown"]
        self._events_shown = len(history)
        lines = event_lines(told, self._seat_players, self.names)
        if lines:
            self.front_end.show("\n".join(lines))

    def _show_new_events(self, request: Mapping[str, Any]) -> None:
        """Tell the events of the hand not told yet: the others' actions, new streets."""
        hand_id = str(request["hand_id"])
        if hand_id != self._hand_id:  # a hand whose hand_start was not seen
            self._hand_id, self._events_shown = hand_id, 0
        history = request.get("history", [])
        self._seat_players = _seat_players(request)
        lines = event_lines(history[self._events_shown :], self._seat_players, self.names)
        self._events_shown = len(history)
        if lines:
            self.front_end.show("\n".join(lines))


def _seat_players(message: Mapping[str, Any]) -> dict[int, str]:
    """Seat index -> player id, from the table of a ``hand_start`` or a request."""
    return {seat["seat_index"]: seat["player_id"] for seat in message.get("table_state", [])}
