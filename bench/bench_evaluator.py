"""Benchmark engine.evaluator against treys (and eval7 when it is installed).

Evaluates one fixed, seeded list of random 7-card hands and their first five cards with
every evaluator in the same run, checks that the answers agree, and prints microseconds
per evaluation and the speed ratios. A benchmark, never a timed test.

    .venv/bin/python bench/bench_evaluator.py [--count 200000] [--repeat 3] [--seed 2024]
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

from engine.cards import FULL_DECK, Card
from engine.evaluator import rank_class

Hand = tuple[Card, ...]


def make_hands(count: int, seed: int) -> list[Hand]:
    """``count`` random 7-card hands from a seeded generator (the same list every run)."""
    rng = random.Random(seed)
    return [tuple(rng.sample(FULL_DECK, 7)) for _ in range(count)]


def best_seconds(run: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` runs, in seconds (the minimum is the least noisy estimate)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def engine_classes(hands: Sequence[Hand]) -> list[int]:
    """rank_class of every hand, as a plain loop (the way the timing runs it)."""
    return [rank_class(hand) for hand in hands]


def treys_runner(hands: Sequence[Hand]) -> Callable[[], list[int]]:
    """A loop over ``hands`` with treys' public ``Evaluator.evaluate(hand, board)``."""
    from treys import Card as TreysCard
    from treys import Evaluator

    evaluator = Evaluator()
    evaluate = evaluator.evaluate
    treys_cards = [TreysCard.new(str(card)) for card in FULL_DECK]
    # Split into two hole cards + board once, outside the timing, as treys' API expects.
    split = [
        ([treys_cards[c] for c in hand[:2]], [treys_cards[c] for c in hand[2:]]) for hand in hands
    ]

    def run() -> list[int]:
        return [evaluate(hole, board) for hole, board in split]

    return run


def eval7_runner(hands: Sequence[Hand]) -> Callable[[], list[int]] | None:
    """A loop over ``hands`` with eval7.evaluate, or None when eval7 is not installed."""
    try:
        eval7: Any = importlib.import_module("eval7")
    except ImportError:
        return None
    evaluate = eval7.evaluate
    eval7_cards = [eval7.Card(str(card)) for card in FULL_DECK]
    converted = [[eval7_cards[c] for c in hand] for hand in hands]

    def run() -> list[int]:
        return [evaluate(hand) for hand in converted]

    return run


def check_same_order(name: str, ours: Sequence[int], theirs: Sequence[int]) -> None:
    """eval7 scores hands on its own scale (higher is better): the orders must agree."""
    mapping: dict[int, int] = {}
    for our_class, their_value in zip(ours, theirs, strict=True):
        if mapping.setdefault(their_value, our_class) != our_class:
            raise SystemExit(f"{name} disagrees: value {their_value} for two classes")
    by_value = sorted(mapping.items())
    for (_, worse), (_, better) in pairwise(by_value):
        if not better < worse:
            raise SystemExit(f"{name} orders hands differently from engine.evaluator")


def bench(label: str, hands: Sequence[Hand], repeat: int) -> float:
    """Time and cross-check every evaluator on ``hands``; returns the treys/engine ratio."""
    count = len(hands)
    ours = engine_classes(hands)
    ours_us = best_seconds(lambda: engine_classes(hands), repeat) / count * 1e6
    print(f"{label} ({count:,} hands)")
    print(f"  engine.evaluator  {ours_us:7.3f} us/eval")

    treys = treys_runner(hands)
    if treys() != ours:
        raise SystemExit("treys disagrees with engine.evaluator")
    treys_us = best_seconds(treys, repeat) / count * 1e6
    ratio = treys_us / ours_us
    print(f"  treys             {treys_us:7.3f} us/eval   engine is {ratio:5.1f}x faster")

    eval7 = eval7_runner(hands)
    if eval7 is None:
        print("  eval7             not installed (pip install eval7 to compare)")
    else:
        check_same_order("eval7", ours, eval7())
        eval7_us = best_seconds(eval7, repeat) / count * 1e6
        relative = ours_us / eval7_us
        print(
            f"  eval7 (C)         {eval7_us:7.3f} us/eval   engine takes {relative:4.1f}x its time"
        )
    print("  results agree")
    return ratio


def main(argv: Sequence[str] | None = None) -> int:
    """Parse options, run both benchmarks, report the speed targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=200_000, help="hands (default 200000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs, best kept")
    parser.add_argument("--seed", type=int, default=2024, help="random seed for the hands")
    options = parser.parse_args(argv)
    if options.count < 1 or options.repeat < 1:
        parser.error("--count and --repeat must be at least 1")

    print(f"Python {sys.version.split()[0]}, seed {options.seed}")
    sevens = make_hands(options.count, options.seed)
    seven_ratio = bench("7-card hands", sevens, options.repeat)
    five_ratio = bench(
        "5-card hands (first five of each)", [hand[:5] for hand in sevens], options.repeat
    )
    for label, ratio, target in (("7-card", seven_ratio, 10.0), ("5-card", five_ratio, 1.5)):
        verdict = "met" if ratio >= target else "MISSED"
        print(f"target {label}: >= {target}x treys: {verdict} ({ratio:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
