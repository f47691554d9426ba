"""The process side of a sandboxed bot: :class:`Confinement`.

A :class:`~arena.bots.launcher.LaunchSpec` with ``limits`` or a ``private_dir`` comes from
a sandbox launcher. While such a bot runs, its tree is watched against the limits
(:mod:`arena.bots.sandbox.watch`); when it is closed, its supervisor is asked to take the
tree down (it knows every orphan), the watch forgets it, its private directory is removed,
and how it ended says whether a limit stopped it. :class:`~arena.bots.process.ProcessTransport`
holds one per sandboxed bot and asks it nothing on the per-message path.

A death by ``SIGXFSZ`` is a file written past ``file_size_bytes``; by ``SIGXCPU``, a
process past ``cpu_seconds``: both are limit stops, like what the watch kills. A
supervisor that is the first process of a PID namespace (the strict layer) reports such a
death as exit code 128 plus the signal, as shells do.

>>> reason_of_signal(signal.SIGXFSZ), reason_of_signal(signal.SIGSEGV)
(<LimitReason.FILE_SIZE: 'file_size_limit'>, None)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
from pathlib import Path

from arena.bots.launcher import LaunchSpec
from arena.bots.sandbox.limits import LimitReason
from arena.bots.sandbox.supervisor import DEATH_SIGNAL
from arena.bots.sandbox.watch import LimitBreach, TreeWatch, Watched, shared_watch

__all__ = ["Confinement", "reason_of_signal", "remove_private_dir"]

_SHELL_SIGNAL_BASE = 128  # an exit code of 128 + n: killed by signal n

_SIGNAL_REASONS = {
    int(signal.SIGXFSZ): (LimitReason.FILE_SIZE, "wrote a file past the file size limit"),
    int(signal.SIGXCPU): (LimitReason.CPU, "a process used up its CPU time limit"),
}


def reason_of_signal(number: int | None) -> LimitReason | None:
    """The limit a death by signal ``number`` means, if any."""
    found = None if number is None else _SIGNAL_REASONS.get(number)
    return None if found is None else found[0]


class Confinement:
    """What the arena keeps of one sandboxed bot: its watch and its private directory."""

    def __init__(self, pid: int, spec: LaunchSpec, *, watch: TreeWatch | None = None) -> None:
        self.pid = pid
        self.private_dir = spec.private_dir
        self._watched: Watched | None = None
        self._breach: LimitBreach | None = None
        if spec.limits is not None:
            self._watched = (watch or shared_watch()).watch(pid, spec.limits, self._on_breach)

    @classmethod
    def of_spec(
        cls, pid: int, spec: LaunchSpec, *, watch: TreeWatch | None = None
    ) -> Confinement | None:
        """A confinement for a sandboxed spec, None for a bot run as it is."""
        if spec.limits is None and spec.private_dir is None:
            return None
        return cls(pid, spec, watch=watch)

    @property
    def breach(self) -> LimitBreach | None:
        """The limit the watch stopped the bot for, if it did."""
        return self._breach

    def describe_breach(self) -> str:
        """``'; stopped by the sandbox: memory_limit: ...'`` or ``''``: for messages."""
        return (
            "" if self._breach is None else f"; stopped by the sandbox: {self._breach.describe()}"
        )

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
        if self.private_dir is not None:
            remove_private_dir(self.private_dir)
        if self._breach is not None:
            return str(self._breach.reason), self._breach.detail
        if signal_number is None and exit_code is not None and exit_code > _SHELL_SIGNAL_BASE:
            signal_number = exit_code - _SHELL_SIGNAL_BASE
        found = None if signal_number is None else _SIGNAL_REASONS.get(signal_number)
        if found is not None:
            return str(found[0]), found[1]
        return None, ""

    def _on_breach(self, breach: LimitBreach) -> None:
        self._breach = breach


def remove_private_dir(path: Path) -> None:
    """Remove ``path`` and everything in it, even what its bot made unwritable.

    Only ``path`` and what is inside it are ever changed: a failure at ``path`` itself
    (another arena removed it first, say) must not touch its parent, the shared temporary
    folder, whose mode every other program relies on.
    """
    top = os.path.abspath(path)

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
