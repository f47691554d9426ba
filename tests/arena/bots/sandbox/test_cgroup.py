"""Per-bot cgroups: finding a usable cgroup (v2 or v1), making a bot's cgroup with its
limits, joining it before the first instruction, telling which limit stopped the bot,
removing it.

The probe and the files written run against fake cgroup trees (plain files in a temporary
directory). What the kernel enforces is checked in test_cgroup_kernel.py, on this
machine's real cgroups.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.sandbox.cgroup import (
    ARENA_CGROUP_NAME,
    BotCgroup,
    CgroupError,
    CgroupParent,
    is_running,
    is_zombie,
    join_command,
)
from arena.bots.sandbox.cgroup_probe import (
    CgroupMount,
    cgroup_mounts,
    own_cgroups,
    probe_cgroups,
)

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
    mountinfo.write_text(f"41 31 0:38 / {mount} rw,relatime - cgroup2 cgroup2 rw\n")
    proc_cgroup = tmp_path / "cgroup"
    proc_cgroup.write_text(f"0::{own}\n")
    return mountinfo, proc_cgroup, mount


def _fake_v1_machine(tmp_path: Path, *, memory_root: str = "/") -> tuple[Path, Path, Path]:
    """A hybrid machine: v1 memory, pids and cpu,cpuacct trees beside a v2 tree with no
    controller; the arena's memory cgroup is /jobs/job-1, the others the top."""
    top = tmp_path / "fs"
    (top / "memory" / "jobs").mkdir(parents=True)
    for name in ("pids", "cpu,cpuacct", "unified"):
        (top / name).mkdir()
    (top / "unified" / "cgroup.controllers").write_text("hugetlb\n")
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        f"30 25 0:26 {memory_root} {top}/memory rw - cgroup cgroup rw,memory\n"
        f"31 25 0:27 / {top}/pids rw - cgroup cgroup rw,pids\n"
        f"32 25 0:28 / {top}/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
        f"33 25 0:29 / {top}/unified rw - cgroup2 cgroup2 rw\n"
    )
    proc_cgroup = tmp_path / "cgroup"
    proc_cgroup.write_text(
        "4:memory:/jobs/job-1\n3:pids:/\n2:cpu,cpuacct:/\n1:name=systemd:/\n0::/\n"
    )
    return mountinfo, proc_cgroup, top


# -- the probe ------------------------------------------------------------------------------


def test_the_probe_puts_bot_cgroups_beside_the_arena_s_own(tmp_path: Path) -> None:
    mountinfo, proc_cgroup, mount = _fake_machine(tmp_path)
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.is_available
    target = mount / ARENA_CGROUP_NAME
    assert found.parent == CgroupParent.unified(target, ["memory", "pids", "cpu"])
    assert not target.exists()  # the probe only reads
    # Below the top, the parent must already hand both controllers down (cpu is optional).
    mountinfo, proc_cgroup, mount = _fake_machine(
        tmp_path / "deeper", own="/a/b", delegated="memory pids"
    )
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.parent == CgroupParent.unified(mount / "a" / ARENA_CGROUP_NAME)


def test_on_a_hybrid_machine_the_probe_takes_each_v1_controller_s_tree(tmp_path: Path) -> None:
    mountinfo, proc_cgroup, top = _fake_v1_machine(tmp_path)
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.parent is not None and found.parent.version == 1
    assert dict(found.parent.paths) == {
        "memory": top / "memory" / "jobs" / ARENA_CGROUP_NAME,
        "pids": top / "pids" / ARENA_CGROUP_NAME,
        "cpu": top / "cpu,cpuacct" / ARENA_CGROUP_NAME,
        "cpuacct": top / "cpu,cpuacct" / ARENA_CGROUP_NAME,
    }
    assert found.parent.describe() == "cgroup v1 (memory, pids, cpu)"
    assert "cgroup v1" in found.reason


def test_a_v1_tree_mounted_from_inside_shows_only_what_is_below_its_root(tmp_path: Path) -> None:
    # A container sees its memory tree from /jobs down: the arena's /jobs/job-1 is visible.
    mountinfo, proc_cgroup, top = _fake_v1_machine(tmp_path, memory_root="/jobs")
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.parent is not None
    assert dict(found.parent.paths)["memory"] == top / "memory" / ARENA_CGROUP_NAME
    mount = CgroupMount(top / "memory", "/jobs", 1, frozenset({"memory"}))
    assert mount.directory_of("/elsewhere") is None


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


