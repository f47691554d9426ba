"""The chat tables of a server: one per channel, driven by commands, tested without Discord.

Each method is one chat command (docs/discord.md lists them) and returns the short reply
the channel sees (empty: nothing to say, the table follows). The tables themselves are
:class:`~arena.discord.table.ChatTable`; this module checks who may do what and when (the
opener is the host and alone may start; seats change only before the start).

>>> class Printer:
...     def to_channel(self, channel_id, text): pass
...     def to_person(self, user_id, text): pass
>>> manager = TableManager(Printer(), {}, Path("runs"))
>>> manager.join(1, 7, "ann")
'There is no table in this channel: open one first.'
>>> print(manager.open(1, 7, "ann", "stack=500 blinds=1/50"))  # doctest: +ELLIPSIS
ann opened a table: stacks 500, blinds 5/10 doubling every 10 hands, ... then start.
>>> manager.start(1, 7)
'A table needs at least 2 seats to start; it has 1.'"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from arena.bots.transport import Transport
from arena.discord.markup import chat_name
from arena.discord.settings import SettingsError, parse_settings
from arena.discord.table import ChatSeat, ChatTable, Sink, TableState
from arena.match.config import MAX_SEATS, MIN_SEATS, new_secret_seed
from arena.session.policy import TimeLimits

__all__ = ["MAX_NAME_CHARS", "TableManager"]

#: The longest name a seat may play under (the protocol's limit for a player's name).
MAX_NAME_CHARS = 64


class TableManager:
    """The tables of every channel (see the module docstring).

    ``bots`` maps the names of the configured bots to their transport factories (a bot
    process under the sandbox, :func:`arena.bots.process.process_factory`); each table's
    run folder is made under ``runs_dir``. ``seed`` makes each match's secret seed.
    ``time_limits`` are the bots' (default: the arena's); a person has the table's turn time.
    """

    def __init__(
        self,
        sink: Sink,
        bots: Mapping[str, Callable[[], Transport]],
        runs_dir: Path,
        *,
        clock: Callable[[], float] = time.monotonic,
        seed: Callable[[], int] = new_secret_seed,
        time_limits: TimeLimits | None = None,
    ) -> None:
        self.sink = sink
        self.bots = dict(bots)
        self.runs_dir = runs_dir
        self.clock = clock
        self.seed = seed
        self.time_limits = TimeLimits() if time_limits is None else time_limits
        self.tables: dict[int, ChatTable] = {}

    def table(self, channel_id: int) -> ChatTable | None:
        """The table of a channel (the last one, when it is over), or None."""
        return self.tables.get(channel_id)

    def open(self, channel_id: int, user_id: int, name: str, settings_text: str = "") -> str:
        """Open a table with ``settings_text`` (``key=value`` words); its opener sits at it."""
        table = self.tables.get(channel_id)
        if table is not None and table.state is not TableState.OVER:
            return f"This channel has a table already ({table.state.value})."
        try:
            settings = parse_settings(settings_text)
        except SettingsError as exc:
            return str(exc)
        problem = _bad_name(name)
        if problem:
            return problem
        table = ChatTable(channel_id, user_id, settings, self.sink, clock=self.clock)
        seat = ChatSeat(name, user_id=user_id)
        table.seats.append(seat)
        self.tables[channel_id] = table
        return (
            f"{seat.shown} opened a table: {settings.describe()}. "
            "Join it, or seat bots, then start."
        )

    def join(self, channel_id: int, user_id: int, name: str) -> str:
        """Take a seat at the channel's open table."""
        table = self._open_table(channel_id)
        if isinstance(table, str):
            return table
        if table.seat_of(user_id) is not None:
            return "You are at this table already."
        problem = _bad_name(name) or _full(table)
        if problem:
            return problem
        seat = ChatSeat(name, user_id=user_id)
        table.seats.append(seat)
        return f"{seat.shown} joined: {len(table.seats)} seats."

    def seat_bot(self, channel_id: int, user_id: int, bot_name: str) -> str:
        """Seat one of the configured bots (anyone at the table may)."""
        table = self._open_table(channel_id)
        if isinstance(table, str):
            return table
        if table.seat_of(user_id) is None:
            return "Only a person at the table may seat a bot."
        if bot_name not in self.bots:
            known = ", ".join(chat_name(name) for name in sorted(self.bots))
            known = known or "none are configured"
            return f"No bot named '{chat_name(bot_name)}'; the bots: {known}."
        problem = _full(table)
        if problem:
            return problem
        seat = ChatSeat(bot_name, bot=bot_name)
        table.seats.append(seat)
        return f"Bot {seat.shown} takes seat {len(table.seats) - 1}."

    def leave(self, channel_id: int, user_id: int) -> str:
        """Leave the table: before the start the seat goes (with the last person, the
        table); after it the person's seat folds every hand."""
        table = self.tables.get(channel_id)
        if table is None or table.state is TableState.OVER:
            return "There is no table playing in this channel."
        reply = table.leave(user_id)
        if table.state is TableState.OPEN and not any(s.user_id for s in table.seats):
            del self.tables[channel_id]
            reply += " Nobody is left: the table is closed."
        elif table.state is TableState.OPEN and table.host_id == user_id:
            # The host left before the start: the first person seated takes over.
            table.host_id = next(s.user_id for s in table.seats if s.user_id is not None)
        return reply

    def start(self, channel_id: int, user_id: int) -> str:
        """Deal the first hand (the host only)."""
        table = self._open_table(channel_id)
        if isinstance(table, str):
            return table
        if user_id != table.host_id:
            host = next(s.shown for s in table.seats if s.user_id == table.host_id)
            return f"Only the host ({host}) may start the table."
        if len(table.seats) < MIN_SEATS:
            return f"A table needs at least {MIN_SEATS} seats to start; it has {len(table.seats)}."
        stamp = time.strftime("%Y%m%d-%H%M%S")
        out_dir = self.runs_dir / f"discord-{channel_id}-{stamp}"
        suffix = 1
        while out_dir.exists():  # two tables in one second: never overwrite a run
            suffix += 1
            out_dir = self.runs_dir / f"discord-{channel_id}-{stamp}-{suffix}"
        out_dir.mkdir(parents=True)
        table.start(self.seed(), self.bots, out_dir, time_limits=self.time_limits)
        names = ", ".join(seat.shown for seat in table.seats)
        return f"Shuffle up and deal: {names}. Hole cards come by direct message."

    def act(self, channel_id: int, user_id: int, text: str) -> str:
        """A person's action (``check``, ``call``, ``fold``, ``bet 40``, ``raise to 120``,
        ``all in``): refused with what is legal now, or played (empty reply)."""
        table = self.tables.get(channel_id)
        if table is None:
            return "There is no table in this channel."
        return table.act(user_id, text)

    def status(self, channel_id: int) -> str:
        """The channel's table in words."""
        table = self.tables.get(channel_id)
        if table is None:
            return "There is no table in this channel."
        return table.status()

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop every table (the hands played are kept) and wait for their threads."""
        for table in self.tables.values():
            table.close(timeout_s)

    def _open_table(self, channel_id: int) -> ChatTable | str:
        """The channel's table if it still takes seats, else why not."""
        table = self.tables.get(channel_id)
        if table is None or table.state is TableState.OVER:
            return "There is no table in this channel: open one first."
        if table.state is not TableState.OPEN:
            return "The table has started: seats are fixed until it ends."
        return table


def _bad_name(name: str) -> str:
    if not 1 <= len(name) <= MAX_NAME_CHARS:
        return f"A name must be 1 to {MAX_NAME_CHARS} characters, got {len(name)}."
    return ""


def _full(table: ChatTable) -> str:
    if len(table.seats) >= MAX_SEATS:
        return f"The table is full ({MAX_SEATS} seats)."
    return ""
