"""Settings from a TOML file and from the command line, by dotted key, with where each
came from; a flag wins over the file.

A file's tables are the keys' tables (``[sprt]`` holds ``sprt.alpha``); an unknown key or
table is named with the closest known one::

    weekly.toml: dels = 100: unknown key (did you mean 'deals'?)

Values are not checked here but where they are used, as a whole (see
:func:`arena.tournament.config.build_config`): :class:`Given` keeps each raw value with its
:class:`ValueSource`, so that every message names the file or ``command line``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.settings.grammar import suggestion
from arena.settings.model import COMMAND_LINE, Setting, SettingsError

__all__ = ["Given", "ValueSource", "known_key", "read_overrides", "read_toml", "source_label"]


@dataclass(frozen=True, slots=True)
class ValueSource:
    """Where given values come from: a label for messages (the file, or ``command line``),
    the folder relative paths start from, and whether text is read by the setting's kind
    (the command line's is)."""

    label: str
    base_dir: Path
    is_text: bool


#: Raw values by dotted key, each with where it came from.
Given = dict[str, tuple[object, ValueSource]]


def known_key(label: str, key: str, value: object, keys: Mapping[str, Setting]) -> str:
    """``key`` when it is one of ``keys``; else :class:`SettingsError` with a suggestion."""
    if key not in keys:
        tables = tuple(sorted({setting.table for setting in keys.values()} - {""}))
        hint = suggestion(key, (*keys, *tables))
        raise SettingsError(label, key, value, f"unknown key{hint}")
    return key


def read_toml(path: Path, keys: Mapping[str, Setting]) -> Given:
    """The file's values by dotted key (tables flattened); unreadable files, bad TOML,
    unknown keys and values where a table belongs are :class:`SettingsError`."""
    label = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise SettingsError(label, None, None, f"cannot read the file: {reason}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SettingsError(label, None, None, f"not UTF-8 text: {exc.reason}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(label, None, None, f"not valid TOML: {exc}") from None
    tables = {setting.table for setting in keys.values()} - {""}
    source = ValueSource(label, path.absolute().parent, is_text=False)
    given: Given = {}
    for key, value in data.items():
        if key in tables:
            if not isinstance(value, dict):
                raise SettingsError(label, key, value, f"must be a table ([{key}])")
            for leaf, leaf_value in value.items():
                given[known_key(label, f"{key}.{leaf}", leaf_value, keys)] = (leaf_value, source)
        else:
            given[known_key(label, key, value, keys)] = (value, source)
    return given


def read_overrides(
    overrides: Mapping[str, object], keys: Mapping[str, Setting], base_dir: Path | None
) -> Given:
    """The command line's values by dotted key (``None``: not given, left out); relative
    paths start from ``base_dir`` (default: the current folder)."""
    where = base_dir if base_dir is not None else Path.cwd()
    source = ValueSource(COMMAND_LINE, where, is_text=True)
    return {
        known_key(COMMAND_LINE, key, value, keys): (value, source)
        for key, value in overrides.items()
        if value is not None
    }


def source_label(file_label: str | None, overrides: Mapping[str, object] | None) -> str:
    """Where a whole config came from: the file, ``command line``, or both."""
    if file_label is None:
        return COMMAND_LINE
    is_mixed = not overrides or file_label.endswith(COMMAND_LINE)
    return file_label if is_mixed else f"{file_label} and the {COMMAND_LINE}"