def test_the_probe_says_why_neither_version_can_be_used(tmp_path: Path) -> None:
    mountinfo, proc_cgroup, top = _fake_v1_machine(tmp_path)
    # The arena's pids cgroup is missing from /proc/self/cgroup: v1 fails, and v2 too.
    proc_cgroup.write_text("4:memory:/jobs/job-1\n0::/\n")
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.reason.startswith(f"cgroup v2 at {top / 'unified'} offers no memory")
    assert found.reason.endswith(
        "and cgroup v1: the arena is in no pids cgroup (see /proc/self/cgroup)"
    )
    proc_cgroup.write_text("4:memory:/gone/job-1\n3:pids:/\n")
    mountinfo.write_text(mountinfo.read_text().replace("cgroup2 cgroup2", "tmpfs tmpfs"))
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.reason == f"the arena's memory cgroup is not visible in {top / 'memory'}"
    mountinfo.write_text(f"31 25 0:27 / {top}/pids rw - cgroup cgroup rw,pids\n")
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.reason == "no memory controller is mounted"


def test_the_probe_without_cgroups_or_its_files(tmp_path: Path) -> None:
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text("22 1 0:20 / /proc rw - proc proc rw\n")
    proc_cgroup = tmp_path / "cgroup"
    proc_cgroup.write_text("0::/\n")
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.reason == "no cgroup file system is mounted"
    found = probe_cgroups(mountinfo=tmp_path / "missing", proc_cgroup=proc_cgroup)
    assert found.reason.startswith(f"cannot read {tmp_path / 'missing'}")
    mountinfo.write_text(f"41 31 0:38 / {tmp_path} rw - cgroup2 cgroup2 rw\n")
    proc_cgroup.write_text("4:memory:/\n")
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert "the arena is in no cgroup" in found.reason
    proc_cgroup.write_text("0::/a/b\n")
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.reason == f"{tmp_path / 'a'} is not visible (another cgroup namespace)"


def test_a_cgroup_that_is_not_writable_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    mountinfo, proc_cgroup, mount = _fake_machine(tmp_path)
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.reason == f"{mount} is not writable by uid {os.geteuid()}"
    mountinfo, proc_cgroup, top = _fake_v1_machine(tmp_path / "v1")
    found = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup)
    assert found.reason.endswith(f"{top / 'memory' / 'jobs'} is not writable by uid {os.geteuid()}")


def test_the_mount_and_cgroup_readers() -> None:
    (v1,) = cgroup_mounts("22 1 0:20 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory")
    assert (v1.version, v1.controllers) == (1, frozenset({"rw", "memory"}))
    # The kernel writes a space in a path as \040.
    (v2,) = cgroup_mounts("41 31 0:38 / /a\\040b rw - cgroup2 cgroup2 rw")
    assert (v2.version, v2.point) == (2, Path("/a b"))
    assert own_cgroups("4:memory:/a\nnot a line\n") == {"memory": "/a"}  # no v2 line


def test_the_probe_of_this_machine_never_fails() -> None:
    found = probe_cgroups()
    assert found.is_available == (found.parent is not None) and found.reason


# -- a bot's cgroup -------------------------------------------------------------------------


