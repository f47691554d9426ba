"""Fit the luck estimator's betting term on a corpus of self-play hands no benchmark adjusts.

Run: ``.venv/bin/python bench/fit_luck_value.py`` (the defaults are the fit frozen in
``arena/luck/value.py``: 4 tournaments of 1,000 deals per pair; nine minutes with
``--jobs 2`` on two cores shared with other work). Prints the weights to freeze in
``PARAMETERS["betting_weights"]`` and each pair's variance reduction on the corpus (in
sample), and asserts nothing.

The corpus: the shipped starter bots' heads-up duplicate round robin (calling station,
hand strength, random as shipped, reporting its strategy), played exactly as
``bench/bench_luck.py`` plays it (the same in-process bots, blocks and draws) but from
tournament seeds of a namespace of their own (``CORPUS_SEED + n``), so no hand of the
corpus is a hand the benchmark adjusts, and the weights were frozen before the benchmark
ran.

The model (``arena.luck.value``): the value is the chips already in plus each live seat's
equity edge times ``sum w[street][feature] * feature`` over the public features of
:func:`arena.luck.value.betting_features`. Every correction is linear in the value, so a
seat's adjusted result is linear in the weights: ``adjusted(w) = adjusted(0) - sum_k w_k
D_k``, where ``D_k = adjusted(0) - adjusted(e_k)`` is read off the estimator itself with the
single weight ``k`` set to 1 (each ``D_k`` is a sum of corrections, each of mean zero
whatever the weights: a control variate). The weights minimise the variance of the
duplicate units (a deal's mean over its two seatings, as ``bench_luck`` scores them),
summed over the pairs with each pair's variance taken relative to its raw variance (so
that a pair with small swings counts as much as one with large ones) and the hand-strength
pair's ``--strength-weight`` times more (the pair where the betting to come is most of the
luck left). That is ordinary least squares, within each pair and tournament (their means
are the bots' skill, not luck).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_luck

from arena.luck import estimate_hand
from arena.luck.value import BETTING_FEATURES

#: Where the corpus's tournament seeds start (the benchmark's start at 1).
CORPUS_SEED = 1_000_000
STREETS = (0, 3, 4, 5)
FEATURES = BETTING_FEATURES
#: The weights fitted, in this order: one per street and feature.
COLUMNS = tuple((street, name) for street in STREETS for name in FEATURES)
PAIRS = tuple(
    (a, b)
    for i, a in enumerate(bench_luck.ROUND_ROBINS["shipped (random reports)"])
    for b in bench_luck.ROUND_ROBINS["shipped (random reports)"][i + 1 :]
)
STRENGTH_PAIR = ("calling station", "hand strength")


def _unit_weights(column: tuple[int, str] | None) -> dict[int, dict[str, float]]:
    return {
        street: {name: float((street, name) == column) for name in FEATURES} for street in STREETS
    }


def _seat_adjusted(record: dict[str, Any], position: int, column: tuple[int, str] | None) -> float:
    with bench_luck.betting_weights(_unit_weights(column)):
        return estimate_hand(record).adjusted[position]


def pair_rows(
    pair: tuple[str, str], deals: int, seed: int
) -> tuple[list[float], list[float], list[list[float]]]:
    """Per duplicate unit of one pair and tournament (big blinds, the pair's first bot):
    the raw result, the adjusted result with no betting term, and each column's ``D_k``."""
    raws, bases, columns = [], [], []
    big = bench_luck.GAME.big_blind
    first, second = bench_luck.BOTS[pair[0]], bench_luck.BOTS[pair[1]]
    for forward, backward in bench_luck.pair_hands(first, second, deals, seed):
        halves = ((forward, 0), (backward, 1))
        base = sum(_seat_adjusted(record, position, None) for record, position in halves)
        row = [
            base - sum(_seat_adjusted(record, position, column) for record, position in halves)
            for column in COLUMNS
        ]
        raw = sum(estimate_hand(record).raw[position] for record, position in halves)
        raws.append(raw / 2 / big)
        bases.append(base / 2 / big)
        columns.append([d / 2 / big for d in row])
    return raws, bases, columns


def tournament_rows(deals: int, seed: int) -> dict[tuple[str, str], Any]:
    """Every pair's rows of one corpus tournament."""
    print(f"   corpus tournament {seed} ...", flush=True)
    return {pair: pair_rows(pair, deals, seed) for pair in PAIRS}


def solve(
    tournaments: list[dict[tuple[str, str], Any]], strength_weight: float
) -> npt.NDArray[np.float64]:
    """The weights minimising the weighted sum of the pairs' adjusted variances."""
    blocks_x, blocks_y = [], []
    for pair in PAIRS:
        raw_variance = statistics.fmean(statistics.variance(t[pair][0]) for t in tournaments)
        weight = (strength_weight if pair == STRENGTH_PAIR else 1.0) / raw_variance
        for rows in tournaments:
            _, bases, columns = rows[pair]
            x = np.array(columns)
            y = np.array(bases)
            blocks_x.append((x - x.mean(axis=0)) * np.sqrt(weight))
            blocks_y.append((y - y.mean()) * np.sqrt(weight))
    x, y = np.vstack(blocks_x), np.concatenate(blocks_y)
    weights: npt.NDArray[np.float64] = np.linalg.lstsq(x, y, rcond=None)[0]
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals per pair")
    parser.add_argument("--tournaments", type=int, default=4, help="corpus tournaments")
    parser.add_argument("--strength-weight", type=float, default=2.0, help="see the docstring")
    parser.add_argument("--jobs", type=int, default=1, help="tournaments read at once")
    args = parser.parse_args()
    seeds = [CORPUS_SEED + number for number in range(1, args.tournaments + 1)]
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        tournaments = list(pool.map(tournament_rows, [args.deals] * len(seeds), seeds))
    weights = solve(tournaments, args.strength_weight)
    print(
        f"corpus: {args.tournaments} tournaments x 3 pairs x {args.deals} deals x 2 seatings,"
        f" seeds {seeds[0]}..{seeds[-1]}; strength weight {args.strength_weight}"
    )
    for pair in PAIRS:
        ratios = []
        for rows in tournaments:
            raws, bases, columns = rows[pair]
            adjusted = np.array(bases) - np.array(columns) @ weights
            ratios.append(statistics.variance(raws) / float(np.var(adjusted, ddof=1)))
        print(f"  {pair[0]} v {pair[1]}: {statistics.fmean(ratios):.2f}x fewer hands (in sample)")
    frozen = {
        str(street): {
            name: round(float(weights[COLUMNS.index((street, name))]), 4) for name in FEATURES
        }
        for street in STREETS
    }
    print(f'    "betting_weights": {frozen},'.replace("'", '"'))


if __name__ == "__main__":
    main()
