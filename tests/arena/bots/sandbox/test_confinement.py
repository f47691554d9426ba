"""The process side of a sandboxed bot: watched while it runs, its directory gone at the end,
and how it ended read as a limit stop when it was one."""

from __future__ import annotations

import os
import shutil
import signal
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.bots.launcher import LaunchSpec
from arena.bots.sandbox.cgroup import BotCgroup
from arena.bots.sandbox.confinement import (
    Confinement,
    abandon,
    cpu_seconds_of,
    kernel_breach,
    remove_private_dir,
)
from arena.bots.sandbox.resources import DEFAULT_RESOURCES
from arena.bots.sandbox.watch import TreeUsage, TreeWatch, Watched


class OverMemory:
    """A tree over any memory limit (or within all); kills are recorded, nothing touched."""

    def __init__(self, *, is_over: bool = True) -> None:
        self.killed: list[int] = []
        self.memory_bytes = 2**40 if is_over else 1

    def read(self, pid: int) -> tuple[list[int], TreeUsage]:
        return [pid], TreeUsage(self.memory_bytes, cpu_seconds=0.0, process_count=1)

    def kill(self, pid: int) -> None:
        self.killed.append(pid)


def spec(tmp_path: Path, *, with_resources: bool = True) -> LaunchSpec:
    private = tmp_path / "private"
    (private / "bot").mkdir(parents=True)
    return LaunchSpec(
        argv=("bot",),
        cwd=private / "bot",
        env={},
        resources=DEFAULT_RESOURCES if with_resources else None,
        private_dir=private,
    )


def test_a_bot_run_as_it_is_has_no_confinement(tmp_path: Path) -> None:
    assert Confinement.of_spec(4242, LaunchSpec(argv=("x",), cwd=tmp_path, env={})) is None
    # Never the shared watch: pid 4242 is not a bot of this test.
    trees = OverMemory(is_over=False)
    watch = TreeWatch(interval_s=3600, reader=trees.read, killer=trees.kill)
    confinement = Confinement.of_spec(4242, spec(tmp_path), watch=watch)
    assert confinement is not None and watch.watched_count == 1
    confinement.release(None)
    assert watch.watched_count == 0 and trees.killed == []


def test_a_breach_of_the_watch_is_the_reason_the_bot_ended(tmp_path: Path) -> None:
    trees = OverMemory()
    watch = TreeWatch(interval_s=3600, reader=trees.read, killer=trees.kill)
    confinement = Confinement(4242, spec(tmp_path), watch=watch)
    assert confinement.breach is None and confinement.describe_breach() == ""
    watch.check_now()
    assert trees.killed == [4242]
    assert confinement.breach is not None
    assert confinement.describe_breach().startswith("; stopped by the sandbox: memory_limit: ")
    reason, detail = confinement.release(signal.SIGKILL)
    assert reason == "memory_limit" and detail.startswith("resident memory")
    assert watch.watched_count == 0
    assert not (tmp_path / "private").exists()


def test_a_death_by_sigxfsz_or_sigxcpu_is_a_limit_stop(tmp_path: Path) -> None:
    confinement = Confinement(1, spec(tmp_path, with_resources=False))
    assert confinement.release(signal.SIGXFSZ)[0] == "file_size_limit"
    assert Confinement(1, spec(tmp_path / "2", with_resources=False)).release(None) == (None, "")
    # The first process of a PID namespace says "killed by SIGXCPU" as exit code 128 + 24.
    in_namespace = Confinement(1, spec(tmp_path / "3", with_resources=False))
    assert in_namespace.release(None, 128 + signal.SIGXCPU)[0] == "cpu_limit"
    assert Confinement(1, spec(tmp_path / "4", with_resources=False)).release(None, 3) == (None, "")


def test_a_private_dir_is_removed_even_where_the_bot_closed_it(tmp_path: Path) -> None:
    private = tmp_path / "private"
    locked = private / "bot" / "locked"
    locked.mkdir(parents=True)
    (locked / "file").write_text("x")
    (private / "bot" / "link").symlink_to(tmp_path)  # only the link goes
    locked.chmod(0)
    (private / "bot").chmod(0o500)
    remove_private_dir(private)
    assert not private.exists() and tmp_path.exists()
    remove_private_dir(private)  # gone already: nothing to do


def test_removing_a_private_dir_never_changes_its_parents_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The shared temporary folder's mode (1777) is everybody's: removing a bot's private
    # folder may open what is inside it, never the folder it sits in.
    parent = tmp_path / "shared"
    parent.mkdir()
    parent.chmod(0o1777)
    private = parent / "arena-bot-1-2-x"
    (private / "bot" / "locked").mkdir(parents=True)
    (private / "bot" / "locked" / "file").write_text("x")
    (private / "bot" / "locked").chmod(0o500)
    remove_private_dir(private)
    assert not private.exists()
    assert stat.S_IMODE(parent.stat().st_mode) == 0o1777

    # Another arena sweeps the same dead arena's folder first: the removal fails at the
    # folder itself, and the error handler must leave the parent alone.
    gone = parent / "arena-bot-9-9-gone"
    gone.mkdir()
    real_rmtree = shutil.rmtree

    def swept_by_another_arena(path: str, *args: Any, **kwargs: Any) -> None:
        real_rmtree(path)
        kwargs["onerror"](os.rmdir, str(path), FileNotFoundError(str(path)))

    monkeypatch.setattr(shutil, "rmtree", swept_by_another_arena)
    remove_private_dir(gone)
    assert stat.S_IMODE(parent.stat().st_mode) == 0o1777


