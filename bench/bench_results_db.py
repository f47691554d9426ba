"""How fast the results database records finished matches, and reads them back.

Run: ``.venv/bin/python bench/bench_results_db.py`` (``--quick`` for a small, fast run).

For matches of 100 and of 1,000 hands (heads-up, with faults and a latency histogram per
seat, as a tournament's worker reports them), each recorded in its own transaction the way
the host records them: records/s, milliseconds per record (median and slowest) and the
hands written per second; then the time to read every outcome back. A recorded match should
cost well under 50 ms, so that recording stays under 5% of a tournament's time (a match of
1,000 hands takes seconds to play). The database is a fresh file in a temporary folder, in
WAL mode with ``synchronous=NORMAL`` as in a tournament.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.store.outcome import (  # noqa: E402
    FaultExample,
    HandSummary,
    LatencySummary,
    MatchOutcome,
    SeatOutcome,
)
from arena.store.sqlite import PlannedMatch, ResultsDatabase  # noqa: E402

BOTS = ("alpha", "beta")
HISTOGRAM = tuple((bound, 10) for bound in (1.0, 2.0, 5.0, 10.0, 50.0, 100.0, float("inf")))


def outcome(match_id: str, hand_count: int) -> MatchOutcome:
    """A heads-up match of ``hand_count`` hands as a worker would report it."""
    hands = tuple(
        HandSummary(number, 20, (number % 7 - 3, 3 - number % 7), pot=40, went_to_showdown=True)
        for number in range(1, hand_count + 1)
    )
    seats = tuple(
        SeatOutcome(
            seat_index=index,
            bot=bot,
            chips_won=100 - 200 * index,
            place=index + 1,
            hands_played=hand_count,
            fault_counts={"timeout": 1},
            fault_examples=(FaultExample("timeout", 5, "no reply in 5000 ms"),),
            latency=LatencySummary(hand_count, 1.5, 1.2, 8.0, 20.0, HISTOGRAM),
            stderr_path=f"matches/{match_id}/stderr-{index}.log",
        )
        for index, bot in enumerate(BOTS)
    )
    history = f"matches/{match_id}/hands.jsonl"
    return MatchOutcome(match_id, seats, hands, "hand_count", history, duration_s=9.0)


def measure(folder: Path, hand_count: int, match_count: int) -> None:
    """Record ``match_count`` matches of ``hand_count`` hands, read them back, print."""
    plan = [
        PlannedMatch(f"m{i:05d}", f"b{i // 2:05d}", "heads_up", i, BOTS, i)
        for i in range(match_count)
    ]
    outcomes = [outcome(row.match_id, hand_count) for row in plan]
    with ResultsDatabase(folder / f"results-{hand_count}.sqlite") as db:
        tournament = db.start_tournament("bench", f"fp-{hand_count}", {}, 1, True)
        db.plan_matches(tournament.id, plan)
        samples = []
        for recorded in outcomes:
            started = time.perf_counter()
            db.record_match(tournament.id, recorded)
            samples.append(time.perf_counter() - started)
        started = time.perf_counter()
        read = db.outcomes(tournament.id)
        read_s = time.perf_counter() - started
    assert read == outcomes
    total = sum(samples)
    print(f"matches of {hand_count} hands, {match_count} recorded")
    print(f"  records/s            {match_count / total:9.0f}")
    print(f"  ms per record        {statistics.median(samples) * 1000:9.2f}  (median)")
    print(f"  slowest record       {max(samples) * 1000:9.2f} ms")
    print(f"  hands written/s      {match_count * hand_count / total:9.0f}")
    print(f"  read back            {read_s * 1000:9.1f} ms  ({match_count} outcomes, all equal)")


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500, help="matches per size (500)")
    parser.add_argument("--quick", action="store_true", help="a small run (20 matches per size)")
    args = parser.parse_args()
    match_count = 20 if args.quick else args.matches
    with tempfile.TemporaryDirectory() as folder:
        for hand_count in (100, 1000):
            measure(Path(folder), hand_count, match_count)


if __name__ == "__main__":
    main()
