"""How much a bot may use: :class:`ResourceLimits`, their defaults and their overrides.

Every limit has a default (:data:`DEFAULT_RESOURCES`) that honest bots never reach (the
starter bots use a few dozen MiB, a second or two of CPU, one process) but that stops a
runaway bot long before it hurts the machine: a memory hog well before 2 GiB, a fork bomb
well before 200 processes, a file well before 1 GiB. A manifest's ``[limits]`` table and
the command line override them by name (:meth:`ResourceLimits.with_overrides`); sizes may
be written with a unit:

>>> resources = DEFAULT_RESOURCES.with_overrides({"memory_bytes": "512MiB", "processes": 10},
...                                              source="bot.toml")
>>> resources.memory_bytes, resources.processes
(536870912, 10)
>>> parse_size("1.5GiB"), parse_size("64kB"), parse_size(4096)
(1610612736, 64000, 4096)

How the kernel or the arena's watch holds each limit, with and without a cgroup, is the
table of docs/sandbox.md ("The limits and what holds them").

A bot stopped by a limit is a crash whose fault code is one of :class:`LimitReason`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from enum import StrEnum

__all__ = [
    "DEFAULT_RESOURCES",
    "RESOURCE_KEYS",
    "SIZE_KEYS",
    "LimitReason",
    "ResourceLimits",
    "ResourceLimitsError",
    "format_size",
    "parse_size",
]

_KIB = 1024
_MIB = 1024 * _KIB
_GIB = 1024 * _MIB

#: Units a size may be written with, in lower case (units are read case-insensitively).
_UNITS = {
    "": 1,
    "b": 1,
    "k": _KIB,
    "kib": _KIB,
    "kb": 1000,
    "m": _MIB,
    "mib": _MIB,
    "mb": 1000**2,
    "g": _GIB,
    "gib": _GIB,
    "gb": 1000**3,
    "t": 1024 * _GIB,
    "tib": 1024 * _GIB,
    "tb": 1000**4,
}
_SIZE_PATTERN = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*")

#: No limit may be larger than this (2**62: far beyond any machine, and a C long still).
_MAX_VALUE = 2**62

#: The largest CPU share: a thousand cores.
_MAX_PERCENT = 100_000


class LimitReason(StrEnum):
    """Why the arena stopped a bot: the code of its crash fault."""

    MEMORY = "memory_limit"
    CPU = "cpu_limit"
    PROCESSES = "process_limit"
    FILE_SIZE = "file_size_limit"
    DISK = "disk_limit"


class ResourceLimitsError(ValueError):
    """A limit override that cannot be used; names where it came from, the key and value.

    >>> str(ResourceLimitsError("bot.toml", "processes", 0, "must be at least 1"))
    "bot.toml: limit 'processes' = 0: must be at least 1"
    """

    code = "bad_limit"

    def __init__(self, source: str, key: str, value: object, message: str) -> None:
        self.source = source
        self.key = key
        self.value = value
        self.reason = message
        super().__init__(f"{source}: limit {key!r} = {value!r}: {message}")


@dataclass(frozen=True, slots=True)
class ResourceLimits:
    """What one bot may use (how each is enforced: docs/sandbox.md)."""

    memory_bytes: int
    cpu_seconds: int
    processes: int
    file_size_bytes: int
    open_files: int
    tmp_bytes: int
    cpu_percent: int = 100
    disk_bytes: int = 1 * _GIB

    def with_overrides(self, values: Mapping[str, object], *, source: str) -> ResourceLimits:
        """These limits with ``values`` (by key; sizes may carry a unit) put in.

        Raises :class:`ResourceLimitsError` naming ``source``, the key and the value for an
        unknown key or a value that is not a positive whole number (or size).
        """
        changes: dict[str, int] = {}
        for key, value in values.items():
            if key not in RESOURCE_KEYS:
                raise ResourceLimitsError(
                    source, key, value, f"unknown limit (known: {', '.join(RESOURCE_KEYS)})"
                )
            changes[key] = _parse_value(source, key, value)
        return replace(self, **changes)

    def to_dict(self) -> dict[str, int]:
        """Every limit by key, as numbers."""
        return asdict(self)

    def describe(self) -> str:
        """One line for people: ``memory 1 GiB, cpu 3600 s, ...``."""
        return (
            f"memory {format_size(self.memory_bytes)}, cpu {self.cpu_seconds} s, "
            f"processes {self.processes}, file size {format_size(self.file_size_bytes)}, "
            f"open files {self.open_files}, /tmp {format_size(self.tmp_bytes)}, "
            f"cpu share {self.cpu_percent}%, disk {format_size(self.disk_bytes)}"
        )


#: Every limit's key, in order (the names a manifest's ``[limits]`` table uses).
RESOURCE_KEYS = tuple(field.name for field in fields(ResourceLimits))

#: The limits that are sizes in bytes (and accept a unit).
SIZE_KEYS = ("memory_bytes", "file_size_bytes", "tmp_bytes", "disk_bytes")

#: Limits no honest bot reaches (all the starter bots, node included, use a small fraction).
DEFAULT_RESOURCES = ResourceLimits(
    memory_bytes=1 * _GIB,
    cpu_seconds=3600,
    processes=64,
    file_size_bytes=256 * _MIB,
    open_files=1024,
    tmp_bytes=256 * _MIB,
    cpu_percent=100,
    disk_bytes=1 * _GIB,
)


def parse_size(value: object) -> int:
    """A size in bytes from an int or a text like ``"512MiB"``, ``"1.5GiB"``, ``"64kB"``.

    ``k``/``KiB``, ``m``/``MiB``, ``g``/``GiB``, ``t``/``TiB`` are powers of 1024; ``kB``,
    ``MB``, ``GB``, ``TB`` powers of 1000. Raises ``ValueError`` for anything else.
    """
    if isinstance(value, bool):
        raise ValueError("a size is a number of bytes, not a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise ValueError("a size is a whole number of bytes")
        return int(value)
    if not isinstance(value, str):
        raise ValueError("a size is a number of bytes or a text like '512MiB'")
    match = _SIZE_PATTERN.fullmatch(value)
    unit = _UNITS.get(match.group(2).lower()) if match else None
    if match is None or unit is None:
        raise ValueError("a size is a number with an optional unit: B, KiB, MiB, GiB, kB, MB, GB")
    return int(float(match.group(1)) * unit)


def format_size(size_bytes: int) -> str:
    """The size with the largest binary unit it is a whole multiple of.

    >>> format_size(2 * 1024**3), format_size(1536), format_size(100)
    ('2 GiB', '1536 B', '100 B')
    """
    for unit, factor in (("TiB", 1024 * _GIB), ("GiB", _GIB), ("MiB", _MIB), ("KiB", _KIB)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor} {unit}"
    return f"{size_bytes} B"


def _parse_value(source: str, key: str, value: object) -> int:
    try:
        if key in SIZE_KEYS:
            number = parse_size(value)
        else:
            number = _parse_percent(value) if key == "cpu_percent" else _parse_count(value)
    except ValueError as exc:
        raise ResourceLimitsError(source, key, value, str(exc)) from None
    if number < 1:
        raise ResourceLimitsError(source, key, value, "must be at least 1")
    highest = _MAX_PERCENT if key == "cpu_percent" else _MAX_VALUE
    if number > highest:
        raise ResourceLimitsError(source, key, value, f"must be at most {highest}")
    return number


def _parse_percent(value: object) -> int:
    """A share in percent: ``150``, ``"150"`` or ``"150%"``."""
    if isinstance(value, str) and value.strip().endswith("%"):
        value = value.strip()[:-1]
    try:
        return _parse_count(value)
    except ValueError:
        raise ValueError(
            "must be a whole number of percent of one core, like 100 or '50%'"
        ) from None


def _parse_count(value: object) -> int:
    if isinstance(value, bool):
        raise ValueError("must be a whole number, not a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    raise ValueError("must be a whole number")
