"""Fit the luck estimator's betting term on a corpus of self-play hands no benchmark adjusts.

Run: ``.venv/bin/python bench/fit_luck_value.py`` (``--deals`` per pair, default 300; a
couple of minutes). Prints the weights to freeze in ``arena/luck/value.py``'s
``PARAMETERS["betting_weights"]`` and asserts nothing.

The corpus: the shipped starter bots' heads-up duplicate round robin (calling station,
hand strength, random as shipped, reporting its strategy), played exactly as
``bench/bench_luck.py`` plays it (the same in-process bots, blocks and draws) but from
tournament seeds of a namespace of their own (``corpus-<n>``), so no hand of the corpus is
a hand the benchmark adjusts, and the weights were frozen before the benchmark ran.

The model (``arena.luck.value``): after each chance event of hold'em (the deal, the flop,
the turn, the river), what each live seat will still win beyond the chips' value now,
``raw - chips_value``, is predicted by ``(equity - 1/live) * w * min(behind, raised)``;
one weight per board size, by least squares over every seat of every hand of the corpus
(0 where the feature is never above 0: at the deal nothing is raised yet).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_luck

from arena.luck.timeline import ChanceStep, walk_history
from arena.luck.value import ValueFunction, betting_scale

#: Where the corpus's tournament seeds start (the benchmark's start at 1).
CORPUS_SEED = 1_000_000

Sums = dict[int, list[float]]  # per board size: sum x*x, sum x*y, count


def corpus_records(deals: int, tournaments: int) -> list[dict[str, object]]:
    """The corpus's hand records: the shipped round robin, ``deals`` deals per pair."""
    bots = bench_luck.ROUND_ROBINS["shipped (random reports)"]
    records: list[dict[str, object]] = []
    for number in range(tournaments):
        seed = CORPUS_SEED + number
        for i, first in enumerate(bots):
            for second in bots[i + 1 :]:
                records += bench_luck.pair_records(
                    bench_luck.BOTS[first], bench_luck.BOTS[second], deals, seed
                )
    return records


def accumulate(record: dict[str, object], sums: Sums) -> None:
    """Add one hand's (feature, target) pairs to the normal equations."""
    history = record["history"]
    assert isinstance(history, dict)
    timeline = walk_history(history)
    if timeline.is_voided:
        return
    value = ValueFunction(
        variant=timeline.variant, unit=timeline.unit, key=timeline.key, betting=None
    )
    for step in timeline.steps:
        if not isinstance(step, ChanceStep) or step.kind not in ("deal", "street"):
            continue
        state = step.after
        chips = value.chips_value(state)
        feature = betting_scale(state, 1.0, timeline.unit)
        row = sums.setdefault(len(state.board), [0.0] * 3)
        for position, edge in value.equity_edges(state).items():
            x = edge * feature
            row[0] += x * x
            row[1] += x * (timeline.raw[position] - chips[position])
            row[2] += 1


def solve(row: list[float]) -> float:
    """The least-squares weight of one board size (0 when its feature was always 0)."""
    xx, xy, _ = row
    return xy / xx if xx else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=150, help="duplicate deals per pair")
    parser.add_argument("--tournaments", type=int, default=2, help="corpus tournaments")
    args = parser.parse_args()
    records = corpus_records(args.deals, args.tournaments)
    sums: Sums = {}
    for record in records:
        accumulate(record, sums)
    weights = {str(size): round(solve(sums[size]), 4) for size in sorted(sums)}
    print(
        f"corpus: {len(records)} hands ({args.tournaments} tournaments x 3 pairs x "
        f"{args.deals} deals x 2 seatings, seeds from {CORPUS_SEED})"
    )
    for size in sorted(sums):
        print(f"  board {size}: {int(sums[size][2])} seat-states, weight {weights[str(size)]}")
    print(f'    "betting_weights": {weights},'.replace("'", '"'))


if __name__ == "__main__":
    main()
