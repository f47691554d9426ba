"""A cgroup v2 of its own for each bot: the kernel caps its memory and its process count.

Resource limits (``setrlimit``) are per process: a bot that forks multiplies its address
space allowance, and ``RLIMIT_NPROC`` counts per user. A cgroup counts the whole bot, its
children included, and the kernel enforces it: past ``memory.max`` the OOM killer ends the
bot (``memory.oom.group`` makes it end every process of the bot together), past
``pids.max`` a ``fork`` fails. ``memory.swap.max`` is 0 so that a hog cannot hide in swap.

Theory of operation:

* :func:`probe_cgroups` finds the cgroup v2 file system (``/proc/self/mountinfo``), the
  arena's own cgroup (``/proc/self/cgroup``) and the place for bot cgroups:
  ``poker-arena`` beside the arena's own cgroup (in its parent), or at the top when the
  arena is in the root cgroup. A cgroup that holds processes cannot also give controllers
  to children (cgroup v2's "no internal processes" rule), so the bots cannot go *inside*
  the arena's cgroup; beside it they are still charged to the same parent, and a limit set
  around the arena by whoever started it still covers its bots. The probe only reads: it
  says why cgroups cannot be used (no cgroup v2, no ``memory`` or ``pids`` controller in
  it, no write access) and creates nothing.
* :meth:`CgroupParent.create_bot` makes ``poker-arena/bot-<pid>-<random>`` with the
  limits. The bot joins it before it runs a single instruction of its own: the launcher
  starts a tiny ``sh`` that writes its own pid to ``cgroup.procs`` and then ``exec``\\ s the
  sandbox (:func:`join_command`). Everything the bot starts is born inside the cgroup, so
  nothing can escape it by forking early, which moving the process after its start could
  not promise.
* :meth:`BotCgroup.close` kills what is left (``cgroup.kill``, or a ``SIGKILL`` to each
  pid where the kernel is older than 5.14) and removes the directory. The cgroups of an
  arena killed before it could do that are swept away by the next arena
  (:meth:`CgroupParent.sweep`).
  :meth:`BotCgroup.limit_hit` reads ``memory.events`` and ``pids.events`` afterwards to say
  which limit stopped the bot.

Nothing here raises for a missing or read-only cgroup file system: the probe says so and
the arena runs without cgroup limits.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ARENA_CGROUP_NAME",
    "REQUIRED_CONTROLLERS",
    "BotCgroup",
    "CgroupError",
    "CgroupParent",
    "CgroupSupport",
    "cgroup2_mount_point",
    "join_command",
    "own_cgroup",
    "probe_cgroups",
]

#: The directory, beside the arena's own cgroup, that holds one cgroup per bot.
ARENA_CGROUP_NAME = "poker-arena"

#: The controllers a bot cgroup needs.
REQUIRED_CONTROLLERS = ("memory", "pids")

_REMOVE_WAIT_S = 2.0  # how long close() waits for the killed processes to leave
_POLL_INTERVAL_S = 0.01


class CgroupError(OSError):
    """A bot cgroup could not be made, set up or removed; the message names the file."""

    code = "cgroup_failed"


@dataclass(frozen=True, slots=True)
class CgroupSupport:
    """What :func:`probe_cgroups` found: where bot cgroups go, or why there are none.

    >>> CgroupSupport(None, "no cgroup v2 file system is mounted").is_available
    False
    """

    parent: CgroupParent | None
    reason: str

    @property
    def is_available(self) -> bool:
        """Whether bots can get a cgroup of their own here."""
        return self.parent is not None


def cgroup2_mount_point(mountinfo: str) -> Path | None:
    """The first cgroup v2 mount point listed in ``/proc/self/mountinfo`` text, if any.

    >>> cgroup2_mount_point("41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw")
    PosixPath('/sys/fs/cgroup/unified')
    >>> cgroup2_mount_point("22 1 0:20 / /sys/fs/cgroup/memory rw - cgroup cgroup rw") is None
    True
    """
    for line in mountinfo.splitlines():
        fields, separator, rest = line.partition(" - ")
        parts = fields.split()
        if separator and len(parts) >= 5 and rest.split()[:1] == ["cgroup2"]:
            # The kernel writes a space in a path as \040.
            return Path(parts[4].replace("\\040", " "))
    return None


def own_cgroup(proc_cgroup: str) -> str | None:
    """The cgroup v2 path in ``/proc/self/cgroup`` text (its ``0::`` line), if any.

    >>> own_cgroup("4:memory:/a\\n0::/user.slice/session-1.scope\\n")
    '/user.slice/session-1.scope'
    """
    for line in proc_cgroup.splitlines():
        if line.startswith("0::"):
            return line[3:] or "/"
    return None


def _controllers(directory: Path) -> set[str]:
    try:
        return set((directory / "cgroup.controllers").read_text().split())
    except OSError:
        return set()


def _subtree_control(directory: Path) -> set[str]:
    try:
        return set((directory / "cgroup.subtree_control").read_text().split())
    except OSError:
        return set()


def probe_cgroups(
    *,
    mountinfo: Path = Path("/proc/self/mountinfo"),
    proc_cgroup: Path = Path("/proc/self/cgroup"),
) -> CgroupSupport:
    """Find where bot cgroups can go, reading only; the reason says why not otherwise."""
    try:
        mount = cgroup2_mount_point(mountinfo.read_text())
        own = own_cgroup(proc_cgroup.read_text())
    except OSError as exc:
        return CgroupSupport(None, f"cannot read {exc.filename}: {exc.strerror}")
    if mount is None:
        return CgroupSupport(None, "no cgroup v2 file system is mounted")
    if own is None:
        return CgroupSupport(None, f"the arena is in no cgroup of {mount} (see /proc/self/cgroup)")
    relative = Path(own).parent if own != "/" else Path("/")
    container = mount / relative.relative_to("/")
    if not container.is_dir():
        return CgroupSupport(None, f"{container} is not visible (another cgroup namespace)")
    available = _controllers(container)
    missing = [name for name in REQUIRED_CONTROLLERS if name not in available]
    if missing:
        offered = ", ".join(sorted(available)) or "none"
        return CgroupSupport(
            None,
            f"cgroup v2 at {container} offers no {' and '.join(missing)} controller "
            f"(offered: {offered}; on a hybrid system they belong to cgroup v1)",
        )
    # Below the top, the container must already hand the controllers to its children:
    # turning them on there fails while it holds processes of its own.
    handed_down = _subtree_control(container)
    if container != mount and not set(REQUIRED_CONTROLLERS) <= handed_down:
        return CgroupSupport(
            None,
            f"{container} does not delegate the memory and pids controllers "
            f"(cgroup.subtree_control: {' '.join(sorted(handed_down)) or 'empty'})",
        )
    target = container / ARENA_CGROUP_NAME
    writable = target if target.is_dir() else container
    if not os.access(writable, os.W_OK):
        return CgroupSupport(None, f"{writable} is not writable by uid {os.geteuid()}")
    return CgroupSupport(CgroupParent(target), f"one cgroup per bot under {target}")


@dataclass(frozen=True, slots=True)
class CgroupParent:
    """The ``poker-arena`` directory that holds the bots' cgroups."""

    path: Path

    def create_bot(
        self, *, memory_bytes: int | None, processes: int | None, label: str = "bot"
    ) -> BotCgroup:
        """A new cgroup with ``memory.max`` and ``pids.max`` set (None: no limit).

        Raises :class:`CgroupError` naming the file that could not be written.
        """
        self._ensure()
        path = self.path / f"{label}-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
        except OSError as exc:
            raise CgroupError(f"cannot create the cgroup {path}: {exc.strerror}") from exc
        cgroup = BotCgroup(path)
        try:
            _write(path / "memory.max", "max" if memory_bytes is None else str(memory_bytes))
            _write(path / "pids.max", "max" if processes is None else str(processes))
            # Older kernels lack these two; the limits above still hold without them.
            if (path / "memory.swap.max").exists():
                _write(path / "memory.swap.max", "0")
            if (path / "memory.oom.group").exists():
                _write(path / "memory.oom.group", "1")
        except CgroupError:
            cgroup.close()
            raise
        return cgroup

    def _ensure(self) -> None:
        """Create the directory, with the memory and pids controllers for its children."""
        _hand_down(self.path.parent)
        try:
            self.path.mkdir(exist_ok=True)
        except OSError as exc:
            raise CgroupError(f"cannot create the cgroup {self.path}: {exc.strerror}") from exc
        _hand_down(self.path)
        self.sweep()

    def sweep(self) -> None:
        """Remove the empty cgroups of arenas that are gone (killed before they could
        remove their own); those of a running arena, or holding a process, stay."""
        with contextlib.suppress(OSError):
            for entry in self.path.iterdir():
                owner = _owner_pid(entry.name)
                if owner is None or not entry.is_dir() or _is_running(owner):
                    continue
                with contextlib.suppress(OSError):
                    entry.rmdir()  # refused while a process is still inside


