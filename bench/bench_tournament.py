"""How fast a tournament plays with one and two workers, what its results database costs,
and whether the host's memory stays flat.

Run: ``.venv/bin/python bench/bench_tournament.py`` (``--quick`` for the test suite's
small run; ``--rounds``, ``--matches``, ``--hands`` to change the sizes).

The tournament: a round robin of five trivial bots (python calling station, the folder of
the tournament tests, python random, and the checker and min raiser of ``bench/bots``),
every deal played twice with the seats swapped, about ``--matches`` matches of
``--hands`` hands. Each run uses :class:`~arena.tournament.runner.TournamentRunner` in
this process (the host) with the local process pool, a fresh run folder and a fresh
results database, as ``arena tournament`` does. The bots run without a sandbox by default
(``--sandbox none``): the figures are the tournament layer's (pool, worker, runner,
store) and the bots'; ``--sandbox limits`` adds that layer's cost to every bot start.

1. Throughput: the same tournament with 1 worker and with 2 workers; matches/s and hands/s
   of each, wall time from the run's start to its end (the pool's start included).
2. The store: the 2-worker run with the SQLite results database against the same run with
   :class:`NullResultsDatabase`, a store that keeps nothing; and the time spent inside
   ``record_match`` in the SQLite runs, as a share of their wall time.
3. The host's memory: one longer tournament (``--memory-matches``, 200) with the SQLite
   store; the host's resident memory after every match, printed at 10% steps, and its
   slope (least squares) in MiB per 100 matches.

Steps 1 and 2 run interleaved, ``--rounds`` times: 1 worker, 2 workers, 2 workers with the
null store, then again, so that a change of the machine's load hits every peer alike; each
ratio is taken within a round and the median of the rounds is reported. Targets: 2 workers
at least 1.8x one worker (on a machine with 2 free cores), the store under 5% of the
throughput.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import math
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots.sandbox.select import SandboxLevel, choose, describe  # noqa: E402
from arena.store.sqlite import (  # noqa: E402
    PlannedMatch,
    ResultsDatabase,
    TournamentRecord,
)
from arena.tournament.config import TournamentConfig, build_config  # noqa: E402
from arena.tournament.display import describe_outcome  # noqa: E402
from arena.tournament.executor import default_concurrency, local_executor  # noqa: E402
from arena.tournament.outcome import MatchOutcome  # noqa: E402
from arena.tournament.plan import MatchSpec  # noqa: E402
from arena.tournament.runner import TournamentRunner  # noqa: E402

BOTS = (
    ROOT / "sample_bots" / "python_calling_station" / "bot.toml",
    ROOT / "tests" / "bots" / "folder" / "bot.toml",
    ROOT / "sample_bots" / "python_random" / "bot.toml",
    ROOT / "bench" / "bots" / "trivial" / "checker.toml",
    ROOT / "bench" / "bots" / "trivial" / "min_raiser.toml",
)
#: Matches of one block of deals in the round robin: every pair, both seatings.
MATCHES_PER_BLOCK = len(BOTS) * (len(BOTS) - 1) // 2 * 2
MIB = 1024 * 1024


def bench_config(*, matches: int, hands: int, seed: int, sandbox: str) -> TournamentConfig:
    """The benchmark's round robin: blocks of ``hands`` deals, as many as it takes to
    come near ``matches`` matches (at least one block)."""
    blocks = max(1, round(matches / MATCHES_PER_BLOCK))
    return build_config(
        overrides={
            "name": "bench",
            "bots": [str(path) for path in BOTS],
            "deals": blocks * hands,
            "block_deals": hands,
            "seed": seed,
            "sandbox": sandbox,
        }
    )


def sqlite_memory_used() -> Callable[[], int] | None:
    """SQLite's ``sqlite3_memory_used()`` (bytes its allocator holds in this process: the
    page cache and statements), or None where the library does not offer it."""
    spec = importlib.util.find_spec("_sqlite3")
    if spec is None or spec.origin is None:
        return None
    try:
        function = ctypes.CDLL(spec.origin).sqlite3_memory_used
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_int64
    function.argtypes = []
    return cast(Callable[[], int], function)


class TimedResultsDatabase(ResultsDatabase):
    """The SQLite results database, timing its ``record_match`` calls."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.record_samples: list[float] = []
        self.recorded_at: float | None = None  # when the last record_match returned

    def record_match(
        self, tournament_id: int, outcome: MatchOutcome, *, counted: bool = True
    ) -> None:
        """Record as the database does, adding the time it took."""
        started = time.perf_counter()
        try:
            super().record_match(tournament_id, outcome, counted=counted)
        finally:
            self.recorded_at = time.perf_counter()
            self.record_samples.append(self.recorded_at - started)


