"""Stand-ins for ``play_match`` that a pool's worker imports by name: quick outcomes, and
workers that die or stall on purpose. Each leaves its marks in the job's run folder."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from arena.cluster.job import MatchJob
from arena.match.config import MatchConfig
from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome

#: The job id whose first play kills its own worker (see kill_worker_once).
VICTIM = "m-1"


def job_for(folder: Path, match_id: str = "m-1") -> MatchJob:
    """A heads-up job whose files go under ``folder`` (its bots are never started here)."""
    return MatchJob(
        match_id=match_id,
        config=MatchConfig(hand_count=1, seed=5, match_id=match_id),
        bots=("first", "second"),
        manifests=(Path("first.toml"), Path("second.toml")),
        sandbox="none",
        tournament_dir=folder,
    )


def quick(job: MatchJob) -> MatchOutcome:
    """A one-hand outcome the first seat wins; notes the play in ``plays/<match id>.<pid>``."""
    plays = job.tournament_dir / "plays"
    plays.mkdir(parents=True, exist_ok=True)
    (plays / f"{job.match_id}.{os.getpid()}").touch()
    seats = tuple(
        SeatOutcome(index, bot, 1 - 2 * index, index + 1, 1) for index, bot in enumerate(job.bots)
    )
    return MatchOutcome(job.match_id, seats, (HandSummary(1, 2, (1, -1)),), "hand_count", None, 0.0)


def kill_worker_once(job: MatchJob) -> MatchOutcome:
    """The first play of :data:`VICTIM` kills its worker (as ``kill -9`` from outside
    would); every other play, and its second, is :func:`quick`'s."""
    marker = job.tournament_dir / "victim-died"
    if job.match_id == VICTIM and not marker.exists():
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return quick(job)


def kill_worker(job: MatchJob) -> MatchOutcome:
    """Every play kills its worker."""
    os.kill(os.getpid(), signal.SIGKILL)
    return quick(job)  # pragma: no cover - never reached


def stall(job: MatchJob) -> MatchOutcome:
    """Says it started (``started`` in the run folder), then plays for a minute."""
    job.tournament_dir.mkdir(parents=True, exist_ok=True)
    (job.tournament_dir / "started").touch()
    time.sleep(60)
    return quick(job)
