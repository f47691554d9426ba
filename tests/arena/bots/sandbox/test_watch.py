"""The tree watch: what counts as over a limit, one check per tree, the thread's life."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from arena.bots.sandbox.resources import LimitReason, ResourceLimits
from arena.bots.sandbox.watch import (
    LimitBreach,
    TreeUsage,
    TreeWatch,
    breach_of,
    is_own_child,
    kill_tree,
    read_tree,
)

RESOURCES = ResourceLimits(
    memory_bytes=100 * 1024**2,
    cpu_seconds=10,
    processes=5,
    file_size_bytes=1,
    open_files=1,
    tmp_bytes=1,
)
MIB = 1024**2
DEADLINE_S = 10.0


@pytest.mark.parametrize(
    ("usage", "reason"),
    [
        (TreeUsage(10 * MIB, 1.0, 5), None),  # at a limit is not over it
        (TreeUsage(100 * MIB, 10.0, 5), None),
        (TreeUsage(10 * MIB, 1.0, 6), LimitReason.PROCESSES),
        (TreeUsage(101 * MIB, 1.0, 1), LimitReason.MEMORY),
        (TreeUsage(10 * MIB, 10.5, 1), LimitReason.CPU),
        (TreeUsage(500 * MIB, 99.0, 99), LimitReason.PROCESSES),  # the count first
    ],
)
def test_a_tree_is_over_a_limit_only_past_it(usage: TreeUsage, reason: LimitReason | None) -> None:
    breach = breach_of(usage, RESOURCES)
    assert (breach and breach.reason) == reason


def test_a_breach_says_what_was_measured() -> None:
    breach = breach_of(TreeUsage(300 * MIB, 1.0, 1), RESOURCES)
    assert breach is not None
    assert breach.describe() == "memory_limit: resident memory 300 MiB, over the limit of 100 MiB"
    cpu = breach_of(TreeUsage(0, 12.25, 1), RESOURCES)
    assert cpu is not None and cpu.detail == "12.2 s of CPU time, over the limit of 10 s"


class FakeTrees:
    """Usage by pid, set by the test; kills are recorded."""

    def __init__(self) -> None:
        self.usage: dict[int, TreeUsage] = {}
        self.killed: list[int] = []

    def read(self, pid: int) -> tuple[list[int], TreeUsage]:
        usage = self.usage.get(pid, TreeUsage(0, 0.0, 0))
        return [pid] if usage.process_count else [], usage

    def kill(self, pid: int) -> None:
        self.killed.append(pid)


def test_a_tree_over_its_limit_is_killed_once_and_its_owner_told() -> None:
    trees = FakeTrees()
    watch = TreeWatch(interval_s=3600, reader=trees.read, killer=trees.kill)
    told: list[LimitBreach] = []
    trees.usage = {1: TreeUsage(MIB, 0.0, 1), 2: TreeUsage(MIB, 0.0, 1)}
    first = watch.watch(1, RESOURCES, told.append)
    second = watch.watch(2, RESOURCES, told.append)
    try:
        watch.check_now()
        assert trees.killed == [] and told == []
        trees.usage[2] = TreeUsage(MIB, 0.0, 9)
        watch.check_now()
        watch.check_now()  # once killed, a tree is not looked at again
        assert trees.killed == [2]
        assert [breach.reason for breach in told] == [LimitReason.PROCESSES]
        assert second.breach is told[0] and first.breach is None
    finally:
        first.cancel()
        second.cancel()
    assert watch.watched_count == 0


def test_a_gone_tree_is_not_a_breach() -> None:
    trees = FakeTrees()
    watch = TreeWatch(interval_s=3600, reader=trees.read, killer=trees.kill)
    watched = watch.watch(7, ResourceLimits(1, 1, 1, 1, 1, 1), lambda _breach: None)
    watch.check_now()
    watched.cancel()
    assert trees.killed == []


def test_the_thread_runs_while_something_is_watched() -> None:
    trees = FakeTrees()
    watch = TreeWatch(interval_s=0.01, reader=trees.read, killer=trees.kill)
    assert not watch.is_running
    watched = watch.watch(1, RESOURCES, lambda _breach: None)
    assert watch.is_running
    watched.cancel()
    deadline = time.monotonic() + DEADLINE_S
    while watch.is_running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not watch.is_running
    again = watch.watch(1, RESOURCES, lambda _breach: None)  # and starts again when needed
    assert watch.is_running
    again.cancel()


def _spawn_tree() -> subprocess.Popen[bytes]:
    """A process with a child, both sleeping; it says ``up`` once both run."""
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "print('up', flush=True)\n"
        "time.sleep(30)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert process.stdout is not None and process.stdout.readline() == b"up\n"
    return process


def test_read_tree_counts_the_processes_and_sums_their_memory() -> None:
    process = _spawn_tree()
    try:
        pids, usage = read_tree(process.pid)
        assert pids[0] == process.pid and len(pids) == 2
        assert usage.process_count == 2
        assert 4 * MIB < usage.memory_bytes < 500 * MIB  # two small interpreters
        assert usage.cpu_seconds >= 0.0
    finally:
        kill_tree(process.pid)
        process.wait()
        if process.stdout:
            process.stdout.close()
    assert read_tree(process.pid) == ([], TreeUsage(0, 0.0, 0))


def test_kill_tree_leaves_what_is_not_a_child_of_this_process_alone() -> None:
    process = _spawn_tree()
    try:
        child = read_tree(process.pid)[0][1]
        assert is_own_child(process.pid) and not is_own_child(child)
        assert not is_own_child(1) and not is_own_child(2**22 + 1)
        kill_tree(child)  # a grandchild of the test: not a root kill_tree accepts
        assert _is_running(child)
    finally:
        kill_tree(process.pid)
        process.wait()
        if process.stdout:
            process.stdout.close()


def test_kill_tree_kills_the_children_and_then_the_root() -> None:
    process = _spawn_tree()
    child = read_tree(process.pid)[0][1]
    kill_tree(process.pid)
    assert process.wait(timeout=DEADLINE_S) == -signal.SIGKILL
    if process.stdout:
        process.stdout.close()
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline and _is_running(child):
        time.sleep(0.01)
    assert not _is_running(child)


def _is_running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().split(b")")[-1].split()[0] != b"Z"
    except OSError:
        return False
