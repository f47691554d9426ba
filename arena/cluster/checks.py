"""Checks run on every worker before the first match: can the bots start here, and does this
worker share the host's run folder?"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from arena.bots.launcher import DirectLauncher
from arena.bots.manifest import ManifestError, load_manifest
from arena.bots.sandbox.select import SandboxLevel, SandboxUnavailableError, choose
from arena.cluster.zygote import ZygoteError, shared_zygote

__all__ = ["check_bots_here", "sees_file"]


def check_bots_here(
    manifests: Sequence[Path], sandbox: str, *, working_dirs: Sequence[Path | None] = ()
) -> list[str]:
    """On a worker: what keeps the bots from starting here (empty when nothing does).

    Each manifest must be at the same path as on the host and readable (its working
    folder there too), and so must the folder the matches start the bot from: its built
    copy in the run folder (``working_dirs``, as in :class:`MatchJob`: the host builds each
    bot once, under the sandbox, and keeps the build in ``<run>/builds``), else its own;
    its program must be there. The sandbox layer must work here, and the referees' zygote
    must start (it is started now, so that the first match does not wait for it).
    """
    problems = []
    try:
        shared_zygote()
    except ZygoteError as exc:
        problems.append(str(exc))
    try:
        choose(SandboxLevel(sandbox))
    except (SandboxUnavailableError, ValueError) as exc:
        problems.append(str(exc))
    launcher = DirectLauncher()
    for seat, path in enumerate(manifests):
        try:
            manifest = load_manifest(path)
        except ManifestError as exc:  # its message names the file (and a missing folder)
            problems.append(str(exc))
            continue
        built = working_dirs[seat] if seat < len(working_dirs) else None
        if built is not None:
            if not built.is_dir():
                why = "the run folder must be at the same path on every worker"
                problems.append(f"bot {manifest.name!r}: its build {built} is not here ({why})")
                continue
            manifest = replace(manifest, working_dir=built)
        program = launcher.prepare(manifest).argv[0]
        found = shutil.which(program) if os.sep not in program else program
        if found is None or not os.access(found, os.X_OK) or not os.path.isfile(found):
            problems.append(f"bot {manifest.name!r}: its program {program!r} is not here")
    return problems


def sees_file(path: Path, token: str) -> bool:
    """On a worker: whether ``path`` holds ``token`` and its folder is writable here, that
    is, whether the host's run folder, where it wrote the file, is shared with this worker
    (at the same path)."""
    try:
        return path.read_text(encoding="utf-8") == token and os.access(path.parent, os.W_OK)
    except (OSError, UnicodeDecodeError):
        return False
