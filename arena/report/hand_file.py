"""Reading hands out of a match's ``hands.jsonl`` without holding the whole file.

A report of a large tournament needs a few hundred hands out of files that together hold
millions: :func:`read_hands` streams a file line by line and parses only the lines of the
hands it is asked for (a hand record begins ``{"type":"hand","hand_number":N,``, so the
number is read without parsing the line), and stops once it has them all.
:func:`iter_hands` streams every hand of a file, for a report of one match.

Any problem (a missing file, a line that is not JSON, a file that is not a hand history)
is a :class:`HandFileError` naming the file and the line.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

__all__ = ["HandFileError", "iter_hands", "read_hands", "read_header"]

_HAND_PREFIX = b'{"type":"hand","hand_number":'


class HandFileError(ValueError):
    """A hand history that cannot be read; the message names the file (and line)."""


def _open(path: Path) -> Any:
    try:
        return path.open("rb")
    except OSError as error:
        raise HandFileError(f"{path}: cannot read the hand history: {error.strerror}") from None


def _parse(path: Path, line_number: int, line: bytes) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except ValueError as error:  # bad JSON or bad UTF-8
        raise HandFileError(f"{path}:{line_number}: not a JSON record ({error})") from None
    if not isinstance(record, dict):
        raise HandFileError(f"{path}:{line_number}: a record must be a JSON object")
    return record


def _header(path: Path, first: bytes) -> dict[str, Any]:
    header = _parse(path, 1, first) if first.strip() else None
    if (
        header is None
        or header.get("type") != "match"
        or not isinstance(header.get("players"), list)
    ):
        raise HandFileError(f"{path}: not a hand history (its first line is not a match header)")
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
    return int(digits) if end > 0 and digits.isdigit() else None


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
                if number in wanted:
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
                    raise HandFileError(f"{path}:{line_number}: a hand record without its history")
                yield record