def test_a_v2_bot_cgroup_gets_its_limits_and_the_controllers_are_handed_down(
    tmp_path: Path,
) -> None:
    _, _, mount = _fake_machine(tmp_path)
    parent = CgroupParent.unified(mount / ARENA_CGROUP_NAME, ["memory", "pids", "cpu"])
    cgroup = parent.create_bot(
        memory_bytes=64 * 1024**2, processes=20, cpu_percent=150, label="spy"
    )
    (path,) = cgroup.directories
    assert path.parent == mount / ARENA_CGROUP_NAME
    assert path.name.startswith(f"spy-{os.getpid()}-")
    assert (path / "memory.max").read_text() == str(64 * 1024**2)
    assert (path / "pids.max").read_text() == "20"
    assert (path / "cpu.max").read_text() == "150000 100000"
    assert (mount / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert (mount / ARENA_CGROUP_NAME / "cgroup.subtree_control").read_text() == (
        "+memory +pids +cpu"
    )
    unlimited = parent.create_bot(memory_bytes=None, processes=None)
    assert (unlimited.directories[0] / "memory.max").read_text() == "max"
    assert not (unlimited.directories[0] / "cpu.max").exists()


def test_a_v2_bot_cgroup_turns_swap_off_and_kills_as_a_group_where_the_kernel_can(
    tmp_path: Path,
) -> None:
    cgroup = BotCgroup.unified(tmp_path)
    for name in ("memory.swap.max", "memory.oom.group"):
        (tmp_path / name).write_text("")
    cgroup.configure(1024, 5, None)
    assert (tmp_path / "memory.swap.max").read_text() == "0"
    assert (tmp_path / "memory.oom.group").read_text() == "1"


def test_a_v1_bot_cgroup_gets_its_limits_in_each_controller_s_tree(tmp_path: Path) -> None:
    mountinfo, proc_cgroup, _ = _fake_v1_machine(tmp_path)
    parent = probe_cgroups(mountinfo=mountinfo, proc_cgroup=proc_cgroup).parent
    assert parent is not None
    cgroup = parent.create_bot(memory_bytes=64 * 1024**2, processes=20, cpu_percent=50)
    memory, pids, cpu = (cgroup.directory(name) for name in ("memory", "pids", "cpu"))
    assert memory is not None and pids is not None and cpu is not None
    assert (memory / "memory.limit_in_bytes").read_text() == str(64 * 1024**2)
    assert (memory / "memory.swappiness").read_text() == "0"  # no memsw file: no swap
    assert (pids / "pids.max").read_text() == "20"
    assert (cpu / "cpu.cfs_quota_us").read_text() == "50000"
    assert (cpu / "cpu.cfs_period_us").read_text() == "100000"
    assert len(cgroup.procs_files) == 3  # cpu and cpuacct share one tree here
    # With swap accounting, memory and swap together get the same limit.
    cgroup = BotCgroup(1, (("memory", tmp_path / "m"),))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "memory.memsw.limit_in_bytes").write_text("")
    cgroup.configure(None, None, None)
    assert (tmp_path / "m" / "memory.memsw.limit_in_bytes").read_text() == "-1"
    assert not (tmp_path / "m" / "memory.swappiness").exists()
    # A share is never below the kernel's smallest quota, 1 ms per period.
    cgroup = BotCgroup(1, (("cpu", tmp_path),))
    cgroup.configure(None, None, 0)
    assert (tmp_path / "cpu.cfs_quota_us").read_text() == "1000"


def test_the_empty_cgroups_of_gone_arenas_are_swept(tmp_path: Path) -> None:
    gone = subprocess.Popen(["/bin/true"])
    gone.wait()  # its pid now names no process (barring a quick reuse)
    parent = CgroupParent.unified(tmp_path)
    for name in (f"bot-{gone.pid}-00000000", f"bot-{os.getpid()}-00000000", "other"):
        (tmp_path / name).mkdir()
    parent.sweep()
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        f"bot-{os.getpid()}-00000000",
        "other",
    ]


def test_a_zombie_owner_counts_as_gone(tmp_path: Path) -> None:
    zombie = subprocess.Popen(["/bin/true"])
    try:
        while not is_zombie(zombie.pid):  # exited, not reaped: a killed arena's state
            os.sched_yield()
        assert not is_running(zombie.pid)
        (tmp_path / f"bot-{zombie.pid}-00000000").mkdir()
        CgroupParent.unified(tmp_path).sweep()
        assert not any(tmp_path.iterdir())
    finally:
        zombie.wait()
    assert not is_zombie(zombie.pid)  # reaped: no such process


def test_a_cgroup_that_cannot_be_made_is_an_error_naming_it(tmp_path: Path) -> None:
    parent = CgroupParent.unified(tmp_path / "missing" / "deeper" / ARENA_CGROUP_NAME)
    with pytest.raises(CgroupError, match="missing"):
        parent.create_bot(memory_bytes=1, processes=1)
    (tmp_path / "file").write_text("")
    parent = CgroupParent(1, (("memory", tmp_path / "file" / ARENA_CGROUP_NAME),))
    with pytest.raises(CgroupError, match="cannot create the cgroup"):
        parent.create_bot(memory_bytes=1, processes=1)


def test_a_limit_that_cannot_be_written_removes_the_half_made_cgroup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_: object) -> None:
        raise CgroupError("cannot write '100' to memory.limit_in_bytes: Invalid argument")

    monkeypatch.setattr(BotCgroup, "configure", refuse)
    parent = CgroupParent(1, (("memory", tmp_path / ARENA_CGROUP_NAME),))
    with pytest.raises(CgroupError, match=r"cannot write .100. to memory.limit_in_bytes"):
        parent.create_bot(memory_bytes=100, processes=1)
    assert not any((tmp_path / ARENA_CGROUP_NAME).iterdir())


