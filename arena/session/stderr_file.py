"""One seat's stderr in one match, kept in a file: every process of the seat, restarts
included, bounded.

Each bot process's stderr is drained into a :class:`~arena.bots.stderr_log.CappedLog`
(its first and last bytes; what falls between is counted). When the process ends, its
log becomes a *section* of the seat's file, after a ``--- restart N ---`` line for every
process after the first, and the file is written again (mode 0600: a bot that runs as
another user must not read what its rivals printed). So the file is on disk as soon as a
bot has crashed, not only when the match ends.

The file stays bounded even for a bot that is restarted many times: beyond ``max_bytes``
the sections in the middle make way (the first process's says what the bot is, the last
ones why it keeps dying), and a line says how many were left out.

>>> import tempfile
>>> from arena.bots.stderr_log import CappedLog
>>> folder = Path(tempfile.mkdtemp())
>>> seat = SeatStderrLog(folder / "stderr/0-alice.log", relative_path="stderr/0-alice.log")
>>> for text in (b"starting\\n", b"oops\\n"):
...     process = CappedLog(cap_bytes=64)
...     process.write(text)
...     seat.add(process)
>>> seat.relative_path, seat.total_bytes
('stderr/0-alice.log', 14)
>>> print(seat.path.read_text(), end="")
starting
--- restart 1 ---
oops
"""

from __future__ import annotations

import os
import re
from collections import deque
from pathlib import Path
from typing import Protocol, runtime_checkable

from arena.bots.stderr_log import DEFAULT_STDERR_CAP_BYTES, CappedLog

__all__ = [
    "DEFAULT_SEAT_STDERR_MAX_BYTES",
    "HasStderrLog",
    "SeatStderrLog",
    "safe_file_name",
]

#: How much of one seat's stderr a match keeps in its file (four processes' worth).
DEFAULT_SEAT_STDERR_MAX_BYTES = 4 * DEFAULT_STDERR_CAP_BYTES

_FILE_MODE = 0o600
_MAX_NAME_CHARS = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_file_name(name: str) -> str:
    """``name`` as a file name on any system: runs of other characters than letters, digits,
    ``.``, ``_`` and ``-`` become one ``_``, at most 64 characters, never empty or hidden.

    >>> safe_file_name("my bot/v2: ünïcode"), safe_file_name(".."), safe_file_name("")
    ('my_bot_v2_n_code', 'bot', 'bot')
    """
    cleaned = _UNSAFE.sub("_", name).strip("._")[:_MAX_NAME_CHARS]
    return cleaned or "bot"


@runtime_checkable
class HasStderrLog(Protocol):
    """A transport that keeps its process's stderr (a
    :class:`~arena.bots.process.ProcessTransport`; an in-memory bot has none)."""

    @property
    def stderr_log(self) -> CappedLog:
        """The process's stderr, head and tail."""
        ...


class SeatStderrLog:
    """The stderr file of one seat (see the module docstring); the match's
    :class:`~arena.store.run_folder.RunFolder` names it.

    ``relative_path`` is the path the results give (relative to the match's folder).
    """

    def __init__(
        self,
        path: Path,
        *,
        relative_path: str,
        max_bytes: int = DEFAULT_SEAT_STDERR_MAX_BYTES,
    ) -> None:
        if max_bytes < 1:
            raise ValueError(f"max_bytes must be at least 1, got {max_bytes}")
        self.path = path
        self.relative_path = relative_path
        self.max_bytes = max_bytes
        #: Bytes the seat's processes wrote to stderr, kept or not.
        self.total_bytes = 0
        #: Processes whose stderr was added.
        self.process_count = 0
        self._first: bytes | None = None  # the first process's section
        self._later: deque[bytes] = deque()  # the sections of the processes after it
        self._kept_bytes = 0
        self._left_out = 0  # sections dropped from the middle

    @property
    def is_written(self) -> bool:
        """True once a process's stderr has been added (and the file written)."""
        return self.process_count > 0

    def add(self, log: CappedLog) -> None:
        """A process of the seat has ended: add its stderr and write the file again."""
        self.total_bytes += log.total_bytes
        section = log.data()
        if self._first is None:
            self._first = section
        else:
            previous = self._later[-1] if self._later else self._first
            marker = f"--- restart {self.process_count} ---\n".encode()
            if previous and not previous.endswith(b"\n"):
                marker = b"\n" + marker  # the marker on a line of its own
            self._later.append(marker + section)
        self._kept_bytes += len(self._later[-1] if self._later else self._first)
        self.process_count += 1
        # The first and the last section stay whatever their size (each is bounded by the
        # process's cap); those between make way, oldest first.
        while self._kept_bytes > self.max_bytes and len(self._later) > 1:
            self._kept_bytes -= len(self._later.popleft())
            self._left_out += 1
        self.save()

    def data(self) -> bytes:
        """The file's content."""
        if self._first is None:
            return b""
        parts = [self._first]
        if self._left_out:
            gap = (
                f"--- the stderr of {self._left_out} restart(s) not kept "
                f"(the file keeps about {self.max_bytes} bytes) ---\n"
            ).encode()
            parts.append(gap if self._first.endswith(b"\n") else b"\n" + gap)
        parts.extend(self._later)
        return b"".join(parts)

    def save(self) -> None:
        """Write the file (its folder made if needed), readable by the arena's user only."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, _FILE_MODE)
        os.fchmod(descriptor, _FILE_MODE)  # also when the file was there before
        with open(descriptor, "wb") as file:
            file.write(self.data())
