"""How long ``arena report`` takes on a 100,000-hand tournament, and how big the page is.

Run: ``.venv/bin/python bench/bench_report.py`` (``--quick`` for a small, fast run).

The tournament is made without processes, in a temporary folder: a duplicate round robin
of four bots (six pairs, each block of deals played in both seatings) whose hands come
from a pool of heads-up hands played by the engine with a random policy, written to each
match's ``hands.jsonl`` in the arena's layout (about 4 KB a hand) and recorded in the
results database as the tournament's host records them. Then the report is written twice:
with ``standings.json`` (as after a finished tournament) and without it (the tables
computed from the database, as for a tournament still running). Goals: under 10 s and
under 10 MB for 100,000 hands.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.report import write_report  # noqa: E402
from arena.session.latency import LatencyHistogram  # noqa: E402
from arena.stats.tables import crosstable, leaderboard  # noqa: E402
from arena.stats.units import duplicate_units  # noqa: E402
from arena.store.outcome import (  # noqa: E402
    FaultExample,
    HandSummary,
    LatencySummary,
    MatchOutcome,
    SeatOutcome,
)
from arena.store.sqlite import PlannedMatch, ResultsDatabase  # noqa: E402
from engine.config import GameConfig  # noqa: E402
from engine.deck import Deck  # noqa: E402
from engine.hand import Hand, SeatSetup  # noqa: E402
from engine.history import hand_to_history  # noqa: E402
from tests.engine.policies import random_policy  # noqa: E402

BOTS = ("alpha", "beta", "gamma", "delta")
TIME_GOAL_S = 10.0
SIZE_GOAL_BYTES = 10_000_000


class PoolHand:
    """One engine-played heads-up hand, kept as the text of its record (numbered 1) and
    its nets and pot, to be written again under any hand number."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        seats = [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200)]
        hand = Hand.start(
            GameConfig(), seats, button_index=0, deck=Deck.shuffled(rng), hand_number=1
        )
        policy = random_policy(rng)
        decisions = []
        while not hand.is_over:
            seat = hand.actor_index
            hand.act(policy(hand))
            decisions.append({"seat_index": seat, "player_id": f"p{seat}", "by": "bot"})
        history = hand_to_history(hand)
        result = history["result"]
        self.nets = tuple(
            result["final_stacks"][key] - result["starting_stacks"][key] for key in ("0", "1")
        )
        self.pot = sum(award["amount"] for award in result["awards"])
        self.showdown = result["ended_reason"] == "SHOWDOWN"
        body = json.dumps({"decisions": decisions, "history": history}, separators=(",", ":"))
        self.body = body[1:]  # the record's text after its opening brace

    def line(self, match_id: str, number: int) -> str:
        """The hand's record as hand ``number`` of ``match_id``."""
        body = self.body.replace('"hand_number":1,', f'"hand_number":{number},')
        return (
            f'{{"type":"hand","hand_number":{number},"hand_id":"{match_id}-{number}",'
            f'"sitting_out":[],{body}\n'
        )


def _latency(rng: random.Random, count: int) -> LatencySummary:
    histogram = LatencyHistogram()
    for _ in range(count):
        histogram.add(rng.lognormvariate(0.5, 1.0))
    stats = histogram.summary()
    return LatencySummary(
        stats.count, stats.mean_ms, stats.p50_ms, stats.p99_ms, stats.max_ms, histogram.buckets()
    )


