"""One chat table: its seats, its match in a worker thread, and what it tells the chat.

Theory of operation. A :class:`ChatTable` is opened with its settings, fills with people
and bots, then :meth:`ChatTable.start` runs a real match (:func:`arena.match.run.run_match`:
the same dealer, sessions, hand history and results as ``arena match``) in a worker thread,
because the match loop blocks. Every seat's transport is tapped
(:mod:`arena.discord.seats`): a request to a seat says whose turn it is, and its public part
goes to the channel; ``hand_end`` and ``match_end`` go there too. What a person's own seat
shows (their hole cards, their turn) goes to them privately through their
:class:`~arena.discord.seats.ChatFrontEnd`, whose prompt waits for the entries
:meth:`ChatTable.act` puts in its queue.

The table holds no rule of the game: an entry is checked with the human seat's parser
against the request the seat was sent (:func:`arena.human.entry.parse_entry`), the engine
decides everything else, and a person who runs out of time gets the session's default
action, as a bot does (fold, or check when it is free).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from arena.bots.transport import Transport
from arena.discord.markup import chat_name
from arena.discord.public import (
    public_hand_end_text,
    public_match_end_text,
    public_request,
    public_table_text,
)
from arena.discord.seats import ChatFrontEnd, tapped_factory
from arena.discord.settings import TableSettings
from arena.human.entry import Command, EntryError, describe_legal, parse_entry
from arena.human.render import SeatNames
from arena.human.seat import HumanSeat, LeftTableError
from arena.human.transport import HumanTransport
from arena.match.config import MatchConfig, StackPolicy
from arena.match.readiness import BotsNotReadyError
from arena.match.results import MatchResult
from arena.match.run import run_match, seat_session
from arena.session.policy import TimeLimits
from arena.session.watchdog import BotSession
from arena.store.run_folder import RunFolder
from engine.config import GameConfig
from protocol.request_encoder import EventTextCache

__all__ = ["ChatSeat", "ChatTable", "Sink", "TableState", "Turn"]

_log = logging.getLogger(__name__)

#: The hand ids of a chat table are ``discord-<n>``.
MATCH_ID = "discord"


class Sink(Protocol):
    """Where a table's texts go: the channel, or one person privately."""

    def to_channel(self, channel_id: int, text: str) -> None:
        """Post ``text`` in the channel (everyone reads it)."""
        ...

    def to_person(self, user_id: int, text: str) -> None:
        """Send ``text`` to one person only (a direct message)."""
        ...


@dataclass(frozen=True, slots=True)
class Turn:
    """A seat's turn: its index and the request (hand id and sequence number) it answers."""

    seat_index: int
    hand_id: str
    seq: int


class TableState(StrEnum):
    """A table is open (people join), playing, or over."""

    OPEN = "open"
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class ChatSeat:
    """A seat: a person (``user_id``) or a configured bot (``bot``)."""

    name: str
    user_id: int | None = None
    bot: str | None = None

    @property
    def shown(self) -> str:
        """The name as the channel shows it: plain text, never markup or a mention."""
        return chat_name(self.name)


