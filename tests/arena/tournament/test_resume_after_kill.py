"""``kill -9`` of the tournament host at random moments, then the same command again.

Finished matches must not be played again, unfinished ones start again from their first
hand, no process of the killed run may survive it, and the final standings must be those
of an uninterrupted run with the same seed.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.arena.tournament.helpers import (
    FOLDER,
    HAND_STRENGTH,
    ROOT,
    STATION,
    run_tournament,
    standings,
)

pytestmark = pytest.mark.allow_error_logs

SETTINGS = (
    FOLDER, STATION, HAND_STRENGTH, "--deals", "60", "--block-deals", "10", "--seed", "9",
    "--sandbox", "none", "--concurrency", "2", "--no-progress",
)  # fmt: skip


def _kill_host_at(out: Path, delay_s: float) -> int:
    """Start the command, SIGKILL its host process after ``delay_s``; returns how many of
    its processes there were. Fails if any of them outlives the host."""
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", *map(str, SETTINGS), "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    family: list[psutil.Process] = []
    try:
        time.sleep(delay_s)
        host = psutil.Process(process.pid)
        family = host.children(recursive=True)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        _gone, alive = psutil.wait_procs(family, timeout=10)
        assert not alive, f"processes outlived the killed host: {alive}"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for child in family:
            if child.is_running():
                child.kill()
    return len(family)


def test_kill_9_at_random_moments_then_resume_gives_the_uninterrupted_results(
    tmp_path: Path,
) -> None:
    code, text = run_tournament(*SETTINGS, "--out", tmp_path / "whole")
    assert code == 0, text
    expected = standings(tmp_path / "whole")

    out = tmp_path / "killed"
    rng = random.Random(20261124)
    for _attempt in range(3):
        _kill_host_at(out, rng.uniform(1.0, 3.5))
    code, text = run_tournament(*SETTINGS, "--out", out)
    assert code == 0, text
    assert standings(out) == expected
    with sqlite3.connect(out / "results.sqlite") as db:
        statuses = db.execute("SELECT status, count(*) FROM matches GROUP BY status").fetchall()
        duplicates = db.execute(
            "SELECT count(*) FROM (SELECT match_row, hand_number FROM hands "
            "GROUP BY match_row, hand_number HAVING count(*) > 1)"
        ).fetchone()
    assert dict(statuses) == {"finished": 36}  # 3 pairs x 6 blocks x 2 seatings, once each
    assert duplicates == (0,)
