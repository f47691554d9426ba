"""The arena's ends of a bot's two conversation pipes, non-blocking and on one ``poll``,
both served from the thread that sends and reads: a decision costs a ``write``, a ``poll``
and a ``read``, no hand-off between threads.

* stdout (:class:`OutputLines`) is read only when the arena wants a line, at most 64 KiB at
  a time into a :class:`protocol.framing.LineReader`; a line over ``max_line_bytes`` is the
  bot's fault. At most ``max_pending_bytes`` of complete lines are held unread; more of the
  same read is dropped and counted. Unread output stays in the pipe, so the arena's memory
  stays bounded whatever the bot writes.
* stdin (:class:`InputBacklog`) takes what the pipe accepts at once; the rest waits in a
  backlog written whenever the arena sends again or waits for output, so a bot that stops
  reading never blocks the arena; past ``max_input_backlog_bytes`` it counts as gone. The
  descriptor is polled exactly while the backlog is not empty.

Only the arena's side of each pipe turns non-blocking: the bot's ends keep their flags."""

from __future__ import annotations

import enum
import os
import select
from collections import deque
from collections.abc import Callable

from protocol.framing import LineReader, LineTooLongError

__all__ = ["InputBacklog", "OutputLines"]

_READ_SIZE_BYTES = 64 * 1024


class _LineMarker(enum.Enum):
    """Stands in the queue of unread lines where an over-long line was."""

    TOO_LONG = "too_long"


_UnreadLine = bytes | _LineMarker


class OutputLines:
    """The bot's stdout at ``fd``: complete lines read and not yet taken (an over-long
    line's marker where it was), their size, and whether the end of output was read."""

    def __init__(
        self, fd: int, poller: select.poll, *, max_line_bytes: int, max_pending_bytes: int
    ) -> None:
        self.fd = fd
        os.set_blocking(fd, False)
        self._poller = poller
        poller.register(fd, select.POLLIN)
        self.max_pending_bytes = max_pending_bytes
        self._reader = LineReader(max_line_bytes)
        self._lines: deque[_UnreadLine] = deque()
        self._held_bytes = 0
        #: Bytes of lines dropped because too much output was unread.
        self.dropped_bytes = 0
        self.is_eof = False

    @property
    def has_line(self) -> bool:
        """True when a line (or an over-long line's error) is there to take."""
        return bool(self._lines)

    def take(self) -> bytes:
        """The oldest unread line; an over-long one raises ``LineTooLongError``."""
        item = self._lines.popleft()
        if isinstance(item, bytes):
            self._held_bytes -= len(item)
            return item
        raise LineTooLongError(self._reader.max_line_bytes)

    def read(self) -> None:
        """One read of stdout into the line reader (or the end of output)."""
        try:
            data = os.read(self.fd, _READ_SIZE_BYTES)
        except BlockingIOError:  # pragma: no cover - poll said readable; nothing after all
            return
        except OSError:  # pragma: no cover - EIO and the like: no more output
            data = b""
        if not data:
            self._end()
            return
        while True:
            try:
                self._keep(self._reader.feed(data))
                return
            except LineTooLongError as exc:
                self._keep(exc.lines)
                self._lines.append(_LineMarker.TOO_LONG)
                # The reader kept what followed the long line: get it out before more data.
                data = b""

    def discard(self) -> None:
        """Read what is there and throw it away (a bot saying goodbye on a full pipe)."""
        try:
            data = os.read(self.fd, _READ_SIZE_BYTES)
        except OSError:  # pragma: no cover - EAGAIN or EIO: nothing to throw away now
            return
        if not data:
            self._end()

    def _end(self) -> None:
        self.is_eof = True
        self._poller.unregister(self.fd)

    def _keep(self, lines: list[bytes]) -> None:
        for line in lines:
            if self._held_bytes + len(line) > self.max_pending_bytes:
                self.dropped_bytes += len(line) + 1
                continue
            self._held_bytes += len(line)
            self._lines.append(line)


class InputBacklog:
    """The bot's stdin at ``fd`` and what the pipe did not take yet.

    ``on_broken`` is called when a write finds the pipe closed (the bot closed its stdin,
    or died: the caller looks for an exit status). ``failure`` says why nothing more can be
    sent, once something went wrong.
    """

    def __init__(
        self,
        fd: int,
        poller: select.poll,
        *,
        max_backlog_bytes: int,
        on_broken: Callable[[], object],
    ) -> None:
        self.fd = fd
        os.set_blocking(fd, False)
        self._poller = poller
        self.max_backlog_bytes = max_backlog_bytes
        self._on_broken = on_broken
        self._chunks: deque[bytes | memoryview] = deque()
        #: Bytes sent that the bot has not taken yet.
        self.size = 0
        self.failure: str | None = None

    def __bool__(self) -> bool:
        """True while something waits to be written."""
        return bool(self._chunks)

    def write(self, data: bytes) -> bool:
        """Write ``data`` as far as the pipe takes it now (after what waits) and keep the
        rest; False, with ``failure`` set, when the pipe broke or the backlog overflowed."""
        rest: bytes | memoryview = data
        if not self._chunks:
            try:
                written = os.write(self.fd, data)
            except BlockingIOError:
                written = 0
            except OSError:  # EPIPE: the bot closed its stdin or died
                self._broken()
                return False
            if written == len(data):
                return True
            rest = memoryview(data)[written:]
        if self.size + len(rest) > self.max_backlog_bytes:
            self.failure = f"stopped reading its input ({self.size} bytes not taken)"
            self.drop()
            return False
        if not self._chunks:
            self._poller.register(self.fd, select.POLLOUT)
        self._chunks.append(rest)
        self.size += len(rest)
        return True

    def flush(self) -> None:
        """Write as much of the backlog as the pipe takes now."""
        chunks = self._chunks
        try:
            while chunks:
                chunk = chunks[0]
                written = os.write(self.fd, chunk)
                self.size -= written
                if written < len(chunk):
                    chunks[0] = memoryview(chunk)[written:]
                    return
                chunks.popleft()
        except BlockingIOError:
            return
        except OSError:  # EPIPE: the bot closed its stdin or died
            self._broken()
            return
        self._poller.unregister(self.fd)  # nothing is left to write

    def drop(self) -> None:
        """Forget what waits (the bot will not take it)."""
        if self._chunks:
            self._chunks.clear()
            self.size = 0
            self._poller.unregister(self.fd)

    def _broken(self) -> None:
        self.failure = "closed its stdin"
        self.drop()
        self._on_broken()
