"""How the arena exchanges lines with a bot, and an in-memory bot for tests.

A :class:`Transport` moves bytes: ``send`` one encoded message, ``read_line`` the next
complete line before a deadline, ``close`` the bot. It knows nothing of poker or of the
watchdog's policy; :class:`arena.session.BotSession` does. Deadlines are values of the
session's clock, so a test can run the whole watchdog on a :class:`FakeClock` without
sleeping.

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
from typing import Any, Protocol, TypeAlias

from protocol.framing import DEFAULT_MAX_LINE_BYTES, LineTooLongError

__all__ = [
    "BotExit",
    "BotOutput",
    "BotStartError",
    "Clock",
    "Delayed",
    "ExitInfo",
    "FakeClock",
    "InMemoryTransport",
    "Transport",
    "TransportClosedError",
    "TransportError",
]

Clock: TypeAlias = Callable[[], float]


def describe_exit(exit_code: int | None, signal: int | None) -> str:
    """Readable form of how a process ended.

    >>> describe_exit(3, None), describe_exit(None, 9)
    ('exit code 3', 'killed by signal 9 (SIGKILL)')
    """
    if signal is not None:
        try:
            name = signal_module.Signals(signal).name
        except ValueError:
            name = "unknown"
        return f"killed by signal {signal} ({name})"
    if exit_code is not None:
        return f"exit code {exit_code}"
    return "exit status unknown"


@dataclass(frozen=True, slots=True)
class ExitInfo:
    """How a bot process ended and what of its output was not kept.

    >>> ExitInfo(exit_code=None, signal=9).describe()
    'killed by signal 9 (SIGKILL)'
    """

    exit_code: int | None
    signal: int | None = None
    stdout_dropped_bytes: int = 0
    stderr_dropped_bytes: int = 0
    stderr_tail: str = ""
    is_killed: bool = False  # the arena had to kill it (it did not exit within the grace)

    @property
    def dropped_bytes(self) -> int:
        """Output bytes of either stream the arena did not keep."""
        return self.stdout_dropped_bytes + self.stderr_dropped_bytes

    def describe(self) -> str:
        """``'exit code 3'`` or ``'killed by signal 9 (SIGKILL)'``."""
        return describe_exit(self.exit_code, self.signal)


class TransportError(Exception):
    """Root of the transport's errors: all of them are about the bot, not the arena."""


class TransportClosedError(TransportError):
    """The bot exited or closed its pipes; ``exit_code``/``signal`` say how, if known."""

    def __init__(self, message: str, *, exit_code: int | None = None, signal: int | None = None):
        super().__init__(message)
        self.exit_code = exit_code
        self.signal = signal


class BotStartError(TransportError):
    """The bot's program could not be executed at all (missing, not executable, ...)."""


class Transport(Protocol):
    """Lines to and from one running bot."""

    def send(self, data: bytes) -> None:
        """Queue ``data`` (one encoded message) for the bot; never blocks for long.

        Raises :class:`TransportClosedError` when the bot is known to be gone.
        """
        ...

    def read_line(self, deadline: float) -> bytes | None:
        """The next complete line without its terminator, or None at ``deadline``.

        ``deadline`` is a value of the session's clock; a deadline already past still
        returns a line that has arrived. Raises :class:`TransportClosedError` at end of
        output and :class:`protocol.errors.LineTooLongError` for an over-long line (the
        reader then carries on with the next line).
        """
        ...

    def has_output(self) -> bool:
        """True when :meth:`read_line` would not wait: a line (or the end of output) is
        there already. Never blocks; the session asks it between steps of work it does
        while the bot thinks."""
        ...

    def close(self, grace_s: float) -> ExitInfo:
        """Let the bot exit within ``grace_s`` seconds, then kill it; idempotent."""
        ...

    @property
    def is_alive(self) -> bool:
        """True while the bot is running."""
        ...


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

    def advance(self, seconds: float) -> None:
        """Same as :meth:`sleep`."""
        self.sleep(seconds)


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
        for line in data.splitlines():
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
