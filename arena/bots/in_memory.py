"""An in-memory bot for tests: a Python function behind the :class:`~arena.bots.transport.Transport`
interface, on a clock that a test can move.

:class:`InMemoryTransport` runs a Python function as a bot. The function receives each
decoded message and returns what the bot writes: a dict (one JSON line), raw ``bytes``
(garbage), a list of those, ``None`` (nothing), or :class:`Delayed` output that arrives
later on the clock. Raising :class:`BotExit` makes the bot "exit".

>>> clock = FakeClock()
>>> def bot(message):
...     return Delayed(0.5, {"type": "ready", "seq": message["seq"]})
>>> transport = InMemoryTransport(bot, clock=clock)
>>> transport.send(b'{"type":"hello","seq":1}\\n')
>>> transport.read_line(deadline=0.2), clock()
(None, 0.2)
>>> transport.read_line(deadline=1.0), clock()
(b'{"type":"ready","seq":1}', 0.5)
"""

from __future__ import annotations

import json
import signal as signal_module
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from arena.bots.transport import Clock, ExitInfo, TransportClosedError, describe_exit
from protocol.framing import DEFAULT_MAX_LINE_BYTES, LineTooLongError, split_lines

__all__ = ["BotExit", "BotOutput", "Delayed", "FakeClock", "InMemoryTransport"]


class FakeClock:
    """A monotonic clock that only moves when told: ``sleep`` advances it.

    >>> clock = FakeClock(10.0)
    >>> clock.sleep(0.25)
    >>> clock()
    10.25
    """

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        """Advance the clock (negative durations are ignored, like a real sleep)."""
        self.now += max(0.0, seconds)


class BotExit(Exception):
    """Raised by an in-memory bot function to exit (``exit_code``) or die (``signal``)."""

    def __init__(self, exit_code: int | None = 0, *, signal: int | None = None) -> None:
        super().__init__(exit_code, signal)
        self.exit_code = None if signal is not None else exit_code
        self.signal = signal


@dataclass(frozen=True, slots=True)
class Delayed:
    """Output that the in-memory bot writes ``delay_s`` seconds after the message."""

    delay_s: float
    output: BotOutput


BotOutput: TypeAlias = "dict[str, Any] | bytes | Delayed | Sequence[BotOutput] | None"
BotFunction: TypeAlias = Callable[[dict[str, Any]], BotOutput]


class InMemoryTransport:
    """Runs ``bot(message) -> output`` as a bot, on ``clock`` (see the module docstring).

    With a :class:`FakeClock`, waiting advances the clock instead of sleeping; with any
    other clock, ``sleep`` (default ``time.sleep``) is called. Lines longer than
    ``max_line_bytes`` raise :class:`LineTooLongError`, as with a real process.
    """

    def __init__(
        self,
        bot: BotFunction,
        *,
        clock: Clock | None = None,
        sleep: Callable[[float], None] | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self.bot = bot
        self.clock: Clock = clock if clock is not None else time.monotonic
        if sleep is None:
            sleep = clock.sleep if isinstance(clock, FakeClock) else time.sleep
        self._sleep = sleep
        self.max_line_bytes = max_line_bytes
        self.sent: list[dict[str, Any]] = []  # every message the bot received, decoded
        # (arrival time, line); a None line is the end of output: the bot exited there.
        self._pending: deque[tuple[float, bytes | None]] = deque()
        self._exit: BotExit | None = None
        self._is_closed = False

    @property
    def is_alive(self) -> bool:
        """True until the bot function raised :class:`BotExit` or the transport closed."""
        return self._exit is None and not self._is_closed

    def send(self, data: bytes) -> None:
        """Decode each line of ``data`` and hand it to the bot function."""
        if not self.is_alive:
            raise self._closed_error()
        for line in split_lines(data):
            message = json.loads(line)
            self.sent.append(message)
            try:
                output = self.bot(message)
            except BotExit as exit_:
                self._exit = exit_
                self._pending.append((self.clock(), None))
                return
            self._queue(output, self.clock())

    def _queue(self, output: BotOutput, at: float) -> None:
        if output is None:
            return
        if isinstance(output, Delayed):
            self._queue(output.output, at + output.delay_s)
        elif isinstance(output, dict):
            self._pending.append((at, json.dumps(output, separators=(",", ":")).encode()))
        elif isinstance(output, bytes):
            self._pending.extend((at, line) for line in output.removesuffix(b"\n").split(b"\n"))
        else:
            for item in output:
                self._queue(item, at)

    def has_output(self) -> bool:
        """True when a line (or the bot's exit) has arrived by now."""
        if not self._pending:
            return not self.is_alive
        return self._pending[0][0] <= self.clock()

    def read_line(self, deadline: float) -> bytes | None:
        """The next line that arrives by ``deadline``; waiting moves the clock."""
        if not self._pending:
            if not self.is_alive:
                raise self._closed_error()
            self._wait_until(deadline)
            return None
        # Lines arrive in the order written: a later line never overtakes a delayed one.
        arrival, line = self._pending[0]
        if arrival > max(deadline, self.clock()):
            self._wait_until(deadline)
            return None
        self._wait_until(arrival)
        if line is None:  # the end of output stays the end: it is not consumed
            raise self._closed_error()
        self._pending.popleft()
        if len(line) > self.max_line_bytes:
            raise LineTooLongError(self.max_line_bytes)
        return line

    def _wait_until(self, when: float) -> None:
        remaining = when - self.clock()
        if remaining > 0:
            self._sleep(remaining)

    def close(self, grace_s: float) -> ExitInfo:
        """Stop the bot; a bot still running counts as killed (SIGKILL)."""
        self._is_closed = True
        self._pending.clear()
        if self._exit is not None:
            return ExitInfo(exit_code=self._exit.exit_code, signal=self._exit.signal)
        return ExitInfo(exit_code=None, signal=int(signal_module.SIGKILL), is_killed=True)

    def _closed_error(self) -> TransportClosedError:
        if self._exit is None:
            return TransportClosedError("the transport is closed")
        info = describe_exit(self._exit.exit_code, self._exit.signal)
        return TransportClosedError(
            f"the bot exited ({info})",
            exit_code=self._exit.exit_code,
            signal=self._exit.signal,
        )
