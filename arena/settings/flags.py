"""The settings as command-line flags: :func:`add_groups` gives every command the same
flags, with the same names, help and units, and :func:`given` reads them back by key.

Two ways to take a flag's value:

- parsed when the arguments are (``as_text=False``, the default): a bad value is
  argparse's error, ``arena match: error: argument --hands: 'x' is not a whole number``,
  and the default is the setting's;
- kept as the text typed (``as_text=True``, for a command whose settings may also come from
  a file): the value is checked with the file's, by the same parser, and named as
  ``command line: deals = "x": ...``; a flag not given is ``None`` so that the file's
  value stands.

A setting of kind ``list`` is a flag given once per value (``--expose A --expose B``).
A setting's old spellings (``--structure`` for ``--betting``) keep working as hidden
aliases.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any

from arena.settings.grammar import Parser, from_text
from arena.settings.model import Setting, group

__all__ = ["GROUP_TITLES", "add_groups", "flag_type", "given", "value_type"]

#: Each group's heading in ``--help``.
GROUP_TITLES = {
    "tournament": "tournament",
    "run": "run",
    "game": "game",
    "match": "match",
    "limits": "time limits (seconds, or e.g. 250ms)",
    "sandbox": "sandbox: limits per bot; a manifest's [limits] table changes them for its "
    "bot, and a flag given here overrides both",
    "sprt": "sequential test (round_robin, gauntlet)",
    "sit_and_go": "sit_and_go",
    "ring": "ring",
    "score": "luck-adjusted scoring",
    "log": "match log",
    "output": "output",
}


def add_groups(
    parser: argparse.ArgumentParser,
    *names: str,
    as_text: bool = False,
    shown: Mapping[str, str] | None = None,
    defaults: Mapping[str, object] | None = None,
    only: tuple[str, ...] | None = None,
    exclude: tuple[str, ...] = (),
) -> tuple[Setting, ...]:
    """Add the flags of the groups ``names`` to ``parser``; returns their settings.

    ``shown`` replaces a default as ``--help`` shows it, ``defaults`` a default itself (by
    key, e.g. a demo's shorter decision time); ``only`` keeps just those keys of the groups,
    ``exclude`` leaves some out.
    """
    shown = shown or {}
    defaults = defaults or {}
    chosen = tuple(
        setting
        for setting in group(*names)
        if setting.flag is not None
        and setting.key not in exclude
        and (only is None or setting.key in only)
    )
    headings: dict[str, argparse._ArgumentGroup] = {}
    for setting in chosen:
        name = setting.group
        if name not in headings:
            title, _, description = GROUP_TITLES.get(name, name).partition(": ")
            headings[name] = parser.add_argument_group(title, description or None)
        default = defaults.get(setting.key, setting.default)
        text = shown.get(setting.key, _shown(setting, default, setting.key in defaults))
        options = _options(setting, default, as_text=as_text)
        assert setting.flag is not None
        headings[name].add_argument(setting.flag, help=_help(setting, text), **options)
        for alias in setting.aliases:
            options = {**options, "default": argparse.SUPPRESS}
            headings[name].add_argument(alias, help=argparse.SUPPRESS, **options)
    return chosen


def given(args: argparse.Namespace, settings: tuple[Setting, ...]) -> dict[str, object]:
    """The flags' values by dotted key; a flag not given (``None``) is left out.

    Values are as parsed (``as_text=False``) or as typed (``as_text=True``); choices arrive
    as text either way and are read here."""
    values: dict[str, object] = {}
    for setting in settings:
        value = getattr(args, setting.dest, None)
        if value is None:
            continue
        if setting.choices and not isinstance(value, str):  # pragma: no cover - argparse's
            raise AssertionError(f"{setting.key}: a choice arrives as text")
        values[setting.key] = value
    return values


def _options(setting: Setting, default: object, *, as_text: bool) -> dict[str, Any]:
    options: dict[str, Any] = {"dest": setting.dest, "default": None if as_text else default}
    if setting.kind == "bool":
        return {**options, "action": "store_const", "const": True}
    if setting.kind == "list":
        # A repeated flag: each value checked as it is read, or kept as typed (a list of
        # texts, checked with the file's list).
        options["action"] = "append" if as_text else "extend"
    if setting.metavar is not None:
        options["metavar"] = setting.metavar
    if setting.choices and not as_text:
        # Any case (--log-level INFO), as the values are written in lower case.
        options["choices"] = setting.choices
        options["type"] = str.lower
    elif setting.choices:
        options["metavar"] = "{" + ",".join(setting.choices) + "}"
    elif not as_text:
        options["type"] = flag_type(setting)
    return options


def flag_type(setting: Setting) -> Callable[[str], object]:
    """The argparse ``type`` of a setting's flag: its text read by the setting's parser,
    a bad value as ``'x' is not a whole number`` (argparse adds ``argument --flag:``)."""

    def read(text: str) -> object:
        value = from_text(setting.kind, text)
        if setting.kind in ("int", "seed") and isinstance(value, str):
            what = "an integer seed" if setting.kind == "seed" else "a whole number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        try:
            return setting.parse(value)
        except ValueError as exc:
            reason = str(exc)
            gap = " " if reason.startswith(("must ", "is ")) else ": "
            raise argparse.ArgumentTypeError(f"{text!r}{gap}{reason}") from None

    read.__name__ = setting.dest
    return read


def _shown(setting: Setting, default: object, is_replaced: bool) -> str:
    if not is_replaced:
        return setting.shown
    return f"{default:g}" if isinstance(default, float) else str(default)


def _help(setting: Setting, shown: str) -> str:
    if "{default}" in setting.help:
        return setting.help.replace("{default}", shown)
    if "default" in setting.help or not shown or setting.kind == "bool":
        return setting.help
    return f"{setting.help} (default: {shown.strip(chr(34))})"


def value_type(parse: Parser, kind: str = "text") -> Callable[[str], object]:
    """An argparse ``type`` for a command's own argument (not a declared setting), with
    the settings' grammar and messages: ``type=value_type(whole(0), "int")``."""
    return flag_type(
        Setting(
            "value", parse, None, None, "", "", kind=kind, dest=getattr(parse, "__name__", "value")
        )
    )