class BenchDisplay:
    """A display that counts matches, hands and the matches' own durations, keeps the
    failures, and samples the host's memory at the start and after every match: its
    resident set and the part of it that SQLite's allocator holds."""

    def __init__(self, db: TimedResultsDatabase | None = None) -> None:
        self._db = db
        self._process = psutil.Process()
        self._sqlite_memory = sqlite_memory_used()
        self.matches = 0
        self.hands = 0
        self.match_s = 0.0  # the matches' durations, as their workers measured them
        self.failures: list[str] = []
        self.rss: list[int] = []  # bytes: at the start, then after each match
        self.sqlite_heap: list[int] = []  # bytes, at the same moments
        self.started = 0.0
        self.startup_s = 0.0  # from the run's start to its first match's start
        self.bookkeeping_s: list[float] = []  # per match: from its record to this call

    def _sample(self) -> None:
        self.rss.append(self._process.memory_info().rss)
        self.sqlite_heap.append(0 if self._sqlite_memory is None else self._sqlite_memory())

    def start(self, name: str, total: int, done: int) -> None:
        """Take the first memory sample."""
        self.started = time.perf_counter()
        self._sample()

    def match_done(self, spec: MatchSpec, outcome: MatchOutcome, *, total: int) -> None:
        """Count the match and sample the memory."""
        if self._db is not None and self._db.recorded_at is not None:
            # The runner's work between storing the match and showing it: the sequential
            # tests and the count of matches still needed.
            self.bookkeeping_s.append(time.perf_counter() - self._db.recorded_at)
        if not self.matches:  # the pool started its workers and they the first match
            self.startup_s = time.perf_counter() - outcome.duration_s - self.started
        self.matches += 1
        self.hands += len(outcome.hands)
        self.match_s += outcome.duration_s
        if outcome.error is not None:
            self.failures.append(describe_outcome(outcome))
        self._sample()

    def close(self) -> None:
        """Nothing to tidy."""


class NullResultsDatabase:
    """A store with the part of :class:`ResultsDatabase`'s interface the runner calls,
    which keeps nothing: the tournament without its storage costs."""

    def find_tournament(self, fingerprint: str) -> TournamentRecord | None:
        """Never a stored tournament: every run is a new one."""
        return None

    def start_tournament(
        self,
        name: str,
        fingerprint: str,
        config: Mapping[str, Any],
        seed: int,
        seed_was_given: bool,
        *,
        bots: Mapping[str, str | Path] | None = None,
    ) -> TournamentRecord:
        """A record that lives only in this process."""
        return TournamentRecord(
            id=1,
            name=name,
            fingerprint=fingerprint,
            config=dict(config),
            seed=seed,
            seed_was_given=seed_was_given,
            status="running",
            created_at="",
            finished_at=None,
        )

    def plan_matches(self, tournament_id: int, rows: Sequence[PlannedMatch]) -> int:
        """Every match is new."""
        return len(rows)

    def outcomes(self, tournament_id: int, *, counted_only: bool = False) -> list[MatchOutcome]:
        """Nothing was kept."""
        return []

    def record_match(
        self, tournament_id: int, outcome: MatchOutcome, *, counted: bool = True
    ) -> None:
        """Drop the outcome."""

    def set_counted(self, tournament_id: int, match_ids: Iterable[str], counted: bool) -> int:
        """Nothing to change."""
        return 0

    def finish_tournament(self, tournament_id: int) -> None:
        """Nothing to mark."""


