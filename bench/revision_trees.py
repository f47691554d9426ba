"""The two trees of bench/compare_revisions.py and how a command runs in one of them.

The base tree is a revision exported with ``git archive`` (no git metadata, no worktree
entry left behind); the head tree is the working tree. A command runs in a tree with that
tree as its folder and as ``PYTHONPATH``, in a process group of its own that is ended
afterwards; :func:`probe_imports` proves that the project's packages then come from the
tree and not from the editable install.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The packages whose origin the probe checks (those present in the tree).
PACKAGES = ("arena", "engine", "protocol")
#: Seconds a command's process group has to end after SIGINT before SIGKILL.
STOP_GRACE_SECONDS = 10.0


class DriverError(Exception):
    """The driver itself cannot go on (not a benchmark's failure)."""


@dataclass(frozen=True, slots=True)
class Tree:
    """One side of the comparison: ``base`` or ``head`` and its folder."""

    side: str
    path: Path


def tree_environment(tree: Path) -> dict[str, str]:
    """The environment of a run in ``tree``: its folder first on the import path.

    Coverage's subprocess hooks are left out: a benchmark measured under coverage says
    nothing, and its data would name the temporary tree's files.
    """
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("COVERAGE_", "COV_CORE_"))
    }
    environment["PYTHONPATH"] = str(tree)
    return environment


def stop_group(process: subprocess.Popen[str]) -> None:
    """End the process group a benchmark was started in (pool workers and bots included).

    SIGINT first, so that a benchmark removes its temporary folders; SIGKILL after a grace.
    """
    try:
        os.killpg(process.pid, signal.SIGINT)
    except ProcessLookupError:  # the group is empty: the usual end
        process.wait()
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=STOP_GRACE_SECONDS)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def run_in_tree(
    command: Sequence[str], tree: Path, timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in ``tree`` in its own process group, which is ended afterwards.

    Its own group: Ctrl-C reaches only the driver, which then stops the whole group.
    """
    process = subprocess.Popen(
        command,
        cwd=tree,
        env=tree_environment(tree),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except BaseException:
        stop_group(process)
        raise
    stop_group(process)  # nothing left normally; a leftover child would outlive us
    return subprocess.CompletedProcess(list(command), process.returncode, stdout, stderr)


def probe_imports(python: str, tree: Tree) -> str:
    """Check that the project's packages import from ``tree`` under its run's setting.

    ``-P`` keeps the current folder off the path, as for a script in ``bench/``: only
    ``PYTHONPATH`` can then point the imports at the tree (and must beat the editable
    install). Returns the line to print; raises :class:`DriverError` on a wrong origin.
    """
    names = [name for name in PACKAGES if (tree.path / name / "__init__.py").is_file()]
    if not names:
        raise DriverError(f"{tree.side} tree {tree.path}: none of {', '.join(PACKAGES)} in it")
    code = f"import {', '.join(names)}\n" + "".join(f"print({name}.__file__)\n" for name in names)
    completed = run_in_tree([python, "-P", "-c", code], tree.path, timeout=60)
    if completed.returncode != 0:
        last = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        raise DriverError(f"{tree.side} tree {tree.path}: importing {names} failed: {last}")
    root = tree.path.resolve()
    for name, origin in zip(names, completed.stdout.split(), strict=True):
        if not Path(origin).resolve().is_relative_to(root):
            raise DriverError(
                f"{tree.side} tree {root}: import {name} came from {origin}, not from the tree"
            )
    return f"imports  {tree.side}: {', '.join(names)} from {root}"


def resolve_revision(revision: str) -> str:
    """The full commit id of ``revision``; :class:`DriverError` naming it if there is none."""
    completed = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise DriverError(f"--base {revision!r}: no such commit in {ROOT}")
    return completed.stdout.strip()


def export_revision(commit: str, folder: Path) -> None:
    """Write the files of ``commit`` into ``folder`` (no git metadata, no worktree entry)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        raise DriverError(f"git archive {commit}: {archive.stderr.decode(errors='replace')}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout), mode="r:") as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(folder, filter="data")
        else:  # pragma: no cover - Python before 3.11.4; our own archive is trusted
            tar.extractall(folder)


def describe_head() -> str:
    """The working tree's commit, and whether it has changes not committed."""
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    changed = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return f"HEAD {head or '?'}" + (" with changes not committed" if changed else "")


def warm_up(python: str, tree: Tree) -> None:
    """Compile both trees' code first, so that no side pays for it in its first round."""
    folders = [str(tree.path / name) for name in (*PACKAGES, "bench")]
    run_in_tree([python, "-m", "compileall", "-q", *folders], tree.path, timeout=300)
