"""A tournament's bots: :class:`BotEntry`, loaded and checked by :func:`load_bots` (the
``bots`` key itself is declared once in :mod:`arena.settings.catalog`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.bots.manifest import ManifestError, load_manifest
from arena.settings import REGISTRY
from arena.settings.catalog import bot_name
from arena.settings.files import ValueSource
from arena.settings.grammar import path as parse_path
from arena.settings.grammar import suggestion
from arena.tournament.config.errors import TournamentConfigError

__all__ = ["BotEntry", "load_bots"]


@dataclass(frozen=True, slots=True)
class BotEntry:
    """One bot of the tournament: its unique name and its manifest file (absolute)."""

    name: str
    manifest: Path


_BOT_TABLE_KEYS = ("name", "manifest")


def load_bots(
    value: object, source: ValueSource, *, rename_copies: bool = False
) -> tuple[BotEntry, ...]:
    """The ``bots`` value as entries, each manifest loaded once to check it and to read its
    name (a :class:`BotEntry` is taken as it is: it was checked when it was made).

    Two bots with the same name are an error of a file (name them apart with ``[[bots]]``
    tables); with ``rename_copies`` (manifests listed on the command line) the later ones
    are named ``<name>-2``, ``<name>-3``... instead.
    """
    try:
        REGISTRY["bots"].parse(value)  # the shape: a non-empty list
    except ValueError as exc:
        raise TournamentConfigError(source.label, "bots", value, str(exc)) from None
    assert isinstance(value, list | tuple)
    bots = [_bot(entry, f"bots[{index}]", source) for index, entry in enumerate(value)]
    first_of: dict[str, int] = {}
    for index, bot in enumerate(bots):
        if bot.name in first_of and rename_copies and not isinstance(value[index], Mapping):
            bots[index] = BotEntry(_free_name(bot.name, {b.name for b in bots}), bot.manifest)
        elif bot.name in first_of:
            raise TournamentConfigError(
                source.label,
                f"bots[{index}]",
                value[index],
                f"two bots are named {bot.name!r} (bots[{first_of[bot.name]}] too): name them "
                'apart with [[bots]] tables (name = "...", manifest = "...")',
            )
        first_of[bots[index].name] = index
    return tuple(bots)


def _free_name(name: str, taken: set[str]) -> str:
    number = 2
    while f"{name}-{number}" in taken:
        number += 1
    taken.add(f"{name}-{number}")
    return f"{name}-{number}"


def _bot(entry: object, key: str, source: ValueSource) -> BotEntry:
    if isinstance(entry, BotEntry):
        return entry
    name: str | None = None
    path = entry
    if isinstance(entry, Mapping):
        for leaf in entry:
            if leaf not in _BOT_TABLE_KEYS:
                hint = suggestion(str(leaf), _BOT_TABLE_KEYS)
                raise TournamentConfigError(
                    source.label, f"{key}.{leaf}", entry[leaf], f"unknown key{hint}"
                )
        if "manifest" not in entry:
            raise TournamentConfigError(
                source.label, key, dict(entry), "has no manifest (the path of the bot's bot.toml)"
            )
        if "name" in entry:
            try:
                name = bot_name(entry["name"])
            except ValueError as exc:
                raise TournamentConfigError(
                    source.label, f"{key}.name", entry["name"], str(exc)
                ) from None
        key, path = f"{key}.manifest", entry["manifest"]
    try:
        relative = parse_path(path)
    except ValueError:
        raise TournamentConfigError(
            source.label, key, path, "must be a manifest path or a table {name, manifest}"
        ) from None
    full = (source.base_dir / relative).resolve()
    if not full.is_file():
        raise TournamentConfigError(source.label, key, path, f"no bot manifest at {full}")
    try:
        manifest = load_manifest(full)
    except ManifestError as exc:
        raise TournamentConfigError(source.label, key, path, f"bad manifest: {exc}") from None
    return BotEntry(name if name is not None else manifest.name, full)