def _with_cgroup(tmp_path: Path) -> tuple[LaunchSpec, BotCgroup]:
    """A spec with a fake cgroup v2 (plain files) for its bot."""
    cgroup = BotCgroup.unified(tmp_path / "cg" / "bot-1")
    cgroup.directories[0].mkdir(parents=True)
    return replace(spec(tmp_path), cgroup=cgroup), cgroup


def test_with_a_cgroup_the_watch_leaves_memory_and_processes_to_the_kernel(
    tmp_path: Path,
) -> None:
    launch, cgroup = _with_cgroup(tmp_path)
    trees = OverMemory()  # far over the memory limit by the watch's own count
    watch = TreeWatch(interval_s=3600, reader=trees.read, killer=trees.kill)
    confinement = Confinement(4242, launch, watch=watch)
    watch.check_now()
    assert trees.killed == [] and confinement.breach is None
    # The kernel refused a fork: the watch stops the bot as it would have.
    (cgroup.directories[0] / "pids.events").write_text("max 1\n")
    watch.check_now()
    assert trees.killed == [4242]
    assert confinement.describe_breach() == (
        "; stopped by the sandbox: process_limit: the kernel refused a new process or thread "
        f"at the limit of {DEFAULT_RESOURCES.processes} tasks"
    )
    (cgroup.directories[0] / "pids.events").unlink()  # a real cgroup's files go with it
    assert confinement.release(int(signal.SIGKILL)) == (
        "process_limit",
        f"the kernel refused a new process or thread at the limit of "
        f"{DEFAULT_RESOURCES.processes} tasks",
    )
    assert not cgroup.directories[0].exists() and not (tmp_path / "private").exists()


def test_the_kernel_s_oom_kill_is_a_memory_limit_with_the_peak_it_held(tmp_path: Path) -> None:
    launch, cgroup = _with_cgroup(tmp_path)
    directory = cgroup.directories[0]
    (directory / "memory.events").write_text("oom_kill 1\n")
    (directory / "memory.peak").write_text(f"{300 * 1024**2}\n")
    breach = kernel_breach(cgroup, DEFAULT_RESOURCES)
    assert breach is not None and breach.describe() == (
        "memory_limit: the kernel's OOM killer ended a process at the memory limit of 1 GiB; "
        "it held at most 300 MiB"
    )
    confinement = Confinement(4242, replace(launch, resources=None))
    assert confinement.describe_breach() == ""  # no limits: nothing to say about them
    (directory / "memory.events").unlink()
    (directory / "memory.peak").unlink()
    assert confinement.release(None, 0) == (None, "")
    assert not directory.exists()


class _UnthreadedWatch(TreeWatch):
    """A watch that looks only when told to (``check_now``): a watch's thread looks once as
    it starts, which would race a test that changes what the kernel counted."""

    def watch(
        self,
        pid: int,
        resources: Any,
        on_breach: Any,
        *,
        check: Any = None,
    ) -> Watched:
        watched = Watched(self, pid, resources, on_breach, check)
        self._watched.append(watched)
        return watched


def test_a_bot_that_ended_well_is_not_charged_with_a_refused_fork(tmp_path: Path) -> None:
    launch, cgroup = _with_cgroup(tmp_path)
    trees = OverMemory(is_over=False)
    watch = _UnthreadedWatch(interval_s=3600, reader=trees.read, killer=trees.kill)
    confinement = Confinement(4242, launch, watch=watch)
    # The kernel refused a fork once after the watch's last look, and the bot carried on
    # and ended well (exit 0): that refusal is no reason to charge it with the limit.
    (cgroup.directories[0] / "pids.events").write_text("max 3\n")
    assert confinement._kernel_breach() is not None  # what a failed bot would be told
    (cgroup.directories[0] / "pids.events").unlink()
    assert confinement.release(None, 0) == (None, "")
    assert trees.killed == []


def test_a_spec_that_never_started_leaves_nothing(tmp_path: Path) -> None:
    launch, cgroup = _with_cgroup(tmp_path)
    abandon(launch)
    assert not cgroup.directories[0].exists() and not (tmp_path / "private").exists()
    # A cgroup that cannot be removed is left for the next arena's sweep, said in the log.
    stuck = BotCgroup.unified(tmp_path / "stuck")
    (tmp_path / "stuck" / "inside").mkdir(parents=True)
    abandon(LaunchSpec(argv=("x",), cwd=tmp_path, env={}, cgroup=stuck))
    assert (tmp_path / "stuck").exists()


def test_cpu_time_is_the_cgroup_s_count_where_there_is_one_else_the_tree_s(
    tmp_path: Path,
) -> None:
    assert cpu_seconds_of(os.getpid(), None) > 0  # this test process has computed
    launch, cgroup = _with_cgroup(tmp_path)
    (cgroup.directories[0] / "cpu.stat").write_text("usage_usec 1500000\n")
    confinement = Confinement(4242, replace(launch, resources=None))
    assert cpu_seconds_of(4242, confinement) == 1.5
    (cgroup.directories[0] / "cpu.stat").unlink()
    assert cpu_seconds_of(4242, confinement) == 0.0  # no such tree: nothing computed
    confinement.release(None, 0)
