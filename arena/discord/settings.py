"""A chat table's settings, read from the words of an ``open`` command.

Every setting is ``key=value`` (``stack``, ``blinds``, ``level``, ``turn``, ``hands``); the
keys not given keep their defaults. docs/discord.md has the table of what each means.

>>> settings = parse_settings("stack=500 blinds=1/50 level=5m turn=30s")
>>> settings.small_blind, settings.big_blind, settings.level_minutes, settings.turn_s
(5, 10, 5.0, 30.0)
>>> settings.describe()
'stacks 500, blinds 5/10 doubling every 5 minutes, 30 s a turn, until one player has every chip'
>>> try:
...     parse_settings("blinds=2")
... except SettingsError as exc:
...     print(exc)
blinds '2' must be a fraction of the stack below 1/2 (e.g. 1/100)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from arena.settings.grammar import parse_duration, parse_period
from engine.schedule import BlindSchedule

__all__ = ["SETTINGS_HELP", "SettingsError", "TableSettings", "parse_settings"]

SETTINGS_HELP = (
    "settings: stack=1000 blinds=1/100 (big blind as a fraction of the stack) "
    "level=10h or level=15m (hands or minutes a level lasts; blinds double) "
    "turn=60s (time per decision) hands=N (most hands; default: to the last player)"
)

#: The longest a person may be given per decision (an hour): a table is a live game.
MAX_TURN_S = 3600.0


class SettingsError(ValueError):
    """A setting that cannot be used; the message names the bad value."""


@dataclass(frozen=True, slots=True)
class TableSettings:
    """How a chat table is played: a freezeout with doubling blinds.

    Exactly one of ``level_hands`` and ``level_minutes`` is set.
    """

    starting_stack: int = 1000
    blind_fraction: Fraction = Fraction(1, 100)
    level_hands: int | None = 10
    level_minutes: float | None = None
    turn_s: float = 60.0
    max_hands: int | None = None

    @property
    def big_blind(self) -> int:
        """The first level's big blind: the stack times the fraction, at least 2."""
        return max(2, math.floor(self.starting_stack * self.blind_fraction))

    @property
    def small_blind(self) -> int:
        """Half the big blind (rounded down, at least 1)."""
        return max(1, self.big_blind // 2)

    def schedule(self) -> BlindSchedule:
        """The blinds, doubling at every level (counted in hands or in seconds)."""
        if self.level_minutes is not None:
            return BlindSchedule.doubling(
                self.small_blind, self.big_blind, every_seconds=self.level_minutes * 60
            )
        return BlindSchedule.doubling(
            self.small_blind, self.big_blind, every_hands=self.level_hands
        )

    def describe(self) -> str:
        """The settings in words, for the channel."""
        if self.level_minutes is not None:
            level = f"{self.level_minutes:g} minute{'' if self.level_minutes == 1 else 's'}"
        else:
            level = f"{self.level_hands} hand{'' if self.level_hands == 1 else 's'}"
        length = (
            "until one player has every chip"
            if self.max_hands is None
            else f"at most {self.max_hands} hands"
        )
        return (
            f"stacks {self.starting_stack}, blinds {self.small_blind}/{self.big_blind} "
            f"doubling every {level}, {self.turn_s:g} s a turn, {length}"
        )


def parse_settings(text: str) -> TableSettings:
    """The settings ``text`` gives (``key=value`` words; see the module docstring)."""
    values: dict[str, str] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        key = key.lower()
        if not sep or not value:
            raise SettingsError(f"{word!r} is not key=value; {SETTINGS_HELP}")
        if key not in {"stack", "blinds", "level", "turn", "hands"}:
            raise SettingsError(f"unknown setting {key!r}; {SETTINGS_HELP}")
        values[key] = value.lower()
    stack = _positive_int("stack", values.get("stack", "1000"))
    fraction = _fraction(values.get("blinds", "1/100"))
    level_hands, level_minutes = _level(values.get("level", "10h"))
    turn_s = _duration_s("turn", values.get("turn", "60s"))
    if turn_s > MAX_TURN_S:
        raise SettingsError(f"turn {values['turn']!r} is longer than {MAX_TURN_S:g} s")
    hands = values.get("hands")
    settings = TableSettings(
        starting_stack=stack,
        blind_fraction=fraction,
        level_hands=level_hands,
        level_minutes=level_minutes,
        turn_s=turn_s,
        max_hands=None if hands is None else _positive_int("hands", hands),
    )
    if settings.big_blind * 2 > stack:
        # A stack must cover at least two big blinds to be a game at all.
        raise SettingsError(f"stack {stack} is too small for blinds of {fraction} of it")
    return settings


def _positive_int(key: str, value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise SettingsError(f"{key} {value!r} must be a whole number above 0")
    return int(value)


def _fraction(value: str) -> Fraction:
    try:
        fraction = Fraction(value)
    except (ValueError, ZeroDivisionError):
        fraction = Fraction(-1)
    if not 0 < fraction < Fraction(1, 2):
        raise SettingsError(
            f"blinds {value!r} must be a fraction of the stack below 1/2 (e.g. 1/100)"
        )
    return fraction


def _level(value: str) -> tuple[int | None, float | None]:
    # The settings' one grammar of periods: hands (10h) or a time with its unit (15m). A
    # bare number is hands elsewhere, but in chat "level=10" is as likely meant as minutes:
    # ask for the unit.
    try:
        if not value[-1:].isalpha():
            raise ValueError(value)
        period = parse_period(value)
    except ValueError:
        raise SettingsError(f"level {value!r} must be hands (10h) or minutes (15m)") from None
    if "every_hands" in period:
        return int(period["every_hands"]), None
    return None, period["every_seconds"] / 60.0


def _duration_s(key: str, value: str) -> float:
    # The settings' one grammar of durations (60, 60s, 250ms, 2m).
    try:
        return parse_duration(value, maximum=None)
    except ValueError:
        raise SettingsError(f"{key} {value!r} must be a time above 0 (60s, 2m)") from None
