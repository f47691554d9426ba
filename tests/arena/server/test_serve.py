"""The worker pool of ``arena server run`` (with a stand-in worker): a worker that dies is
started again; stopping ends every worker, one that ignores SIGTERM by SIGKILL."""

from __future__ import annotations

import io
import signal
import sys
import time
from pathlib import Path

import pytest

from arena.server import serve
from arena.server.serve import WorkerPool
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