def test_which_limit_stopped_the_bot(tmp_path: Path) -> None:
    cgroup = BotCgroup.unified(tmp_path)
    assert cgroup.limit_hit() is None
    (tmp_path / "pids.events").write_text("max 3\n")
    assert cgroup.limit_hit() == "process_limit"
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n")
    assert cgroup.limit_hit() == "memory_limit"
    v1 = BotCgroup(1, (("memory", tmp_path / "m"),))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "memory.oom_control").write_text("oom_kill_disable 0\noom_kill 2\n")
    assert v1.limit_hit() == "memory_limit"


def test_peak_memory_peak_tasks_and_cpu_time_as_each_version_counts_them(tmp_path: Path) -> None:
    v2 = BotCgroup.unified(tmp_path)
    assert v2.peak_memory_bytes() is None and v2.cpu_seconds() is None
    (tmp_path / "memory.peak").write_text("4096\n")
    (tmp_path / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    (tmp_path / "pids.peak").write_text("7\n")
    assert (v2.peak_memory_bytes(), v2.cpu_seconds(), v2.peak_tasks()) == (4096, 2.5, 7)
    v1 = BotCgroup(1, (("memory", tmp_path / "m"), ("cpuacct", tmp_path / "a")))
    for name in ("m", "a"):
        (tmp_path / name).mkdir()
    assert v1.cpu_seconds() is None and v1.peak_tasks() is None
    (tmp_path / "m" / "memory.max_usage_in_bytes").write_text("8192\n")
    (tmp_path / "a" / "cpuacct.usage").write_text("1500000000\n")
    assert (v1.peak_memory_bytes(), v1.cpu_seconds()) == (8192, 1.5)
    assert BotCgroup(1, ()).peak_memory_bytes() is None


@pytest.mark.parametrize("version", [1, 2])
def test_kill_without_cgroup_kill_signals_every_listed_process(
    tmp_path: Path, version: int
) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / "cgroup.procs").write_text(f"{sleeper.pid}\n")
        BotCgroup(version, (("memory", tmp_path),)).kill()
        assert sleeper.wait(timeout=DEADLINE_S) == -9
    finally:
        sleeper.kill()
        sleeper.wait()


def test_kill_writes_cgroup_kill_where_the_kernel_has_it(tmp_path: Path) -> None:
    (tmp_path / "cgroup.kill").write_text("")
    BotCgroup.unified(tmp_path).kill()
    assert (tmp_path / "cgroup.kill").read_text() == "1"


def test_close_removes_the_directories_and_a_missing_one_is_fine(tmp_path: Path) -> None:
    cgroup = BotCgroup(1, (("memory", tmp_path / "m" / "bot-1"), ("pids", tmp_path / "bot-1")))
    for path in cgroup.directories:
        path.mkdir(parents=True)
    cgroup.close()
    assert not any(path.exists() for path in cgroup.directories)
    cgroup.close()  # again: nothing to do


def test_close_names_a_cgroup_it_cannot_remove(tmp_path: Path) -> None:
    (tmp_path / "bot-1").mkdir()
    (tmp_path / "bot-1" / "left").write_text("")  # a plain directory that is not empty
    with pytest.raises(CgroupError, match=r"cannot remove the cgroup .*bot-1"):
        BotCgroup.unified(tmp_path / "bot-1").close()


def test_the_join_step_moves_the_process_before_it_runs_the_command(tmp_path: Path) -> None:
    cgroup = BotCgroup(1, (("memory", tmp_path / "m"), ("pids", tmp_path / "p")))
    for path in cgroup.directories:
        path.mkdir()
    shown = subprocess.run(
        join_command(cgroup, ("/bin/sh", "-c", "echo $$", "--")),
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        check=True,
    )
    # exec keeps the pid: the process that ran the command is the one that joined.
    for procs in cgroup.procs_files:
        assert procs.read_text().strip() == shown.stdout.strip()


def test_a_join_that_cannot_write_fails_before_the_command_runs(tmp_path: Path) -> None:
    cgroup = BotCgroup.unified(tmp_path / "missing")
    result = subprocess.run(
        join_command(cgroup, ("/bin/echo", "ran")),
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        check=False,
    )
    assert result.returncode == 125 and not result.stdout
    assert "arena-cgroup" in result.stderr