@dataclass
class RunFigures:
    """What one tournament run measured."""

    workers: int
    store: str
    wall_s: float
    matches: int
    hands: int
    match_s: float  # the matches' own durations, summed
    startup_s: float  # from the run's start to its first match's start (the pool's start)
    record_samples: list[float] = field(default_factory=list)  # record_match calls (SQLite)
    rss: list[int] = field(default_factory=list)
    sqlite_heap: list[int] = field(default_factory=list)
    bookkeeping_s: list[float] = field(default_factory=list)
    cpu_s: float = 0.0  # ours: the host, its workers and their bots
    machine_busy_s: float = 0.0  # every process's, in the same time (all cores)

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.wall_s

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.wall_s

    @property
    def steady_hands_per_s(self) -> float:
        """Hands per second once the pool has started."""
        return self.hands / (self.wall_s - self.startup_s)

    @property
    def occupancy(self) -> float:
        """The share of the workers' time spent inside matches (the rest: the pool's
        start, the hand-over between matches, the last matches' tail)."""
        return self.match_s / (self.workers * self.wall_s)

    @property
    def match_ms(self) -> float:
        """A match's mean duration, as its worker measured it."""
        return self.match_s / self.matches * 1000

    @property
    def cores(self) -> float:
        """The cores our processes kept busy, on average."""
        return self.cpu_s / self.wall_s

    @property
    def other_cores(self) -> float:
        """The cores other processes of the machine kept busy meanwhile."""
        return max(0.0, self.machine_busy_s - self.cpu_s) / self.wall_s

    @property
    def cpu_ms_per_hand(self) -> float:
        """Our processor time per hand played."""
        return self.cpu_s / self.hands * 1000

    @property
    def record_share(self) -> float:
        """The share of the wall time spent inside ``record_match``."""
        return math.fsum(self.record_samples) / self.wall_s


def play(
    config: TournamentConfig, folder: Path, *, workers: int, store: str, sandbox: str
) -> RunFigures:
    """Run ``config`` once in a fresh run folder under ``folder``, with ``workers``
    workers and the ``store`` ("sqlite" or "null"); the folder is removed afterwards."""
    out_dir = Path(tempfile.mkdtemp(prefix=f"run-{workers}-{store}-", dir=folder))
    timed = TimedResultsDatabase(out_dir / "results.sqlite") if store == "sqlite" else None
    display = BenchDisplay(timed)
    db = timed if timed is not None else cast(ResultsDatabase, NullResultsDatabase())
    try:
        runner = TournamentRunner(
            config,
            db,
            executor_factory=local_executor,
            concurrency=workers,
            sandbox=sandbox,
            out_dir=out_dir,
            display=display,
        )
        cpu_before, busy_before = our_cpu_s(), machine_busy_s()
        started = time.perf_counter()
        runner.run()  # joins its workers (and they their bots): their times are counted
        wall_s = time.perf_counter() - started
        cpu_s, busy_s = our_cpu_s() - cpu_before, machine_busy_s() - busy_before
    finally:
        if timed is not None:
            timed.close()
        shutil.rmtree(out_dir)
    if display.failures:
        raise SystemExit("a match failed:\n" + "\n".join(display.failures))
    return RunFigures(
        workers=workers,
        store=store,
        wall_s=wall_s,
        matches=display.matches,
        hands=display.hands,
        match_s=display.match_s,
        startup_s=display.startup_s,
        record_samples=[] if timed is None else timed.record_samples,
        rss=display.rss,
        sqlite_heap=display.sqlite_heap,
        bookkeeping_s=display.bookkeeping_s,
        cpu_s=cpu_s,
        machine_busy_s=busy_s,
    )


