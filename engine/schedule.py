"""Blind schedules: which blinds and ante a tournament hand is played at.

A :class:`BlindSchedule` is a pure value: a list of :class:`BlindLevel` and how long each
level lasts, counted either in hands or in seconds. It never reads a clock itself: the
caller passes the number of hands already played and, for a timed schedule, the seconds
elapsed since the start, which the table reads from a clock function it was given.

Theory of operation: level ``k`` (0-based) covers hands ``k*every_hands .. (k+1)*every_hands-1``
(hands counted from 0) or elapsed time ``[k*every_seconds, (k+1)*every_seconds)``. After
the last listed level the schedule either stays at the last level or, for a
:meth:`BlindSchedule.doubling` schedule, keeps doubling it. As in every tournament room
(TDA), a new level applies from the next hand dealt, never in the middle of a hand: the
table asks for the level only when it starts a hand.

>>> schedule = BlindSchedule.doubling(10, 20, every_hands=10)
>>> schedule.level_for(hands_played=0)
BlindLevel(small_blind=10, big_blind=20, ante=0)
>>> schedule.level_for(hands_played=25)
BlindLevel(small_blind=40, big_blind=80, ante=0)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.config import ConfigError, GameConfig
from engine.errors import EngineError

__all__ = ["BlindLevel", "BlindSchedule", "ScheduleError"]


class ScheduleError(EngineError, ConfigError):
    """A blind schedule that cannot be used; the message names the bad value.

    ``code`` is stable for machines: ``bad_level``, ``levels_not_increasing``,
    ``bad_duration``, ``no_levels``, ``bad_progress`` or ``bad_schedule``.
    """


def _is_count(value: object) -> bool:
    """True for a plain non-negative ``int`` (``bool`` is not a chip amount)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True, slots=True)
class BlindLevel:
    """One level: small blind, big blind and the ante every hand of the level uses."""

    small_blind: int
    big_blind: int
    ante: int = 0

    def __post_init__(self) -> None:
        for name in ("small_blind", "big_blind", "ante"):
            value = getattr(self, name)
            if not _is_count(value):
                raise ScheduleError(
                    "bad_level", f"{name} must be a non-negative integer, got {value!r}"
                )
        if self.small_blind > self.big_blind:
            raise ScheduleError(
                "bad_level",
                f"small_blind {self.small_blind} is larger than big_blind {self.big_blind}",
            )
        if self.big_blind == 0 and self.ante == 0:
            raise ScheduleError("bad_level", "a level needs a big blind or an ante, both are 0")

    def apply(self, config: GameConfig) -> GameConfig:
        """``config`` with this level's blinds and ante; everything else unchanged.

        Fixed-limit bet sizes follow the big blind (``small_bet``/``big_bet`` are reset so
        that ``GameConfig`` derives them again from the new big blind).
        """
        return dataclasses.replace(
            config,
            small_blind=self.small_blind,
            big_blind=self.big_blind,
            ante=self.ante,
            small_bet=0,
            big_bet=0,
        )

    def to_dict(self) -> dict[str, int]:
        """Plain JSON-ready form."""
        return {"small_blind": self.small_blind, "big_blind": self.big_blind, "ante": self.ante}


