"""Bots as real processes under the limits layer: honest bots play, hostile ones are stopped.

Every hostile bot here is bounded by its own arguments (2 GiB, 200 processes, 1 GiB, 60 s)
and runs under small limits, so a sandbox that failed could not harm the machine; every
process a test starts is closed in ``finally`` (and tests/conftest.py checks that nothing
is left).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.process import ProcessTransport
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.resources import DEFAULT_RESOURCES, ResourceLimits
from arena.bots.sandbox.watch import DEFAULT_INTERVAL_S
from arena.bots.startup import measure_startup
from arena.bots.transport import BotStartError, ExitInfo, TransportClosedError
from arena.checkbot import check_bot
from tests import REPO_ROOT, TEST_BOTS

HELLO = b'{"type":"hello","seq":1}\n'
ACT = (
    b'{"type":"act","seq":2,"hand_id":"h1","legal_actions":["FOLD","CALL"],'
    b'"call_amount":1,"min_raise_to":4,"max_raise_to":200}\n'
)
DEADLINE_S = 20.0
SMALL = replace(
    DEFAULT_RESOURCES,
    memory_bytes=200 * 1024**2,
    processes=20,
    file_size_bytes=1024**2,
    cpu_seconds=1,
)
SAMPLE_BOTS = sorted((REPO_ROOT / "sample_bots").glob("*/bot.toml"))


def bot(name: str, *args: str) -> BotManifest:
    """tests/bots/<name>, with ``args`` as its script's arguments if given."""
    manifest = load_manifest(TEST_BOTS / name / "bot.toml")
    return replace(manifest, command=(*manifest.command[:2], *args)) if args else manifest


@pytest.fixture
def launcher() -> Iterator[LimitsLauncher]:
    """A limits launcher with small limits; its build copies go at the end."""
    made = LimitsLauncher(SMALL)
    yield made
    made.close()


@pytest.fixture
def started() -> Iterator[list[ProcessTransport]]:
    """Transports the test started; closed at the end whatever happens."""
    transports: list[ProcessTransport] = []
    yield transports
    for transport in transports:
        transport.close(0.0)


def start(
    started: list[ProcessTransport], launcher: LimitsLauncher, manifest: BotManifest
) -> ProcessTransport:
    """Start ``manifest`` under ``launcher``; the ``started`` fixture closes it."""
    transport = ProcessTransport.start(manifest, launcher=launcher)
    started.append(transport)
    return transport


