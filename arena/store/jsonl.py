"""``hands.jsonl`` and ``results.json``: the match's files, written.

The layout of ``hands.jsonl`` and the encoding of its records are
:mod:`arena.match.records`; this module puts the lines in a file (flushed often enough
that an interrupted match keeps its finished hands); :mod:`arena.store.hand_log` reads
them back. :class:`JsonLinesStore` is the :class:`~arena.match.store.ResultStore` a match
writes through: it takes anything that makes its own line (``to_line``) and a result
that writes its own JSON, so the store needs none of the match's types.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TextIO

from arena.store.closing import ClosedOnExit
from arena.store.run_folder import RunFolder

__all__ = [
    "PRIVATE_FILE_MODE",
    "HandLogWriter",
    "JsonLinesStore",
]

#: The mode of the files a match writes: the arena's user only (they hold the seed).
PRIVATE_FILE_MODE = 0o600


class Record(Protocol):
    """A record of the hand history (:mod:`arena.match.records`)."""

    def to_line(self) -> str:
        """The record's line, newline included."""
        ...


class Result(Protocol):
    """A match's result (:class:`arena.match.results.MatchResult`)."""

    def write_json(self, path: Path) -> None:
        """Write the result as a JSON document."""
        ...


class HandLogWriter(ClosedOnExit):
    """Appends records to a hand history file, flushing at least every ``flush_interval_s``.

    Flushing often means that when a match is interrupted (Ctrl-C, or our own bug stopping
    it) the finished hands are on disk for inspection and replay; not flushing after every
    hand keeps a fast match from spending a tenth of its time in ``write`` system calls.
    A ``with`` block closes it.
    """

    def __init__(
        self,
        path: Path,
        *,
        flush_interval_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # newline="\n": the same bytes on every platform, for the determinism check.
        # Readable by the arena's user only: the header holds the match seed, which a bot
        # running as another user (the sandbox's own uid) must not read while it plays.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
        os.fchmod(descriptor, PRIVATE_FILE_MODE)  # also when the file was there before
        self._file: TextIO = open(descriptor, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        self._flush_interval_s = flush_interval_s
        self._clock = clock
        self._last_flush = clock()

    def write_line(self, line: str) -> None:
        """Write one line (flushed if the last flush is ``flush_interval_s`` old)."""
        self._file.write(line)
        now = self._clock()
        if now - self._last_flush >= self._flush_interval_s:
            self._file.flush()
            self._last_flush = now

    def close(self) -> None:
        """Close the file (idempotent)."""
        if not self._file.closed:
            self._file.close()


class JsonLinesStore:
    """A match's records in ``out_dir``: ``hands.jsonl`` as the match goes, and
    ``results.json`` at the end (the :class:`~arena.match.store.ResultStore` of today)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self._folder = RunFolder(out_dir)
        self._writer: HandLogWriter | None = None

    @property
    def history_path(self) -> Path:
        """Where the hand history is written."""
        return self._folder.history

    def begin(self, header: Record) -> None:
        """Create the hand history and write its header."""
        self._writer = HandLogWriter(self.history_path)
        self._writer.write_line(header.to_line())

    def add_hand(self, record: Record) -> None:
        """Append one hand."""
        self._write(record.to_line())

    def end(self, record: Record) -> None:
        """Write the end record."""
        self._write(record.to_line())

    def save_result(self, result: Result) -> None:
        """Write ``results.json`` (readable by the arena's user only, like the history)."""
        path = self._folder.results
        result.write_json(path)
        path.chmod(PRIVATE_FILE_MODE)

    def close(self) -> None:
        """Close the hand history (idempotent); what was written stays on disk."""
        if self._writer is not None:
            self._writer.close()

    def _write(self, line: str) -> None:
        if self._writer is None:
            raise RuntimeError("JsonLinesStore.begin() was not called")
        self._writer.write_line(line)
