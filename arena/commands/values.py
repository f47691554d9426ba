"""Parsers of the command line's values (whole numbers, durations, blind schedules) and
the one way a command reports a bad value.

Every bad value is reported as ``arena <command>: error: <message naming the bad value>``
with exit code 2 (argparse's convention), never as a traceback.
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import NoReturn

from engine.schedule import BlindLevel, BlindSchedule

__all__ = [
    "check_out_dir",
    "duration",
    "duration_or_zero",
    "fail",
    "non_negative_int",
    "parse_duration",
    "parse_schedule",
    "positive_int",
    "seed_value",
]


def _whole_number(text: str, minimum: int, below_minimum: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{text!r} {below_minimum}")
    return value


def positive_int(text: str) -> int:
    return _whole_number(text, 1, "must be at least 1")


def non_negative_int(text: str) -> int:
    return _whole_number(text, 0, "must not be negative")


def seed_value(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer seed") from None


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s)?\s*$")


def parse_duration(text: str, *, allow_zero: bool = False) -> float:
    """Seconds from ``"5"``, ``"2.5s"`` or ``"250ms"``; a bad value names itself.

    >>> parse_duration("250ms"), parse_duration("2"), parse_duration("0", allow_zero=True)
    (0.25, 2.0, 0.0)
    """
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a duration (seconds, e.g. 5, 2.5s or 250ms)")
    value = float(match.group(1))
    if match.group(2) == "ms":
        value /= 1000.0
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{text!r} must be a positive duration")
    return value


def duration(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def duration_or_zero(text: str) -> float:
    try:
        return parse_duration(text, allow_zero=True)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_LEVEL = re.compile(r"^(\d+)/(\d+)(?:/(\d+))?$")
_PERIOD = re.compile(r"^(\d+)(h|hands|s|m)?$")


def parse_schedule(text: str, *, small_blind: int, big_blind: int, ante: int) -> BlindSchedule:
    """A blind schedule from ``LEVELS@PERIOD``.

    ``LEVELS`` is ``SB/BB[/ANTE]`` levels separated by commas, or ``double`` for a
    tournament schedule (start at the given blinds and double forever). ``PERIOD`` is a
    number of hands (``50`` or ``50h``), seconds (``90s``) or minutes (``10m``). A ``.json`` file in
    :meth:`BlindSchedule.to_dict` form is accepted too.

    >>> parse_schedule("double@50", small_blind=1, big_blind=2, ante=0).level_for(
    ...     hands_played=100)
    BlindLevel(small_blind=4, big_blind=8, ante=0)
    >>> parse_schedule("1/2,2/4,5/10/1@90s", small_blind=1, big_blind=2, ante=0).every_seconds
    90.0
    """
    if text.endswith(".json"):
        import json

        path = Path(text)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read schedule file {text!r}: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError(f"schedule file {text!r} does not hold a JSON object")
        return BlindSchedule.from_dict(data)
    levels_text, at, period_text = text.partition("@")
    if not at:
        raise ValueError(
            f"schedule {text!r} has no '@PERIOD' (e.g. 1/2,2/4@50 or double@90s)",
        )
    period = _PERIOD.match(period_text.strip())
    if period is None or int(period.group(1)) < 1:
        raise ValueError(
            f"schedule period {period_text!r} is not a positive number of hands (50), "
            "seconds (90s) or minutes (10m)",
        )
    amount, unit = int(period.group(1)), period.group(2) or "h"
    timing: dict[str, float | int] = (
        {"every_hands": amount}
        if unit in ("h", "hands")
        else {"every_seconds": float(amount * (60 if unit == "m" else 1))}
    )
    if levels_text.strip() == "double":
        return BlindSchedule.doubling(small_blind, big_blind, ante=ante, **timing)  # type: ignore[arg-type]
    levels = []
    for part in levels_text.split(","):
        level = _LEVEL.match(part.strip())
        if level is None:
            raise ValueError(f"schedule level {part!r} is not SB/BB or SB/BB/ANTE (e.g. 5/10/1)")
        levels.append(
            BlindLevel(int(level.group(1)), int(level.group(2)), int(level.group(3) or 0)),
        )
    return BlindSchedule(levels, **timing)  # type: ignore[arg-type]


def check_out_dir(path: Path, holds: tuple[str, ...]) -> str | None:
    """Why ``path`` cannot be a new run folder, or None when it can (it is then created).

    A run folder must be a folder, writable, and must not already hold a run (any of the
    file names in ``holds``): a second run would overwrite the first without a word.
    """
    if path.exists() and not path.is_dir():
        return f"--out {str(path)!r} is a file, not a folder; give a folder for the run"
    found = [name for name in holds if (path / name).exists()]
    if found:
        return (
            f"--out {str(path)!r} already holds a run ({found[0]}); choose another folder "
            "or remove it"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".arena-write-check"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        return f"cannot write to --out {str(path)!r}: {exc.strerror or exc}"
    return None


def fail(parser: argparse.ArgumentParser, command: str, message: str) -> NoReturn:
    """Print the command's usage and ``arena <command>: error: message``; exit 2.

    The same form and exit code as argparse's own errors, whether the bad value is caught
    by a flag's type or later (a manifest, a blind schedule, a combination of flags).
    """
    subparsers = getattr(parser, "command_parsers", {})
    subparsers.get(command, parser).error(message)
    raise AssertionError("unreachable: ArgumentParser.error exits")  # pragma: no cover