@dataclass(frozen=True, slots=True)
class BotCgroup:
    """One bot's cgroup directory."""

    path: Path

    @property
    def procs_file(self) -> Path:
        """Writing a pid here moves that process (and its future children) in."""
        return self.path / "cgroup.procs"

    def pids(self) -> list[int]:
        """The processes in the cgroup now (empty once it is gone)."""
        try:
            return [int(pid) for pid in self.procs_file.read_text().split()]
        except (OSError, ValueError):
            return []

    def limit_hit(self) -> str | None:
        """``"memory_limit"`` when the OOM killer ended a process here, ``"process_limit"``
        when a ``fork`` was refused at ``pids.max``, else None."""
        if _event_count(self.path / "memory.events", "oom_kill") > 0:
            return "memory_limit"
        if _event_count(self.path / "pids.events", "max") > 0:
            return "process_limit"
        return None

    def kill(self) -> None:
        """SIGKILL every process in the cgroup."""
        kill_file = self.path / "cgroup.kill"
        if kill_file.exists():
            with contextlib.suppress(OSError):
                _write(kill_file, "1")
                return
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def close(self) -> None:
        """Kill what is left and remove the directory (a missing one is fine)."""
        deadline = time.monotonic() + _REMOVE_WAIT_S
        while True:
            self.kill()
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                # EBUSY until the killed processes have left; give them a moment.
                if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY) or (
                    time.monotonic() >= deadline
                ):
                    raise CgroupError(
                        f"cannot remove the cgroup {self.path}: {exc.strerror}"
                    ) from exc
            time.sleep(_POLL_INTERVAL_S)


