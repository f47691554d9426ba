"""Fit the luck estimator's betting term on a corpus of self-play hands no benchmark adjusts.

Run: ``.venv/bin/python bench/fit_luck_value.py`` (the defaults are the fit frozen in
``arena/luck/value.py``: 4 tournaments of 1,000 deals per pair; nine minutes with
``--jobs 2`` on two cores shared with other work). Prints the weights to freeze in
``PARAMETERS["betting_weights"]`` and each pair's variance reduction on the corpus (in
sample) and the CPU the fit's rows cost per hand, and asserts nothing; with ``--holdout
N``, each pair's variance reduction on N tournaments the fit never saw, with the weights
just fitted and with the shipped ones.

The corpus: the shipped starter bots' heads-up duplicate round robin (calling station,
hand strength, random as shipped, reporting its strategy), played exactly as
``bench/bench_luck.py`` plays it (the same in-process bots, blocks and draws) but from
tournament seeds of a namespace of their own (``CORPUS_SEED + n``), so no hand of the
corpus is a hand the benchmark adjusts, and the weights were frozen before the benchmark
ran.

The model and the least squares are :mod:`arena.luck.value_fit`'s (the ladder's fit on
its own earlier games uses the same): each duplicate unit (a deal's result over its two
seatings) of a pair's first bot, in big blinds, with each weight's control variate
``D_k``; the weights minimise the units' variance within each pair and tournament (their
means are the bots' skill, not luck), summed over the pairs with each pair's variance
taken relative to its raw variance (so that a pair with small swings counts as much as
one with large ones) and the calling station v hand strength pair's ``--strength-weight``
times more (default 1: alike; version 5's fit counted it twice, where the betting to come
was most of the luck left; version 6's made-hand term takes much of that out, and counted
twice it left the hand-strength v random pair below version 5 on the corpus).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_luck

from arena.luck.parameters import SHIPPED_VALUE, LuckValue
from arena.luck.value_fit import COLUMNS, UnitRow, fit_value, unit_row

#: Where the corpus's tournament seeds start (the benchmark's start at 1).
CORPUS_SEED = 1_000_000
#: Where the out-of-sample tournaments' seeds start (``--holdout``).
HOLDOUT_SEED = 2_000_000
#: Student's t at 97.5% by degrees of freedom (1 to 10), for a mean over tournaments.
T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)
PAIRS = tuple(
    (a, b)
    for i, a in enumerate(bench_luck.ROUND_ROBINS["shipped (random reports)"])
    for b in bench_luck.ROUND_ROBINS["shipped (random reports)"][i + 1 :]
)
STRENGTH_PAIR = ("calling station", "hand strength")


def pair_rows(pair: tuple[str, str], deals: int, seed: int) -> tuple[list[UnitRow], float]:
    """Per duplicate unit of one pair and tournament: the pair's first bot's row, in big
    blinds per hand (the mean over the deal's two seatings); and the CPU seconds the rows
    took (the fit's own cost, the hands' play left out)."""
    scale = 1 / 2 / bench_luck.GAME.big_blind
    first, second = bench_luck.BOTS[pair[0]], bench_luck.BOTS[pair[1]]
    hands = bench_luck.pair_hands(first, second, deals, seed)
    started = time.process_time()
    rows = [
        unit_row(((forward, 0, forward["leans"]), (backward, 1, backward["leans"])), scale)
        for forward, backward in hands
    ]
    return rows, time.process_time() - started


def tournament_rows(deals: int, seed: int) -> tuple[dict[tuple[str, str], list[UnitRow]], float]:
    """Every pair's rows of one corpus tournament, and the CPU seconds they took."""
    print(f"   corpus tournament {seed} ...", flush=True)
    found = {pair: pair_rows(pair, deals, seed) for pair in PAIRS}
    return {pair: rows for pair, (rows, _) in found.items()}, sum(t for _, t in found.values())


def solve(
    tournaments: list[dict[tuple[str, str], list[UnitRow]]], strength_weight: float
) -> LuckValue:
    """The weights minimising the weighted sum of the pairs' adjusted variances."""
    groups, weights = [], []
    for pair in PAIRS:
        raw_variance = statistics.fmean(
            statistics.variance([row.raw for row in rows[pair]]) for rows in tournaments
        )
        weight = (strength_weight if pair == STRENGTH_PAIR else 1.0) / raw_variance
        for rows in tournaments:
            groups.append(rows[pair])
            weights.append(weight)
    return fit_value(groups, weights)


def _compare(
    holdout: list[dict[tuple[str, str], list[UnitRow]]], weights: LuckValue, seeds: list[int]
) -> None:
    """Out of sample: each pair's variance reduction on tournaments the fit never saw,
    with the weights just fitted and with the shipped ones (the same hands), the mean over
    the tournaments with its 95% interval (t over the tournaments)."""
    print(f"out of sample: {len(holdout)} tournaments, seeds {seeds[0]}..{seeds[-1]}")
    for pair in PAIRS:
        shown = []
        for name, value in (("fitted", weights), ("shipped", SHIPPED_VALUE)):
            ratios = [
                statistics.variance([row.raw for row in rows[pair]])
                / statistics.variance([row.adjusted(value) for row in rows[pair]])
                for rows in holdout
            ]
            half = (
                T_975[len(ratios) - 1] * statistics.stdev(ratios) / math.sqrt(len(ratios))
                if 1 < len(ratios) <= len(T_975)
                else math.nan
            )
            shown.append(f"{name} {statistics.fmean(ratios):.2f}x +- {half:.2f}")
        print(f"  {pair[0]} v {pair[1]}: " + ", ".join(shown) + " fewer hands")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals per pair")
    parser.add_argument("--tournaments", type=int, default=4, help="corpus tournaments")
    parser.add_argument("--strength-weight", type=float, default=1.0, help="see the docstring")
    parser.add_argument("--jobs", type=int, default=1, help="tournaments read at once")
    parser.add_argument(
        "--holdout", type=int, default=0, help="tournaments to compare the fit out of sample on"
    )
    args = parser.parse_args()
    seeds = [CORPUS_SEED + number for number in range(1, args.tournaments + 1)]
    held = [HOLDOUT_SEED + number for number in range(1, args.holdout + 1)]
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        everything = seeds + held
        read = list(pool.map(tournament_rows, [args.deals] * len(everything), everything))
    holdout = [rows for rows, _ in read[len(seeds) :]]
    read = read[: len(seeds)]
    tournaments = [rows for rows, _ in read]
    hands = 2 * sum(len(rows) for tournament in tournaments for rows in tournament.values())
    cpu_ms = 1000 * sum(seconds for _, seconds in read) / hands
    weights = solve(tournaments, args.strength_weight)
    print(
        f"corpus: {args.tournaments} tournaments x 3 pairs x {args.deals} deals x 2 seatings,"
        f" seeds {seeds[0]}..{seeds[-1]}; strength weight {args.strength_weight}"
    )
    for pair in PAIRS:
        ratios = []
        for rows in tournaments:
            raws = [row.raw for row in rows[pair]]
            adjusted = [row.adjusted(weights) for row in rows[pair]]
            ratios.append(statistics.variance(raws) / statistics.variance(adjusted))
        print(f"  {pair[0]} v {pair[1]}: {statistics.fmean(ratios):.2f}x fewer hands (in sample)")
    frozen = json.dumps(weights.to_dict())
    print(f'    "betting_weights": {frozen},')
    print(f"    (weights #{weights.digest}, {len(COLUMNS)} of them)")
    if holdout:
        _compare(holdout, weights, held)
    print(
        f"the fit's rows: {cpu_ms:.2f} ms of CPU per hand ({len(COLUMNS) + 1} estimates of"
        f" each, {hands} hands; load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