def until_closed(transport: ProcessTransport) -> TransportClosedError:
    """Read until the bot is gone; the error that said so."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        try:
            transport.read_line(deadline)
        except TransportClosedError as exc:
            return exc
    raise AssertionError("the bot was not stopped in time")


def stopped(transport: ProcessTransport) -> tuple[TransportClosedError, ExitInfo]:
    """Wait for the sandbox to stop the bot; the closing error and how it ended."""
    error = until_closed(transport)
    return error, transport.close(0.0)


# -- honest bots ------------------------------------------------------------------------------


@pytest.mark.parametrize("manifest_path", SAMPLE_BOTS, ids=lambda path: path.parent.name)
def test_every_starter_bot_passes_the_check_under_the_limits_layer(
    manifest_path: Path, launcher: LimitsLauncher
) -> None:
    manifest = load_manifest(manifest_path)
    program = manifest.command[0] if manifest.build is None else "gcc"
    if not program.startswith("{") and shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    checkout = sorted(path.name for path in manifest.working_dir.iterdir())
    report = check_bot(manifest_path, launcher=LimitsLauncher())
    failed = [(step.name, step.reason) for step in report.steps if not step.passed]
    assert report.passed, failed
    assert sorted(path.name for path in manifest.working_dir.iterdir()) == checkout


def test_start_up_is_timed_under_the_limits_layer_as_without_it() -> None:
    manifest = REPO_ROOT / "sample_bots" / "python_random" / "bot.toml"
    timing = measure_startup(manifest, repeats=2, launcher=LimitsLauncher())
    assert len(timing.samples_s) == 2 and 0.0 < timing.median_s < DEADLINE_S


def test_a_bot_reads_its_data_file_and_writes_only_to_its_copy() -> None:
    launcher = LimitsLauncher()
    report = check_bot(TEST_BOTS / "sandbox_data" / "bot.toml", launcher=launcher)
    assert report.passed, [step.reason for step in report.steps if not step.passed]
    assert report.step("handshake").reason.find("data reader") >= 0
    assert not (TEST_BOTS / "sandbox_data" / "notes.log").exists()


def test_the_bot_sees_a_scrubbed_environment_in_its_private_copy(
    started: list[ProcessTransport],
) -> None:
    base_env = {"PATH": os.defpath, "LANG": "C.UTF-8", "LC_ALL": "C", "SECRET_TOKEN": "hunter2"}
    launcher = LimitsLauncher(base_env=base_env)
    manifest = bot("sandbox_probe")
    spec = launcher.prepare(manifest)
    transport = ProcessTransport.from_spec(spec, name="probe")
    started.append(transport)
    line = transport.read_line(time.monotonic() + DEADLINE_S)
    assert line is not None
    probe = json.loads(line)
    assert probe["data"] == "forty-two"  # its own data file
    assert sorted(probe["env"]) == [
        "HOME",
        "LANG",
        "LC_ALL",
        "PATH",
        "POKER_ARENA_BOT_TOKEN",
        "PROBE_FROM_MANIFEST",
        "PYTHONUNBUFFERED",
        "TMPDIR",
    ]
    assert spec.private_dir is not None
    assert probe["env"]["HOME"] == str(spec.private_dir)
    assert probe["env"]["TMPDIR"] == str(spec.private_dir / "tmp")
    assert probe["cwd"] == str(spec.private_dir / "bot")
    assert (spec.private_dir / "bot" / "written_by_bot.txt").exists()
    assert not (manifest.working_dir / "written_by_bot.txt").exists()
    if os.geteuid() == 0:  # a user of its own, far from root's
        assert probe["uid"] >= 0x4000_0000 and probe["gid"] == probe["uid"]
    transport.close(1.0)
    assert not spec.private_dir.exists()


def test_the_private_dir_is_removed_even_when_the_bot_cannot_run(tmp_path: Path) -> None:
    launcher = LimitsLauncher(temp_dir=tmp_path)
    manifest = BotManifest(name="gone", command=("{python}", "-c", "pass"), working_dir=tmp_path)
    spec = launcher.prepare(manifest)
    missing = replace(spec, argv=("/nonexistent/supervisor",))
    with pytest.raises(BotStartError):
        ProcessTransport.from_spec(missing, name="gone")
    assert spec.private_dir is not None and not spec.private_dir.exists()


# -- hostile bots -----------------------------------------------------------------------------


def test_a_memory_hog_is_stopped_with_memory_limit(
    started: list[ProcessTransport], launcher: LimitsLauncher
) -> None:
    transport = start(started, launcher, bot("sandbox_hog", "start", "2048"))
    error, info = stopped(transport)
    assert info.limit_reason == "memory_limit"
    assert "memory_limit: resident memory" in str(error)
    assert info.signal == signal.SIGKILL


def test_a_fork_bomb_is_stopped_with_process_limit(
    started: list[ProcessTransport], launcher: LimitsLauncher
) -> None:
    transport = start(started, launcher, bot("sandbox_forkbomb", "start", "200"))
    error, info = stopped(transport)
    assert info.limit_reason == "process_limit"
    assert "over the limit of 20" in str(error)


def test_a_big_file_writer_is_stopped_with_file_size_limit(
    started: list[ProcessTransport], launcher: LimitsLauncher
) -> None:
    transport = start(started, launcher, bot("sandbox_writer", "start", "1024"))
    _, info = stopped(transport)
    assert info.signal == signal.SIGXFSZ
    assert info.limit_reason == "file_size_limit"


def test_a_cpu_spinner_is_stopped_with_cpu_limit(
    started: list[ProcessTransport], launcher: LimitsLauncher
) -> None:
    transport = start(started, launcher, bot("sandbox_spinner", "start", "60"))
    _, info = stopped(transport)
    assert info.limit_reason == "cpu_limit"


def test_an_honest_bot_is_not_stopped(
    started: list[ProcessTransport], launcher: LimitsLauncher
) -> None:
    transport = start(started, launcher, bot("sandbox_hog", "act"))
    transport.send(HELLO)
    assert b'"ready"' in (transport.read_line(time.monotonic() + DEADLINE_S) or b"")
    time.sleep(3 * DEFAULT_INTERVAL_S)  # the watch looks at it a few times
    assert transport.is_alive
    info = transport.close(2.0)
    assert info.exit_code == 0 and info.limit_reason is None


# -- nothing outlives the bot, or the arena -------------------------------------------------


def marked(marker: str) -> list[psutil.Process]:
    """Live processes with ``marker`` among their arguments."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if marker in (process.info["cmdline"] or []) and process.status() != "zombie":
                found.append(process)
        except psutil.Error:
            continue
    return found


