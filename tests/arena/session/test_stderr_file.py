"""One seat's stderr file (:mod:`arena.session.stderr_file`): each process's head and tail,
a marker line per restart, bounded, private, and fed by the session as processes end."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from arena.bots.in_memory import FakeClock, InMemoryTransport
from arena.bots.stderr_log import CappedLog
from arena.session.stderr_file import (
    DEFAULT_SEAT_STDERR_MAX_BYTES,
    HasStderrLog,
    SeatStderrLog,
    safe_file_name,
)
from arena.session.watchdog import BotSession
from tests.arena.session.harness import HELLO, LIMITS, script


def _seat(
    folder: Path, seat_index: int, name: str, *, max_bytes: int = DEFAULT_SEAT_STDERR_MAX_BYTES
) -> SeatStderrLog:
    relative = f"stderr/{seat_index}-{safe_file_name(name)}.log"
    return SeatStderrLog(folder / relative, relative_path=relative, max_bytes=max_bytes)


def process_log(text: bytes, cap_bytes: int = 64) -> CappedLog:
    log = CappedLog(cap_bytes)
    log.write(text)
    return log


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("alice", "alice"),
        ("python random", "python_random"),
        ("../../etc/passwd", "etc_passwd"),
        ("...", "bot"),
        ("a" * 100, "a" * 64),
        ("bot.v2-final_", "bot.v2-final"),
    ],
)
def test_a_bot_name_becomes_a_safe_file_name(name: str, safe: str) -> None:
    assert safe_file_name(name) == safe


def test_the_file_is_named_after_the_seat_and_the_bot(tmp_path: Path) -> None:
    seat = _seat(tmp_path, 3, "my bot")
    assert seat.relative_path == "stderr/3-my_bot.log"
    assert seat.path == tmp_path / "stderr" / "3-my_bot.log"
    assert not seat.is_written and seat.data() == b"" and not seat.path.exists()
    assert seat.max_bytes == DEFAULT_SEAT_STDERR_MAX_BYTES


def test_a_process_keeps_its_head_and_tail_with_the_dropped_marker(tmp_path: Path) -> None:
    seat = _seat(tmp_path, 0, "loud")
    seat.add(process_log(b"HEAD" + b"x" * 1000 + b"TAIL", cap_bytes=16))
    text = seat.path.read_bytes()
    assert text == b"HEADxxxx\n[... 992 bytes dropped ...]\nxxxxTAIL"
    assert (seat.total_bytes, seat.process_count) == (1008, 1)


def test_each_restart_is_appended_after_a_marker_line(tmp_path: Path) -> None:
    seat = _seat(tmp_path, 1, "crasher")
    seat.add(process_log(b"first run\n"))
    seat.add(process_log(b"second run, no newline"))
    seat.add(process_log(b"third run\n"))
    assert seat.path.read_text() == (
        "first run\n--- restart 1 ---\nsecond run, no newline\n--- restart 2 ---\nthird run\n"
    )
    assert (seat.total_bytes, seat.process_count) == (42, 3)


def test_a_restart_after_a_process_that_wrote_nothing(tmp_path: Path) -> None:
    seat = _seat(tmp_path, 0, "quiet")
    seat.add(process_log(b""))
    assert seat.is_written and seat.path.read_bytes() == b""
    seat.add(process_log(b"now it talks\n"))
    assert seat.path.read_text() == "--- restart 1 ---\nnow it talks\n"


def test_many_restarts_keep_the_first_and_the_last_processes_within_the_bound(
    tmp_path: Path,
) -> None:
    seat = _seat(tmp_path, 0, "phoenix", max_bytes=200)
    for number in range(50):
        seat.add(process_log(f"process {number} says {'x' * 20}\n".encode()))
    text = seat.path.read_text()
    lines = text.splitlines()
    assert lines[0].startswith("process 0 says")
    assert lines[1].startswith("--- the stderr of ") and "restart(s) not kept" in lines[1]
    assert lines[-2:] == ["--- restart 49 ---", f"process 49 says {'x' * 20}"]
    assert len(text) <= 200 + 100  # the bound, plus the line saying what was left out
    assert seat.total_bytes == sum(len(f"process {n} says {'x' * 20}\n") for n in range(50))


def test_the_gap_line_starts_a_line_of_its_own(tmp_path: Path) -> None:
    seat = _seat(tmp_path, 0, "phoenix", max_bytes=10)
    for text in (b"no newline", b"b" * 8, b"c" * 8):
        seat.add(process_log(text))
    assert seat.data().startswith(b"no newline\n--- the stderr of 1 restart(s) not kept")


def test_the_file_is_readable_by_the_arena_user_only(tmp_path: Path) -> None:
    seat = _seat(tmp_path, 0, "secret")
    seat.path.parent.mkdir(parents=True)
    seat.path.write_text("left from an earlier run")
    seat.path.chmod(0o644)
    seat.add(process_log(b"fresh\n"))
    assert mode_of(seat.path) == 0o600
    assert seat.path.read_text() == "fresh\n"


def test_a_bound_below_one_byte_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="max_bytes must be at least 1, got 0"):
        SeatStderrLog(tmp_path / "x.log", relative_path="x.log", max_bytes=0)


class LoudTransport(InMemoryTransport):
    """An in-memory bot with a stderr log, as a process has."""

    def __init__(self, bot: Any, *, clock: FakeClock, text: bytes) -> None:
        super().__init__(bot, clock=clock)
        self.stderr_log = process_log(text)


def test_the_session_adds_each_process_stderr_as_it_is_closed(tmp_path: Path) -> None:
    clock = FakeClock()
    runs = iter([b"run one\n", b"run two\n"])
    session = BotSession(
        lambda: LoudTransport(script(lambda m: None), clock=clock, text=next(runs)),
        player_id="p0",
        seat_index=0,
        clock=clock,
        limits=LIMITS,
        restart_budget=1,
    )
    seat = _seat(tmp_path, 0, "loud")
    session.keep_stderr(seat)
    assert session.stderr_log is seat
    assert session.start(HELLO) is not None
    assert isinstance(session.transport, HasStderrLog)
    session.close()  # the first process is killed: its stderr is in the file already
    assert seat.path.read_text() == "run one\n"
    assert session.restart()
    session.finish()
    assert seat.path.read_text() == "run one\n--- restart 1 ---\nrun two\n"


def test_a_bot_without_a_stderr_log_writes_no_file(tmp_path: Path) -> None:
    clock = FakeClock()
    session = BotSession(
        lambda: InMemoryTransport(script(lambda m: None), clock=clock),
        player_id="p0",
        seat_index=0,
        clock=clock,
        limits=LIMITS,
    )
    seat = _seat(tmp_path, 0, "memory")
    session.keep_stderr(seat)
    session.start(HELLO)
    session.finish()
    assert not seat.is_written and not seat.path.exists()
