"""The one grammar of the values people write: whole numbers, numbers, booleans, choices,
durations, sizes, periods and blind schedules.

Each parser takes a value as TOML gives it (or as a flag's text was read, see
:func:`from_text`) and returns the setting, or raises ``ValueError`` whose message says
what is allowed; the caller adds where the value came from. The same words are used
everywhere: a duration is seconds (``5``, ``2.5s``, ``250ms``, ``10m``), a size is bytes
with an optional unit (``512MiB``, ``64kB``), a period is a number of hands (``50``,
``50h``) or a duration, a schedule is ``LEVELS@PERIOD``.

>>> parse_duration("250ms"), parse_duration("2"), parse_duration("0", allow_zero=True)
(0.25, 2.0, 0.0)
>>> whole(1, 10)(3), suggestion("dels", ("deals", "seed"))
(3, " (did you mean 'deals'?)")
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable
from enum import StrEnum
from functools import partial
from pathlib import Path

from arena.bots.sandbox.resources import parse_size
from engine.schedule import BlindLevel, BlindSchedule, ScheduleError

__all__ = [
    "MAX_SECONDS",
    "Parser",
    "boolean",
    "choice",
    "duration",
    "from_text",
    "number",
    "one_of",
    "parse_duration",
    "parse_schedule",
    "parse_size",
    "path",
    "show",
    "suggestion",
    "whole",
]

#: A value parser: the value given (TOML's type, or a flag's text already read by its kind)
#: to the setting; ``ValueError`` says what is allowed.
Parser = Callable[[object], object]

#: The longest time limit, in seconds: a longer one is nearly always a unit mistake.
MAX_SECONDS = 3600.0


def show(value: object) -> str:
    """A value as TOML would write it (``true``, ``"text"``), cut to 80 characters.

    >>> show(True), show("holdem"), show(Path("a/b.toml")), show([1, "x"])
    ('true', '"holdem"', '"a/b.toml"', '[1, "x"]')
    """
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def suggestion(word: str, choices: tuple[str, ...]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or ``""``.

    A dotted name written without its table (``decision_timeout``) finds its dotted
    name too.
    """
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:
        by_leaf = {key.rpartition(".")[2]: key for key in choices}
        leaf = difflib.get_close_matches(word.rpartition(".")[2], tuple(by_leaf), n=1, cutoff=0.75)
        close = [by_leaf[leaf[0]]] if leaf else []
    return f" (did you mean {close[0]!r}?)" if close else ""


# ------------------------------------------------------------------------ plain values


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(minimum: int | None = None, maximum: int | None = None) -> Parser:
    """A whole number within the bounds given (``None``: unbounded on that side)."""
    low = "" if minimum is None else f" from {minimum:,}"
    high = "" if maximum is None else f" to {maximum:,}"
    span = f"a whole number{low}{high}"

    def parse(value: object) -> int:
        if not _is_int(value):
            raise ValueError(f"must be {span}")
        assert isinstance(value, int)
        if minimum is not None and value < minimum:
            least = "must not be negative" if minimum == 0 else f"must be at least {minimum:,}"
            raise ValueError(f"{least} ({span})")
        if maximum is not None and value > maximum:
            raise ValueError(f"must be at most {maximum:,} ({span})")
        return value

    return parse


def number(*, low: float, high: float, low_open: bool = False) -> Parser:
    """A finite number from ``low`` (above it when ``low_open``) to below ``high``."""
    span = f"a number {'above' if low_open else 'from'} {low:g} and below {high:g}"

    def parse(value: object) -> float:
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        if not is_number or not math.isfinite(value):  # type: ignore[arg-type]
            raise ValueError(f"must be {span}")
        result = float(value)  # type: ignore[arg-type]
        if result < low or (low_open and result == low) or result >= high:
            raise ValueError(f"must be {span}")
        return result

    return parse


def boolean(value: object) -> bool:
    """``true`` or ``false`` (a flag's ``yes``/``no`` is read by :func:`from_text`)."""
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def choice(enum: type[StrEnum]) -> Parser:
    """One of the enum's values, with a suggestion for a near miss."""
    allowed = tuple(member.value for member in enum)

    def parse(value: object) -> StrEnum:
        if isinstance(value, str) and value in allowed:
            return enum(value)
        hint = suggestion(value, allowed) if isinstance(value, str) else ""
        raise ValueError(f"must be one of {', '.join(allowed)}{hint}")

    return parse


def one_of(allowed: tuple[str, ...]) -> Parser:
    """One of the texts ``allowed`` (any case), with a suggestion for a near miss."""

    def parse(value: object) -> str:
        text = value.lower() if isinstance(value, str) else value
        if isinstance(text, str) and text in allowed:
            return text
        hint = suggestion(text, allowed) if isinstance(text, str) else ""
        raise ValueError(f"must be one of {', '.join(allowed)}{hint}")

    return parse


def path(value: object) -> Path:
    """A non-empty path."""
    if isinstance(value, Path):
        return value
    if not isinstance(value, str) or not value or "\0" in value:
        raise ValueError("must be a path (a non-empty string)")
    return Path(value)