@pytest.fixture
def marker() -> Iterator[str]:
    """A word to find a test's processes by; whatever carries it is killed at the end."""
    word = f"sandbox-test-{uuid.uuid4().hex}"
    yield word
    for process in marked(word):
        process.kill()


def wait_until_gone(marker: str) -> list[psutil.Process]:
    """Wait for the processes carrying ``marker`` to end; those left at the deadline."""
    deadline = time.monotonic() + DEADLINE_S
    while (left := marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def test_a_grandchild_that_left_the_session_and_environment_dies_with_the_bot(
    started: list[ProcessTransport], launcher: LimitsLauncher, marker: str
) -> None:
    transport = start(started, launcher, bot("sandbox_escaper", marker))
    transport.send(HELLO)
    assert transport.read_line(time.monotonic() + DEADLINE_S) is not None
    escaped = [p for p in marked(marker) if p.info["cmdline"][1] == "-c"]
    assert len(escaped) == 1 and escaped[0].environ() == {}
    transport.close(0.5)
    assert wait_until_gone(marker) == []


PARENT = """
import sys, time
from arena.bots.manifest import load_manifest
from arena.bots.process import ProcessTransport
from arena.bots.sandbox.limited import LimitsLauncher
from dataclasses import replace
manifest = load_manifest(sys.argv[1])
manifest = replace(manifest, command=(*manifest.command[:2], sys.argv[2], "5"))
transport = ProcessTransport.start(manifest, launcher=LimitsLauncher())
transport.send(b'{"type":"hello","seq":1}\\n')
transport.read_line(time.monotonic() + 20)
print("ready", flush=True)
time.sleep(30)
"""


def test_the_bot_s_whole_tree_dies_when_the_arena_is_killed(marker: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(TEST_BOTS / "sandbox_escaper" / "bot.toml"), marker],
        stdout=subprocess.PIPE,
        cwd=REPO_ROOT,
    )
    try:
        assert parent.stdout is not None and parent.stdout.readline() == b"ready\n"
        # The arena, the supervisor, the bot, its escaped grandchild and its 5 children.
        deadline = time.monotonic() + DEADLINE_S
        while len(marked(marker)) < 9 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(marked(marker)) == 9
        (private_dir,) = {Path(p.cwd()).parent for p in marked(marker)[1:]}
        assert private_dir.name.startswith("arena-bot-")
        parent.kill()
        parent.wait(timeout=DEADLINE_S)
        assert wait_until_gone(marker) == []
        assert not private_dir.exists()  # the supervisor removed it: the arena could not
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout:
            parent.stdout.close()


def test_limits_of_the_manifest_and_the_command_line_reach_the_bot(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    code = "import resource as r; print(r.getrlimit(r.RLIMIT_NOFILE)[0], flush=True)"
    manifest = BotManifest(
        name="nofile",
        command=("{python}", "-c", code),
        working_dir=tmp_path,
        resources={"open_files": 50, "cpu_seconds": 9},
    )
    launcher = LimitsLauncher(ResourceLimits(1024**3, 60, 10, 1024**2, 100, 1024**2))
    first = ProcessTransport.start(manifest, launcher=launcher)
    started.append(first)
    assert first.read_line(time.monotonic() + DEADLINE_S) == b"50"
    overridden = LimitsLauncher(overrides={"open_files": "40"})
    transport = ProcessTransport.start(manifest, launcher=overridden)
    started.append(transport)
    assert transport.read_line(time.monotonic() + DEADLINE_S) == b"40"