class ChatTable:
    """One table in one channel (see the module docstring)."""

    def __init__(
        self,
        channel_id: int,
        host_id: int,
        settings: TableSettings,
        sink: Sink,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.channel_id = channel_id
        self.host_id = host_id
        self.settings = settings
        self.sink = sink
        self.clock = clock
        self.seats: list[ChatSeat] = []
        self.state = TableState.OPEN
        self.out_dir: Path | None = None
        self.result: MatchResult | None = None
        self.names = SeatNames(None, {})
        self._fronts: dict[int, ChatFrontEnd] = {}  # by user id
        self._turn: tuple[int, dict[str, Any]] | None = None  # seat index, its request
        self._last_table = ""  # the latest public table, for status
        self._told: set[tuple[str, str]] = set()  # (kind, id) of messages told already
        self._events_told = 0
        self._changed = threading.Condition(threading.RLock())
        self._thread: threading.Thread | None = None
        # One cache shared by the table's sessions, as a match's sessions share one.
        self._event_texts = EventTextCache()

    # -- seating ------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        """True while the match's thread runs."""
        return self._thread is not None and self._thread.is_alive()

    def seat_of(self, user_id: int) -> int | None:
        """The seat index of a person, or None."""
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return index
        return None

    def has_left(self, user_id: int) -> bool:
        """True for a person who left the table after it started."""
        front = self._fronts.get(user_id)
        return front is not None and front.has_left

    # -- playing ------------------------------------------------------------------------

    def start(
        self,
        seed: int,
        bot_factories: dict[str, Callable[[], Transport]],
        out_dir: Path,
        *,
        time_limits: TimeLimits,
    ) -> None:
        """Deal: run the match in a worker thread (the seats are fixed from now on); the
        bots play under ``time_limits``, a person under the table's turn time."""
        settings = self.settings
        config = MatchConfig(
            game=GameConfig(small_blind=settings.small_blind, big_blind=settings.big_blind),
            hand_count=settings.max_hands,
            seed=seed,
            starting_stack=settings.starting_stack,
            stack_policy=StackPolicy.FREEZEOUT,
            schedule=settings.schedule(),
            match_id=MATCH_ID,
            time_limits=time_limits,
            # A person out of time is checked when it is free, folded otherwise, as a bot.
            check_on_timeout=True,
            # Nothing is worked out ahead while people think; hand_start/hand_end lines
            # are told when they happen.
            prefetch=False,
        )
        # Every text of the table names the seats as shown (a name is never markup).
        self.names = SeatNames(None, {f"p{i}": seat.shown for i, seat in enumerate(self.seats)})
        sessions = [self._session(index, config, bot_factories) for index in range(len(self.seats))]
        self.out_dir = out_dir
        self.state = TableState.PLAYING
        self._thread = threading.Thread(
            target=self._play, args=(config, sessions, out_dir), name=f"table-{self.channel_id}"
        )
        self._thread.start()

    def _session(
        self, index: int, config: MatchConfig, bot_factories: dict[str, Callable[[], Transport]]
    ) -> tuple[str, BotSession]:
        seat = self.seats[index]
        limits = config.time_limits
        factory: Callable[[], Transport]
        if seat.user_id is not None:
            user_id = seat.user_id
            front = ChatFrontEnd(lambda text: self.sink.to_person(user_id, text))
            self._fronts[user_id] = front
            # Their direct messages name them as the channel does: plain text.
            human = HumanSeat(front, name=seat.shown, names=self.names.names, clock=self.clock)
            factory = lambda: HumanTransport(human, clock=self.clock, is_timed=True)  # noqa: E731
            # A person's turn time is their decision time, with no time bank.
            limits = replace(limits, decision_s=self.settings.turn_s, time_bank_s=0.0)
        else:
            assert seat.bot is not None
            factory = bot_factories[seat.bot]
        session = seat_session(
            tapped_factory(factory, index, self),
            config,
            seat_index=index,
            name=seat.name,
            clock=self.clock,
            event_texts=self._event_texts,
            limits=limits,
        )
        return seat.name, session

    def _play(
        self, config: MatchConfig, sessions: list[tuple[str, BotSession]], out_dir: Path
    ) -> None:
        history = RunFolder(out_dir).history
        try:
            self.result = run_match(config, sessions, out_dir, clock=self.clock)
        except BotsNotReadyError as exc:
            # The reasons quote what the bots said: plain text.
            self._post(f"The table could not start: {chat_name(str(exc))}")
        except LeftTableError:
            self._post(f"The table was closed; the hands played are in `{history}`.")
        except Exception as exc:  # our own bug: told in the channel and logged in full
            _log.exception("table in channel %s stopped", self.channel_id)
            self._post(f"The table stopped on an error of the arena: {exc}")
        else:
            self._post(f"Hand history: `{history}` (arena replay / arena report read it).")
        finally:
            with self._changed:
                self.state = TableState.OVER
                self._turn = None
                self._changed.notify_all()

    def act(self, user_id: int, text: str) -> str:
        """A person's entry: refused with the reason and what is legal, or passed to their
        seat (then the reply is empty: the channel sees the table next)."""
        index = self.seat_of(user_id)
        if self.state is not TableState.PLAYING:
            return (
                "The game has not started."
                if self.state is TableState.OPEN
                else "The game is over."
            )
        if index is None:
            return "You are not at this table."
        if self.has_left(user_id):
            return "You left this table."
        with self._changed:
            turn = self._turn
        if turn is None or turn[0] != index:
            who = "nobody's" if turn is None else f"{self.names.label(f'p{turn[0]}')}'s"
            return f"It is not your turn: it is {who} turn."
        request = turn[1]
        try:
            entry = parse_entry(text, request)
        except EntryError as exc:
            return str(exc)
        if entry is Command.QUIT:
            return self.leave(user_id)
        if entry is not Command.HELP and entry is not Command.TABLE:
            self._fronts[user_id].put(text)
            return ""
        return "You may: " + ", ".join(describe_legal(public_request(request)))

    def leave(self, user_id: int) -> str:
        """A person leaves: before the start their seat goes; after it they are folded
        every hand (or stand pat in a draw) until the blinds take their stack."""
        index = self.seat_of(user_id)
        if index is None:
            return "You are not at this table."
        if self.state is TableState.OPEN:
            name = self.seats.pop(index).shown
            return f"{name} left the table."
        front = self._fronts[user_id]
        if front.has_left:
            return "You left this table already."
        front.leave()
        return "You left: your seat folds every hand from now on."

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop the match (the hands played are kept) and wait for its thread."""
        for front in self._fronts.values():
            front.stop()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def wait_turn(self, timeout_s: float, *, after: Turn | None = None) -> Turn | None:
        """Wait until it is a seat's turn (another turn than ``after``) or the match is
        over; the turn, or None."""

        def ready() -> bool:
            turn = self.turn()
            return (turn is not None and turn != after) or self.state is TableState.OVER

        with self._changed:
            self._changed.wait_for(ready, timeout_s)
            return self.turn()

    def turn(self) -> Turn | None:
        """Whose turn it is now (the seat and the request it is answering), or None."""
        with self._changed:
            if self._turn is None:
                return None
            index, request = self._turn
            return Turn(index, str(request["hand_id"]), int(request["seq"]))

    def join(self, timeout_s: float | None = None) -> None:
        """Wait for the match's thread to end."""
        if self._thread is not None:
            self._thread.join(timeout_s)

    def status(self) -> str:
        """The table in words: settings and seats, and the latest public table."""
        lines = [f"Table ({self.state.value}): {self.settings.describe()}."]
        for index, seat in enumerate(self.seats):
            kind = "bot" if seat.bot is not None else "person"
            left = " (left)" if seat.user_id is not None and self.has_left(seat.user_id) else ""
            lines.append(f"`seat {index}` {seat.shown} ({kind}){left}")
        if self.state is TableState.PLAYING and self._last_table:
            lines.append(self._last_table)
        return "\n".join(lines)

    # -- what the seats are sent (the worker thread) ------------------------------------

    def seat_message(self, seat_index: int, message: dict[str, Any]) -> None:
        """Tell the channel what the arena sent a seat (see the module docstring)."""
        kind = message.get("type")
        if kind in ("act", "draw"):
            self._asked(seat_index, message)
        elif kind == "hand_start" and self._first(kind, str(message["hand_id"])):
            self._events_told = 0
        elif kind == "hand_end" and self._first(kind, str(message["hand_id"])):
            self._set_turn(None)
            self._post(public_hand_end_text(message, self.names))
        elif kind == "match_end" and self._first(kind, ""):
            self._post(public_match_end_text(message, self.names))
        elif kind == "error" and message.get("code") == "timeout":
            who = self.names.label(f"p{seat_index}")
            self._set_turn(None, only=seat_index)
            self._post(f"{who} ran out of time: {message.get('message', '')}")

    def seat_replied(self, seat_index: int) -> None:
        """A seat answered: its turn is over."""
        self._set_turn(None, only=seat_index)

    def _asked(self, seat_index: int, request: dict[str, Any]) -> None:
        seat = self.seats[seat_index]
        if seat.user_id is not None:
            self._fronts[seat.user_id].clear()  # entries typed for an earlier turn
        is_person = seat.user_id is not None
        text = public_table_text(
            request,
            self.names,
            events_told=self._events_told,
            turn_s=self.settings.turn_s if is_person else None,
        )
        self._events_told = len(public_request(request)["history"])
        self._last_table = text
        self._post(text)
        self._set_turn((seat_index, request))

    def _first(self, kind: str, key: str) -> bool:
        """True the first time a message is seen (every seat gets its own copy)."""
        if (kind, key) in self._told:
            return False
        self._told.add((kind, key))
        return True

    def _set_turn(
        self, turn: tuple[int, dict[str, Any]] | None, *, only: int | None = None
    ) -> None:
        with self._changed:
            if only is None or (self._turn is not None and self._turn[0] == only):
                self._turn = turn
            self._changed.notify_all()

    def _post(self, text: str) -> None:
        self.sink.to_channel(self.channel_id, text)
