"""The kernel holding a bot to its cgroup's limits, on this machine's real cgroups (v2 or
v1, whichever :func:`probe_cgroups` finds): a memory hog ends at its limit, a fork bomb
never has more tasks alive than ``pids.max``, a spinning bot gets no more than its CPU
share, and nothing is left of a bot's cgroup once it is closed.

Skipped with the probe's reason where no cgroup can be made (not root, no delegation).
Every program here is bounded by its own code (a hog stops at 1 GiB, a bomb at 200
children that sleep 30 s, a spinner at 30 s), runs with small limits, and is killed with
its cgroup in ``finally``.

The CPU share test measures CPU time over a wall interval and asserts only an upper bound
(a share over the interval, plus one period): a loaded machine gives the bot less, never
more, so the test does not depend on the load.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.process import ProcessTransport
from arena.bots.sandbox.cgroup import CPU_PERIOD_US, BotCgroup, CgroupParent, join_command
from arena.bots.sandbox.cgroup_probe import probe_cgroups
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.resources import DEFAULT_RESOURCES
from arena.bots.transport import TransportClosedError
from tests import TEST_BOTS

DEADLINE_S = 20.0
MIB = 1024**2
HELLO = b'{"type":"hello","seq":1}\n'

HOG = """
import time
held = []
while len(held) < 256:  # 1 GiB at most
    held.append(b"x" * (4 << 20))
    time.sleep(0.001)
"""
BOMB = """
import os, sys, time
forked, refused = 0, 0
while refused < 20 and forked < 200:
    try:
        pid = os.fork()
    except OSError:
        refused += 1
        continue
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    forked += 1
print(forked, flush=True)
time.sleep(30)
"""
SPINNERS = """
import os, time
os.fork()  # two processes spinning: two cores' worth without a share
end = time.monotonic() + 30
print("spinning", flush=True)
while time.monotonic() < end:
    pass
