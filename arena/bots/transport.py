"""How the arena exchanges lines with a bot: the :class:`Transport` protocol, how a
bot process ended (:class:`ExitInfo`) and the errors of a closed or unstartable bot.

A :class:`Transport` moves bytes: ``send`` one encoded message, ``read_line`` the next
complete line before a deadline, ``close`` the bot. It knows nothing of poker or of the
watchdog's policy; :class:`arena.session.watchdog.BotSession` does. Deadlines are values of the
session's clock, so a test can run the whole watchdog on a :class:`FakeClock` without
sleeping.

An in-memory bot for tests is in :mod:`arena.bots.in_memory`.
"""

from __future__ import annotations

import signal as signal_module
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeAlias

__all__ = [
    "STDERR_MARKER",
    "BotStartError",
    "Clock",
    "ExitInfo",
    "Transport",
    "TransportClosedError",
    "TransportError",
    "describe_exit",
    "split_returncode",
]

Clock: TypeAlias = Callable[[], float]

#: How a message quotes a bot's stderr: from there to the end, the text is the bot's own
#: (the server keeps it for the bot's team only).
STDERR_MARKER = "; its stderr ends with: "


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


def split_returncode(returncode: int) -> tuple[int | None, int | None]:
    """A :class:`subprocess.Popen` returncode as ``(exit_code, signal)``, one of them None.

    >>> split_returncode(3), split_returncode(-9)
    ((3, None), (None, 9))
    """
    return (None, -returncode) if returncode < 0 else (returncode, None)


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
    #: The sandbox stopped it for crossing a limit: ``"memory_limit"``, ``"cpu_limit"``,
    #: ``"process_limit"`` or ``"file_size_limit"`` (see arena.bots.sandbox.resources), and what
    #: was measured.
    limit_reason: str | None = None
    limit_detail: str = ""

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

    @classmethod
    def of_bot(
        cls, name: str, what: str, returncode: int | None, stderr_tail: str = ""
    ) -> TransportClosedError:
        """The error for bot ``name`` that did ``what``, with how it ended if it did
        (``returncode``, negative for a signal) and the end of its stderr.

        >>> str(TransportClosedError.of_bot("x", "exited", -11, "segfault\\n"))
        "bot 'x' exited (killed by signal 11 (SIGSEGV)); its stderr ends with: 'segfault'"
        """
        exit_code, signal = (None, None) if returncode is None else split_returncode(returncode)
        how = "" if returncode is None else f" ({describe_exit(exit_code, signal)})"
        tail = stderr_tail.strip()
        said = f"{STDERR_MARKER}{tail!r}" if tail else ""
        return cls(f"bot {name!r} {what}{how}{said}", exit_code=exit_code, signal=signal)


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