def our_cpu_s() -> float:
    """Processor seconds of this process and of every descendant it has waited for (the
    pool's workers, which waited for their bots)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def machine_busy_s() -> float:
    """Processor seconds the machine's cores were not ours to use: every process's time
    and the time the hypervisor gave to other machines (steal), summed over the cores."""
    times = psutil.cpu_times()
    # "guest" time is already inside "user" on Linux; idle and iowait are free time.
    free = times.idle + getattr(times, "iowait", 0.0)
    counted_twice = getattr(times, "guest", 0.0) + getattr(times, "guest_nice", 0.0)
    return sum(times) - free - counted_twice


def slope_per_100(values: Sequence[float]) -> float:
    """The least-squares slope of ``values`` (one per match) per 100 matches.

    >>> slope_per_100([1.0, 1.5, 2.0])
    50.0
    """
    count = len(values)
    if count < 2:
        return 0.0
    mean_x = (count - 1) / 2
    mean_y = statistics.fmean(values)
    numerator = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values))
    denominator = sum((x - mean_x) ** 2 for x in range(count))
    return numerator / denominator * 100


Rounds = Sequence[tuple["RunFigures", "RunFigures", "RunFigures"]]


def print_throughput(rounds: Rounds) -> None:
    """Part 1: every round's figures and the median 2-workers / 1-worker ratio."""
    print("1. throughput, 1 worker against 2 workers (SQLite store)")
    print(
        "  round workers wall s matches/s hands/s | start s match ms workers busy"
        " | cores: ours others | cpu ms/hand | 2w / 1w"
    )
    ratios = []
    for number, (one, two, _null) in enumerate(rounds, 1):
        ratio = two.hands_per_s / one.hands_per_s
        ratios.append(ratio)
        for run, text in ((one, ""), (two, f"{ratio:5.2f} x")):
            print(
                f"  {number:5d} {run.workers:7d} {run.wall_s:6.2f} {run.matches_per_s:9.2f}"
                f" {run.hands_per_s:7.0f} | {run.startup_s:7.2f} {run.match_ms:8.0f}"
                f" {run.occupancy:12.0%}"
                f" | {run.cores:11.2f} {run.other_cores:6.2f} | {run.cpu_ms_per_hand:11.2f}"
                f" | {text}"
            )
    median = statistics.median(ratios)
    verdict = "meets" if median >= 1.8 else "BELOW"
    print(
        f"  speed-up 2w / 1w     {median:5.2f} x  median of {len(ratios)} rounds"
        f" (min {min(ratios):.2f}, max {max(ratios):.2f}); {verdict} the 1.8x target"
    )
    for workers, index in ((1, 0), (2, 1)):
        hands = statistics.median(r[index].hands_per_s for r in rounds)
        matches = statistics.median(r[index].matches_per_s for r in rounds)
        cores = statistics.median(r[index].cores for r in rounds)
        print(
            f"  {workers} worker{'s' if workers > 1 else ' '}            {hands:7.0f} hands/s"
            f"  {matches:6.2f} matches/s  {cores:4.2f} cores busy (medians)"
        )
    steady = statistics.median(r[1].steady_hands_per_s / r[0].steady_hands_per_s for r in rounds)
    print(
        f"  without pool start   {steady:5.2f} x  (median; hands / (wall - start s): the"
        " speed-up of a long tournament, which starts its pool once)"
    )
    cost = statistics.median(r[1].cpu_ms_per_hand / r[0].cpu_ms_per_hand for r in rounds)
    longer = statistics.median(r[1].match_ms / r[0].match_ms for r in rounds)
    print(f"  cpu per hand 2w / 1w {cost:5.2f} x  (median; near 1: the second worker adds no work)")
    print(
        f"  match time 2w / 1w   {longer:5.2f} x  (median; above 1: the two matches at once"
        " share the cores with each other, the host and the machine's other processes)"
    )


def print_store(rounds: Rounds) -> None:
    """Part 2: the SQLite store against the null store, and record_match's share."""
    print("2. the results store, 2 workers: SQLite against a store that keeps nothing")
    print("  round   SQLite hands/s   null hands/s   SQLite / null   record_match share")
    ratios = []
    for number, (_one, two, null) in enumerate(rounds, 1):
        ratio = two.hands_per_s / null.hands_per_s
        ratios.append(ratio)
        print(
            f"  {number:5d}   {two.hands_per_s:14.0f}   {null.hands_per_s:12.0f}"
            f"   {ratio:13.3f}   {two.record_share:18.2%}"
        )
    median = statistics.median(ratios)
    sqlite_runs = [run for r in rounds for run in r[:2]]
    share = statistics.median(run.record_share for run in sqlite_runs)
    samples = [sample for run in sqlite_runs for sample in run.record_samples]
    print(
        f"  throughput cost      {1 - median:6.1%}  (1 - median SQLite/null of {len(ratios)}"
        f" rounds, min {min(ratios):.3f}, max {max(ratios):.3f}: the machine's noise is larger)"
    )
    verdict = "within" if share < 0.05 else "OVER"
    print(
        f"  record_match share   {share:6.2%}  of the wall time (median of {len(sqlite_runs)}"
        f" SQLite runs, 1 and 2 workers); {verdict} the 5% target"
    )
    print(
        f"  record_match         {statistics.median(samples) * 1000:6.2f} ms median,"
        f" {max(samples) * 1000:.2f} ms slowest ({len(samples)} calls)"
    )