# ------------------------------------------------------------------------ durations

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s|m)?\s*$")
_DURATION_FORMS = "seconds, e.g. 5, 2.5s, 250ms or 10m"


def parse_duration(
    value: object, *, allow_zero: bool = False, maximum: float | None = MAX_SECONDS
) -> float:
    """Seconds from a number or a text ``5``, ``2.5s``, ``250ms``, ``10m``; a bad value
    raises ``ValueError`` saying what a duration is.

    >>> parse_duration("1.5m"), parse_duration(0.5)
    (90.0, 0.5)
    """
    least = "0 or more" if allow_zero else "above 0"
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"must be a duration, {least} ({_DURATION_FORMS})")
    if isinstance(value, str):
        match = _DURATION.match(value)
        if match is None:
            raise ValueError(f"is not a duration ({_DURATION_FORMS})")
        scale = {"ms": 0.001, "m": 60.0}.get(match.group(2) or "s", 1.0)
        seconds = float(match.group(1)) * scale
    else:
        seconds = float(value)
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"must be a duration, {least} ({_DURATION_FORMS})")
    if seconds == 0 and not allow_zero:
        raise ValueError(f"must be a positive duration (seconds above 0, {_DURATION_FORMS})")
    if maximum is not None and seconds > maximum:
        raise ValueError(f"must be at most {maximum:g} seconds")
    return seconds


def duration(*, allow_zero: bool = False, maximum: float | None = MAX_SECONDS) -> Parser:
    """A parser of durations (see :func:`parse_duration`)."""
    return partial(parse_duration, allow_zero=allow_zero, maximum=maximum)


def size(value: object) -> int:
    """A size of at least 1 byte: a number or a text with a unit (``512MiB``)."""
    result = parse_size(value)
    if result < 1:
        raise ValueError("must be at least 1 byte")
    return result


# ------------------------------------------------------------------------ schedules

_LEVEL = re.compile(r"^(\d+)/(\d+)(?:/(\d+))?$")
_HANDS = re.compile(r"^(\d+)(h|hands)?$")


def parse_period(text: str) -> dict[str, float | int]:
    """A schedule's period: ``{"every_hands": n}`` for ``50``/``50h``/``50hands``, or
    ``{"every_seconds": s}`` for a duration with its unit (``90s``, ``10m``).

    >>> parse_period("50"), parse_period("10m")
    ({'every_hands': 50}, {'every_seconds': 600.0})
    """
    text = text.strip()
    hands = _HANDS.match(text)
    if hands is not None and int(hands.group(1)) >= 1:
        return {"every_hands": int(hands.group(1))}
    if hands is None and text[-1:].isalpha():
        try:
            return {"every_seconds": parse_duration(text, maximum=None)}
        except ValueError:
            pass
    raise ValueError(
        f"schedule period {text!r} is not a positive number of hands (50), "
        "seconds (90s) or minutes (10m)",
    )


def parse_schedule(text: str, *, small_blind: int, big_blind: int, ante: int) -> BlindSchedule:
    """A blind schedule from ``LEVELS@PERIOD``.

    ``LEVELS`` is ``SB/BB[/ANTE]`` levels separated by commas, or ``double`` for a
    tournament schedule (start at the given blinds and double forever). ``PERIOD`` is a
    number of hands (``50`` or ``50h``), seconds (``90s``) or minutes (``10m``). A ``.json``
    file in :meth:`BlindSchedule.to_dict` form is accepted too. Raises ``ValueError``
    (:class:`ScheduleError` for levels that do not make a schedule).

    >>> parse_schedule("double@50", small_blind=1, big_blind=2, ante=0).level_for(
    ...     hands_played=100)
    BlindLevel(small_blind=4, big_blind=8, ante=0)
    >>> parse_schedule("1/2,2/4,5/10/1@90s", small_blind=1, big_blind=2, ante=0).every_seconds
    90.0
    """
    if text.endswith(".json"):
        try:
            data = json.loads(Path(text).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read schedule file {text!r}: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError(f"schedule file {text!r} does not hold a JSON object")
        return BlindSchedule.from_dict(data)
    levels_text, at, period_text = text.partition("@")
    if not at:
        raise ValueError(f"schedule {text!r} has no '@PERIOD' (e.g. 1/2,2/4@50 or double@90s)")
    timing = parse_period(period_text)
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


# ------------------------------------------------------------------------ flag text

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def from_text(kind: str, value: object) -> object:
    """A command line's text read by ``kind`` (``int``, ``number``, ``bool``; anything
    else stays text); a value that does not read is returned as it is, so that the
    setting's parser says what is wrong with it.

    >>> from_text("int", "300"), from_text("bool", "yes"), from_text("int", "x")
    (300, True, 'x')
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        if kind in ("int", "seed"):
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        return value
    if kind == "bool" and text.lower() in (*_TRUE, *_FALSE):
        return text.lower() in _TRUE
    return value


#: Errors the schedule's levels may raise besides ``ValueError``.
SCHEDULE_ERRORS = (ValueError, ScheduleError)
