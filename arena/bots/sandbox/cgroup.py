"""A cgroup of its own for each bot: the kernel caps its memory, its tasks and its CPU share.

Resource limits (``setrlimit``) are per process: a bot that forks multiplies its address
space allowance, and ``RLIMIT_NPROC`` counts per user. A cgroup counts the whole bot, its
children included, and the kernel enforces it at once, where a watch that polls is always
a little late: past the memory limit the OOM killer ends the bot, past the task limit a
``fork`` (or a new thread) fails, and past its CPU share the bot waits for the next period
while the other bots run. Swap is off for the bot, so that a hog cannot hide in it.

Both cgroup versions are served, with the same directory names; which file of each
version holds what is the table of docs/sandbox.md ("Cgroups: v2, v1 and hybrid machines").

Theory of operation:

* :func:`arena.bots.sandbox.cgroup_probe.probe_cgroups` finds where bot cgroups can go
  (a :class:`CgroupParent`: the ``poker-arena`` directory of each controller) or says why
  none can;
* :meth:`CgroupParent.create_bot` makes ``poker-arena/bot-<pid>-<random>`` (in each
  controller's tree, for v1) with the limits. The bot joins it before it runs a single
  instruction of its own: the launcher puts a tiny ``sh`` in front of its command that
  writes its own pid to every ``cgroup.procs`` and then ``exec``\\ s the rest
  (:func:`join_command`). Everything the bot starts is born inside, so nothing can escape
  by forking early, which moving the process after its start could not promise;
* :meth:`BotCgroup.close` kills what is left and removes the directories. The cgroups of
  an arena killed before it could do that are swept away by the next arena
  (:meth:`CgroupParent.sweep`). :meth:`BotCgroup.limit_hit` says afterwards which limit
  stopped the bot, :meth:`BotCgroup.peak_memory_bytes` how much it held at most and
  :meth:`BotCgroup.cpu_seconds` how much CPU time it used.

``pids.max`` counts tasks: threads as well as processes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ARENA_CGROUP_NAME",
    "CPU_PERIOD_US",
    "JOIN_FAILED_EXIT_CODE",
    "REQUIRED_CONTROLLERS",
    "BotCgroup",
    "CgroupError",
    "CgroupParent",
    "join_command",
]

#: The directory, beside the arena's own cgroup, that holds one cgroup per bot.
ARENA_CGROUP_NAME = "poker-arena"

#: The controllers a bot cgroup needs (``cpu``, and ``cpuacct`` in v1, are used if there).
REQUIRED_CONTROLLERS = ("memory", "pids")

#: The CPU period of a share: a bot of 100 % runs at most this long per period, summed
#: over its threads (100 ms, the kernel's default).
CPU_PERIOD_US = 100_000

#: The exit code of the join step when a ``cgroup.procs`` cannot be written.
JOIN_FAILED_EXIT_CODE = 125

_REMOVE_WAIT_S = 2.0  # how long close() waits for the killed processes to leave
_POLL_INTERVAL_S = 0.01
_JOIN_NAME = "arena-cgroup"  # $0 of the join step: names it in the shell's errors
# Writes $$ to each file up to "--", then execs what follows.
_JOIN_SCRIPT = (
    'for f do [ "$f" = -- ] && break; '
    f'echo $$ > "$f" || exit {JOIN_FAILED_EXIT_CODE}; shift; done; shift; exec "$@"'
)


class CgroupError(OSError):
    """A bot cgroup could not be made, set up or removed; the message names the file."""

    code = "cgroup_failed"


@dataclass(frozen=True, slots=True)
class CgroupParent:
    """Where the bots' cgroups go: cgroup ``version`` 1 or 2, and each controller's
    ``poker-arena`` directory (all the same one in v2)."""

    version: int
    paths: tuple[tuple[str, Path], ...]

    @classmethod
    def unified(cls, path: Path, controllers: Iterable[str] = ("memory", "pids")) -> CgroupParent:
        """A cgroup v2 parent: one directory for every controller.

        >>> CgroupParent.unified(Path("/cg/poker-arena")).controllers
        ('memory', 'pids')
        """
        return cls(2, tuple((name, path) for name in controllers))

    @property
    def controllers(self) -> tuple[str, ...]:
        """The controllers the bots' cgroups use."""
        return tuple(name for name, _ in self.paths)

    @property
    def directories(self) -> tuple[Path, ...]:
        """Each directory once."""
        return tuple(dict.fromkeys(path for _, path in self.paths))

    def describe(self) -> str:
        """``'cgroup v1 (memory, pids, cpu)'``: the mechanism, for people."""
        shown = [name for name in self.controllers if name != "cpuacct"]
        return f"cgroup v{self.version} ({', '.join(shown)})"

    def create_bot(
        self,
        *,
        memory_bytes: int | None,
        processes: int | None,
        cpu_percent: int | None = None,
        label: str = "bot",
    ) -> BotCgroup:
        """A new cgroup with the limits set (None: no limit; ``cpu_percent`` 100 is one
        core, and is left out where there is no ``cpu`` controller).

        Raises :class:`CgroupError` naming the file that could not be written.
        """
        name = f"{label}-{os.getpid()}-{secrets.token_hex(4)}"
        cgroup = BotCgroup(self.version, tuple((key, path / name) for key, path in self.paths))
        try:
            for directory in self.directories:
                self._ensure(directory)
                try:
                    (directory / name).mkdir()
                except OSError as exc:
                    raise CgroupError(
                        f"cannot create the cgroup {directory / name}: {exc.strerror}"
                    ) from exc
            cgroup.configure(memory_bytes, processes, cpu_percent)
        except CgroupError:
            with contextlib.suppress(CgroupError):
                cgroup.close()
            raise
        return cgroup

    def _ensure(self, directory: Path) -> None:
        """Create ``directory`` (with the controllers for its children, in v2)."""
        wanted = [name for name, path in self.paths if path == directory]
        if self.version == 2:
            _hand_down(directory.parent, wanted)
        try:
            directory.mkdir(exist_ok=True)
        except OSError as exc:
            raise CgroupError(f"cannot create the cgroup {directory}: {exc.strerror}") from exc
        if self.version == 2:
            _hand_down(directory, wanted)
        if "cpu" in wanted:
            _weigh(directory, self.version)
        self._sweep(directory)

    def sweep(self) -> None:
        """Remove the empty cgroups of arenas that are gone (killed before they could
        remove their own); those of a running arena, or holding a process, stay."""
        for directory in self.directories:
            self._sweep(directory)

    @staticmethod
    def _sweep(directory: Path) -> None:
        with contextlib.suppress(OSError):
            for entry in directory.iterdir():
                owner = _owner_pid(entry.name)
                if owner is None or not entry.is_dir() or is_running(owner):
                    continue
                with contextlib.suppress(OSError):
                    entry.rmdir()  # refused while a process is still inside


