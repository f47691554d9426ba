"""A size-capped log of a bot's stderr that keeps the head and the tail.

A chatty bot must neither block on a full pipe nor fill the disk, so the arena reads its
stderr all the time and keeps only the first and the last bytes: the start usually says
what the bot is, the end why it died. What falls in between is counted, not stored.

>>> log = CappedLog(cap_bytes=8)
>>> log.write(b"abcdefghij")
>>> log.write(b"KLMN")
>>> log.dropped_bytes, log.total_bytes
(6, 14)
>>> log.text()
'abcd\\n[... 6 bytes dropped ...]\\nKLMN'
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["DEFAULT_STDERR_CAP_BYTES", "CappedLog"]

#: How much of a bot's stderr is kept per process by default (head plus tail).
DEFAULT_STDERR_CAP_BYTES = 256 * 1024

_READ_SIZE_BYTES = 64 * 1024


class CappedLog:
    """Bytes written in any amount; at most ``cap_bytes`` kept, half head and half tail.

    Thread-safe: the draining thread writes while the session may read the text.
    """

    def __init__(self, cap_bytes: int = DEFAULT_STDERR_CAP_BYTES) -> None:
        if cap_bytes < 2:
            raise ValueError(f"cap_bytes must be at least 2, got {cap_bytes}")
        self.cap_bytes = cap_bytes
        self._head_cap = cap_bytes // 2
        self._tail_cap = cap_bytes - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self._total = 0
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        """Append ``data``; bytes beyond the cap push the oldest tail bytes out."""
        with self._lock:
            self._total += len(data)
            room = self._head_cap - len(self._head)
            if room > 0:
                self._head += data[:room]
                data = data[room:]
            if data:
                self._tail += data[-self._tail_cap :]
                excess = len(self._tail) - self._tail_cap
                if excess > 0:
                    del self._tail[:excess]

    def capture(self, fd: int) -> None:
        """Write what is read from ``fd`` until its end (or an error); a thread's target."""
        while True:
            try:
                data = os.read(fd, _READ_SIZE_BYTES)
            except OSError:
                return
            if not data:
                return
            self.write(data)

    @property
    def total_bytes(self) -> int:
        """Every byte ever written."""
        with self._lock:
            return self._total

    @property
    def dropped_bytes(self) -> int:
        """Bytes written but no longer kept (between head and tail)."""
        with self._lock:
            return self._total - len(self._head) - len(self._tail)

    def data(self) -> bytes:
        """The kept bytes, with a marker where bytes were dropped."""
        with self._lock:
            dropped = self._total - len(self._head) - len(self._tail)
            if dropped:
                marker = f"\n[... {dropped} bytes dropped ...]\n".encode()
                return bytes(self._head) + marker + bytes(self._tail)
            return bytes(self._head) + bytes(self._tail)

    def text(self) -> str:
        """:meth:`data` decoded as UTF-8 (bad bytes replaced)."""
        return self.data().decode("utf-8", errors="replace")

    def tail_text(self, max_chars: int = 2000) -> str:
        """The last ``max_chars`` characters: what a bot said before it died."""
        return self.text()[-max_chars:]

    def save(self, path: str | Path) -> Path:
        """Write the kept bytes to ``path`` (parents created); return the path."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(self.data())
        return target
