"""``kill -9`` of the tournament host mid-run, then the same command again.

Finished matches must not be played again, unfinished ones start again from their first
hand, no process of the killed run may survive it, and the final standings must be those
of an uninterrupted run with the same seed. ``make test`` kills a small tournament once,
as soon as its first match is stored; ``make test-long`` kills a larger one three times
at random moments.
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

COMMON = (
    FOLDER, STATION, HAND_STRENGTH, "--block-deals", "10", "--seed", "9",
    "--sandbox", "none", "--concurrency", "2", "--no-progress",
)  # fmt: skip
#: 3 pairs x 6 blocks x 2 seatings: 36 matches.
SETTINGS = (*COMMON, "--deals", "60")
#: 3 pairs x 2 blocks x 2 seatings: 12 matches.
SMALL = (*COMMON, "--deals", "20")


def _finished(out: Path) -> int:
    """Matches the run stored as finished so far (0 before its database exists)."""
    path = out / "results.sqlite"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            row = db.execute("SELECT count(*) FROM matches WHERE status = 'finished'").fetchone()
    except sqlite3.OperationalError:  # the host is creating it right now
        return 0
    return int(row[0])


def _kill_host_at(out: Path, delay_s: float, settings: tuple[str | Path, ...] = SETTINGS) -> int:
    """Start the command, SIGKILL its host process after ``delay_s`` (or, negative, as
    soon as a match is stored); returns how many of its processes there were. Fails if any
    of them outlives the host."""
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", *map(str, settings), "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    family: list[psutil.Process] = []
    try:
        if delay_s >= 0:
            time.sleep(delay_s)
        deadline = time.monotonic() + 120
        while delay_s < 0 and _finished(out) == 0:
            assert process.poll() is None, "the host ended before it stored a match"
            assert time.monotonic() < deadline, "no match was stored in two minutes"
            time.sleep(0.02)
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


def _resumed_is_uninterrupted(
    tmp_path: Path, settings: tuple[str | Path, ...], matches: int
) -> None:
    """The killed run in ``killed``, run again to its end, equals an uninterrupted run:
    the same standings, every match finished once, no hand stored twice."""
    code, text = run_tournament(*settings, "--out", tmp_path / "whole")
    assert code == 0, text
    out = tmp_path / "killed"
    code, text = run_tournament(*settings, "--out", out)
    assert code == 0, text
    assert standings(out) == standings(tmp_path / "whole")
    with sqlite3.connect(out / "results.sqlite") as db:
        statuses = db.execute("SELECT status, count(*) FROM matches GROUP BY status").fetchall()
        duplicates = db.execute(
            "SELECT count(*) FROM (SELECT match_row, hand_number FROM hands "
            "GROUP BY match_row, hand_number HAVING count(*) > 1)"
        ).fetchone()
    assert dict(statuses) == {"finished": matches}  # once each
    assert duplicates == (0,)


def test_kill_9_after_the_first_stored_match_then_resume_gives_the_uninterrupted_results(
    tmp_path: Path,
) -> None:
    _kill_host_at(tmp_path / "killed", -1, SMALL)
    # Killed mid-run: some matches stored, the others (running or not started) not.
    assert 0 < _finished(tmp_path / "killed") < 12
    _resumed_is_uninterrupted(tmp_path, SMALL, 12)


@pytest.mark.slow
def test_kill_9_at_random_moments_then_resume_gives_the_uninterrupted_results(
    tmp_path: Path,
) -> None:
    rng = random.Random(20261124)
    for _attempt in range(3):
        _kill_host_at(tmp_path / "killed", rng.uniform(1.0, 3.5))
    _resumed_is_uninterrupted(tmp_path, SETTINGS, 36)
