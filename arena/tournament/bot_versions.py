"""A tournament knows its bots by their content, so that a result never mixes versions of
a bot (issue 22 #7).

A run is recognised by its settings' fingerprint, which holds the bots' names and manifest
paths but not their code: a bot edited between two runs would be resumed with the old
code's stored results. So each bot's folder (its manifest's ``working_dir``) is read when
the run starts (:func:`read_contents`, see :mod:`arena.bots.contents`) and kept with the
tournament's bots in the results database. A resume whose bots' contents differ from the
kept ones is refused, naming the bot and the changed files (:func:`changed_bots_message`).
Contents an older arena did not keep are unknown: the run goes on and keeps them now.

When the contents are read: before the build, so a changed bot is refused before it is
built. Under the ``limits`` and ``strict`` sandboxes the build works in a private copy and
the bot's folder is what it was. Under ``--sandbox none`` the build writes into the bot's
own folder (a compiled ``./bot``), so the contents kept are read again after the build: the
next run, reading before its build, then finds the folder as this one left it (its build's
output included) and only a real change is named, whether the build is reproducible or not.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from arena.bots.contents import BotContents, changed_files, folder_contents
from arena.bots.manifest import BotManifest

__all__ = ["changed_bots_message", "read_contents"]

#: The most changed files a refusal names per bot (then "and N more").
SHOWN_FILES = 5


def read_contents(manifests: Mapping[str, BotManifest], *, skip: Path) -> dict[str, BotContents]:
    """Each bot's contents by name (a folder shared by several bots is read once). Files
    under ``skip`` (the run folder, should it lie inside a bot's folder) are left out:
    the run itself changes them."""
    read: dict[Path, BotContents] = {}
    contents: dict[str, BotContents] = {}
    for name, manifest in manifests.items():
        folder = Path(os.path.realpath(manifest.working_dir))
        if folder not in read:
            read[folder] = _without(folder_contents(folder), folder, skip)
        contents[name] = read[folder]
    return contents


def _without(contents: BotContents, folder: Path, skip: Path) -> BotContents:
    inside = Path(os.path.realpath(skip))
    if not inside.is_relative_to(folder):
        return contents
    prefix = inside.relative_to(folder).as_posix()
    if prefix == ".":  # the run folder is the bot's folder itself: nothing but the run's
        return BotContents({})
    kept = {
        path: digest
        for path, digest in contents.files.items()
        if path != prefix and not path.startswith(prefix + "/")
    }
    return BotContents(kept)


def changed_bots_message(
    stored: Mapping[str, str | None], now: Mapping[str, BotContents], run_folder: Path
) -> str | None:
    """Why the run cannot resume: each bot whose ``now`` contents differ from the
    ``stored`` ones (JSON; None or absent: unknown, never a change), with its changed
    files, and what to do. None when no bot changed."""
    changes: list[str] = []
    for name, contents in now.items():
        text = stored.get(name)
        if text is None:
            continue
        try:
            before = BotContents.from_json(text)
        except ValueError:
            before = BotContents({})  # unreadable: every file counts as changed
        files = changed_files(before, contents)
        if files:
            shown = ", ".join(files[:SHOWN_FILES])
            more = f" and {len(files) - SHOWN_FILES} more" if len(files) > SHOWN_FILES else ""
            changes.append(f"{name!r} ({shown}{more})")
    if not changes:
        return None
    what = f"bot {changes[0]}" if len(changes) == 1 else f"bots {', '.join(changes)}"
    them = "it" if len(changes) == 1 else "them"
    return (
        f"{what} changed since the stored results: a result must not mix two versions of "
        f"a bot. Run {them} under a new --out, or delete {str(run_folder)!r} to start again"
    )
