"""The strict layer for real: what a bot in the bwrap box can see and reach, honest bots
playing in it, and nothing left after a ``kill -9`` of the process that started it.

These tests need bubblewrap and a kernel that lets it make namespaces; where either is
missing they are skipped with the reason (``make test`` installs bubblewrap where it can).
Every bot here is bounded by its own arguments, so a sandbox that failed could not harm the
machine, and every process a test starts is closed in ``finally``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena.bots.build import run_build
from arena.bots.launcher import DirectLauncher, LaunchSpec
from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.process import ProcessTransport
from arena.bots.sandbox.bwrap import (
    HAND_OVER_STREAMS,
    HAND_OVER_STREAMS_AND_FILTER,
    SYSTEM_DIRS,
    Box,
    StrictLauncher,
    StrictUnavailableError,
    check_box,
    find_box,
    visible_paths,
)
from arena.bots.sandbox.cgroup import ARENA_CGROUP_NAME, BotCgroup, CgroupParent, join_command
from arena.bots.sandbox.limited import SUPERVISOR_PATH, LimitsLauncher
from arena.bots.sandbox.resources import DEFAULT_RESOURCES
from arena.bots.sandbox.select import probe
from arena.bots.transport import TransportClosedError
from arena.cli import main
from tests import REPO_ROOT, TEST_BOTS

HELLO = b'{"type":"hello","seq":1}\n'
DEADLINE_S = 20.0
SMALL = replace(DEFAULT_RESOURCES, memory_bytes=256 * 1024**2, processes=20, tmp_bytes=64 * 1024**2)


def _box_or_skip() -> Box:
    problem = probe().strict_problem
    if problem is not None:
        pytest.skip(f"the strict layer cannot run here: {problem}")
    box = probe().box
    assert box is not None
    return box


@pytest.fixture
def launcher(tmp_path: Path) -> Iterator[StrictLauncher]:
    """A strict launcher with small limits; its copies and cgroups go at the end."""
    inner = LimitsLauncher(
        SMALL, python=os.path.realpath(sys.executable), temp_dir=tmp_path, cgroups=probe().cgroups
    )
    made = StrictLauncher(inner, _box_or_skip())
    try:
        yield made
    finally:
        made.close()


def _first_line(launcher: StrictLauncher, manifest: BotManifest) -> dict[str, Any]:
    """Start the bot, read its first line as JSON, close it."""
    transport = ProcessTransport.start(manifest, launcher=launcher)
    try:
        line = transport.read_line(time.monotonic() + DEADLINE_S)
        assert line is not None, "the bot said nothing"
        report: dict[str, Any] = json.loads(line)
        return report
    finally:
        transport.close(0.0)


def _spy(*arguments: str) -> BotManifest:
    manifest = load_manifest(TEST_BOTS / "strict_spy" / "bot.toml")
    return replace(manifest, command=(*manifest.command, *arguments))


# -- what the box lets a bot see and reach ---------------------------------------------------


def test_a_bot_sees_only_its_own_processes_and_cannot_signal_the_arena(
    launcher: StrictLauncher,
) -> None:
    report = _first_line(launcher, _spy(str(os.getpid()), "9"))
    # The supervisor is the box's first process, the bot its second; nothing else exists.
    assert report["pids"] == [1, 2]
    assert report["signal"] == "error: No such process"
    assert report["uid"] not in (0, os.getuid())


def test_a_bot_cannot_connect_to_a_loopback_port_the_test_opened(
    launcher: StrictLauncher,
) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]
        report = _first_line(launcher, _spy(str(os.getpid()), str(port)))
        assert report["connect"].startswith("error:")
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody came


def test_a_bot_reads_only_its_own_files(launcher: StrictLauncher, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    history = out_dir / "hands.jsonl"
    history.write_text('{"type": "match", "seed": 12345}\n')
    other_bot = REPO_ROOT / "sample_bots" / "python_random" / "bot.py"
    readme = REPO_ROOT / "README.md"
    report = _first_line(
        launcher, _spy(str(os.getpid()), "9", str(readme), str(other_bot), str(history))
    )
    reads = report["reads"]
    assert reads["own_data.txt"] == "read: the spy's own data\n"
    for path in (readme, other_bot, history):
        assert reads[str(path)] == "error: No such file or directory", path


def test_a_bot_writes_only_to_its_copy_and_a_private_sized_tmp(launcher: StrictLauncher) -> None:
    report = _first_line(launcher, _spy())
    assert report["writes"]["."] == "written"
    assert report["writes"]["/tmp"] == "written"
    assert report["writes"]["/usr"].startswith("error:")
    if launcher.box.has_size_option:
        assert report["tmp_bytes"] == SMALL.tmp_bytes
    # The checkout is untouched: the bot wrote into its private copy only.
    assert sorted(path.name for path in (TEST_BOTS / "strict_spy").iterdir()) == [
        "bot.toml",
        "own_data.txt",
        "spy_bot.py",
    ]


def test_a_bot_that_closes_its_output_and_runs_on_is_seen_to_close_it(
    launcher: StrictLauncher,
) -> None:
    manifest = load_manifest(TEST_BOTS / "crasher" / "bot.toml")
    manifest = replace(manifest, command=(*manifest.command[:2], "startup", "close"))
    transport = ProcessTransport.start(manifest, launcher=launcher)
    try:
        # bwrap's monitor, outside the box, holds no copy of the bot's pipes: the end of
        # its output arrives while it sleeps on, not when the box is taken down.
        transport.send(HELLO)
        with pytest.raises(TransportClosedError, match="closed its output"):
            transport.read_line(time.monotonic() + DEADLINE_S)
        assert transport.is_alive
        monitor_streams = [os.readlink(f"/proc/{transport.pid}/fd/{fd}") for fd in (0, 1)]
        assert monitor_streams == [os.devnull, os.devnull]
    finally:
        transport.close(0.0)


# -- honest bots ----------------------------------------------------------------------------


def test_the_starter_bots_play_a_match_under_strict_with_the_c_bot_built_in_the_box(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _box_or_skip()
    manifests = [str(REPO_ROOT / "sample_bots" / "python_random" / "bot.toml")]
    if shutil.which("node") is not None:
        manifests.append(str(REPO_ROOT / "sample_bots" / "js_tight" / "bot.toml"))
    has_c = shutil.which("make") is not None and shutil.which("gcc") is not None
    c_dir = tmp_path / "c"
    if has_c:
        # A copy without build/: the build must compile in the box, in a private copy.
        shutil.copytree(
            REPO_ROOT / "sample_bots" / "c", c_dir, ignore=shutil.ignore_patterns("build")
        )
        manifests.append(str(c_dir / "bot.toml"))
    out_dir = tmp_path / "out"
    argv = ["match", *manifests, "--hands", "6", "--seed", "5", "--out", str(out_dir)]
    assert main([*argv, "--sandbox", "strict", "--no-progress"]) == 0
    assert "sandbox: strict" in capsys.readouterr().out
    results = json.loads((out_dir / "results.json").read_text())
    players = results["players"]
    assert results["hands_played"] == 6 and len(players) == len(manifests)
    for player in players:
        assert not any(player["faults"]["counts"].values()), player
    assert sum(player["chips_won"] for player in players) == 0
    if has_c:
        assert not (c_dir / "build").exists()  # built only in the private copy


# -- nothing survives --------------------------------------------------------------------------

_STARTER = """
import json, os, sys, time
from dataclasses import replace
from pathlib import Path
from arena.bots.manifest import load_manifest
from arena.bots.process import ProcessTransport
from arena.bots.sandbox.bwrap import StrictLauncher, find_box
from arena.bots.sandbox.limited import LimitsLauncher

