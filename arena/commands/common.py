"""What several commands share: the sandbox launcher from the flags, manifests, a new run
folder, and the lines printed after a match. Every problem is a
:class:`arena.settings.UsageError` (exit code 2) naming the bad value.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.bots.sandbox.resources import RESOURCE_KEYS, ResourceLimitsError
from arena.bots.sandbox.select import (
    SandboxLauncher,
    SandboxLevel,
    SandboxUnavailableError,
    choose,
    describe,
    launcher_for,
    needs_cgroup,
)
from arena.match.console import show_table
from arena.match.results import MatchResult
from arena.match.results_table import crash_stderr_lines, results_table
from arena.settings import UsageError
from arena.store.run_folder import RunFolder

__all__ = [
    "check_out_dir",
    "default_out_dir",
    "limit_overrides",
    "load_manifests",
    "open_launcher",
    "print_match_end",
    "require_parent_folder",
    "with_advice",
]


def limit_overrides(args: argparse.Namespace) -> dict[str, int]:
    """The resource limits given on the command line, by key (those not given are left out,
    so a manifest's ``[limits]`` still counts for them)."""
    given = {key: getattr(args, key, None) for key in RESOURCE_KEYS}
    return {key: value for key, value in given.items() if value is not None}


def open_launcher(args: argparse.Namespace, out: TextIO) -> SandboxLauncher:
    """The launcher of the sandbox layer ``--sandbox`` names (default: the strongest that
    works here), with the limit flags and the ``--expose`` paths, after saying on ``out``
    which layer is active and why no stronger one is (why the kernel holds no limits here
    only with ``--verbose`` or when a CPU share is asked for).

    A layer that does not work here, or an exposed path it cannot show, is a usage error,
    never a quiet step down to a weaker one.
    """
    requested = None if args.sandbox is None else SandboxLevel(args.sandbox)
    overrides = limit_overrides(args)
    try:
        level, reasons = choose(requested)
        launcher = launcher_for(level, overrides=overrides, expose=tuple(args.expose or ()))
    except (SandboxUnavailableError, ResourceLimitsError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    lines = describe(level, reasons, is_verbose=args.verbose, needs_cgroup=needs_cgroup(overrides))
    out.writelines(line + "\n" for line in lines)
    return launcher


def load_manifests(paths: Sequence[Path]) -> list[BotManifest]:
    """Every manifest; the first bad one is a usage error naming it."""
    try:
        return [load_manifest(path) for path in paths]
    except ManifestError as exc:
        raise UsageError(f"bad manifest: {exc}") from None


def require_parent_folder(target: Path, flag: str) -> None:
    """A usage error naming the folder ``target`` would go in when it is not a folder
    that exists: an output is written into a folder that is there, never into a tree of
    folders made from a typo (at the file system's root, say)."""
    parent = target.parent
    if parent.is_dir():
        return
    what = (
        f"{str(parent)!r} is a file, not a folder"
        if parent.exists()
        else (f"the folder {str(parent)!r} does not exist")
    )
    raise UsageError(f"{flag} {str(target)!r}: {what}")


def with_advice(error: Exception, advice: str) -> str:
    """The error's message and what to do about it: after ``; `` on its line, or on a line
    of its own when the message ends with quoted lines (a failed build's output), where
    it would read as one of them.

    >>> with_advice(ValueError("no bot"), "fix it")
    'no bot; fix it'
    >>> with_advice(ValueError("failed; its output ends with:\\n  | x.c:3"), "fix it")
    'failed; its output ends with:\\n  | x.c:3\\nfix it'
    """
    message = str(error)
    return f"{message}\n{advice}" if "\n" in message else f"{message}; {advice}"


def default_out_dir(prefix: str) -> Path:
    """``runs/<prefix>-<time>``: not named after the seed, a path is no place for a secret."""
    return Path("runs") / f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}"


def check_out_dir(path: Path) -> RunFolder:
    """``path`` as a new match run folder, created; a usage error when it is a file, holds
    a match already (a second would overwrite the first without a word) or cannot be
    written."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"--out {str(path)!r} is a file, not a folder; give a folder for the run")
    folder = RunFolder(path)
    found = [file for file in (folder.history, folder.results) if file.exists()]
    if found:
        raise UsageError(
            f"--out {str(path)!r} already holds a run ({found[0].name}); choose another folder "
            "or remove it"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".arena-write-check"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"cannot write to --out {str(path)!r}: {exc.strerror or exc}") from None
    return folder


def print_match_end(result: MatchResult, folder: RunFolder, out: TextIO, *, speed: bool) -> None:
    """The results table, where the crashed bots' stderr is, (``speed``: the time and
    rate) and where the files are."""
    # On a terminal fitted to its width (wrapped or stacked), never cut or wrapped by it.
    show_table(out, results_table(result))
    for line in crash_stderr_lines(result, folder.path):
        out.write(line + "\n")
    if speed:
        out.write(
            f"{result.hands_played} hands in {result.duration_s:.1f} s "
            f"({result.hands_per_second:.0f} hands/s, {result.decision_count} decisions)\n",
        )
    out.write(f"hand history: {folder.history}\n")
    out.write(f"results:      {folder.results}\n")