def build(folder: Path, deals: int, block_deals: int, pool_size: int) -> int:
    """Write the tournament; returns its number of hands."""
    rng = random.Random(1)
    pool = [PoolHand(seed) for seed in range(pool_size)]
    pairs = [(a, b) for i, a in enumerate(BOTS) for b in BOTS[i + 1 :]]
    plan: list[PlannedMatch] = []
    outcomes: list[MatchOutcome] = []
    blocks: list[list[MatchOutcome]] = []
    for block in range(deals // block_deals):
        for number, (a, b) in enumerate(pairs, start=1):
            block_id = f"rr-{number:03d}-b{block + 1:03d}"
            members = []
            for seats, match_id in (((a, b), block_id), ((b, a), block_id + "-swap")):
                plan.append(PlannedMatch(match_id, block_id, "heads_up", len(plan), seats, 0))
                hands = [pool[rng.randrange(pool_size)] for _ in range(block_deals)]
                relative = f"matches/{match_id}/hands.jsonl"
                path = folder / relative
                path.parent.mkdir(parents=True)
                header = {
                    "type": "match",
                    "format": 1,
                    "match_id": match_id,
                    "players": [
                        {"player_id": f"p{k}", "seat_index": k, "name": name}
                        for k, name in enumerate(seats)
                    ],
                }
                with path.open("w", encoding="utf-8") as file:
                    file.write(json.dumps(header, separators=(",", ":")) + "\n")
                    file.writelines(hand.line(match_id, n) for n, hand in enumerate(hands, start=1))
                summaries = tuple(
                    HandSummary(n, 2, hand.nets, hand.pot, hand.showdown)
                    for n, hand in enumerate(hands, start=1)
                )
                faults = {"timeout": 1} if seats[0] == "delta" else {}
                examples = (FaultExample("timeout", 7, "no reply in 5000 ms"),) if faults else ()
                seat_outcomes = tuple(
                    SeatOutcome(
                        seat_index=k,
                        bot=name,
                        chips_won=sum(hand.nets[k] for hand in hands),
                        place=1 + k,
                        hands_played=block_deals,
                        fault_counts=faults if k == 0 else {},
                        fault_examples=examples if k == 0 else (),
                        latency=_latency(rng, 200),
                    )
                    for k, name in enumerate(seats)
                )
                outcome = MatchOutcome(
                    match_id, seat_outcomes, summaries, "hand_count", relative, 1.0
                )
                outcomes.append(outcome)
                members.append(outcome)
            blocks.append(members)
    with ResultsDatabase(folder / "results.sqlite") as db:
        config = {"name": "bench", "format": "round_robin", "bots": [{"name": b} for b in BOTS]}
        tournament = db.start_tournament("bench", "bench", config, 1, True)
        db.plan_matches(tournament.id, plan)
        for outcome in outcomes:
            db.record_match(tournament.id, outcome)
        db.finish_tournament(tournament.id)
    _write_standings(folder, outcomes, blocks)
    return sum(len(outcome.hands) for outcome in outcomes)


def _write_standings(
    folder: Path, outcomes: list[MatchOutcome], blocks: list[list[MatchOutcome]]
) -> None:
    units: list[dict[str, float]] = []
    pairs: dict[tuple[str, str], list[float]] = {}
    for members in blocks:
        block_units = duplicate_units(members)
        units.extend(block_units)
        a, b = (seat.bot for seat in members[0].seats)
        pairs.setdefault((a, b), []).extend(unit[a] for unit in block_units)
    chips = dict.fromkeys(BOTS, 0)
    hands = dict.fromkeys(BOTS, 0)
    for outcome in outcomes:
        for seat in outcome.seats:
            chips[seat.bot] += seat.chips_won
            hands[seat.bot] += seat.hands_played
    document: dict[str, Any] = {
        "leaderboard": leaderboard(units, chips, hands).to_dict(),
        "crosstable": crosstable(pairs, bots=list(BOTS)).to_dict(),
        "sprt": [],
    }
    (folder / "standings.json").write_text(json.dumps(document), encoding="utf-8")


def measure(folder: Path, label: str) -> None:
    started = time.perf_counter()
    summary = write_report(folder, folder / "report.html")
    seconds = time.perf_counter() - started
    size = summary.size_bytes
    verdict = "ok" if seconds < TIME_GOAL_S and size < SIZE_GOAL_BYTES else "OVER THE GOAL"
    print(f"report {label}")
    print(f"  time                 {seconds:9.2f} s   (goal < {TIME_GOAL_S:.0f} s)")
    print(f"  size                 {size / 1e6:9.2f} MB  (goal < {SIZE_GOAL_BYTES / 1e6:.0f} MB)")
    print(f"  hands in the viewer  {summary.hands_embedded:9d} of {summary.hands_total:,}")
    print(f"  {verdict}")


def main() -> None:
    """Build the tournament, write its report (with and without standings.json), print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=8400, help="deals per pair (8400)")
    parser.add_argument("--quick", action="store_true", help="a small run (200 deals per pair)")
    args = parser.parse_args()
    deals = 200 if args.quick else args.deals
    block_deals = 100 if args.quick else 700
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name) / "run"
        started = time.perf_counter()
        hands = build(folder, deals, block_deals, pool_size=100 if args.quick else 1500)
        history_bytes = sum(path.stat().st_size for path in folder.glob("matches/*/*.jsonl"))
        print(
            f"tournament: {len(BOTS)} bots, {hands:,} hands, {history_bytes / 1e6:.0f} MB of"
            f" hand histories (built in {time.perf_counter() - started:.1f} s)"
        )
        measure(folder, "after the tournament (standings.json)")
        (folder / "standings.json").unlink()
        measure(folder, "while it runs (tables computed from the database)")


if __name__ == "__main__":
    main()