Path(sys.argv[1]).mkdir()
inner = LimitsLauncher(python=os.path.realpath(sys.executable), temp_dir=Path(sys.argv[1]))
launcher = StrictLauncher(inner, find_box())
manifest = load_manifest(sys.argv[2])
manifest = replace(manifest, command=(*manifest.command[:2], "start", "5"))
spec = launcher.prepare(manifest)
transport = ProcessTransport.from_spec(spec, name="forker")
transport.send(b'{"type":"hello","seq":1}\\n')
transport.read_line(time.monotonic() + 20)
print(json.dumps({"pid": transport.pid}), flush=True)
time.sleep(60)
"""


def test_a_kill_9_of_the_starter_leaves_no_bot_process_and_no_filter_file(
    tmp_path: Path,
) -> None:
    box_made = _box_or_skip()
    # The system call filter once lived in an arena-seccomp-* folder of TMPDIR that a
    # kill -9 left behind and no later run swept; a memory file goes with the process.
    starter_tmp = tmp_path / "tmpdir"
    starter_tmp.mkdir()
    starter = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _STARTER,
            str(tmp_path / "private"),
            str(TEST_BOTS / "sandbox_forkbomb" / "bot.toml"),
        ],
        stdout=subprocess.PIPE,
        cwd=REPO_ROOT,
        env={**os.environ, "TMPDIR": str(starter_tmp)},
    )
    box: list[psutil.Process] = []
    try:
        assert starter.stdout is not None
        line = starter.stdout.readline()
        assert line, "the starter did not start its bot"
        pid = json.loads(line)["pid"]
        box = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        # bwrap, the supervisor, the bot and its five sleeping children.
        assert len(box) >= 8
        if box_made.seccomp is not None:  # the box reads the filter from the starter's file
            assert "--seccomp" in psutil.Process(pid).cmdline()
        starter.kill()
        starter.wait()
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and any(_is_alive(process) for process in box):
            time.sleep(0.02)
        assert [process.pid for process in box if _is_alive(process)] == []
        assert list(starter_tmp.iterdir()) == []
    finally:
        starter.kill()
        starter.wait()
        for process in box:
            if _is_alive(process):
                process.kill()


def _is_alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


# -- the pieces -----------------------------------------------------------------------------


def test_find_box_names_the_missing_program() -> None:
    with pytest.raises(
        StrictUnavailableError,
        match=r"'no-such-bwrap' \(bubblewrap\) is not installed \(apt-get install bubblewrap\)",
    ):
        find_box(bwrap="no-such-bwrap")


def test_check_box_reports_what_bwrap_said(tmp_path: Path) -> None:
    failing = tmp_path / "bwrap"
    failing.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
    )
    failing.chmod(0o755)
    with pytest.raises(
        StrictUnavailableError, match="exit code 1: bwrap: No permissions to create new namespace"
    ):
        check_box(Box(str(failing), is_root=False, has_size_option=True))


def test_visible_paths_are_the_system_and_each_program_s_installation(tmp_path: Path) -> None:
    program = tmp_path / "runtime" / "bin" / "tool"
    program.parent.mkdir(parents=True)
    program.write_text("")
    paths = visible_paths([str(program), "/usr/bin/env", "no-such-program"])
    assert paths == [*(path for path in SYSTEM_DIRS if path.is_dir()), tmp_path / "runtime"]


def test_the_box_binds_the_private_dir_writable_and_the_rest_read_only(tmp_path: Path) -> None:
    box = Box("/usr/bin/bwrap", is_root=True, has_size_option=True)
    args = box.arguments(
        private_dir=tmp_path,
        cwd=tmp_path / "bot",
        read_only=[Path("/usr"), SUPERVISOR_PATH],
        tmp_bytes=1000,
    )
    text = " ".join(args)
    for option in (
        "--unshare-pid",
        "--unshare-net",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
    ):
        assert option in args
    assert "--size 1000 --tmpfs /tmp" in text
    assert f"--ro-bind {SUPERVISOR_PATH} {SUPERVISOR_PATH}" in text
    assert f"--bind {tmp_path} {tmp_path} --chdir {tmp_path / 'bot'}" in text
    assert "--cap-drop ALL" in text and "--unshare-user" not in args
    assert args[-1] == "--"
    # Without root, bwrap's user namespace instead of the supervisor's change of uid.
    unprivileged = Box("/usr/bin/bwrap", is_root=False, has_size_option=False).arguments(
        private_dir=tmp_path, cwd=tmp_path, read_only=[], tmp_bytes=1000
    )
    assert "--unshare-user" in unprivileged and "--size" not in unprivileged
    assert "--cap-add" not in unprivileged


def test_a_spec_without_private_dir_is_refused(launcher: StrictLauncher) -> None:
    class Plain:
        def prepare(self, manifest: BotManifest, *, is_joined: bool) -> LaunchSpec:
            return DirectLauncher().prepare(manifest)

    strict = StrictLauncher(Plain(), launcher.box)  # type: ignore[arg-type]
    with pytest.raises(StrictUnavailableError, match="no private directory"):
        strict.prepare(_spy())


def test_a_build_writes_its_private_copy_and_later_starts_run_from_it(
    launcher: StrictLauncher, tmp_path: Path
) -> None:
    source = tmp_path / "bot"
    source.mkdir()
    (source / "bot.toml").write_text(
        'name = "made"\n'
        'build = ["/bin/sh", "-c", "echo built in the box > made.txt"]\n'
        'command = ["{python}", "-c", "print(open(\'made.txt\').read().strip(), flush=True)"]\n'
    )
    manifest = load_manifest(source / "bot.toml")
    assert run_build(manifest, launcher=launcher).is_ok
    assert not (source / "made.txt").exists()
    transport = ProcessTransport.start(manifest, launcher=launcher)
    try:
        assert transport.read_line(time.monotonic() + DEADLINE_S) == b"built in the box"
    finally:
        transport.close(0.0)


def test_with_cgroups_the_box_joins_its_cgroup_before_bwrap_runs(tmp_path: Path) -> None:
    box = _box_or_skip()
    # A fake cgroup tree: plain files, so only the launcher's side is checked here
    # (test_cgroup_kernel checks the kernel's).
    parent = CgroupParent.unified(tmp_path / "cg" / ARENA_CGROUP_NAME)
    (tmp_path / "cg").mkdir()
    inner = LimitsLauncher(
        SMALL, python=os.path.realpath(sys.executable), temp_dir=tmp_path, cgroups=parent
    )
    launcher = StrictLauncher(inner, box)
    try:
        spec = launcher.prepare(_spy())
        (cgroup_dir,) = [p for p in (tmp_path / "cg" / ARENA_CGROUP_NAME).iterdir() if p.is_dir()]
        assert spec.cgroup == BotCgroup.unified(cgroup_dir)
        joining = join_command(spec.cgroup, ())
        front = (
            HAND_OVER_STREAMS
            if launcher.filter_fd is None
            else (*HAND_OVER_STREAMS_AND_FILTER, f"/proc/{os.getpid()}/fd/{launcher.filter_fd}")
        )
        assert spec.argv[: len(joining) + len(front) + 1] == (*joining, *front, box.bwrap)
        assert spec.argv.count("arena-cgroup") == 1  # the inner layer did not join too
        assert (cgroup_dir / "memory.max").read_text() == str(SMALL.memory_bytes)
        assert (cgroup_dir / "pids.max").read_text() == str(SMALL.processes)
        transport = ProcessTransport.from_spec(spec, name="spy")
        try:
            assert transport.read_line(time.monotonic() + DEADLINE_S) is not None
        finally:
            for path in cgroup_dir.iterdir():
                if path.name != "cgroup.procs":
                    path.unlink()  # a real cgroup's files go with it; a fake one's first
            procs = (cgroup_dir / "cgroup.procs").read_text().split()
            (cgroup_dir / "cgroup.procs").unlink()
            transport.close(0.0)
        assert procs == [str(transport.pid)]
        assert not cgroup_dir.exists()  # removed when the bot was closed
    finally:
        launcher.close()
