"""The match's hand history: one JSON object per line, ``hands.jsonl``.

Layout (``HISTORY_FORMAT`` 1)::

    {"type": "match", "format": 1, "match_id": ..., "seed": ..., "config": {...},
     "players": [{"player_id": "p0", "seat_index": 0, "name": "..."}, ...]}
    {"type": "hand", "hand_number": 1, "hand_id": "...", "history": {engine document},
     "sitting_out": [seat_index, ...], "decisions": [decision, ...]}
    ...
    {"type": "match_end", "hands_played": N, "standings": [...]}

``history`` is :func:`engine.history.hand_to_history` of the hand (deck, seats, every
event), so a hand can be dealt again by the engine alone. ``decisions`` holds, for every
decision in order, the raw replies the bot sent (what ``arena replay`` re-parses), the
action applied and who chose it: ``"bot"`` (its reply), ``"policy"`` (the arena's default
after a timeout, a crash or too many invalid replies), ``"sitting_out"`` or ``"dead"``
(the bot was not asked).

Nothing time-dependent is written (no timestamps, no latencies: those are in
``results.json``), so with deterministic bots the same seed gives a byte-identical file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

__all__ = [
    "HISTORY_FILE_NAME",
    "HISTORY_FORMAT",
    "HandLog",
    "HandLogError",
    "HandLogWriter",
    "dumps_line",
    "dumps_value",
    "read_hand_log",
]

#: Version of the layout described above.
HISTORY_FORMAT = 1

#: The file name inside a match's output directory.
HISTORY_FILE_NAME = "hands.jsonl"


# Made once (json.dumps with options builds an encoder per call); records are trees, so
# the cycle check is skipped (a cycle would still fail, as a RecursionError).
_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)


class HandLogError(ValueError):
    """A hand history file that cannot be read; the message names the file and line."""

    code = "bad_hand_history"


def dumps_line(record: dict[str, Any]) -> str:
    """One record as compact JSON plus newline (key order as built: deterministic).

    >>> dumps_line({"type": "hand", "hand_number": 1})
    '{"type":"hand","hand_number":1}\\n'
    """
    return _encoder.encode(record) + "\n"


def dumps_value(value: Any) -> str:
    """A record's value as the JSON text :func:`dumps_line` writes for it.

    >>> dumps_value({"seed": "1:2", "name": "café"})
    '{"seed":"1:2","name":"café"}'
    """
    return _encoder.encode(value)


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
        self._file: TextIO = path.open("w", encoding="utf-8", newline="\n")
        self._flush_interval_s = flush_interval_s
        self._clock = clock
        self._last_flush = clock()

    def write(self, record: dict[str, Any], *, last_text: str | None = None) -> None:
        """Write one record (flushed if the last flush is ``flush_interval_s`` old).

        ``last_text``: the record's last value already encoded (:func:`dumps_value`), so a big
        record can be encoded in two steps; the line is the same as without it.
        """
        if last_text is None:
            line = dumps_line(record)
        else:
            *keys, last_key = record
            head = _encoder.encode({key: record[key] for key in keys})
            line = f"{head[:-1]},{_encoder.encode(last_key)}:{last_text}}}\n"
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
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise HandLogError(f"{path}:{line_number}: not JSON: {exc.msg}") from exc
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
    return HandLog(header=header, hands=tuple(hands), footer=footer, path=path)
