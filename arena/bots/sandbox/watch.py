"""Watching each bot's process tree from one background thread: :class:`TreeWatch`.

A few times a second the thread reads, for every watched bot, its tree in ``/proc``: the
process the arena started and every process below it. It sums their resident memory and
CPU time (the time of children already reaped included) and counts them. When a sum
crosses the bot's :class:`~arena.bots.sandbox.resources.ResourceLimits`, or the bot's own
check says a limit was hit (its cgroup's counters: the kernel refused a fork, or its OOM
killer ended a process), it kills the tree
(everything below the root first, again until nothing is left, then the root) and tells
the bot's owner why with a :class:`LimitBreach`.

The thread never touches the bot's pipes, so watching costs the match loop nothing per
message; the transport looks at the breach only when it reports a closed bot. The thread
runs while something is watched and ends when nothing is.

>>> resources = ResourceLimits(100, 10, 5, 1, 1, 1)
>>> breach_of(TreeUsage(memory_bytes=200, cpu_seconds=1.0, process_count=2), resources).reason
<LimitReason.MEMORY: 'memory_limit'>
>>> breach_of(TreeUsage(memory_bytes=50, cpu_seconds=1.0, process_count=5), resources) is None
True
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.bots.sandbox.resources import LimitReason, ResourceLimits, format_size

__all__ = [
    "DEFAULT_INTERVAL_S",
    "LimitBreach",
    "TreeUsage",
    "TreeWatch",
    "Watched",
    "breach_of",
    "is_own_child",
    "kill_tree",
    "read_tree",
    "shared_watch",
]

#: How often the thread looks at every tree.
DEFAULT_INTERVAL_S = 0.2

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
_KILL_ROUNDS = 50  # rescans while killing a tree that keeps forking
_KILL_PAUSE_S = 0.002


@dataclass(frozen=True, slots=True)
class TreeUsage:
    """What a bot's process tree uses now."""

    memory_bytes: int  # resident memory, summed over the processes
    cpu_seconds: float  # user and system time, reaped children included
    process_count: int


@dataclass(frozen=True, slots=True)
class LimitBreach:
    """A limit a bot crossed: the fault code and what was measured.

    >>> LimitBreach(LimitReason.PROCESSES, "72 processes, over the limit of 64").describe()
    'process_limit: 72 processes, over the limit of 64'
    """

    reason: LimitReason
    detail: str

    def describe(self) -> str:
        """``'<code>: <detail>'``."""
        return f"{self.reason}: {self.detail}"


def breach_of(usage: TreeUsage, resources: ResourceLimits) -> LimitBreach | None:
    """The first limit ``usage`` is over (processes, memory, CPU), or None."""
    if usage.process_count > resources.processes:
        return LimitBreach(
            LimitReason.PROCESSES,
            f"{usage.process_count} processes, over the limit of {resources.processes}",
        )
    if usage.memory_bytes > resources.memory_bytes:
        return LimitBreach(
            LimitReason.MEMORY,
            f"resident memory {usage.memory_bytes // (1024 * 1024)} MiB, over the limit of "
            f"{format_size(resources.memory_bytes)}",
        )
    if usage.cpu_seconds > resources.cpu_seconds:
        return LimitBreach(
            LimitReason.CPU,
            f"{usage.cpu_seconds:.1f} s of CPU time, over the limit of {resources.cpu_seconds} s",
        )
    return None


def read_tree(root: int, proc: str = "/proc") -> tuple[list[int], TreeUsage]:
    """The pids of ``root``'s tree (``root`` first) and what the tree uses.

    Children are found through ``/proc/<pid>/task/<tid>/children``, so only the tree's
    own processes are read. An empty tree when ``root`` is gone.
    """
    pids: list[int] = []
    memory_pages = 0
    cpu_ticks = 0
    waiting = [root]
    while waiting:
        pid = waiting.pop()
        try:
            with open(f"{proc}/{pid}/stat", "rb") as file:
                stat = file.read()
            tasks = os.listdir(f"{proc}/{pid}/task")
        except OSError:  # gone meanwhile
            continue
        # The name in parentheses may hold anything: the fields start after the last ")".
        fields = stat[stat.rfind(b")") + 2 :].split()
        pids.append(pid)
        # utime, stime, cutime, cstime are fields 14 to 17 of stat, rss field 24.
        cpu_ticks += sum(int(value) for value in fields[11:15])
        memory_pages += max(0, int(fields[21]))
        for task in tasks:
            path = f"{proc}/{pid}/task/{task}/children"
            with contextlib.suppress(OSError), open(path, "rb") as file:
                waiting.extend(int(child) for child in file.read().split())
    usage = TreeUsage(
        memory_bytes=memory_pages * _PAGE_BYTES,
        cpu_seconds=cpu_ticks / _CLOCK_TICKS,
        process_count=len(pids),
    )
    return pids, usage


