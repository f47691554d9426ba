"""One tournament run of the tournament benchmark (bench/bench_tournament.py), measured.

:func:`play` runs the benchmark's round robin (:func:`bench_config`) once with
:class:`~arena.tournament.runner.TournamentRunner`, in this process, with the local process
pool and a fresh run folder, and returns :class:`RunFigures`: wall time, matches and hands,
the matches' own durations, the processor time of this process and its descendants and of
the whole machine, the time inside ``record_match``, and the host's memory after every
match (:class:`BenchDisplay`). The store is the SQLite results database
(:class:`TimedResultsDatabase`, which times ``record_match``) or
:class:`NullResultsDatabase`, which keeps nothing.
"""

from __future__ import annotations

import ctypes
import importlib.util
import math
import resource
import shutil
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

from arena.cluster.job import MatchJob  # noqa: E402
from arena.cluster.local import local_executor  # noqa: E402
from arena.match import luck_process  # noqa: E402
from arena.store.outcome import MatchOutcome  # noqa: E402
from arena.store.sqlite import (  # noqa: E402
    PlannedMatch,
    ResultsDatabase,
    TournamentRecord,
)
from arena.tournament.config import TournamentConfig, build_config  # noqa: E402
from arena.tournament.display import describe_outcome  # noqa: E402
from arena.tournament.plan import MatchSpec  # noqa: E402
from arena.tournament.runner import TournamentRunner  # noqa: E402
from arena.tournament.worker import play_match  # noqa: E402

BOTS = (
    ROOT / "sample_bots" / "python_calling_station" / "bot.toml",
    ROOT / "tests" / "bots" / "folder" / "bot.toml",
    # A random bot drawing its own actions, seeded, as the starter random bot drew them at
    # f5af95d (trivial_bot.py's random mode), not the starter bot as shipped: it reports its
    # mixed strategy (the arena draws, the luck estimator adds an action term), and even its
    # --draw mode draws from another distribution, so the benchmark would play other matches
    # at revisions from before and compare_revisions.py would not compare like with like.
    ROOT / "bench" / "bots" / "trivial" / "random_drawing.toml",
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
        self.blocks: list[int] = []  # Python's allocated memory blocks, at the same moments
        self.started = 0.0
        self.startup_s = 0.0  # from the run's start to its first match's start
        self.bookkeeping_s: list[float] = []  # per match: from its record to this call

    def _sample(self) -> None:
        self.rss.append(self._process.memory_info().rss)
        self.sqlite_heap.append(0 if self._sqlite_memory is None else self._sqlite_memory())
        self.blocks.append(sys.getallocatedblocks())

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
    blocks: list[int] = field(default_factory=list)
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


def play_match_estimating_here(job: MatchJob) -> MatchOutcome:
    """:func:`play_match` with the luck estimate made in the match's own process (the
    switch ``USE_LUCK_PROCESS`` off in the worker that plays it, the default; the same
    results either way)."""
    luck_process.USE_LUCK_PROCESS = False
    return play_match(job)


def play_match_in_luck_process(job: MatchJob) -> MatchOutcome:
    """:func:`play_match` with the luck estimate made in a helper process beside the match
    (the switch ``USE_LUCK_PROCESS`` on in the worker that plays it)."""
    luck_process.USE_LUCK_PROCESS = True
    return play_match(job)


def play(
    config: TournamentConfig,
    folder: Path,
    *,
    workers: int,
    store: str,
    sandbox: str,
    luck_in_its_process: bool = True,
) -> RunFigures:
    """Run ``config`` once in a fresh run folder under ``folder``, with ``workers``
    workers and the ``store`` ("sqlite" or "null"); the folder is removed afterwards.
    ``luck_in_its_process`` False: the workers estimate luck in the matches' processes."""
    out_dir = Path(tempfile.mkdtemp(prefix=f"run-{workers}-{store}-", dir=folder))
    timed = TimedResultsDatabase(out_dir / "results.sqlite") if store == "sqlite" else None
    display = BenchDisplay(timed)
    db = timed if timed is not None else cast(ResultsDatabase, NullResultsDatabase())
    try:
        cpu_before, busy_before = our_cpu_s(), machine_busy_s()
        started = time.perf_counter()
        # Closing the pool joins its workers (and they their bots): their times are counted.
        play_one = play_match_in_luck_process if luck_in_its_process else play_match_estimating_here
        with local_executor(workers, play_one) as executor:
            runner = TournamentRunner(
                config, db, executor=executor, sandbox=sandbox, out_dir=out_dir, display=display
            )
            runner.run()
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
        blocks=display.blocks,
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
