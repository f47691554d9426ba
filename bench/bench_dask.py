"""The same tournament on the local process pool and on a local Dask cluster: total time,
throughput and the executor's overhead per match, side by side.

Run: ``.venv/bin/python bench/bench_dask.py`` (``--quick`` for the test suite's small run;
``--rounds``, ``--matches``, ``--hands``, ``--workers`` for the sizes).

The tournament: a round robin of three trivial bots (python calling station, the folder of
the tournament tests, python random), every deal played twice with the seats swapped,
about ``--matches`` matches of ``--hands`` hands, without a sandbox (the figures are the
executors', not the sandbox's). Each run uses
:class:`~arena.tournament.runner.TournamentRunner` in this process with a fresh results
database, as ``arena tournament`` does, once with the local process pool
(``--executor local``) and once with a Dask cluster of as many worker processes of one
thread each on this machine (``--executor dask``); the two alternate, ``--rounds`` times,
so that a change of the machine's load hits both alike. The cluster's start (workers and
their referee zygotes) is timed apart, outside the run: a long tournament pays it once; the
pool starts inside every run, as it does in ``arena tournament``.

Figures per run: wall time, matches/s and hands/s; a match's own duration (measured where
it was played); and the overhead per match: the workers' time that went to no match, from
the start of the first match to the arrival of the last outcome (window x workers - the
matches' own durations), per match. On the pool that is the pickling of the job and the
outcome through the pool's pipes and the runner's work between matches; on Dask, besides,
the scheduler, the task, the fork of a referee and its files sent back and written on the
host. For scale, the round trip of an empty Dask task on the same cluster is shown: the
part of the overhead that is Dask's own. Targets: the Dask overhead per match (its overhead
less the pool's, in the same round) under 10 ms, and Dask's throughput within 10% of the
pool's (the median over the rounds of the ratio within each round).
"""

from __future__ import annotations

import argparse
import operator
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.cluster.dask_executor import DaskCluster  # noqa: E402
from arena.cluster.executor import MatchExecutor  # noqa: E402
from arena.cluster.job import MatchJob  # noqa: E402
from arena.cluster.local import local_executor  # noqa: E402
from arena.store.outcome import MatchOutcome  # noqa: E402
from arena.store.sqlite import ResultsDatabase  # noqa: E402
from arena.tournament.config import TournamentConfig, build_config  # noqa: E402
from arena.tournament.plan import MatchSpec  # noqa: E402
from arena.tournament.runner import TournamentRunner  # noqa: E402
from arena.tournament.worker import play_match  # noqa: E402

BOTS = (
    ROOT / "sample_bots" / "python_calling_station" / "bot.toml",
    ROOT / "tests" / "bots" / "folder" / "bot.toml",
    ROOT / "sample_bots" / "python_random" / "bot.toml",
)
#: Matches of one block of deals: every pair, both seatings.
MATCHES_PER_BLOCK = len(BOTS) * (len(BOTS) - 1) // 2 * 2


class QuietDisplay:
    """Shows nothing: the benchmark prints its own figures."""

    def start(self, name: str, total: int, done: int) -> None:
        """Nothing to show."""

    def match_done(self, spec: MatchSpec, outcome: MatchOutcome, *, total: int) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to show."""


class TimedExecutor:
    """A match executor around another that notes, for every match, when its outcome
    reached the host and the match's own duration."""

    def __init__(self, inner: MatchExecutor, samples: list[tuple[float, float]]) -> None:
        self.inner = inner
        self.samples = samples

    @property
    def concurrency(self) -> int:
        """The inner executor's."""
        return self.inner.concurrency

    def submit(self, job: MatchJob) -> Future[MatchOutcome]:
        """Submit to the inner executor; note the times when the outcome is here."""
        future = self.inner.submit(job)

        def note(done: Future[MatchOutcome]) -> None:
            if not done.cancelled() and done.exception() is None:
                self.samples.append((time.perf_counter(), done.result().duration_s))

        future.add_done_callback(note)
        return future

    def close(self) -> None:
        """Close the inner executor."""
        self.inner.close()


@dataclass
class RunFigures:
    """One run's wall time, size and per-match times (seconds): for each match, when its
    outcome reached the host and its own duration."""

    executor: str
    wall_s: float
    matches: int
    hands: int
    workers: int
    samples: list[tuple[float, float]] = field(default_factory=list)

    @property
    def matches_per_s(self) -> float:
        """Matches per second of wall time."""
        return self.matches / self.wall_s

    @property
    def hands_per_s(self) -> float:
        """Hands per second of wall time."""
        return self.hands / self.wall_s

    @property
    def overhead_ms(self) -> float:
        """The workers' time that went to no match, per match, in ms (see the module
        docstring): the pool's start and the cluster's are outside the window."""
        first = min(arrived - own for arrived, own in self.samples)
        window = max(arrived for arrived, _own in self.samples) - first
        idle = window * self.workers - sum(own for _arrived, own in self.samples)
        return idle / len(self.samples) * 1000

    @property
    def match_ms(self) -> float:
        """A match's median own duration, in ms."""
        return statistics.median(own for _arrived, own in self.samples) * 1000


def bench_config(*, matches: int, hands: int, seed: int) -> TournamentConfig:
    """The round robin: blocks of ``hands`` deals, as many as it takes to come near
    ``matches`` matches (at least one block)."""
    blocks = max(1, round(matches / MATCHES_PER_BLOCK))
    return build_config(
        overrides={
            "name": "bench-dask",
            "bots": [str(path) for path in BOTS],
            "deals": blocks * hands,
            "block_deals": hands,
            "seed": seed,
            "sandbox": "none",
        }
    )