def kill_tree(root: int, proc: str = "/proc") -> None:
    """SIGKILL everything below ``root`` until nothing is left (or rounds run out), then
    ``root``: while the root lives, what a dying process leaves behind stays in the tree.

    Only a child of this process (a bot the arena started) is a root this kills from:
    anything else is left alone, so a wrong pid can never take down unrelated processes.
    """
    if not is_own_child(root, proc):
        return
    for _ in range(_KILL_ROUNDS):
        pids, _ = read_tree(root, proc)
        below = pids[1:]
        if not below:
            break
        for pid in below:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(_KILL_PAUSE_S)
    with contextlib.suppress(OSError):
        os.kill(root, signal.SIGKILL)


def is_own_child(pid: int, proc: str = "/proc") -> bool:
    """True when ``pid`` is a child of this process (even one that has exited)."""
    try:
        with open(f"{proc}/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return False
    fields = stat[stat.rfind(b")") + 2 :].split()
    return len(fields) > 1 and int(fields[1]) == os.getpid()


class Watched:
    """One watched tree; :meth:`cancel` stops watching it."""

    def __init__(
        self,
        watch: TreeWatch,
        pid: int,
        resources: ResourceLimits,
        on_breach: Callable[[LimitBreach], None],
        check: Callable[[], LimitBreach | None] | None = None,
    ) -> None:
        self.pid = pid
        self.resources = resources
        self.on_breach = on_breach
        self.check = check
        self.breach: LimitBreach | None = None
        self._watch = watch

    def cancel(self) -> None:
        """Stop watching; once this returns, the watch does nothing more to the tree."""
        self._watch.forget(self)


class TreeWatch:
    """Watches process trees against their limits from one thread (see the module)."""

    def __init__(
        self,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        reader: Callable[[int], tuple[list[int], TreeUsage]] = read_tree,
        killer: Callable[[int], None] = kill_tree,
    ) -> None:
        self.interval_s = interval_s
        self._reader = reader
        self._killer = killer
        self._lock = threading.Lock()
        self._watched: list[Watched] = []
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()

    def watch(
        self,
        pid: int,
        resources: ResourceLimits,
        on_breach: Callable[[LimitBreach], None],
        *,
        check: Callable[[], LimitBreach | None] | None = None,
    ) -> Watched:
        """Watch the tree of ``pid``; ``on_breach`` is called (from the watch's thread,
        which holds the watch's lock: it must not call :meth:`forget`) when the tree
        crossed ``resources`` or ``check`` found a breach, just before the tree is killed."""
        watched = Watched(self, pid, resources, on_breach, check)
        with self._lock:
            self._watched.append(watched)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="tree-watch", daemon=True)
                self._thread.start()
        return watched

    def forget(self, watched: Watched) -> None:
        """Stop watching ``watched`` (waits for a check of it under way)."""
        with self._lock:
            if watched in self._watched:
                self._watched.remove(watched)
        if not self._watched:
            self._wake.set()

    @property
    def watched_count(self) -> int:
        """How many trees are watched."""
        return len(self._watched)

    @property
    def is_running(self) -> bool:
        """True while the watch's thread runs."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def check_now(self) -> None:
        """Look at every tree once (the thread does this every ``interval_s``)."""
        with self._lock:
            for watched in self._watched:
                if watched.breach is None:
                    self._check(watched)

    def _check(self, watched: Watched) -> None:
        _, usage = self._reader(watched.pid)
        breach = breach_of(usage, watched.resources) if usage.process_count else None
        if breach is None and watched.check is not None:
            breach = watched.check()
        if breach is None:
            return
        # Told first: whoever sees the bot die must also see why.
        watched.breach = breach
        watched.on_breach(breach)
        self._killer(watched.pid)

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._watched:
                    self._thread = None
                    self._wake.clear()
                    return
            self.check_now()
            self._wake.wait(self.interval_s)
            self._wake.clear()


_shared: TreeWatch | None = None
_shared_lock = threading.Lock()


def shared_watch() -> TreeWatch:
    """The one watch of this process, which every sandboxed bot uses."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = TreeWatch()
        return _shared
