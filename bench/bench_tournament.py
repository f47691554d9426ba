"""How fast a tournament plays with one and two workers, what its results database costs,
and whether the host's memory stays flat.

Run: ``.venv/bin/python bench/bench_tournament.py`` (``--quick`` for the test suite's
small run; ``--rounds``, ``--matches``, ``--hands``, ``--memory-matches`` for the sizes;
``--luck-process off`` to have the workers estimate luck in the matches' own processes, the
arena's default, instead of in a helper process beside each match: what that process costs
or saves here; with it on, a match of fewer than ``luck_process.MIN_HANDS`` hands
estimates in its own process all the same).

The tournament: a round robin of five trivial bots (python calling station, the folder of
the tournament tests, python random drawing its own actions, seeded, and the checker and min
raiser of ``bench/bots``), every deal played twice with the seats swapped, about
``--matches`` matches of ``--hands`` hands. Each run uses
:class:`~arena.tournament.runner.TournamentRunner` in this process (the host) with the local
process pool, a fresh run folder and a fresh results database, as ``arena tournament`` does
(see ``tournament_runs.py``). The bots run without a sandbox by default
(``--sandbox none``): the figures are then the tournament layer's (pool, worker, match loop, runner,
store) and the bots', not the sandbox's, which ``bench_arena.py`` and the sandbox's own
tests cover; ``--sandbox limits`` adds that layer's cost to every bot start.

1. Throughput: the same tournament with 1 worker and with 2 workers: wall time (the pool's
   start included), matches/s, hands/s; the pool's start (run start to first match start);
   a match's mean duration and the share of the workers' time spent in matches; the cores
   our processes (host, workers, bots) kept busy and those the machine's other processes
   took meanwhile (a shared machine: the speed-up needs two free cores, read it next to
   this column); our processor time per hand.
2. The store: the 2-worker run with the SQLite results database against the same run with
   a store that keeps nothing (``NullResultsDatabase``), and the time spent inside
   ``record_match`` as a share of the wall time of the SQLite runs (the steadier figure).
3. The host's memory over one longer tournament (``--memory-matches``, 200; SQLite; run
   first): its resident set, SQLite's own heap (the page cache, bounded) and Python's
   allocated blocks after every match, at 10% steps, with their slopes per 100 matches;
   and the runner's own work per match (between storing a match and showing it), in the
   first and the last tenth of the run.

Steps 1 and 2 run interleaved, ``--rounds`` times: 1 worker, 2 workers, 2 workers with the
null store, then again, so that a change of the machine's load hits every peer alike; each
ratio is taken within a round and the median of the rounds is reported. Targets: 2 workers
at least 1.8x one worker (with 2 free cores), the store under 5% of the throughput.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournament_runs import BOTS, MIB, RunFigures, bench_config, play  # noqa: E402

from arena.bots.sandbox.select import SandboxLevel, choose, describe  # noqa: E402
from arena.cluster.executor import default_concurrency  # noqa: E402


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


Rounds = Sequence[tuple[RunFigures, RunFigures, RunFigures]]


def print_throughput(rounds: Rounds, core_count: int) -> None:
    """Part 1: every round's figures, the median 2-workers / 1-worker ratio, and how much
    of the ``core_count`` cores the other processes left free the 2-worker run used."""
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
    used = statistics.median(r[1].cores / max(0.01, core_count - r[1].other_cores) for r in rounds)
    print(
        f"  free cores used      {used:6.0%}  (median; the 2-worker run's cores over those the"
        " other processes left it: below 100%, cores idled in the pool's start, hand-overs"
        " and the tail; at 100%, the other processes held the speed-up down)"
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
    """Part 3: the host's memory at 10% steps, its slopes per 100 matches, and the runner's
    own work per match."""
    rss = [value / MIB for value in run.rss]
    heap = [value / MIB for value in run.sqlite_heap]
    blocks = [value / 1000 for value in run.blocks]
    print(
        f"3. host memory over a {run.matches}-match tournament (2 workers, SQLite store,"
        f" {run.hands} hands, {run.hands_per_s:.0f} hands/s)"
    )
    print("  after matches   RSS MiB   SQLite heap MiB   Python blocks (thousands)")
    count = len(rss) - 1  # one sample per finished match after the first
    for index in [0, *(max(1, round(count * step / 10)) for step in range(1, 11))]:
        print(f"  {index:13d}  {rss[index]:8.1f}   {heap[index]:15.2f}   {blocks[index]:25.1f}")
    half = len(rss) // 2
    for name, values, unit in (
        ("RSS", rss, "MiB"),
        ("SQLite heap", heap, "MiB"),
        ("Python blocks", blocks, "thousand"),
    ):
        print(
            f"  slope {name:14s} {slope_per_100(values[1:]):+7.2f} {unit} per 100 matches"
            f" (all matches), {slope_per_100(values[half:]):+.2f} (second half)"
        )
    print(
        "  (SQLite's heap is its page cache, bounded by its cache_size; Python's allocated"
        " blocks grow with objects the host keeps per match)"
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
        "--luck-process",
        choices=("on", "off"),
        default="on",
        help="off: the luck estimate in each match's process (the arena's default), not a"
        " helper process beside it (on)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a small run: 1 round, 10 matches of 10 hands"
    )
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.matches, args.hands, args.memory_matches = 1, 10, 10, 20

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
    if args.luck_process == "off":
        print("  luck estimated in each match's process (--luck-process off)")
    print(
        f"  cores available {default_concurrency()}, load average (1 min) {os.getloadavg()[0]:.2f}"
    )

    run = functools.partial(
        play, sandbox=level.value, luck_in_its_process=args.luck_process == "on"
    )
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as temp:
        folder = Path(temp)
        # The memory run first: the host's allocator holds no memory freed by earlier runs
        # yet, which would hide a growth of the resident set at first.
        memory = run(memory_config, folder, workers=2, store="sqlite")
        rounds = []
        for _ in range(args.rounds):
            one = run(config, folder, workers=1, store="sqlite")
            two = run(config, folder, workers=2, store="sqlite")
            null = run(config, folder, workers=2, store="null")
            rounds.append((one, two, null))
        print(f"  load average after the rounds {os.getloadavg()[0]:.2f}")
        print_throughput(rounds, default_concurrency())
        print_store(rounds)
        print_memory(memory)


if __name__ == "__main__":
    main()