def print_memory(run: RunFigures) -> None:
    """Part 3: the host's memory at 10% steps and its slope per 100 matches."""
    rss = [value / MIB for value in run.rss]
    heap = [value / MIB for value in run.sqlite_heap]
    rest = [total - store for total, store in zip(rss, heap, strict=True)]
    print(
        f"3. host memory over a {run.matches}-match tournament (2 workers, SQLite store,"
        f" {run.hands} hands, {run.hands_per_s:.0f} hands/s)"
    )
    print("  after matches      RSS MiB   SQLite heap MiB   RSS - SQLite MiB")
    print(f"  {0:13d}   {rss[0]:8.1f}   {heap[0]:15.2f}   {rest[0]:16.1f}")
    count = len(rss) - 1  # one sample per finished match after the first
    for step in range(1, 11):
        index = max(1, round(count * step / 10))
        print(f"  {index:13d}   {rss[index]:8.1f}   {heap[index]:15.2f}   {rest[index]:16.1f}")
    half = len(rss) // 2
    for name, values in (("RSS", rss), ("SQLite heap", heap), ("RSS - SQLite", rest)):
        print(
            f"  slope {name:14s} {slope_per_100(values[1:]):+6.2f} MiB per 100 matches"
            f" (all matches), {slope_per_100(values[half:]):+.2f} (second half)"
        )
    print(
        "  (SQLite's heap is its page cache, capped by its cache_size; a slope in the rest"
        " is memory the host keeps per match)"
    )
    tenth = max(1, len(run.bookkeeping_s) // 10)
    first = statistics.median(run.bookkeeping_s[:tenth]) * 1000
    last = statistics.median(run.bookkeeping_s[-tenth:]) * 1000
    print(
        f"  runner's bookkeeping {first:6.2f} ms per match in the first tenth, {last:.2f} ms in"
        " the last (between storing a match and showing it: the worker waits meanwhile)"
    )


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (3)")
    parser.add_argument("--matches", type=int, default=40, help="matches per tournament (40)")
    parser.add_argument("--hands", type=int, default=100, help="hands per match (100)")
    parser.add_argument(
        "--memory-matches", type=int, default=200, help="matches of the memory run (200)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--sandbox", choices=("none", "limits"), default="none", help="the bots' layer (none)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="a small run: 1 round, 20 matches of 20 hands"
    )
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.matches, args.hands, args.memory_matches = 1, 20, 20, 40

    level, reasons = choose(SandboxLevel(args.sandbox))
    config = bench_config(matches=args.matches, hands=args.hands, seed=args.seed, sandbox=level)
    memory_config = bench_config(
        matches=args.memory_matches, hands=args.hands, seed=args.seed, sandbox=level
    )
    print(
        f"round robin of {len(BOTS)} trivial bots, {config.match_count()} matches of"
        f" {args.hands} hands, seed {args.seed}; {args.rounds} rounds of"
        " (1 worker, 2 workers, 2 workers null store)"
    )
    for line in describe(level, reasons):
        print(f"  {line}")
    if args.sandbox == "none":
        print("  (no sandbox: the figures are the tournament layer's, not the sandbox's)")
    print(
        f"  cores available {default_concurrency()}, load average (1 min) {os.getloadavg()[0]:.2f}"
    )

    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as temp:
        folder = Path(temp)
        rounds = []
        for _ in range(args.rounds):
            one = play(config, folder, workers=1, store="sqlite", sandbox=level.value)
            two = play(config, folder, workers=2, store="sqlite", sandbox=level.value)
            null = play(config, folder, workers=2, store="null", sandbox=level.value)
            rounds.append((one, two, null))
        print(f"  load average after the rounds {os.getloadavg()[0]:.2f}")
        print_throughput(rounds)
        print_store(rounds)
        memory = play(memory_config, folder, workers=2, store="sqlite", sandbox=level.value)
        print_memory(memory)


if __name__ == "__main__":
    main()