@dataclass(frozen=True, slots=True)
class BotCgroup:
    """One bot's cgroup: its directory in each controller's tree (one directory in v2)."""

    version: int
    paths: tuple[tuple[str, Path], ...]

    @classmethod
    def unified(cls, path: Path) -> BotCgroup:
        """A cgroup v2 bot cgroup at ``path``."""
        return cls(2, (("memory", path), ("pids", path)))

    @property
    def directories(self) -> tuple[Path, ...]:
        """Each directory once."""
        return tuple(dict.fromkeys(path for _, path in self.paths))

    @property
    def procs_files(self) -> tuple[Path, ...]:
        """Writing a pid to each moves that process (and its future children) in."""
        return tuple(path / "cgroup.procs" for path in self.directories)

    def directory(self, controller: str) -> Path | None:
        """The directory of ``controller`` (None: the cgroup does not use it)."""
        return next((path for name, path in self.paths if name == controller), None)

    def configure(
        self, memory_bytes: int | None, processes: int | None, cpu_percent: int | None
    ) -> None:
        """Write the limits (the files: docs/sandbox.md); raise :class:`CgroupError`."""
        memory = self.directory("memory")
        pids = self.directory("pids")
        cpu = self.directory("cpu")
        if pids is not None:
            _write(pids / "pids.max", "max" if processes is None else str(processes))
        if memory is not None and self.version == 2:
            _write(memory / "memory.max", "max" if memory_bytes is None else str(memory_bytes))
            # Older kernels lack these two; the limit above still holds without them.
            _write_if_there(memory / "memory.swap.max", "0")
            _write_if_there(memory / "memory.oom.group", "1")
        elif memory is not None:
            # -1 is "no limit" in v1; memory+swap may not be set below memory alone.
            _write(memory / "memory.limit_in_bytes", str(memory_bytes or -1))
            if not _write_if_there(memory / "memory.memsw.limit_in_bytes", str(memory_bytes or -1)):
                _write(memory / "memory.swappiness", "0")
        if cpu is not None and cpu_percent is not None:
            quota = max(1000, cpu_percent * CPU_PERIOD_US // 100)
            if self.version == 2:
                _write(cpu / "cpu.max", f"{quota} {CPU_PERIOD_US}")
            else:
                _write(cpu / "cpu.cfs_period_us", str(CPU_PERIOD_US))
                _write(cpu / "cpu.cfs_quota_us", str(quota))

    def pids(self) -> list[int]:
        """The processes in the cgroup now (empty once it is gone)."""
        found: set[int] = set()
        for procs in self.procs_files:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(pid) for pid in procs.read_text().split())
        return sorted(found)

    def limit_hit(self) -> str | None:
        """``"memory_limit"`` when the OOM killer ended a process here, ``"process_limit"``
        when a ``fork`` was refused at ``pids.max``, else None."""
        memory, pids = self.directory("memory"), self.directory("pids")
        if memory is not None:
            events = "memory.events" if self.version == 2 else "memory.oom_control"
            if (_counter(memory / events, "oom_kill") or 0) > 0:
                return "memory_limit"
        if pids is not None and (_counter(pids / "pids.events", "max") or 0) > 0:
            return "process_limit"
        return None

    def peak_memory_bytes(self) -> int | None:
        """The most memory the cgroup held at once (None where the kernel does not say)."""
        memory = self.directory("memory")
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        return None if memory is None else _number(memory / name)

    def peak_tasks(self) -> int | None:
        """The most tasks the cgroup held at once (``pids.peak``; None where the kernel
        does not say)."""
        pids = self.directory("pids")
        return None if pids is None else _number(pids / "pids.peak")

    def cpu_seconds(self) -> float | None:
        """CPU time used by every task that ran in the cgroup (None where not counted)."""
        if self.version == 2:
            memory = self.directory("memory")
            usage = None if memory is None else _counter(memory / "cpu.stat", "usage_usec")
            return None if usage is None else usage / 1e6
        accounting = self.directory("cpuacct")
        nanoseconds = None if accounting is None else _number(accounting / "cpuacct.usage")
        return None if nanoseconds is None else nanoseconds / 1e9

    def kill(self) -> None:
        """SIGKILL every process in the cgroup."""
        if self.version == 2:
            for directory in self.directories:
                with contextlib.suppress(OSError):
                    if (directory / "cgroup.kill").exists():
                        _write(directory / "cgroup.kill", "1")
                        return
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def close(self) -> None:
        """Kill what is left and remove the directories (a missing one is fine)."""
        deadline = time.monotonic() + _REMOVE_WAIT_S
        left = list(self.directories)
        while left:
            self.kill()
            for directory in list(left):
                try:
                    directory.rmdir()
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    # EBUSY until the killed processes have left; give them a moment.
                    if exc.errno != errno.EBUSY or (time.monotonic() >= deadline):
                        raise CgroupError(
                            f"cannot remove the cgroup {directory}: {exc.strerror}"
                        ) from exc
                    continue
                left.remove(directory)
            if left:
                time.sleep(_POLL_INTERVAL_S)


