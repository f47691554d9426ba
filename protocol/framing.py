"""Line framing: bytes in, complete lines out, with a hard cap on the line length.

Each message is one line terminated by ``\\n``; a ``\\r`` just before it is tolerated and
removed. The cap counts the bytes of a line without its terminator. A line over the cap is
the bot's fault (:class:`LineTooLongError`), never a reason to grow the buffer: the reader
raises as soon as the cap is certainly exceeded, throws the long line away (also the part
that has not arrived yet) and carries on with the next line.

>>> reader = LineReader(max_line_bytes=8)
>>> reader.feed(b'{"a":1}\\r\\n{"b"')
[b'{"a":1}']
>>> reader.feed(b':2}\\n')
[b'{"b":2}']
>>> reader.feed(b'0123456789\\nok\\n')
Traceback (most recent call last):
...
protocol.errors.LineTooLongError: line_too_long: line longer than the limit of 8 bytes
>>> reader.feed(b'')
[b'ok']
"""

from __future__ import annotations

from protocol.errors import LineTooLongError

__all__ = ["DEFAULT_MAX_LINE_BYTES", "LineReader", "LineTooLongError", "split_lines"]

#: The default cap on one line (64 KiB), without its terminator.
DEFAULT_MAX_LINE_BYTES = 64 * 1024


class LineReader:
    """Split a byte stream into lines; a pure buffer, it never reads anything itself.

    ``feed(data)`` returns the lines completed by ``data`` (without terminators). When a
    line is over the cap it raises :class:`LineTooLongError`; the error's ``lines`` holds
    the complete lines that came before the long one in that same call, and any data after
    the long line stays buffered: call ``feed(b"")`` to get it.
    """

    __slots__ = ("_buffer", "_is_skipping", "_scanned", "max_line_bytes")

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        if max_line_bytes < 1:
            raise ValueError(f"max_line_bytes must be positive, got {max_line_bytes!r}")
        self.max_line_bytes = max_line_bytes
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already known to hold no b"\n"
        self._is_skipping = False  # throwing away the rest of an over-long line

    @property
    def buffered_byte_count(self) -> int:
        """Bytes received that do not yet form a complete line."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Add ``data`` and return every line it completes."""
        buffer = self._buffer
        buffer += data
        lines: list[bytes] = []
        limit = self.max_line_bytes
        start = 0
        while True:
            end = buffer.find(b"\n", max(start, self._scanned))
            if end < 0:
                break
            self._scanned = 0
            line = bytes(buffer[start:end])
            start = end + 1
            if self._is_skipping:
                # The tail of a line already reported as too long.
                self._is_skipping = False
                continue
            if line.endswith(b"\r"):
                line = line[:-1]
            if len(line) > limit:
                del buffer[:start]
                raise LineTooLongError(limit, lines=lines)
            lines.append(line)
        del buffer[:start]
        self._scanned = len(buffer)
        # A partial line is certainly too long once it holds more than the cap plus one
        # byte (that byte could still be a tolerated "\r").
        if len(buffer) > limit + 1:
            buffer.clear()
            self._scanned = 0
            if not self._is_skipping:
                self._is_skipping = True
                raise LineTooLongError(limit, lines=lines)
        return lines


def split_lines(data: bytes) -> list[bytes]:
    """The lines of ``data`` split on ``\\n`` only (never on ``\\r``, U+2028 or NEL, which
    may stand inside a JSON string), a ``\\r`` before the ``\\n`` removed, empty lines
    skipped: for buffers that hold whole lines, such as what the arena hands an in-process
    seat.

    >>> split_lines(b'{"a":"x\\xe2\\x80\\xa8y"}\\r\\n\\n{"b":2}\\n')
    [b'{"a":"x\\xe2\\x80\\xa8y"}', b'{"b":2}']
    """
    lines = (line.removesuffix(b"\r") for line in data.split(b"\n"))
    return [line for line in lines if line.strip()]
