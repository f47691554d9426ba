"""The process transport: a conversation over non-blocking pipes, bounded reading and
writing, exits reported with their code or signal, clear start errors.

Real subprocesses with short limits; the autouse fixture of tests/conftest.py fails any
test that leaves a child process behind.
"""

from __future__ import annotations

import json
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from arena.bots.launcher import LaunchSpec
from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.process import ProcessTransport, process_factory
from arena.bots.transport import BotStartError, ExitInfo, TransportClosedError
from protocol.errors import LineTooLongError
from tests import REPO_ROOT
from tests.arena.bots.programs import HELLO, hostile, script_manifest, soon, start

# -- conversation ---------------------------------------------------------------------------


def test_a_sample_bot_answers_hello_and_exits_after_match_end(
    started: list[ProcessTransport],
) -> None:
    transport = start(
        started, load_manifest(REPO_ROOT / "sample_bots/python_calling_station/bot.toml")
    )
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


class _CountingPoller:
    """A transport's poller that counts its polls (the system calls a decision costs)."""

    def __init__(self, poller: select.poll) -> None:
        self.poller = poller
        self.polls = 0

    def poll(self, timeout: float | None = None) -> list[tuple[int, int]]:
        self.polls += 1
        return self.poller.poll(timeout)

    def register(self, fd: int, events: int) -> None:
        self.poller.register(fd, events)

    def unregister(self, fd: int) -> None:
        self.poller.unregister(fd)


def test_has_output_reads_the_reply_it_finds_so_read_line_does_not_poll_again(
    started: list[ProcessTransport],
) -> None:
    # The session works between has_output() calls until one says the reply is there, then
    # calls read_line: the poll that found the reply also read it, so the decision costs
    # one poll, not two (the line and its bytes are the same either way).
    transport = start(
        started, load_manifest(REPO_ROOT / "sample_bots/python_calling_station/bot.toml")
    )
    counting = _CountingPoller(transport._poller)
    transport._poller = counting  # type: ignore[assignment]
    transport.send(HELLO)
    deadline = soon()
    while not transport.has_output() and time.monotonic() < deadline:
        time.sleep(0.001)
    polls_before_reading = counting.polls
    ready = json.loads(transport.read_line(soon()) or b"null")
    assert ready["type"] == "ready" and ready["seq"] == 1
    assert counting.polls == polls_before_reading


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
    # The bot reads nothing until the test says so: a test descheduled among its sends
    # (a loaded machine) must still leave more than the pipe holds waiting.
    go = tmp_path / "go"
    code = (
        "import os, sys, time\n"
        f"while not os.path.exists({str(go)!r}):\n"
        "    time.sleep(0.01)\n"
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
    go.touch()
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
