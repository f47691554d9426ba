"""Shared pieces of the cluster tests: stand-ins for ``play_match`` that a pool's worker
imports by name (quick outcomes, and workers that die or stall on purpose; each leaves its
marks in the job's run folder), a slow bot for matches that must be caught in the middle,
a thread that kills the Dask worker playing one, and a gate that holds a Dask worker's
match tasks just before they fork their referee."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena.cluster import task
from arena.cluster.job import MatchJob
from arena.cluster.zygote import ZygoteError
from arena.match.config import MatchConfig
from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome
from tests import TEST_BOTS

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


def slow_bot(folder: Path) -> Path:
    """A calling station that takes 50 ms per decision (its manifest): matches last long
    enough to be caught in the middle. Its program is copied beside its manifest: a
    sandboxed bot runs as another user, who may not enter the checkout's folder (a clone
    in a private one)."""
    bot = folder / "slow"
    bot.mkdir()
    shutil.copy(TEST_BOTS / "slow" / "slow_bot.py", bot / "slow_bot.py")
    manifest = bot / "bot.toml"
    manifest.write_text(
        'name = "slow"\ncommand = ["{python}", "slow_bot.py", "0.05"]\n', encoding="utf-8"
    )
    return manifest


class WorkerKiller(threading.Thread):
    """Kills (SIGKILL) the first Dask worker of this process seen playing a match, once,
    and keeps the referee and the bots it had."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.victims: list[psutil.Process] = []
        self.killed_worker: int | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set() and self.killed_worker is None:
            for worker in psutil.Process().children():
                try:
                    if "spawn_main" in " ".join(worker.cmdline()) and self._kill_if_playing(worker):
                        return
                except psutil.NoSuchProcess:
                    continue
            time.sleep(0.05)

    def _kill_if_playing(self, worker: psutil.Process) -> bool:
        for zygote in worker.children():
            if "--zygote" not in zygote.cmdline():
                continue  # the sandbox's probe at the start, say
            for referee in zygote.children():
                if "arena.cluster.referee" not in referee.cmdline():
                    continue  # the zygote's own probe of the sandbox
                bots = referee.children(recursive=True)
                if bots:  # the match is being played
                    self.victims = [zygote, referee, *bots]
                    worker.send_signal(signal.SIGKILL)
                    self.killed_worker = worker.pid
                    return True
        return False


class _Gate:
    """In a Dask worker's process: where its match tasks wait (see :func:`hold_match_tasks`)
    and the referees they asked for."""

    def __init__(self) -> None:
        self.held = threading.Event()
        self.opened = threading.Event()
        self.asked: list[str] = []
        self.patch = pytest.MonkeyPatch()


class _GateZygote:
    """The zygote a held task is given: it notes each referee asked of it and forks none
    (a refusal the task reports as a failed match), so the gate starts no process."""

    def __init__(self, gate: _Gate) -> None:
        self.gate = gate

    def spawn(self, stdin: int, stdout: int, stderr: int) -> int:
        self.gate.asked.append("a referee")
        raise ZygoteError("the test's gate forks no referee")


_gate: _Gate | None = None


def hold_match_tasks() -> None:
    """Run on each worker (``client.run``): from now on a match task waits where it asks
    for the worker's zygote, right before it asks whether its match is still wanted and
    forks a referee, until :func:`open_the_gate`; then it is given a zygote that counts
    the referees asked of it (:func:`remove_the_gate` says how many) and forks none."""
    global _gate
    gate = _gate = _Gate()

    def held_zygote() -> _GateZygote:
        gate.held.set()
        gate.opened.wait(timeout=120)
        return _GateZygote(gate)

    gate.patch.setattr(task, "shared_zygote", held_zygote)


def is_a_match_task_held() -> bool:
    """Run on each worker: whether one of its match tasks waits at the gate."""
    return _gate is not None and _gate.held.is_set()


def open_the_gate() -> None:
    """Run on each worker: let its held match tasks go on."""
    if _gate is not None:
        _gate.opened.set()


def remove_the_gate() -> list[str]:
    """Run on each worker: put back the worker's zygote; the referees its match tasks asked
    for while the gate stood."""
    global _gate
    if _gate is None:
        return []
    gate, _gate = _gate, None
    gate.opened.set()
    gate.patch.undo()
    return gate.asked


def task_states(dask_worker: Any) -> dict[str, str]:
    """Run on each worker: the state of every task it has (``cancelled``: one it runs on
    for a client that no longer wants it)."""
    return {str(key): state.state for key, state in dask_worker.state.tasks.items()}
