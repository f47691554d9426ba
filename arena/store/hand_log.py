"""The one reader of ``hands.jsonl``: a whole file for ``arena replay``, or streamed for a
report and an export.

A hand history is one JSON record per line: a match header, the hands, and a match-end
record when the match finished (:mod:`arena.match.records` describes them). Lines are split
on ``\\n`` only, never on the other line breaks Unicode knows: a bot's reply may hold
U+2028, U+2029 or NEL, which the arena writes raw inside a JSON string, and a reader that
split there would cut a record in two.

* :func:`read_hand_log` reads a whole file and checks its order (header, hands, end) for
  ``arena replay``; a last line cut short (a run killed while writing) is left out and
  counted.
* :func:`read_hands` streams a file and parses only the lines of the hands it is asked for
  (a hand record begins ``{"type":"hand","hand_number":N,``, so the number is read without
  parsing the line), and stops once it has them all: a report of a large tournament needs
  a few hundred hands out of millions.
* :func:`iter_hands` streams every hand of a file, for a report of one match and an export.

Any problem (a missing file, bytes that are not UTF-8, a line that is not JSON or nests too
deep for the decoder, a file that is not a hand history) is a :class:`HandLogError` naming
the file and the line; nothing else escapes.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from arena.store.run_folder import RunFolder

__all__ = [
    "DEFAULT_MATCH_ID",
    "HISTORY_FORMAT",
    "HandLog",
    "HandLogError",
    "iter_hands",
    "read_hand_log",
    "read_hands",
    "read_header",
]

#: The match id when none is given (written in the header as any other). A constant,
#: never made from the seed: hand ids (``<match_id>-<n>``) go to the bots, and the seed must
#: stay secret until the match ends. Defined here, below the match that writes it and the
#: report that reads it: a report titles such a match by its bots, not "match match".
DEFAULT_MATCH_ID = "match"

#: Version of the hand history's layout, written in its header and checked when read.
HISTORY_FORMAT = 1

_HAND_PREFIX = b'{"type":"hand","hand_number":'


class HandLogError(ValueError):
    """A hand history that cannot be read; the message names the file (and line)."""

    code = "bad_hand_history"


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


def _open(path: Path) -> IO[bytes]:
    try:
        return path.open("rb")
    except OSError as error:
        raise HandLogError(
            f"{path}: cannot read the hand history: {error.strerror or error}"
        ) from None


def _decode(path: Path, line_number: int, line: bytes) -> Any:
    """The JSON value of one line (any value: the caller checks what it is)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise HandLogError(f"{path}:{line_number}: not UTF-8 text: {error.reason}") from None
    try:
        return json.loads(text)
    except ValueError as error:  # JSONDecodeError, or a number too long to convert
        detail = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        raise HandLogError(f"{path}:{line_number}: not a JSON record ({detail})") from None
    except RecursionError:
        raise HandLogError(f"{path}:{line_number}: not a JSON record (nested too deep)") from None


def _parse(path: Path, line_number: int, line: bytes) -> dict[str, Any]:
    record = _decode(path, line_number, line)
    if not isinstance(record, dict):
        raise HandLogError(f"{path}:{line_number}: a record must be a JSON object")
    return record


def _header(path: Path, first: bytes) -> dict[str, Any]:
    header = _parse(path, 1, first) if first.strip() else None
    if (
        header is None
        or header.get("type") != "match"
        or not isinstance(header.get("players"), list)
    ):
        raise HandLogError(f"{path}: not a hand history (its first line is not a match header)")
    return header


def read_header(path: Path) -> dict[str, Any]:
    """The match header (first line) of a hand history."""
    with _open(path) as file:
        return _header(path, file.readline())


def _number(line: bytes) -> int | None:
    """The hand number of a hand record written by the arena, read without parsing."""
    if not line.startswith(_HAND_PREFIX):
        return None
    end = line.find(b",", len(_HAND_PREFIX))
    digits = line[len(_HAND_PREFIX) : end]
    return int(digits) if end > 0 and digits.isdigit() and len(digits) < 20 else None


