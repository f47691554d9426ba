"""``hands.jsonl`` and ``results.json``: the match's files, written and read back.

The layout of ``hands.jsonl`` and the encoding of its records are
:mod:`arena.match.records`; this module puts the lines in a file (flushed often enough
that an interrupted match keeps its finished hands) and reads a file back for
``arena replay``. :class:`JsonLinesStore` is the :class:`~arena.store.base.ResultStore`
a match writes through.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from arena.match.records import (
    HISTORY_FORMAT,
    HandRecord,
    MatchEndRecord,
    MatchHeader,
    encode_record,
)
from arena.match.results import MatchResult

__all__ = [
    "HISTORY_FILE_NAME",
    "HISTORY_FORMAT",
    "RESULTS_FILE_NAME",
    "HandLog",
    "HandLogError",
    "HandLogWriter",
    "JsonLinesStore",
    "read_hand_log",
]


#: The hand history's file name inside a match's output directory.
HISTORY_FILE_NAME = "hands.jsonl"

#: The mode of the files a match writes: the arena's user only (they hold the seed).
PRIVATE_FILE_MODE = 0o600

#: The results file inside a match's output directory.
RESULTS_FILE_NAME = "results.json"


class HandLogError(ValueError):
    """A hand history file that cannot be read; the message names the file and line."""

    code = "bad_hand_history"


class HandLogWriter:
    """Appends records to a hand history file, flushing at least every ``flush_interval_s``.

    Flushing often means that when a match is interrupted (Ctrl-C, or our own bug stopping
    it) the finished hands are on disk for inspection and replay; not flushing after every
    hand keeps a fast match from spending a tenth of its time in ``write`` system calls.
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

    def __enter__(self) -> HandLogWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


@dataclass(frozen=True, slots=True)
class HandLog:
    """A hand history file read back: header, hand records, end record (if it got there)."""

    header: dict[str, Any]
    hands: tuple[dict[str, Any], ...]
    footer: dict[str, Any] | None = None
    path: Path | None = field(default=None)
    #: The bytes of a last line cut short (a killed run), which were left out; 0 if none.
    cut_tail_bytes: int = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.hands)


def read_hand_log(path: Path) -> HandLog:
    """Read a ``hands.jsonl`` file; a missing file or a bad line raises ``HandLogError``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise HandLogError(f"{path}: cannot read the hand history: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise HandLogError(f"{path}: not UTF-8 text: {exc.reason}") from exc
    header: dict[str, Any] | None = None
    footer: dict[str, Any] | None = None
    hands: list[dict[str, Any]] = []
    cut_tail_bytes = 0
    lines = text.splitlines()
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            # The last line of a run killed while writing is cut short: every complete
            # record before it still counts.
            is_last = line_number == len(lines) and not text.endswith("\n")
            if is_last and header is not None:
                cut_tail_bytes = len(line.encode("utf-8"))
                break
            if line_number == 1:
                _refuse_other_json(path, text)
            raise HandLogError(f"{path}:{line_number}: not JSON: {exc.msg}") from exc
        if line_number == 1 and _is_results_file(record):
            raise HandLogError(
                f"{path}: this is a match's results file (results.json), not its hand "
                f"history; give the {HISTORY_FILE_NAME} next to it"
            )
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "match" and header is None and line_number == 1:
            header = record
        elif kind == "hand" and header is not None and footer is None:
            hands.append(record)
        elif kind == "match_end" and header is not None and footer is None:
            footer = record
        else:
            raise HandLogError(
                f"{path}:{line_number}: unexpected record type {kind!r} "
                "(expected a match header first, then hands, then match_end)",
            )
    if header is None:
        raise HandLogError(f"{path}: empty hand history (no match header)")
    if header.get("format") != HISTORY_FORMAT:
        raise HandLogError(
            f"{path}: hand history format {header.get('format')!r} is not {HISTORY_FORMAT}",
        )
    return HandLog(
        header=header, hands=tuple(hands), footer=footer, path=path, cut_tail_bytes=cut_tail_bytes
    )


def _refuse_other_json(path: Path, text: str) -> None:
    """Say what a whole-file JSON document is (nothing when the text is not JSON at all)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return
    if _is_results_file(document):
        raise HandLogError(
            f"{path}: this is a match's results file (results.json), not its hand "
            f"history; give the {HISTORY_FILE_NAME} next to it"
        )
    raise HandLogError(
        f"{path}: a JSON document, not a hand history (one JSON record per line, "
        f"as in {HISTORY_FILE_NAME})"
    )


def _is_results_file(record: object) -> bool:
    """True for the document ``results.json`` holds (a match result, not a record)."""
    return isinstance(record, dict) and "players" in record and "type" not in record


class JsonLinesStore:
    """A match's records in ``out_dir``: ``hands.jsonl`` as the match goes, and
    ``results.json`` at the end (the :class:`~arena.store.base.ResultStore` of today)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self._writer: HandLogWriter | None = None

    @property
    def history_path(self) -> Path:
        """Where the hand history is written."""
        return self.out_dir / HISTORY_FILE_NAME

    def begin(self, header: MatchHeader) -> None:
        """Create the hand history and write its header."""
        self._writer = HandLogWriter(self.history_path)
        self._writer.write_line(encode_record(header))

    def add_hand(self, record: HandRecord) -> None:
        """Append one hand."""
        self._write(encode_record(record))

    def end(self, record: MatchEndRecord) -> None:
        """Write the end record."""
        self._write(encode_record(record))

    def save_result(self, result: MatchResult) -> None:
        """Write ``results.json`` (readable by the arena's user only, like the history)."""
        path = self.out_dir / RESULTS_FILE_NAME
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