def join_command(cgroup: BotCgroup, argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` behind a ``sh`` that first moves itself into ``cgroup``, then execs it.

    >>> join_command(BotCgroup.unified(Path("/cg/bot-1")), ("bwrap", "true"))[3:]
    ('arena-cgroup', '/cg/bot-1/cgroup.procs', '--', 'bwrap', 'true')
    """
    files = tuple(str(path) for path in cgroup.procs_files)
    return ("/bin/sh", "-c", _JOIN_SCRIPT, _JOIN_NAME, *files, "--", *argv)


def is_running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (a zombie has ended: only its
    exit status waits to be collected, which a killed arena's never will be).

    >>> is_running(os.getpid())
    True
    """
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, as another user's process
    return not is_zombie(pid)


def is_zombie(pid: int, proc: str = "/proc") -> bool:
    """True when ``pid`` has ended and waits to be reaped (state ``Z`` or ``X``)."""
    try:
        with open(f"{proc}/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return False
    # The name in parentheses may hold anything: the state follows the last ")".
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] in (b"Z", b"X")


def _owner_pid(name: str) -> int | None:
    """The arena's pid in a bot cgroup's name ``<label>-<pid>-<random>``.

    >>> _owner_pid("bot-4242-0a1b2c3d"), _owner_pid("something-else")
    (4242, None)
    """
    parts = name.rsplit("-", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    return int(parts[1])


def _subtree_control(directory: Path) -> set[str]:
    try:
        return set((directory / "cgroup.subtree_control").read_text().split())
    except OSError:
        return set()


def _hand_down(directory: Path, controllers: Iterable[str]) -> None:
    """Enable ``controllers`` in ``directory``'s children (where not yet on)."""
    on = _subtree_control(directory)
    wanted = [name for name in controllers if name not in on]
    if wanted:
        _write(directory / "cgroup.subtree_control", " ".join(f"+{name}" for name in wanted))


def _weigh(directory: Path, version: int) -> None:
    """Give the bots' directory the CPU weight of one busy task per core.

    The scheduler shares the CPU between sibling cgroups by weight, and between the tasks
    of a cgroup and its child cgroups alike: with the default weight, every bot of the
    machine together would weigh as much as one other busy process, and a loaded machine
    would crowd them all out. A bot's own share stays capped by its quota."""
    cores = os.cpu_count() or 1
    name, value = (
        ("cpu.weight", min(100 * cores, 10_000))
        if version == 2
        else (
            "cpu.shares",
            min(1024 * cores, 262_144),
        )
    )
    with contextlib.suppress(CgroupError):  # a weight is a courtesy, not a limit
        _write_if_there(directory / name, str(value))


def _write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError as exc:
        raise CgroupError(f"cannot write {value!r} to {path}: {exc.strerror or exc}") from exc


def _write_if_there(path: Path, value: str) -> bool:
    """Write ``value`` if the kernel offers ``path``; whether it did."""
    if not path.exists():
        return False
    _write(path, value)
    return True


def _number(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _counter(path: Path, key: str) -> int | None:
    """The number after ``key`` in a file of ``key value`` lines (None: not there)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, count = line.partition(" ")
        if name == key and count.strip().isdigit():
            return int(count)
    return None
