"""Every setting of the arena, declared once: its name, parser, default, flag, help with
its unit, group and TOML key (:mod:`arena.settings.catalog`).

From the one declaration come the flags of every command (:func:`add_groups`), the keys
of a tournament file and their checks (:mod:`arena.settings.files`), and the key table of
``docs/tournament-config.md``. One grammar reads durations, sizes, periods and blind
schedules (:mod:`arena.settings.grammar`). A person's mistake in a setting or a flag is a
:class:`UsageError` (exit code 2), a bad setting a :class:`SettingsError` naming the
source, the key and the value::

    weekly.toml: sprt.alpha = 0.7: must be a number above 0 and below 0.5

A new setting is one :func:`declare` call in a module imported here (see
:mod:`arena.settings.model`).
"""

from __future__ import annotations

from arena.settings import catalog
from arena.settings.catalog import Luck
from arena.settings.flags import add_groups, flag_type, given
from arena.settings.grammar import parse_duration, parse_schedule
from arena.settings.model import (
    COMMAND_LINE,
    REGISTRY,
    Setting,
    SettingsError,
    UsageError,
    declare,
    group,
)

__all__ = [
    "COMMAND_LINE",
    "REGISTRY",
    "Luck",
    "Setting",
    "SettingsError",
    "UsageError",
    "add_groups",
    "catalog",
    "declare",
    "file_keys",
    "flag_type",
    "given",
    "group",
    "parse_duration",
    "parse_schedule",
]


def file_keys() -> dict[str, Setting]:
    """The keys a tournament file may hold, in documentation order."""
    return {key: setting for key, setting in REGISTRY.items() if setting.in_file}
