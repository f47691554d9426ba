"""The exec wrapper: limits, the bot's own exit status, orphans gone, its streams let go."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from arena.bots.sandbox.limited import SUPERVISOR_PATH
from arena.bots.sandbox.supervisor import SupervisorError, descendants, parse_arguments

WRAPPER = (sys.executable, "-I", "-S", str(SUPERVISOR_PATH))
DEADLINE_S = 10.0


def run(*arguments: str, timeout: float = DEADLINE_S) -> subprocess.CompletedProcess[bytes]:
    """Run the supervisor with ``arguments`` to its end."""
    return subprocess.run(
        [*WRAPPER, *arguments], capture_output=True, timeout=timeout, start_new_session=True
    )


def marked(marker: str) -> list[psutil.Process]:
    """Running processes with ``marker`` in their arguments."""
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


def test_options_are_whole_numbers_up_to_the_double_dash() -> None:
    assert parse_arguments(["--cpu=1", "--nofile=64", "--private-dir=/p", "--", "x"]) == (
        {"cpu": 1, "nofile": 64},
        "/p",
        ["x"],
    )
    for bad, words in [
        (["--cpu=1"], "missing '--'"),
        (["--"], "no command"),
        (["--cpu", "--", "x"], "unknown option"),
        (["--memory=5", "--", "x"], "unknown option"),
        (["cpu=5", "--", "x"], "unknown option"),
        (["--cpu=5s", "--", "x"], "whole number"),
        (["--uid=5", "--", "x"], "go together"),
        (["--private-dir=tmp/x", "--", "x"], "absolute path"),
        (["--stdin-fd=1", "--", "x"], "above 2"),
        (["--stdin-fd=5", "--stdout-fd=5", "--", "x"], "two different"),
        (["--private-tmp=1", "--", "x"], "needs --private-dir"),
    ]:
        with pytest.raises(SupervisorError, match=words):
            parse_arguments(bad)


def test_bad_arguments_exit_125_and_a_missing_program_127() -> None:
    bad = run("--bogus=1", "--", "true")
    assert bad.returncode == 125 and b"unknown option '--bogus=1'" in bad.stderr
    missing = run("--", "/nonexistent/bot")
    assert missing.returncode == 127
    assert b"cannot run '/nonexistent/bot': No such file" in missing.stderr


def test_the_bot_s_exit_code_and_killing_signal_are_passed_on() -> None:
    assert run("--", sys.executable, "-c", "raise SystemExit(3)").returncode == 3
    code = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    assert run("--", sys.executable, "-c", code).returncode == -signal.SIGSEGV


def test_the_signals_python_ignores_are_not_ignored_in_the_bot() -> None:
    # An ignored signal stays ignored across exec: a C bot must die of SIGPIPE and SIGXFSZ.
    status = run("--", "cat", "/proc/self/status").stdout.decode()
    ignored = int(next(line for line in status.splitlines() if line.startswith("SigIgn:"))[7:], 16)
    for number in (signal.SIGPIPE, signal.SIGXFSZ):
        assert not ignored & (1 << (number - 1)), signal.Signals(number).name


def test_the_limits_are_set_in_the_bot() -> None:
    code = (
        "import resource as r; print(*[r.getrlimit(k)[0] for k in "
        "(r.RLIMIT_CPU, r.RLIMIT_FSIZE, r.RLIMIT_NOFILE, r.RLIMIT_AS, r.RLIMIT_CORE)])"
    )
    result = run(
        "--cpu=50",
        "--fsize=4096",
        "--nofile=40",
        "--as=8589934592",
        "--",
        sys.executable,
        "-c",
        code,
    )
    assert result.stdout.split() == [b"50", b"4096", b"40", b"8589934592", b"0"]


def test_a_file_written_past_the_limit_kills_the_bot_by_sigxfsz(tmp_path: Path) -> None:
    code = (
        "import signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_DFL);"
        "open(sys.argv[1], 'wb').write(b'x' * 100_000)"
    )
    target = tmp_path / "big"
    result = run("--fsize=1000", "--", sys.executable, "-c", code, str(target))
    assert result.returncode == -signal.SIGXFSZ
    assert target.stat().st_size == 1000


def test_the_bot_s_orphans_are_killed_when_the_bot_ends(marker: str) -> None:
    # The grandchild leaves the session and drops its environment, then is orphaned.
    code = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        os.execve(sys.executable, [sys.executable, '-c', 'import time; time.sleep(30)',"
        " sys.argv[1]], {})\n"
        "    os._exit(0)\n"
        "time.sleep(0.3)\n"
    )
    result = run("--", sys.executable, "-c", code, marker)
    assert result.returncode == 0
    assert marked(marker) == []


def test_it_lets_go_of_the_bot_s_output_so_a_closed_stdout_is_seen_at_once() -> None:
    code = "import os, time; os.close(1); time.sleep(30)"
    process = subprocess.Popen(
        [*WRAPPER, "--", sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        began = time.monotonic()
        assert process.stdout.read() == b""  # end of output while the bot still runs
        assert time.monotonic() - began < DEADLINE_S
        assert process.poll() is None
    finally:
        process.stdout.close() if process.stdout else None
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=DEADLINE_S)


def test_it_gives_the_bot_the_streams_it_was_handed_as_other_descriptors() -> None:
    # As bwrap's box gets them: the supervisor's own 0 and 1 are /dev/null.
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    streams = [f"--stdin-fd={in_read}", f"--stdout-fd={out_write}"]
    code = "import os, sys; print(sys.stdin.readline().strip(), len(os.listdir('/dev/fd')))"
    try:
        process = subprocess.Popen(
            [*WRAPPER, *streams, "--", sys.executable, "-c", code],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            pass_fds=(in_read, out_write),
            start_new_session=True,
        )
    finally:
        os.close(in_read)
        os.close(out_write)
    with open(in_write, "wb") as writer:
        writer.write(b"handed-over\n")
    with open(out_read, "rb") as reader:
        said = reader.read()  # to the end: no copy of the pipe is left open anywhere
    assert process.wait(timeout=DEADLINE_S) == 0
    # 0, 1, 2 and the listing's own: the handed descriptors were moved, not copied.
    assert said == b"handed-over 4\n"


def test_its_stop_signal_takes_the_whole_tree_down(marker: str) -> None:
    code = (
        "import os, subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)', sys.argv[1]],"
        " start_new_session=True)\n"
        "print('up', flush=True)\n"
        "time.sleep(30)\n"
    )
    process = subprocess.Popen(
        [*WRAPPER, "--", sys.executable, "-c", code, marker],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == b"up\n"
        assert len(marked(marker)) == 3  # the supervisor, the bot, its child
        process.send_signal(signal.SIGTERM)  # what it gets when the arena dies
        assert process.wait(timeout=DEADLINE_S) == -signal.SIGKILL  # as its bot was
        assert marked(marker) == []
    finally:
        process.kill()
        process.wait()
        if process.stdout:
            process.stdout.close()


def test_descendants_lists_children_and_their_children() -> None:
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "time.sleep(30)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + DEADLINE_S
        while not (grandchildren := descendants(process.pid)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(grandchildren) == 1
        mine = descendants(os.getpid())
        assert process.pid in mine and grandchildren[0] in mine
    finally:
        for pid in descendants(process.pid):
            os.kill(pid, signal.SIGKILL)
        process.kill()
        process.wait()