"""


@pytest.fixture
def parent() -> CgroupParent:
    found = probe_cgroups()
    if found.parent is None:
        pytest.skip(f"no cgroup can be made here: {found.reason}")
    return found.parent


@pytest.fixture
def made() -> Iterator[list[BotCgroup]]:
    cgroups: list[BotCgroup] = []
    try:
        yield cgroups
    finally:
        for cgroup in cgroups:
            cgroup.close()


def _run_in(cgroup: BotCgroup, code: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        join_command(cgroup, (sys.executable, "-c", code)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def test_the_kernel_ends_a_memory_hog_at_its_limit(
    parent: CgroupParent, made: list[BotCgroup]
) -> None:
    limit = 64 * MIB
    cgroup = parent.create_bot(memory_bytes=limit, processes=20)
    made.append(cgroup)
    hog = _run_in(cgroup, HOG)
    try:
        assert hog.wait(timeout=DEADLINE_S) == -9  # the OOM killer, long before 1 GiB
        assert cgroup.limit_hit() == "memory_limit"
        peak = cgroup.peak_memory_bytes()
        if peak is not None:  # memory.peak is kernel 5.19+ in v2
            assert limit // 2 < peak <= limit
    finally:
        hog.kill()
        hog.wait()
        assert hog.stdout is not None
        hog.stdout.close()


def test_a_fork_bomb_never_has_more_tasks_alive_than_pids_max(
    parent: CgroupParent, made: list[BotCgroup]
) -> None:
    cgroup = parent.create_bot(memory_bytes=256 * MIB, processes=10)
    made.append(cgroup)
    bomb = _run_in(cgroup, BOMB)
    try:
        assert bomb.stdout is not None
        forked = int(bomb.stdout.readline())
        # The bomb and its children: never past 10, whatever it tried.
        assert forked + 1 <= 10
        assert len(cgroup.pids()) <= 10
        peak = cgroup.peak_tasks()
        if peak is not None:  # pids.peak: the most ever alive at once (kernel 6.1+)
            assert peak <= 10
        assert cgroup.limit_hit() == "process_limit"
        cgroup.kill()
        assert bomb.wait(timeout=DEADLINE_S) == -9
    finally:
        bomb.kill()
        bomb.wait()
        assert bomb.stdout is not None
        bomb.stdout.close()


def test_a_spinning_bot_is_held_to_its_cpu_share(
    parent: CgroupParent, made: list[BotCgroup]
) -> None:
    if "cpu" not in parent.controllers:
        pytest.skip("no cpu controller for bot cgroups here")
    cgroup = parent.create_bot(memory_bytes=256 * MIB, processes=10, cpu_percent=50)
    made.append(cgroup)
    if cgroup.cpu_seconds() is None:
        pytest.skip("the kernel does not count the cgroup's CPU time here")
    spinners = _run_in(cgroup, SPINNERS)
    try:
        assert spinners.stdout is not None
        spinners.stdout.readline()
        start_cpu, start_wall = cgroup.cpu_seconds() or 0.0, time.monotonic()
        time.sleep(1.0)
        used, wall = (cgroup.cpu_seconds() or 0.0) - start_cpu, time.monotonic() - start_wall
        # Half a core over the interval, plus at most one period's quota at its edge.
        assert used <= 0.5 * wall + CPU_PERIOD_US / 1e6
    finally:
        spinners.kill()
        spinners.wait()
        assert spinners.stdout is not None
        spinners.stdout.close()


# -- through the launcher: what the arena reports, and nothing left -------------------------


def _bot(name: str, *args: str) -> BotManifest:
    manifest = load_manifest(TEST_BOTS / name / "bot.toml")
    return replace(manifest, command=(*manifest.command[:2], *args))


@pytest.fixture
def launcher(parent: CgroupParent) -> Iterator[LimitsLauncher]:
    resources = replace(DEFAULT_RESOURCES, memory_bytes=96 * MIB, processes=12)
    made = LimitsLauncher(resources, cgroups=parent)
    yield made
    made.close()


def test_a_hog_under_the_limits_layer_is_reported_as_stopped_by_the_kernel(
    launcher: LimitsLauncher,
) -> None:
    transport = ProcessTransport.start(_bot("sandbox_hog", "start", "2048"), launcher=launcher)
    cgroup = transport_cgroup(transport)
    try:
        transport.send(HELLO)
        with pytest.raises(TransportClosedError, match="stopped by the sandbox: memory_limit"):
            transport.read_line(time.monotonic() + DEADLINE_S)
    finally:
        info = transport.close(0.0)
    assert info.limit_reason == "memory_limit"
    assert "the kernel's OOM killer ended a process at the memory limit of 96 MiB" in (
        info.limit_detail
    )
    assert not any(path.exists() for path in cgroup.directories)  # removed with the bot


def test_a_fork_bomb_under_the_limits_layer_is_stopped_at_its_tasks(
    launcher: LimitsLauncher,
) -> None:
    transport = ProcessTransport.start(_bot("sandbox_forkbomb", "start", "200"), launcher=launcher)
    cgroup = transport_cgroup(transport)
    try:
        transport.send(HELLO)
        # The kernel refuses the 13th task; the watch sees it counted and stops the bot.
        with pytest.raises(TransportClosedError, match="stopped by the sandbox: process_limit"):
            transport.read_line(time.monotonic() + DEADLINE_S)
        peak = cgroup.peak_tasks()
        assert peak is None or peak <= 12  # never more alive at once, fork bomb or not
    finally:
        info = transport.close(0.0)
    assert info.limit_reason == "process_limit"
    assert "the kernel refused a new process or thread at the limit of 12 tasks" in (
        info.limit_detail
    )
    assert not any(path.exists() for path in cgroup.directories)


def transport_cgroup(transport: ProcessTransport) -> BotCgroup:
    """The cgroup the launcher made for ``transport``'s bot."""
    confinement = transport._confinement
    assert confinement is not None and confinement.cgroup is not None
    return confinement.cgroup
