"""The process side of a sandboxed bot: :class:`Confinement`.

A :class:`~arena.bots.launcher.LaunchSpec` with ``resources``, a ``private_dir`` or a
``cgroup`` comes from a sandbox launcher. While such a bot runs, its tree is watched
against the limits (:mod:`arena.bots.sandbox.watch`), except those its cgroup has the
kernel hold (memory and tasks: the kernel's count is exact and never late); when it is
closed, its supervisor is asked to take the tree down (it knows every orphan), the watch
forgets it, its private directory and its cgroup are removed, and how it ended (or what
the cgroup counted) says whether a limit stopped it. :class:`~arena.bots.process.ProcessTransport`
holds one per sandboxed bot and asks it nothing on the per-message path.

A death by ``SIGXFSZ`` is a file written past ``file_size_bytes``; by ``SIGXCPU``, a
process past ``cpu_seconds``: both are limit stops, like what the watch kills. A
supervisor that is the first process of a PID namespace (the strict layer) reports such a
death as exit code 128 plus the signal, as shells do.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import stat
from dataclasses import replace
from pathlib import Path

from arena.bots.launcher import LaunchSpec
from arena.bots.sandbox.cgroup import BotCgroup, CgroupError
from arena.bots.sandbox.disk import disk_breach, release_disk
from arena.bots.sandbox.resources import LimitReason, ResourceLimits, format_size
from arena.bots.sandbox.supervisor import DEATH_SIGNAL
from arena.bots.sandbox.watch import LimitBreach, TreeWatch, Watched, read_tree, shared_watch

__all__ = [
    "Confinement",
    "abandon",
    "cpu_seconds_of",
    "kernel_breach",
    "remove_private_dir",
]

logger = logging.getLogger("arena.bots")

_SHELL_SIGNAL_BASE = 128  # an exit code of 128 + n: killed by signal n
_UNWATCHED = 2**62  # a limit the watch never reaches: the kernel holds it
_MIB = 1024 * 1024

_SIGNAL_REASONS = {
    int(signal.SIGXFSZ): (LimitReason.FILE_SIZE, "wrote a file past the file size limit"),
    int(signal.SIGXCPU): (LimitReason.CPU, "a process used up its CPU time limit"),
}


class Confinement:
    """What the arena keeps of one sandboxed bot: its watch and its private directory."""

    def __init__(self, pid: int, spec: LaunchSpec, *, watch: TreeWatch | None = None) -> None:
        self.pid = pid
        self.private_dir = spec.private_dir
        self.cgroup = spec.cgroup
        self.resources = spec.resources
        self._watched: Watched | None = None
        self._breach: LimitBreach | None = None
        if spec.resources is not None:
            watched = spec.resources
            check = None
            if spec.cgroup is not None:
                # The kernel holds these: the watch only reads what it counted, and stops
                # the bot that ran into one as it would have stopped it.
                watched = replace(watched, memory_bytes=_UNWATCHED, processes=_UNWATCHED)
                check = self._kernel_breach
            self._watched = (watch or shared_watch()).watch(
                pid, watched, self._on_breach, check=check
            )

    @classmethod
    def of_spec(
        cls, pid: int, spec: LaunchSpec, *, watch: TreeWatch | None = None
    ) -> Confinement | None:
        """A confinement for a sandboxed spec, None for a bot run as it is."""
        if spec.resources is None and spec.private_dir is None and spec.cgroup is None:
            return None
        return cls(pid, spec, watch=watch)

    @property
    def breach(self) -> LimitBreach | None:
        """The limit the watch stopped the bot for, if it did."""
        return self._breach

    def describe_breach(self) -> str:
        """``'; stopped by the sandbox: memory_limit: ...'`` or ``''``: for messages."""
        found = self._breach or self._kernel_breach()
        return "" if found is None else f"; stopped by the sandbox: {found.describe()}"

    def _kernel_breach(self) -> LimitBreach | None:
        if self.cgroup is None or self.resources is None:
            return None
        return kernel_breach(self.cgroup, self.resources)

    @property
    def has_supervisor(self) -> bool:
        """Whether a supervisor runs in front of the bot (a spec with limits has one; the
        ``none`` layer's, with only a private ``TMPDIR``, has not)."""
        return self.resources is not None

    def ask_to_stop(self) -> None:
        """Send the supervisor its stop signal: it kills the whole tree, then exits."""
        with contextlib.suppress(OSError):
            os.kill(self.pid, DEATH_SIGNAL)

    def release(
        self, signal_number: int | None, exit_code: int | None = None
    ) -> tuple[str | None, str]:
        """Once the bot is dead: stop watching, remove the private directory, and return
        the limit reason and detail: the watch's, or what a death by ``signal_number``
        means (an ``exit_code`` of 128 plus that signal says the same: a supervisor that is
        the first process of a PID namespace cannot die by a signal)."""
        if self._watched is not None:
            self._watched.cancel()
            self._watched = None
        # Read before the cgroup goes; it counts only for a bot that did not end well (a
        # bot whose fork was refused once may carry on and end as it should).
        is_failed = signal_number is not None or exit_code not in (None, 0)
        kernel = self._kernel_breach() if is_failed else None
        # Read before the folder goes too: a bot that failed with its disk full.
        disk = (
            disk_breach(self.private_dir, self.resources.disk_bytes)
            if is_failed and self.resources
            else None
        )
        _remove(self.private_dir, self.cgroup)
        self.cgroup = None
        if self._breach is not None:
            return str(self._breach.reason), self._breach.detail
        if signal_number is None and exit_code is not None and exit_code > _SHELL_SIGNAL_BASE:
            signal_number = exit_code - _SHELL_SIGNAL_BASE
        found = None if signal_number is None else _SIGNAL_REASONS.get(signal_number)
        if found is not None:
            return str(found[0]), found[1]
        if kernel is not None:
            return str(kernel.reason), kernel.detail
        if disk is not None:
            return str(disk.reason), disk.detail
        return None, ""

    def _on_breach(self, breach: LimitBreach) -> None:
        self._breach = breach


def cpu_seconds_of(pid: int, confinement: Confinement | None) -> float:
    """CPU time of the tree of ``pid`` so far: its cgroup's count where the bot has a
    cgroup (exact, and the same however its processes came and went), else ``/proc``'s
    (its processes' times, with those of the children they reaped)."""
    cgroup = None if confinement is None else confinement.cgroup
    counted = None if cgroup is None else cgroup.cpu_seconds()
    return counted if counted is not None else read_tree(pid)[1].cpu_seconds


def kernel_breach(cgroup: BotCgroup, resources: ResourceLimits) -> LimitBreach | None:
    """The limit the kernel held ``cgroup`` at (memory, tasks), if it did."""
    reason = cgroup.limit_hit()
    if reason == LimitReason.MEMORY:
        peak = cgroup.peak_memory_bytes()
        held = "" if peak is None else f"; it held at most {peak // _MIB} MiB"
        return LimitBreach(
            LimitReason.MEMORY,
            f"the kernel's OOM killer ended a process at the memory limit of "
            f"{format_size(resources.memory_bytes)}{held}",
        )
    if reason == LimitReason.PROCESSES:
        return LimitBreach(
            LimitReason.PROCESSES,
            "the kernel refused a new process or thread at the limit of "
            f"{resources.processes} tasks",
        )
    return None


def abandon(spec: LaunchSpec) -> None:
    """Remove what a sandbox launcher made for ``spec`` (its private directory and its
    cgroup): the bot never started."""
    _remove(spec.private_dir, spec.cgroup)


def _remove(private_dir: Path | None, cgroup: BotCgroup | None) -> None:
    if private_dir is not None:
        remove_private_dir(private_dir)
    if cgroup is not None:
        try:
            cgroup.close()
        except CgroupError as exc:  # left for the next arena's sweep
            logger.warning("%s", exc)


def remove_private_dir(path: Path) -> None:
    """Remove ``path`` and everything in it, even what its bot made unwritable.

    Only ``path`` and what is inside it are ever changed: a failure at ``path`` itself
    (another arena removed it first, say) must not touch its parent, the shared temporary
    folder, whose mode every other program relies on. A folder that is a tmpfs of its own
    (:mod:`arena.bots.sandbox.disk`) is unmounted first, which drops all it holds.
    """
    top = os.path.abspath(path)
    release_disk(path)

    # Root removes anything; an arena without root must first open what its bot closed.
    def make_writable_and_retry(function: object, failed: str, _exc: object) -> None:
        failed_path = os.path.abspath(failed)
        if failed_path == top:
            # The folder itself: open it (never its parent) and try once more, if it is
            # still there (another arena may have removed it first).
            with contextlib.suppress(OSError):
                if os.path.isdir(top) and not os.path.islink(top):
                    os.chmod(top, stat.S_IRWXU)
                    shutil.rmtree(top, ignore_errors=True)
            return
        if not failed_path.startswith(top + os.sep):
            return  # not inside the folder: not ours to change
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(failed_path), stat.S_IRWXU)
            if os.path.isdir(failed_path) and not os.path.islink(failed_path):
                os.chmod(failed_path, stat.S_IRWXU)
                shutil.rmtree(failed_path, ignore_errors=True)
            else:
                os.unlink(failed_path)

    if path.exists() or path.is_symlink():
        shutil.rmtree(path, onerror=make_writable_and_retry)
