"""The worker pool of ``arena server run`` (with a stand-in worker): a worker that dies is
started again, at once after a steady run and with a growing back-off when it keeps
failing at its start; stopping ends every worker, one that ignores SIGTERM by SIGKILL."""

from __future__ import annotations

import io
import signal
import sys
import time
from pathlib import Path

import pytest

from arena.server import serve
from arena.server.serve import RESTART_MOST, STEADY_SECONDS, WorkerPool
from arena.server.site_folder import SiteFolder

# Stand-ins for the management program (the command's name comes after, unused).
SLEEPER = (sys.executable, "-c", "import time; time.sleep(120)")
IGNORE_SIGTERM = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN)"
STUBBORN = (sys.executable, "-c", f"{IGNORE_SIGTERM}; time.sleep(120)")


def _wait_for(check: object, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_a_dead_worker_is_started_again_and_stop_ends_them_all(tmp_path: Path) -> None:
    out = io.StringIO()
    pool = WorkerPool(SiteFolder(tmp_path), 2, out, program=SLEEPER, check_every=0.05)
    pool.start()
    try:
        first = pool.processes[0]
        first.send_signal(signal.SIGKILL)
        _wait_for(lambda: pool.processes[0] is not first)
        assert f"worker {first.pid} ended (exit code -9); starting another" in out.getvalue()
    finally:
        pool.stop()
    assert all(process.poll() is not None for process in pool.processes)


def test_a_worker_that_ignores_sigterm_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serve, "STOP_GRACE", 0.5)
    pool = WorkerPool(SiteFolder(tmp_path), 1, io.StringIO(), program=STUBBORN, check_every=0.05)
    pool.start()
    time.sleep(0.3)  # let it install its handler
    pool.stop()
    assert pool.processes[0].returncode == -signal.SIGKILL


FAILS_AT_START = (sys.executable, "-c", "raise SystemExit(1)")


class Clock:
    """The pool's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _ended(pool: WorkerPool) -> None:
    _wait_for(lambda: all(process.poll() is not None for process in pool.processes))


def test_a_worker_that_keeps_failing_at_its_start_waits_longer_each_time(tmp_path: Path) -> None:
    # A ladder worker whose competition file became unreadable used to be started again
    # every second, forever: now each failed start doubles the wait, up to a minute.
    out, clock = io.StringIO(), Clock()
    pool = WorkerPool(SiteFolder(tmp_path), 1, out, program=FAILS_AT_START, clock=clock)
    try:
        pool.stopping.set()  # no watch thread: the test calls check() itself
        pool.start()
        delays = []
        for _ in range(8):
            _ended(pool)
            pool.check()  # seen dead: its restart is scheduled
            due = pool.slots[0].due
            assert due is not None
            delays.append(due - clock.now)
            first = pool.processes[0]
            clock.now = due - 0.5
            pool.check()
            assert pool.processes[0] is first  # not before its time
            clock.now = due
            pool.check()
            assert pool.processes[0] is not first
        assert delays == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, RESTART_MOST, RESTART_MOST]
        assert "ended (exit code 1); starting another in 4 s" in out.getvalue()
    finally:
        pool.stop()


def test_a_worker_that_ran_steadily_is_started_again_at_once(tmp_path: Path) -> None:
    out, clock = io.StringIO(), Clock()
    pool = WorkerPool(SiteFolder(tmp_path), 1, out, program=FAILS_AT_START, clock=clock)
    try:
        pool.stopping.set()
        pool.start()
        pool.slots[0].backoff.failures = 5  # it had failed at its start before
        _ended(pool)
        clock.now = STEADY_SECONDS  # but this one ran long enough to have worked
        first = pool.processes[0]
        pool.check()
        assert pool.processes[0] is not first  # started again in the same look
        assert "starting another at once" in out.getvalue()
        assert pool.slots[0].backoff.failures == 0
    finally:
        pool.stop()