class BlindSchedule:
    """Blind levels that change every ``every_hands`` hands or every ``every_seconds`` seconds.

    Exactly one of ``every_hands`` and ``every_seconds`` is given. Levels must increase: no
    amount may go down from one level to the next and at least one must go up (adding an
    ante while the blinds stay is an increase). With ``keeps_doubling`` the last level is
    doubled again at every further level instead of lasting forever.
    """

    __slots__ = ("_every_hands", "_every_seconds", "_keeps_doubling", "_levels")

    def __init__(
        self,
        levels: Sequence[BlindLevel],
        *,
        every_hands: int | None = None,
        every_seconds: float | None = None,
        keeps_doubling: bool = False,
    ) -> None:
        if not levels:
            raise ScheduleError("no_levels", "a blind schedule needs at least one level")
        for index, level in enumerate(levels):
            if not isinstance(level, BlindLevel):
                raise ScheduleError("bad_level", f"level {index} is not a BlindLevel: {level!r}")
        for index in range(1, len(levels)):
            before, after = levels[index - 1], levels[index]
            lowered = (
                after.small_blind < before.small_blind
                or after.big_blind < before.big_blind
                or after.ante < before.ante
            )
            if lowered or after == before:
                raise ScheduleError(
                    "levels_not_increasing",
                    f"level {index} ({_describe(after)}) does not increase on "
                    f"level {index - 1} ({_describe(before)})",
                )
        if (every_hands is None) == (every_seconds is None):
            raise ScheduleError(
                "bad_duration",
                "give exactly one of every_hands and every_seconds, got "
                f"every_hands={every_hands!r}, every_seconds={every_seconds!r}",
            )
        if every_hands is not None and (not _is_count(every_hands) or every_hands < 1):
            raise ScheduleError(
                "bad_duration", f"every_hands must be a positive integer, got {every_hands!r}"
            )
        if every_seconds is not None and (
            isinstance(every_seconds, bool)
            or not isinstance(every_seconds, int | float)
            or not math.isfinite(every_seconds)
            or every_seconds <= 0
        ):
            raise ScheduleError(
                "bad_duration",
                f"every_seconds must be a positive finite number, got {every_seconds!r}",
            )
        self._levels = tuple(levels)
        self._every_hands = every_hands
        self._every_seconds = None if every_seconds is None else float(every_seconds)
        self._keeps_doubling = keeps_doubling

    @classmethod
    def doubling(
        cls,
        start_small: int,
        start_big: int,
        *,
        ante: int = 0,
        every_hands: int | None = None,
        every_seconds: float | None = None,
    ) -> BlindSchedule:
        """The doubling schedule: the blinds (and ante) double after every period, forever."""
        return cls(
            [BlindLevel(start_small, start_big, ante)],
            every_hands=every_hands,
            every_seconds=every_seconds,
            keeps_doubling=True,
        )

    @classmethod
    def constant(cls, small_blind: int, big_blind: int, *, ante: int = 0) -> BlindSchedule:
        """A schedule that never changes (a cash-game table, or a fixed-blind match)."""
        return cls([BlindLevel(small_blind, big_blind, ante)], every_hands=1)

    @property
    def levels(self) -> tuple[BlindLevel, ...]:
        """The listed levels (a doubling schedule lists only its first)."""
        return self._levels

    @property
    def every_hands(self) -> int | None:
        """Hands per level, for a schedule counted in hands."""
        return self._every_hands

    @property
    def every_seconds(self) -> float | None:
        """Seconds per level, for a schedule counted in time."""
        return self._every_seconds

    @property
    def keeps_doubling(self) -> bool:
        """True when the last level keeps doubling instead of lasting forever."""
        return self._keeps_doubling

    @property
    def is_timed(self) -> bool:
        """True when levels change with elapsed time (the table then needs a clock)."""
        return self._every_seconds is not None

    def level_index_for(self, *, hands_played: int = 0, elapsed_seconds: float = 0.0) -> int:
        """The 0-based level in force after ``hands_played`` hands / ``elapsed_seconds``.

        Only the quantity the schedule counts is used; the other one is ignored.
        """
        if not _is_count(hands_played):
            raise ScheduleError(
                "bad_progress", f"hands_played must be a non-negative integer, got {hands_played!r}"
            )
        if self._every_seconds is not None:
            if not math.isfinite(elapsed_seconds) or elapsed_seconds < 0:
                # A clock that runs backwards is the caller's bug; say so instead of
                # silently using level 0.
                raise ScheduleError(
                    "bad_progress",
                    f"elapsed_seconds must be a non-negative number, got {elapsed_seconds!r}",
                )
            return int(elapsed_seconds // self._every_seconds)
        assert self._every_hands is not None
        return hands_played // self._every_hands

    def level(self, index: int) -> BlindLevel:
        """Level ``index`` (0-based); past the list it is the last level, or it doubles."""
        if not _is_count(index):
            raise ScheduleError(
                "bad_progress", f"level index must be a non-negative integer, got {index!r}"
            )
        last = len(self._levels) - 1
        if index <= last:
            return self._levels[index]
        level = self._levels[last]
        if not self._keeps_doubling:
            return level
        factor = 2 ** (index - last)
        return BlindLevel(level.small_blind * factor, level.big_blind * factor, level.ante * factor)

    def level_for(self, *, hands_played: int = 0, elapsed_seconds: float = 0.0) -> BlindLevel:
        """The level in force after ``hands_played`` hands / ``elapsed_seconds`` seconds."""
        return self.level(
            self.level_index_for(hands_played=hands_played, elapsed_seconds=elapsed_seconds)
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (for match records)."""
        return {
            "levels": [level.to_dict() for level in self._levels],
            "every_hands": self._every_hands,
            "every_seconds": self._every_seconds,
            "keeps_doubling": self._keeps_doubling,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BlindSchedule:
        """Inverse of :meth:`to_dict`; bad values raise :class:`ScheduleError`."""
        try:
            levels = [BlindLevel(**level) for level in data["levels"]]
            return cls(
                levels,
                every_hands=data.get("every_hands"),
                every_seconds=data.get("every_seconds"),
                keeps_doubling=bool(data.get("keeps_doubling", False)),
            )
        except (KeyError, TypeError) as exc:
            raise ScheduleError("bad_schedule", f"not a blind schedule: {data!r}") from exc

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BlindSchedule):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self._levels, self._every_hands, self._every_seconds, self._keeps_doubling))

    def __repr__(self) -> str:
        unit = (
            f"every_hands={self._every_hands}"
            if self._every_hands is not None
            else f"every_seconds={self._every_seconds}"
        )
        doubling = ", keeps_doubling=True" if self._keeps_doubling else ""
        return f"BlindSchedule({list(self._levels)!r}, {unit}{doubling})"


def _describe(level: BlindLevel) -> str:
    text = f"{level.small_blind}/{level.big_blind}"
    return text + (f" ante {level.ante}" if level.ante else "")
