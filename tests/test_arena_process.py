"""Bot processes: own session, bounded pipes, exit codes, tree kill, builds.

Real subprocesses with short limits; the autouse fixture of conftest.py fails any test
that leaves a child process behind.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from arena.bots.build import BuildError, build_bot, run_build
from arena.bots.launcher import DirectLauncher, LaunchSpec
from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.process import ProcessTransport, kill_process_tree, measure_startup, process_factory
from arena.bots.stderr_log import CappedLog
from arena.bots.transport import BotStartError, ExitInfo, TransportClosedError
from protocol.errors import LineTooLongError

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
HELLO = b'{"type":"hello","seq":1}\n'


def script_manifest(code: str, tmp_path: Path, name: str = "script") -> BotManifest:
    """A bot that is a few lines of Python run with ``-c``."""
    return BotManifest(name=name, command=("{python}", "-c", code), working_dir=tmp_path)


def hostile(name: str, *args: str) -> BotManifest:
    manifest = load_manifest(BOTS / name / "bot.toml")
    if args:
        manifest = BotManifest(
            name=manifest.name,
            command=(*manifest.command[:2], *args),
            working_dir=manifest.working_dir,
        )
    return manifest


@pytest.fixture
def started() -> Iterator[list[ProcessTransport]]:
    """Transports the test started; closed at the end whatever happens."""
    transports: list[ProcessTransport] = []
    yield transports
    for transport in transports:
        transport.close(0.0)


def start(
    started: list[ProcessTransport], manifest: BotManifest, **options: int
) -> ProcessTransport:
    transport = ProcessTransport.start(manifest, **options)  # type: ignore[arg-type]
    started.append(transport)
    return transport


def soon(seconds: float = 5.0) -> float:
    return time.monotonic() + seconds


# -- conversation ---------------------------------------------------------------------------


def test_a_sample_bot_answers_hello_and_exits_after_match_end(
    started: list[ProcessTransport],
) -> None:
    transport = start(started, load_manifest(ROOT / "sample_bots/python_calling_station/bot.toml"))
    transport.send(HELLO)
    ready = json.loads(transport.read_line(soon()) or b"null")
    assert ready["type"] == "ready" and ready["seq"] == 1
    assert transport.is_alive
    transport.send(b'{"type":"match_end","standings":[]}\n')
    info = transport.close(grace_s=5.0)
    assert info == ExitInfo(exit_code=0, signal=None, is_killed=False)
    assert not transport.is_alive
    assert transport.close(0.0) is info  # idempotent
    with pytest.raises(TransportClosedError, match="was closed"):
        transport.send(HELLO)
    with pytest.raises(TransportClosedError, match="was closed"):
        transport.read_line(soon())


def test_has_output_says_whether_a_read_would_wait(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    code = (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    sys.stdout.write('one\\ntwo\\n'); sys.stdout.flush()\n"
    )
    transport = start(started, script_manifest(code, tmp_path))
    assert not transport.has_output()  # the bot has written nothing yet
    transport.send(b"go\n")
    assert transport.read_line(soon()) == b"one"  # both lines were read in one go...
    assert transport.has_output()  # ...so the second is there without a poll
    assert transport.read_line(soon()) == b"two"
    assert not transport.has_output()
    transport.process.stdin.close()  # type: ignore[union-attr]
    deadline = soon()
    while not transport.has_output() and time.monotonic() < deadline:
        time.sleep(0.01)  # the end of output is output too: read_line would not wait
    with pytest.raises(TransportClosedError):
        transport.read_line(soon())
    assert transport.has_output()


def test_read_line_returns_none_at_the_deadline_and_close_kills_a_hanging_bot(
    started: list[ProcessTransport],
) -> None:
    # This bot does not even exit at the end of its input.
    transport = start(started, hostile("hang", "match_end"))
    transport.send(HELLO)
    assert transport.read_line(soon()) is not None  # ready
    began = time.monotonic()
    assert transport.read_line(began + 0.2) is None
    assert 0.15 < time.monotonic() - began < 2.0
    assert transport.read_line(0.0) is None  # a deadline in the past does not wait
    info = transport.close(grace_s=0.1)
    assert (info.exit_code, info.signal, info.is_killed) == (None, signal.SIGKILL, True)
    assert info.describe() == "killed by signal 9 (SIGKILL)"


@pytest.mark.parametrize(
    ("how", "exit_code", "signal_number"),
    [("exit", 3, None), ("signal", None, int(signal.SIGKILL))],
)
def test_an_exit_is_reported_with_its_code_or_signal_and_stderr(
    started: list[ProcessTransport],
    how: str,
    exit_code: int | None,
    signal_number: int | None,
) -> None:
    transport = start(started, hostile("crasher", "startup", how))
    transport.send(HELLO)
    with pytest.raises(TransportClosedError) as caught:
        transport.read_line(soon())
    assert (caught.value.exit_code, caught.value.signal) == (exit_code, signal_number)
    assert "crashing at startup" in str(caught.value)
    with pytest.raises(TransportClosedError):  # the end of output stays the end
        transport.read_line(soon())
    with pytest.raises(TransportClosedError, match="exited"):
        transport.send(HELLO)
    info = transport.close(0.0)
    assert (info.exit_code, info.signal, info.is_killed) == (exit_code, signal_number, False)
    assert "crashing at startup" in info.stderr_tail


def test_a_bot_that_closes_its_stdout_but_runs_on_is_closed_and_then_killed(
    started: list[ProcessTransport],
) -> None:
    transport = start(started, hostile("crasher", "startup", "close"))
    transport.send(HELLO)
    with pytest.raises(TransportClosedError, match="closed its output") as caught:
        transport.read_line(soon())
    assert caught.value.exit_code is None
    assert transport.is_alive
    assert transport.close(0.0).is_killed


def test_an_exit_is_noticed_even_when_a_child_keeps_stdout_open(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    code = (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "sys.exit(5)\n"
    )
    transport = start(started, script_manifest(code, tmp_path))
    with pytest.raises(TransportClosedError) as caught:
        deadline = soon()
        while time.monotonic() < deadline:
            transport.read_line(time.monotonic() + 0.05)
    assert caught.value.exit_code == 5
    # Noticed without reaping: the exited bot's pid is still its process group's id.
    assert transport.process.returncode is None
    info = transport.close(0.0)
    assert info.exit_code == 5


# -- bounded reading ------------------------------------------------------------------------


def test_an_over_long_line_is_an_error_and_reading_carries_on(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    code = "import sys; sys.stdout.write('a' * 5000 + '\\nok\\n'); sys.stdout.flush()"
    transport = start(started, script_manifest(code, tmp_path), max_line_bytes=1000)
    with pytest.raises(LineTooLongError):
        transport.read_line(soon())
    assert transport.read_line(soon()) == b"ok"


def test_unread_output_beyond_the_turn_budget_is_dropped_and_counted(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    # 50 lines of 999 bytes and "end" in one write, all in the pipe before the first read.
    code = "import os\nos.write(1, b''.join(b'x' * 999 + b'\\n' for _ in range(50)) + b'end\\n')\n"
    transport = start(started, script_manifest(code, tmp_path), max_pending_bytes=10_000)
    deadline = soon()
    while transport.is_alive and time.monotonic() < deadline:  # it exits once written
        time.sleep(0.01)
    lines = []
    with pytest.raises(TransportClosedError, match="exit code 0"):
        while (line := transport.read_line(time.monotonic() + 0.2)) is not None:
            lines.append(line)
    # 10 lines (9,990 bytes) fit the budget, the other 40 do not; "end" still fits.
    assert lines == [b"x" * 999] * 10 + [b"end"]
    assert transport.stdout_dropped_bytes == 40 * 1000
    info = transport.close(0.0)
    assert info.stdout_dropped_bytes == transport.stdout_dropped_bytes
    assert info.dropped_bytes == 40_000


def test_output_beyond_what_the_pipe_holds_waits_for_the_arena_and_is_not_lost(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    # 400 KB: the bot waits on its full pipe until the arena reads (memory stays bounded).
    code = "import sys\nfor i in range(400): print(str(i).rjust(999, 'x'))\nprint('end')"
    transport = start(started, script_manifest(code, tmp_path))
    time.sleep(0.15)
    assert transport.is_alive  # blocked on its full stdout, not finished
    lines = []
    with pytest.raises(TransportClosedError, match="exit code 0"):
        while (line := transport.read_line(soon())) is not None:
            lines.append(line)
    assert lines == [str(i).rjust(999, "x").encode() for i in range(400)] + [b"end"]
    assert transport.stdout_dropped_bytes == 0


def test_a_flood_of_stderr_never_blocks_the_bot_and_is_kept_head_and_tail(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    code = (
        "import sys\n"
        "sys.stderr.write('HEAD' + 'e' * 2_000_000 + 'TAIL')\n"
        "sys.stderr.flush()\n"
        "print('done', flush=True)\n"
    )
    transport = start(started, script_manifest(code, tmp_path), stderr_cap_bytes=1000)
    assert transport.read_line(soon()) == b"done"
    info = transport.close(grace_s=5.0)
    assert info.stderr_dropped_bytes == 2_000_008 - 1000
    assert info.stderr_tail.endswith("TAIL")
    assert transport.stderr_log.text().startswith("HEAD")


def test_a_bot_that_stops_reading_its_input_never_blocks_the_arena(
    started: list[ProcessTransport],
) -> None:
    transport = start(started, hostile("hang", "deaf"), max_input_backlog_bytes=300_000)
    transport.send(HELLO)
    assert transport.read_line(soon()) is not None
    message = b'{"type":"hand_start","pad":"' + b"x" * 10_000 + b'"}\n'
    began = time.monotonic()
    with pytest.raises(TransportClosedError, match="stopped reading its input"):
        for _ in range(100):  # 1 MB: far more than a pipe holds
            transport.send(message)
    assert time.monotonic() - began < 2.0
    assert transport.close(0.0).is_killed


def test_input_the_pipe_cannot_take_yet_is_written_while_the_arena_waits(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    # A slow reader: it starts reading late and pauses after each "done".
    code = (
        "import sys, time\n"
        "time.sleep(0.15)\n"
        "total = 0\n"
        "for line in sys.stdin.buffer:\n"
        "    if line == b'done\\n':\n"
        "        print(total, flush=True)\n"
        "        time.sleep(0.15)\n"
        "    else:\n"
        "        total += len(line)\n"
        "sys.stderr.write(f'total {total}\\n')\n"
        "sys.stderr.flush()\n"
        "for _ in range(2000):\n"  # a goodbye longer than the pipe holds
        "    print('bye' * 100)\n"
    )
    transport = start(started, script_manifest(code, tmp_path))
    message = b"x" * 9_999 + b"\n"
    began = time.monotonic()
    for _ in range(30):  # 300 KB: far more than the pipe holds; sending never waits
        transport.send(message)
    transport.send(b"done\n")
    assert time.monotonic() - began < 0.2
    assert transport.input_backlog_bytes > 200_000
    assert transport.read_line(soon()) == b"300000"  # the backlog went out meanwhile
    assert transport.input_backlog_bytes == 0
    for _ in range(30):
        transport.send(message)
    assert transport.input_backlog_bytes > 0
    # close writes the rest before closing stdin, and reads the goodbye away.
    info = transport.close(grace_s=5.0)
    assert (info.exit_code, info.is_killed) == (0, False)
    assert "total 600000" in info.stderr_tail


def test_input_waiting_for_the_pipe_goes_out_while_the_arena_asks_for_output(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    # The arena works between has_output() calls while a bot thinks: those calls write
    # the input backlog too, so a long message is not held back until the arena waits.
    code = (
        "import sys\n"
        "total = 0\n"
        "for line in sys.stdin.buffer:\n"
        "    if line == b'done\\n':\n"
        "        print(total, flush=True)\n"
        "    total += len(line)\n"
    )
    transport = start(started, script_manifest(code, tmp_path))
    for _ in range(30):
        transport.send(b"x" * 9_999 + b"\n")
    transport.send(b"done\n")
    assert transport.input_backlog_bytes > 0
    deadline = soon()
    while not transport.has_output() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert transport.input_backlog_bytes == 0
    assert transport.read_line(soon()) == b"300000"


def test_close_gives_up_on_input_a_deaf_bot_does_not_take(
    started: list[ProcessTransport],
) -> None:
    transport = start(started, hostile("hang", "deaf"))
    transport.send(HELLO)
    assert transport.read_line(soon()) is not None
    transport.send(b"x" * 65_535 + b"\n")  # exactly what a Linux pipe holds
    for _ in range(20):
        transport.send(b'{"type":"hand_start","pad":"' + b"x" * 10_000 + b'"}\n')
    assert transport.input_backlog_bytes > 200_000
    began = time.monotonic()
    info = transport.close(grace_s=0.2)
    assert 0.15 < time.monotonic() - began < 2.0
    assert info.is_killed and transport.input_backlog_bytes == 0


def test_a_bot_that_closes_its_stdin_with_input_waiting_is_reported(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    code = "import os, time\ntime.sleep(0.2)\nos.close(0)\nprint('closed', flush=True)\n"
    code += "time.sleep(60)"
    transport = start(started, script_manifest(code, tmp_path))
    for _ in range(20):
        transport.send(b"x" * 9_999 + b"\n")
    assert transport.read_line(soon()) == b"closed"
    with pytest.raises(TransportClosedError, match="closed its stdin"):
        transport.send(HELLO)
    assert transport.input_backlog_bytes == 0
    assert transport.close(0.0).is_killed


def test_a_bot_that_closes_its_stdin_is_reported_at_the_next_send(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    code = "import os, time\nos.close(0)\nprint('closed', flush=True)\ntime.sleep(60)"
    transport = start(started, script_manifest(code, tmp_path))
    assert transport.read_line(soon()) == b"closed"
    with pytest.raises(TransportClosedError, match="closed its stdin"):
        deadline = soon()
        while time.monotonic() < deadline:
            transport.send(HELLO)
            time.sleep(0.01)


# -- process trees --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["group", "setsid"])
def test_close_kills_grandchildren_in_and_out_of_the_process_group(
    started: list[ProcessTransport], mode: str
) -> None:
    transport = start(started, hostile("forker", mode))
    deadline = soon()
    while "grandchild" not in transport.stderr_log.text() and time.monotonic() < deadline:
        time.sleep(0.01)
    grandchild = int(transport.stderr_log.text().split()[1])
    assert psutil.pid_exists(grandchild)
    transport.close(0.0)
    gone = not psutil.pid_exists(grandchild)
    assert gone or psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE


def test_an_orphan_that_left_the_group_is_found_by_its_token(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    code = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],\n"
        "    start_new_session=True, stdout=subprocess.DEVNULL)\n"
        "print(child.pid, flush=True)\n"
    )
    transport = start(started, script_manifest(code, tmp_path))
    orphan = int(transport.read_line(soon()) or b"0")
    with pytest.raises(TransportClosedError, match="exit code 0"):
        transport.read_line(soon())
    assert psutil.pid_exists(orphan)  # the bot is gone; its child lives on, in its own session
    transport.close(0.0)
    assert not psutil.pid_exists(orphan) or psutil.Process(orphan).status() == "zombie"


def test_kill_process_tree_kills_a_process_and_ignores_a_dead_one() -> None:
    import subprocess

    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    kill_process_tree(process.pid)
    assert process.wait(timeout=5) == -signal.SIGKILL
    kill_process_tree(process.pid)  # already gone: nothing to do, nothing raised


# -- start-up -------------------------------------------------------------------------------


def test_a_missing_program_is_a_clear_start_error(tmp_path: Path) -> None:
    manifest = BotManifest(name="ghost", command=("./no-such-bot",), working_dir=tmp_path)
    with pytest.raises(BotStartError, match=r"cannot run bot 'ghost'.*no-such-bot"):
        ProcessTransport.start(manifest)


def test_a_file_that_is_not_executable_is_a_clear_start_error(tmp_path: Path) -> None:
    (tmp_path / "bot").write_text("not a program")
    manifest = BotManifest(name="plain", command=("./bot",), working_dir=tmp_path)
    with pytest.raises(BotStartError, match="Permission denied"):
        ProcessTransport.start(manifest)


def test_process_factory_starts_a_new_process_each_call(
    started: list[ProcessTransport],
) -> None:
    seen: list[ProcessTransport] = []
    factory = process_factory(hostile("hang"), on_start=seen.append)
    first, second = factory(), factory()
    started.extend([first, second])
    assert seen == [first, second] and first.pid != second.pid
    third = process_factory(hostile("hang"))()
    started.append(third)
    assert third.is_alive


def test_the_launcher_spec_is_run_exactly(started: list[ProcessTransport], tmp_path: Path) -> None:
    spec = LaunchSpec(
        argv=(
            sys.executable,
            "-c",
            "import os; print(os.getcwd(), os.environ['BOT_X'], flush=True)",
        ),
        cwd=tmp_path,
        env={"BOT_X": "42", "PATH": "/usr/bin:/bin"},
    )
    transport = ProcessTransport.from_spec(spec, name="spec")
    started.append(transport)
    assert transport.read_line(soon()) == f"{tmp_path} 42".encode()


def test_measure_startup_times_exec_to_ready() -> None:
    timing = measure_startup(ROOT / "sample_bots/python_random/bot.toml", repeats=2)
    assert timing.bot_name == "python random" and len(timing.samples_s) == 2
    assert 0 < timing.median_s <= timing.max_s < 10
    assert timing.to_dict()["starts"] == 2


def test_measure_startup_skips_lines_before_ready(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "print('banner', flush=True)\n"
        "seq = json.loads(sys.stdin.readline())['seq']\n"
        "print(json.dumps({'type': 'ready', 'seq': seq, 'name': 'x'}), flush=True)\n"
    )
    timing = measure_startup(script_manifest(code, tmp_path), repeats=1)
    assert len(timing.samples_s) == 1


def test_measure_startup_fails_clearly_without_ready() -> None:
    with pytest.raises(RuntimeError, match="sent no ready"):
        measure_startup(hostile("hang", "startup"), repeats=1, timeout_s=0.2)


# -- builds ---------------------------------------------------------------------------------


def build_manifest(tmp_path: Path, code: str, timeout_s: float = 30.0) -> BotManifest:
    return BotManifest(
        name="built",
        command=("./bot",),
        working_dir=tmp_path,
        build=("{python}", "-c", code),
        build_timeout_s=timeout_s,
        env={"GREETING": "hi"},
    )


def test_a_build_runs_in_the_bot_dir_with_its_environment(tmp_path: Path) -> None:
    code = "import os; open('out.txt', 'w').write(os.environ['GREETING']); print('built!')"
    result = build_bot(build_manifest(tmp_path, code))
    assert result.is_ok and result.has_run and result.exit_code == 0
    assert "succeeded" in result.reason and "built!" in result.output
    assert (tmp_path / "out.txt").read_text() == "hi"


def test_a_failing_build_says_how_it_failed(tmp_path: Path) -> None:
    code = "import sys; print('error: bot.c:3: missing ;'); sys.exit(2)"
    result = run_build(build_manifest(tmp_path, code))
    assert not result.is_ok and result.exit_code == 2
    assert "failed (exit code 2)" in result.reason and "missing ;" in result.output
    with pytest.raises(BuildError, match="exit code 2") as caught:
        build_bot(build_manifest(tmp_path, code))
    assert caught.value.result.exit_code == 2


def test_a_build_past_its_time_limit_is_killed(tmp_path: Path) -> None:
    code = "import time; time.sleep(60)"
    began = time.monotonic()
    result = run_build(build_manifest(tmp_path, code, timeout_s=30.0), timeout_s=0.3)
    assert time.monotonic() - began < 5.0
    assert not result.is_ok and result.is_timed_out and result.signal == signal.SIGKILL
    assert "longer than 0.3 s" in result.reason


def test_a_build_program_that_is_missing_fails_clearly(tmp_path: Path) -> None:
    manifest = BotManifest(
        name="b", command=("./bot",), working_dir=tmp_path, build=("no-such-compiler",)
    )
    result = run_build(manifest)
    assert not result.is_ok and "cannot run the build command 'no-such-compiler'" in result.reason


def test_a_bot_without_build_step_needs_no_build(tmp_path: Path) -> None:
    result = run_build(BotManifest(name="b", command=("./bot",), working_dir=tmp_path))
    assert result.is_ok and not result.has_run


def test_the_c_sample_bot_builds_with_make() -> None:
    result = run_build(load_manifest(ROOT / "sample_bots/c/bot.toml"), launcher=DirectLauncher())
    assert result.is_ok, result.output
    assert (ROOT / "sample_bots/c/build/bot").exists()


# -- the capped log -------------------------------------------------------------------------


def test_capped_log_keeps_everything_under_the_cap_and_saves(tmp_path: Path) -> None:
    log = CappedLog(cap_bytes=100)
    log.write(b"hello ")
    log.write("wörld".encode())
    assert (log.text(), log.dropped_bytes, log.total_bytes) == ("hello wörld", 0, 12)
    path = log.save(tmp_path / "logs" / "bot.stderr")
    assert path.read_bytes() == "hello wörld".encode()
    assert log.tail_text(3) == "rld"


def test_capped_log_counts_what_falls_between_head_and_tail() -> None:
    log = CappedLog(cap_bytes=10)
    for _ in range(100):
        log.write(b"0123456789")
    assert log.total_bytes == 1000 and log.dropped_bytes == 990
    assert log.data() == b"01234\n[... 990 bytes dropped ...]\n56789"
    with pytest.raises(ValueError, match="at least 2"):
        CappedLog(cap_bytes=1)