def join_command(cgroup: BotCgroup, argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` behind a ``sh`` that first moves itself into ``cgroup``, then execs it.

    >>> join_command(BotCgroup(Path("/cg/bot-1")), ("bwrap", "true"))[3:]
    ('/cg/bot-1/cgroup.procs', 'bwrap', 'true')
    """
    # $0 is the procs file, "$@" the command: no quoting of either is needed.
    return ("/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(cgroup.procs_file), *argv)


def _owner_pid(name: str) -> int | None:
    """The arena's pid in a bot cgroup's name ``<label>-<pid>-<random>``.

    >>> _owner_pid("bot-4242-0a1b2c3d"), _owner_pid("something-else")
    (4242, None)
    """
    parts = name.rsplit("-", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    return int(parts[1])


def _is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, as another user's process
    return True


def _hand_down(directory: Path) -> None:
    """Enable the required controllers in ``directory``'s children (where not yet on)."""
    wanted = [name for name in REQUIRED_CONTROLLERS if name not in _subtree_control(directory)]
    if wanted:
        _write(directory / "cgroup.subtree_control", " ".join(f"+{name}" for name in wanted))


def _write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError as exc:
        raise CgroupError(f"cannot write {value!r} to {path}: {exc.strerror or exc}") from exc


def _event_count(path: Path, key: str) -> int:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return 0
    for line in lines:
        name, _, count = line.partition(" ")
        if name == key and count.strip().isdigit():
            return int(count)
    return 0
