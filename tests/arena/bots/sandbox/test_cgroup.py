"""Per-bot cgroups: finding a usable cgroup v2, making a bot's cgroup with its limits,
joining it before the first instruction, telling which limit stopped the bot, removing it.

The logic runs against a fake cgroup tree (plain files in a temporary directory). The
tests that need the kernel to enforce the limits run only where
:func:`probe_cgroups` finds a usable cgroup v2 and are skipped with its reason elsewhere
(a hybrid cgroup v1 machine, say). Their bots are bounded (a hog stops itself at 2 GiB, a
fork bomb at 200) and every cgroup is removed in ``finally``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.sandbox.cgroup import (
    ARENA_CGROUP_NAME,
    BotCgroup,
    CgroupError,
    CgroupParent,
    join_command,
    probe_cgroups,
)
from tests import TEST_BOTS

DEADLINE_S = 20.0


def _fake_machine(
    tmp_path: Path, *, own: str = "/", controllers: str = "cpu memory pids", delegated: str = ""
) -> tuple[Path, Path, Path]:
    """A cgroup v2 mount at tmp_path/cg, the arena in ``own``; returns the mountinfo and
    /proc/self/cgroup files and the mount."""
    mount = tmp_path / "cg"
    container = mount / Path(own).parent.relative_to("/") if own != "/" else mount
    container.mkdir(parents=True)
    (container / "cgroup.controllers").write_text(controllers + "\n")
    (container / "cgroup.subtree_control").write_text(delegated + "\n")
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "22 1 0:20 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
        f"41 31 0:38 / {mount} rw,relatime - cgroup2 cgroup2 rw\n"
    )
    proc_cgroup = tmp_path / "cgroup"
    proc_cgroup.write_text(f"4:memory:/somewhere\n0::{own}\n")
    return mountinfo, proc_cgroup, mount


# -- the probe ------------------------------------------------------------------------------


def test_the_probe_puts_bot_cgroups_beside_the_arena_s_own(tmp_path: Path) -> None:
    mountinfo, proc_cgroup, mount = _fake_machine(tmp_path)
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.is_available
    assert found.parent == CgroupParent(mount / ARENA_CGROUP_NAME)
    assert not (mount / ARENA_CGROUP_NAME).exists()  # the probe only reads
    # Below the top, the parent must already hand both controllers down.
    mountinfo, proc_cgroup, mount = _fake_machine(
        tmp_path / "deeper", own="/a/b", delegated="memory pids"
    )
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.parent == CgroupParent(mount / "a" / ARENA_CGROUP_NAME)


@pytest.mark.parametrize(
    ("machine", "reason"),
    [
        ({"controllers": "hugetlb"}, "offers no memory and pids controller (offered: hugetlb"),
        ({"controllers": "memory"}, "offers no pids controller"),
        ({"own": "/a/b", "delegated": "memory"}, "does not delegate the memory and pids"),
    ],
)
def test_the_probe_says_why_cgroups_cannot_be_used(
    tmp_path: Path, machine: dict[str, str], reason: str
) -> None:
    mountinfo, proc_cgroup, _ = _fake_machine(tmp_path, **machine)
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert not found.is_available and reason in found.reason


def test_the_probe_without_cgroup_v2_or_its_files(tmp_path: Path) -> None:
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text("22 1 0:20 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n")
    proc_cgroup = tmp_path / "cgroup"
    proc_cgroup.write_text("4:memory:/\n")
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.reason == "no cgroup v2 file system is mounted"
    found = probe_cgroups(mountinfo=tmp_path / "missing", proc_cgroup=proc_cgroup)
    assert found.reason.startswith(f"cannot read {tmp_path / 'missing'}")
    mountinfo.write_text(f"41 31 0:38 / {tmp_path} rw - cgroup2 cgroup2 rw\n")
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert "the arena is in no cgroup" in found.reason


def test_the_probe_of_this_machine_never_fails() -> None:
    found = probe_cgroups()
    assert found.is_available == (found.parent is not None) and found.reason


# -- a bot's cgroup -------------------------------------------------------------------------


def test_a_bot_cgroup_gets_its_limits_and_the_controllers_are_handed_down(tmp_path: Path) -> None:
    _, _, mount = _fake_machine(tmp_path)
    parent = CgroupParent(mount / ARENA_CGROUP_NAME)
    cgroup = parent.create_bot(memory_bytes=64 * 1024**2, processes=20, label="spy")
    assert cgroup.path.parent == parent.path and cgroup.path.name.startswith(f"spy-{os.getpid()}-")
    assert (cgroup.path / "memory.max").read_text() == str(64 * 1024**2)
    assert (cgroup.path / "pids.max").read_text() == "20"
    assert (mount / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert (parent.path / "cgroup.subtree_control").read_text() == "+memory +pids"
    unlimited = parent.create_bot(memory_bytes=None, processes=None)
    assert (unlimited.path / "memory.max").read_text() == "max"


def test_the_empty_cgroups_of_gone_arenas_are_swept(tmp_path: Path) -> None:
    gone = subprocess.Popen(["/bin/true"])
    gone.wait()  # its pid now names no process (barring a quick reuse)
    parent = CgroupParent(tmp_path)
    for name in (f"bot-{gone.pid}-00000000", f"bot-{os.getpid()}-00000000", "other"):
        (tmp_path / name).mkdir()
    parent.sweep()
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        f"bot-{os.getpid()}-00000000",
        "other",
    ]


def test_a_cgroup_that_cannot_be_made_is_an_error_naming_it(tmp_path: Path) -> None:
    parent = CgroupParent(tmp_path / "missing" / "deeper" / ARENA_CGROUP_NAME)
    with pytest.raises(CgroupError, match="missing"):
        parent.create_bot(memory_bytes=1, processes=1)


def test_which_limit_stopped_the_bot(tmp_path: Path) -> None:
    cgroup = BotCgroup(tmp_path)
    assert cgroup.limit_hit() is None
    (tmp_path / "pids.events").write_text("max 3\n")
    assert cgroup.limit_hit() == "process_limit"
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n")
    assert cgroup.limit_hit() == "memory_limit"


def test_kill_without_cgroup_kill_signals_every_listed_process(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / "cgroup.procs").write_text(f"{sleeper.pid}\n")
        BotCgroup(tmp_path).kill()
        assert sleeper.wait(timeout=DEADLINE_S) == -9
    finally:
        sleeper.kill()
        sleeper.wait()


def test_close_removes_the_directory_and_a_missing_one_is_fine(tmp_path: Path) -> None:
    cgroup = BotCgroup(tmp_path / "bot-1")
    cgroup.path.mkdir()
    cgroup.close()
    assert not cgroup.path.exists()
    cgroup.close()  # again: nothing to do


def test_the_join_step_moves_the_process_before_it_runs_the_command(tmp_path: Path) -> None:
    cgroup = BotCgroup(tmp_path)
    (tmp_path / "cgroup.procs").write_text("")
    shown = subprocess.run(
        join_command(cgroup, ("/bin/sh", "-c", "echo $$")),
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        check=True,
    )
    # exec keeps the pid: the process that ran the command is the one that joined.
    assert (tmp_path / "cgroup.procs").read_text().strip() == shown.stdout.strip()


# -- the kernel enforcing them ----------------------------------------------------------------


@pytest.fixture
def real_parent() -> CgroupParent:
    found = probe_cgroups()
    if found.parent is None:
        pytest.skip(f"no usable cgroup v2 here: {found.reason}")
    return found.parent


@pytest.fixture
def made(real_parent: CgroupParent) -> Iterator[list[BotCgroup]]:
    cgroups: list[BotCgroup] = []
    try:
        yield cgroups
    finally:
        for cgroup in cgroups:
            cgroup.close()


def _run_in(cgroup: BotCgroup, bot: str, *args: str) -> subprocess.Popen[bytes]:
    script = next((TEST_BOTS / bot).glob("*_bot.py"))
    return subprocess.Popen(
        join_command(cgroup, (sys.executable, str(script), *args)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_memory_max_stops_a_hog_as_a_memory_limit(
    real_parent: CgroupParent, made: list[BotCgroup]
) -> None:
    cgroup = real_parent.create_bot(memory_bytes=64 * 1024**2, processes=20)
    made.append(cgroup)
    hog = _run_in(cgroup, "sandbox_hog", "start", "2048")
    try:
        assert hog.wait(timeout=DEADLINE_S) == -9  # the OOM killer, long before 2 GiB
        assert cgroup.limit_hit() == "memory_limit"
    finally:
        hog.kill()
        hog.wait()


def test_pids_max_stops_a_fork_bomb_as_a_process_limit(
    real_parent: CgroupParent, made: list[BotCgroup]
) -> None:
    cgroup = real_parent.create_bot(memory_bytes=256 * 1024**2, processes=10)
    made.append(cgroup)
    bomb = _run_in(cgroup, "sandbox_forkbomb", "start", "200")
    try:
        deadline = time.monotonic() + DEADLINE_S
        while cgroup.limit_hit() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert cgroup.limit_hit() == "process_limit"
        assert len(cgroup.pids()) <= 10
        cgroup.kill()
        assert bomb.wait(timeout=DEADLINE_S) == -9
    finally:
        bomb.kill()
        bomb.wait()
