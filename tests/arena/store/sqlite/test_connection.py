"""The results database across processes: a writer killed with SIGKILL at random moments
loses no committed match and leaves no partial one, and a read-only reader in another
process reads complete matches while the writer writes.

The writer is a real process (``python -c``) doing what the tournament's host does: open,
start (or resume) the tournament, plan, record every match not yet finished.
"""

from __future__ import annotations

import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.store.sqlite import ResultsDatabase
from tests import REPO_ROOT
from tests.arena.store.sqlite.test_sqlite import (
    SECRET_SEED,
    finished_ids,
    sample_outcome,
    sample_plan,
)

PLANNED_MATCHES = 3000

# argv: database path, number of matches to record, seconds to sleep after each one.
WRITER = f"""
import sys, time
from pathlib import Path
from arena.store.sqlite import ResultsDatabase
from tests.arena.store.sqlite.test_sqlite import SECRET_SEED, sample_outcome, sample_plan
from tests.arena.store.sqlite.test_sqlite import finished_ids

path, count, pause_s = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
with ResultsDatabase(path) as db:
    tournament = db.start_tournament("crash", "fp-crash", {{}}, SECRET_SEED, False)
    plan = sample_plan({PLANNED_MATCHES})
    db.plan_matches(tournament.id, plan)
    done = finished_ids(db, tournament.id)
    recorded = 0
    for row in plan:
        if recorded == count:
            break
        if row.match_id in done:
            continue
        db.record_match(tournament.id, sample_outcome(row.match_id, bots=row.bots))
        recorded += 1
        if recorded == 1:
            print("recording", flush=True)
        time.sleep(pause_s)
"""


@contextmanager
def writer(path: Path, count: int, pause_s: float) -> Iterator[subprocess.Popen[str]]:
    """The writer process, killed (by its pid) and waited for whatever happens."""
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(count), str(pause_s)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


def wait_until_recording(process: subprocess.Popen[str]) -> None:
    """Until the writer has recorded its first match (a minute at most, so a writer that
    never gets there fails the test instead of hanging it)."""
    assert process.stdout is not None
    readable, _, _ = select.select([process.stdout], [], [], 60)
    assert readable, "the writer recorded nothing in a minute"
    line = process.stdout.readline()
    assert line == "recording\n", process.communicate(timeout=30)[1][-2000:]


def assert_every_match_is_complete(path: Path) -> int:
    """Open as the host would on a resume; every recorded match is the whole outcome, no
    planned match has a row of its own. Returns the number of finished matches."""
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        orphans = connection.execute(
            "SELECT count(*) FROM matches m WHERE m.status = 'planned' AND ("
            " EXISTS (SELECT 1 FROM hands h WHERE h.match_row = m.id)"
            " OR EXISTS (SELECT 1 FROM match_seats s WHERE s.match_row = m.id))"
        ).fetchone()[0]
        counts = {
            table: dict(
                connection.execute(
                    f"SELECT m.match_id, count(*) FROM {table} c"
                    " JOIN matches m ON m.id = c.match_row GROUP BY m.match_id"
                ).fetchall()
            )
            for table in ("match_seats", "hands", "faults", "latency")
        }
    connection.close()
    assert orphans == 0
    with ResultsDatabase(path) as db:
        tournament = db.find_tournament("fp-crash")
        assert tournament is not None and tournament.seed == SECRET_SEED
        outcomes = db.outcomes(tournament.id)
        assert {outcome.match_id for outcome in outcomes} == finished_ids(db, tournament.id)
    plan = {row.match_id: row for row in sample_plan(PLANNED_MATCHES)}
    for outcome in outcomes:
        expected = sample_outcome(outcome.match_id, bots=plan[outcome.match_id].bots)
        assert outcome == expected
        assert counts["match_seats"][outcome.match_id] == len(expected.seats)
        assert counts["hands"][outcome.match_id] == len(expected.hands)
        assert counts["latency"][outcome.match_id] == len(expected.seats)
        assert counts["faults"][outcome.match_id] == 3  # two kinds of seat 0, one of seat 1
    return len(outcomes)


def test_a_writer_killed_at_random_moments_loses_no_committed_match_and_leaves_no_partial(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.sqlite"
    moments = random.Random(20).sample(range(0, 300), 6)  # milliseconds after it starts
    finished = [0]
    for delay_ms in moments:
        with writer(path, PLANNED_MATCHES, 0.0) as process:
            wait_until_recording(process)
            time.sleep(delay_ms / 1000)
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
            assert process.returncode == -signal.SIGKILL
        count = assert_every_match_is_complete(path)
        assert count > finished[-1]  # every run recorded at least its first match
        finished.append(count)
    assert finished[-1] < PLANNED_MATCHES, finished  # the kills came while it was still writing


def test_a_read_only_reader_reads_complete_matches_while_the_writer_writes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.sqlite"
    total = 60
    plan = {row.match_id: row for row in sample_plan(PLANNED_MATCHES)}
    seen: list[int] = []
    with writer(path, total, 0.005) as process:
        wait_until_recording(process)
        with ResultsDatabase(path, read_only=True) as reader:
            tournament = reader.find_tournament("fp-crash")
            assert tournament is not None
            while True:
                is_done = process.poll() is not None  # read once more after it ended
                outcomes = reader.outcomes(tournament.id)
                for outcome in outcomes:
                    assert outcome == sample_outcome(
                        outcome.match_id, bots=plan[outcome.match_id].bots
                    )
                assert [o.match_id for o in outcomes] == [f"m{i:05d}" for i in range(len(outcomes))]
                seen.append(len(outcomes))
                if is_done:
                    break
        assert process.wait(timeout=30) == 0
    assert seen == sorted(seen)  # a reader never sees a match disappear
    assert seen[0] >= 1 and seen[-1] == total