def play(
    config: TournamentConfig,
    out: Path,
    executor: str,
    matches: MatchExecutor,
    workers: int,
) -> RunFigures:
    """Run the tournament once in the fresh run folder ``out`` on ``matches`` (closed
    at the end, within the time); its figures."""
    samples: list[tuple[float, float]] = []
    with ResultsDatabase(out / "results.sqlite") as db:
        runner = TournamentRunner(
            config,
            db,
            executor=TimedExecutor(matches, samples),
            sandbox="none",
            out_dir=out,
            display=QuietDisplay(),
        )
        started = time.perf_counter()
        try:
            run = runner.run()
        finally:
            matches.close()
        wall = time.perf_counter() - started
    if not run.is_complete:
        raise SystemExit(f"a match failed: {run.failures[0].error}")
    hands = sum(len(outcome.hands) for outcome in run.outcomes)
    return RunFigures(executor, wall, len(run.outcomes), hands, workers, samples)


def empty_task_ms(cluster: DaskCluster, count: int = 20) -> float:
    """The median round trip of an empty Dask task, one at a time, in ms: the floor under
    Dask's overhead per match on this machine."""
    times = []
    for number in range(count):
        started = time.perf_counter()
        task = cluster.client.submit(operator.add, number, 1, pure=False)
        task.result()
        times.append(time.perf_counter() - started)
        task.release()
    return statistics.median(times) * 1000


def print_rounds(
    rounds: list[tuple[RunFigures, RunFigures]], cluster_start_s: float, empty_ms: float
) -> None:
    """Every round's figures side by side, then the medians against the targets."""
    print("  round executor  wall s matches/s hands/s | match ms overhead ms | dask / pool")
    ratios, extra = [], []
    for number, (pool, dask) in enumerate(rounds, 1):
        ratio = dask.hands_per_s / pool.hands_per_s
        ratios.append(ratio)
        extra.append(dask.overhead_ms - pool.overhead_ms)
        for run, text in ((pool, ""), (dask, f"{ratio:5.2f} x")):
            print(
                f"  {number:5d} {run.executor:8s} {run.wall_s:7.2f} {run.matches_per_s:9.2f}"
                f" {run.hands_per_s:7.0f} | {run.match_ms:8.0f} {run.overhead_ms:11.1f}"
                f" | {text}"
            )
    print(
        f"  dask cluster start   {cluster_start_s:6.2f} s (median; a long tournament pays it"
        " once; not in the runs above)"
    )
    throughput = statistics.median(ratios)
    verdict = "within" if throughput >= 0.9 else "OUTSIDE"
    print(
        f"  throughput dask/pool {throughput:6.2f} x  (median of {len(ratios)} rounds, min"
        f" {min(ratios):.2f}, max {max(ratios):.2f}); {verdict} the 10% target"
    )
    overhead = statistics.median(extra)
    verdict = "meets" if overhead < 10 else "ABOVE"
    pool_ms = statistics.median(pool.overhead_ms for pool, _dask in rounds)
    dask_ms = statistics.median(dask.overhead_ms for _pool, dask in rounds)
    print(
        f"  overhead per match   pool {pool_ms:.1f} ms, dask {dask_ms:.1f} ms: dask adds"
        f" {overhead:.1f} ms (median); {verdict} the 10 ms target"
    )
    print(
        f"  empty dask task      {empty_ms:6.1f} ms round trip (median): Dask's own share of"
        " its overhead; the rest is the referee's fork and hand-over"
    )


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (3)")
    parser.add_argument("--matches", type=int, default=48, help="matches per tournament (48)")
    parser.add_argument("--hands", type=int, default=100, help="hands per match (100)")
    parser.add_argument("--workers", type=int, default=2, help="workers of each executor (2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--quick", action="store_true", help="a small run: 1 round, 12 matches of 10 hands"
    )
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.matches, args.hands = 1, 12, 10
    config = bench_config(matches=args.matches, hands=args.hands, seed=args.seed)
    print(
        f"round robin of {len(BOTS)} trivial bots, {config.match_count()} matches of"
        f" {args.hands} hands, seed {args.seed}, no sandbox; {args.rounds} rounds of"
        f" (local pool, dask local cluster), {args.workers} workers each"
    )
    print(
        f"  cores available {len(os.sched_getaffinity(0))},"
        f" load average (1 min) {os.getloadavg()[0]:.2f}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as temp:
        folder = Path(temp)
        rounds, starts, empties = [], [], []
        for _ in range(args.rounds):
            out = Path(tempfile.mkdtemp(prefix="pool-", dir=folder))
            pool_executor = local_executor(args.workers, play_match)
            pool = play(config, out, "pool", pool_executor, args.workers)
            # A cluster per round, closed before the next pool starts: the two share
            # multiprocessing's resource tracker, which each stops when it ends.
            started = time.perf_counter()
            local = DaskCluster.start(None, args.workers)
            try:
                local.check_bots(BOTS, "none")  # and each worker's referee zygote starts
                starts.append(time.perf_counter() - started)
                connection = DaskCluster.start(local.address, 0)
                empties.append(empty_task_ms(connection))
                out = Path(tempfile.mkdtemp(prefix="dask-", dir=folder))
                # As arena tournament does: the workers share the run folder here.
                connection.check_bots(BOTS, "none", run_folder=out)
                on_cluster = connection.executor(play_match, concurrency=args.workers)
                dask = play(config, out, "dask", on_cluster, args.workers)
            finally:
                local.close()
            rounds.append((pool, dask))
    print(f"  load average after the rounds {os.getloadavg()[0]:.2f}")
    print_rounds(rounds, statistics.median(starts), statistics.median(empties))


if __name__ == "__main__":
    main()