def read_hands(
    path: Path, numbers: Collection[int]
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The header and the hand records numbered ``numbers`` (those the file has) of the
    hand history at ``path``."""
    wanted = set(numbers)
    found: dict[int, dict[str, Any]] = {}
    with _open(path) as file:
        header = _header(path, file.readline())
        for line_number, line in enumerate(file, start=2):
            if len(found) == len(wanted):
                break
            number = _number(line)
            if number is None:  # written by another encoder: parse to know
                if not line.strip():
                    continue
                record = _parse(path, line_number, line)
                number = record.get("hand_number") if record.get("type") == "hand" else None
                if isinstance(number, int) and number in wanted:
                    found[number] = record
            elif number in wanted:
                found[number] = _parse(path, line_number, line)
    return header, found


def iter_hands(path: Path) -> Iterator[dict[str, Any]]:
    """Every hand record of the hand history at ``path``, in file order (the header is
    :func:`read_header`; the end record is skipped)."""
    with _open(path) as file:
        _header(path, file.readline())
        for line_number, line in enumerate(file, start=2):
            if not line.strip():
                continue
            record = _parse(path, line_number, line)
            if record.get("type") == "hand":
                if not isinstance(record.get("history"), dict):
                    raise HandLogError(f"{path}:{line_number}: a hand record without its history")
                yield record


def read_hand_log(path: Path) -> HandLog:
    """Read a whole ``hands.jsonl`` file, checking the order of its records; a missing
    file or a bad line raises :class:`HandLogError`."""
    header: dict[str, Any] | None = None
    footer: dict[str, Any] | None = None
    hands: list[dict[str, Any]] = []
    cut_tail_bytes = 0
    with _open(path) as file:
        try:
            lines = file.read().split(b"\n")
        except OSError as error:
            raise HandLogError(
                f"{path}: cannot read the hand history: {error.strerror or error}"
            ) from None
        except MemoryError:
            raise HandLogError(f"{path}: too large to read whole") from None
    ends_with_newline = lines[-1] == b""
    if ends_with_newline:
        lines.pop()
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = _decode(path, line_number, line)
        except HandLogError:
            # The last line of a run killed while writing is cut short: every complete
            # record before it still counts.
            if line_number == len(lines) and not ends_with_newline and header is not None:
                cut_tail_bytes = len(line)
                break
            if line_number == 1:
                _refuse_other_json(path, lines)
            raise
        if line_number == 1 and _is_results_file(record):
            raise _results_file_error(path)
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "match" and header is None and line_number == 1:
            header = record
        elif kind == "hand" and header is not None and footer is None:
            hands.append(record)
        elif kind == "match_end" and header is not None and footer is None:
            footer = record
        else:
            raise HandLogError(
                f"{path}:{line_number}: unexpected record type {_shown(kind)} "
                "(expected a match header first, then hands, then match_end)",
            )
    if header is None:
        raise HandLogError(f"{path}: empty hand history (no match header)")
    if header.get("format") != HISTORY_FORMAT:
        raise HandLogError(
            f"{path}: hand history format {_shown(header.get('format'))} is not {HISTORY_FORMAT}",
        )
    return HandLog(
        header=header, hands=tuple(hands), footer=footer, path=path, cut_tail_bytes=cut_tail_bytes
    )


def _shown(value: object) -> str:
    """A value from the file in a message: its repr, cut short (it may be anything)."""
    text = (
        repr(value) if isinstance(value, str | int | float | bool | None) else type(value).__name__
    )
    return text if len(text) <= 60 else text[:57] + "..."


def _refuse_other_json(path: Path, lines: list[bytes]) -> None:
    """Say what a whole-file JSON document is (nothing when the text is not JSON at all)."""
    try:
        document = _decode(path, 1, b"\n".join(lines))
    except HandLogError:
        return
    if _is_results_file(document):
        raise _results_file_error(path)
    raise HandLogError(
        f"{path}: a JSON document, not a hand history (one JSON record per line, "
        f"as in {RunFolder.HISTORY})"
    )


def _results_file_error(path: Path) -> HandLogError:
    return HandLogError(
        f"{path}: this is a match's results file ({RunFolder.RESULTS}), not its hand "
        f"history; give the {RunFolder.HISTORY} next to it"
    )


def _is_results_file(record: object) -> bool:
    """True for the document ``results.json`` holds (a match result, not a record)."""
    return isinstance(record, dict) and "players" in record and "type" not in record
