"""Do the ladder's 95% intervals cover the true strengths 95% of the time, whatever the pairing?

Run: ``.venv/bin/python bench/bench_coverage.py`` (1,000 seeds per row, a few minutes on an
idle core); ``--seeds N`` for another count, ``--quick`` for the test suite's tiny run.

Simulated ladders (pure ladder logic, the bench_ladder model): ``--bots`` bots (10) of known
strength (normal quantiles with an SD of 200 mbb/hand, so they sum to 0 as the fitted ones
do); a game's luck-adjusted score is drawn from a normal with the true difference as its
mean and 150 mbb/hand as its SD (``--heteroscedastic`` gives each pair its own SD instead,
from 75 to 300 mbb/hand: the model's variance differs by pair, as it does between real
bots). Each row is one pairing rule and a number of games:

* **uniform**: every game a uniformly random pair (few games per pair: 45 pairs for 10 bots);
* **targeted**: the ladder's own matchmaking (placement, floor, uncertainty;
  refitted after bench_ladder's batch: the server's cadence), so the games pile onto the
  neighbours whose order is uncertain;
* **adversarial**: uniform games, plus one pair (the 1st and the 2nd) playing as many games
  again as all the others together.

After the games the ratings are fitted once (:func:`arena.ladder.ratings.fit`). Counted:
**strength**: each bot's interval ``[low, high]`` covers its true strength (the leaderboard's
interval); **neighbours**: for each pair of neighbours in the fitted order, the interval
``gap +- 1.96 sd(gap)`` (the one behind "the chance it is above the next") covers their true
difference. A row's coverage is the mean over seeds of each seed's share covered, with its
95% interval (``1.96`` standard errors of that mean over the seeds: a seed's bots share its
games, so the seed is the independent unit).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_ladder import default_batch, ladder_runs, strengths  # noqa: E402

from arena.ladder.games import GameResult  # noqa: E402
from arena.ladder.matchmaking import MatchmakingSettings  # noqa: E402
from arena.ladder.ratings import Standings, fit  # noqa: E402
from arena.ladder.sums import pair_sums  # noqa: E402

GAME_SD = 150.0
HANDS_PER_GAME = 200
#: The interval's level, and the band its coverage must fall in.
CONFIDENCE = 0.95
TARGET = (0.94, 0.96)
#: The targeted rows' matchmaking unless ``--placement-games`` says otherwise.
DEFAULT_MATCHMAKING = MatchmakingSettings()

#: A pair's score SD from (first, second): the same for all, or its own per pair.
SpreadOf = Callable[[str, str], float]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One seed's fit against the truth: the shares of the bots' and of the neighbour gaps'
    intervals that cover it, and each one's z-score (its error over its standard error)."""

    strength: float
    neighbours: float
    strength_z: tuple[float, ...]
    neighbours_z: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Coverage:
    """One row's result: the seeds' mean share covered and its interval, both counts, and
    the mean and SD of the z-scores over every bot (gap) of every seed: a mean away from 0
    is an off centre, an SD above the t's (about 1.0-1.05 here) too small a standard error."""

    strength: float
    strength_half: float
    neighbours: float
    neighbours_half: float
    seeds: int
    strength_z: tuple[float, float]
    neighbours_z: tuple[float, float]

    @staticmethod
    def of(outcomes: Sequence[Outcome]) -> Coverage:
        z = NormalDist().inv_cdf(0.975)
        seeds = len(outcomes)

        def half(values: Sequence[float]) -> float:
            return z * statistics.stdev(values) / math.sqrt(len(values)) if seeds > 1 else 0.0

        def spread(values: Sequence[float]) -> tuple[float, float]:
            return statistics.fmean(values), statistics.pstdev(values)

        strength = [outcome.strength for outcome in outcomes]
        neighbours = [outcome.neighbours for outcome in outcomes]
        return Coverage(
            statistics.fmean(strength),
            half(strength),
            statistics.fmean(neighbours),
            half(neighbours),
            seeds,
            spread([value for outcome in outcomes for value in outcome.strength_z]),
            spread([value for outcome in outcomes for value in outcome.neighbours_z]),
        )


def covered_shares(standings: Standings, truth: dict[str, float]) -> Outcome:
    """The shares of the bots' intervals and of the neighbour gaps' intervals that cover
    the truth (the truth centred on the fitted bots' mean, as the fit's strengths are),
    with each one's z-score."""
    mean = statistics.fmean(truth[bot] for bot in standings.order)
    strength_z = tuple(
        (rating.strength - (truth[rating.bot] - mean)) / rating.sd for rating in standings.ratings
    )
    strength = statistics.fmean(
        float(rating.low <= truth[rating.bot] - mean <= rating.high) for rating in standings.ratings
    )
    z = NormalDist().inv_cdf(0.5 + standings.confidence / 2.0)
    gaps_z = []
    for first, second in itertools.pairwise(standings.order):
        gap, variance = standings.gap(first, second)
        gaps_z.append((gap - (truth[first] - truth[second])) / math.sqrt(variance))
    neighbours = statistics.fmean(float(abs(value) <= z) for value in gaps_z)
    return Outcome(strength, neighbours, strength_z, tuple(gaps_z))


def spreads(names: Sequence[str], rng: random.Random, heteroscedastic: bool) -> SpreadOf:
    """Each pair's score SD: ``GAME_SD`` for all, or drawn once per pair (75 to 300,
    log-uniform) when ``heteroscedastic``."""
    if not heteroscedastic:
        return lambda first, second: GAME_SD
    table = {
        pair: GAME_SD * 2.0 ** rng.uniform(-1.0, 1.0)
        for pair in itertools.combinations(sorted(names), 2)
    }
    return lambda first, second: table[(first, second) if first < second else (second, first)]


def play(
    first: str, second: str, truth: dict[str, float], spread: SpreadOf, rng: random.Random
) -> GameResult:
    score = rng.gauss(truth[first] - truth[second], spread(first, second))
    return GameResult(first, second, score, score, HANDS_PER_GAME)


def uniform_games(
    truth: dict[str, float], games: int, spread: SpreadOf, rng: random.Random
) -> list[GameResult]:
    names = list(truth)
    games_played = []
    for _ in range(games):
        first, second = rng.sample(names, 2)
        games_played.append(play(first, second, truth, spread, rng))
    return games_played


def run_uniform(
    count: int,
    games: int,
    seed: int,
    heteroscedastic: bool,
    matchmaking: MatchmakingSettings = DEFAULT_MATCHMAKING,
) -> Outcome:
    truth = strengths(count)
    rng = random.Random(seed)
    spread = spreads(list(truth), rng, heteroscedastic)
    return covered_shares(fit(pair_sums(uniform_games(truth, games, spread, rng))), truth)


def run_adversarial(
    count: int,
    games: int,
    seed: int,
    heteroscedastic: bool,
    matchmaking: MatchmakingSettings = DEFAULT_MATCHMAKING,
) -> Outcome:
    truth = strengths(count)
    rng = random.Random(seed)
    spread = spreads(list(truth), rng, heteroscedastic)
    played = uniform_games(truth, games, spread, rng)
    first, second = list(truth)[:2]
    played += [play(first, second, truth, spread, rng) for _ in range(games)]
    return covered_shares(fit(pair_sums(played)), truth)


def run_targeted(
    count: int,
    games: int,
    seed: int,
    heteroscedastic: bool,
    matchmaking: MatchmakingSettings = DEFAULT_MATCHMAKING,
) -> Outcome:
    """The ladder's own matchmaking (``matchmaking``'s settings; the others' rules ignore
    them) for ``games`` games, refitted after every :func:`bench_ladder.default_batch`
    games as bench_ladder's runs are (the server's refit cadence)."""
    truth = strengths(count)
    if heteroscedastic:
        raise ValueError("the targeted rows use bench_ladder's simulation: one SD for all pairs")
    runs = ladder_runs(count, seed, targeted=True, sd=GAME_SD, matchmaking=matchmaking)
    for played, _hands, _standings, _counts, history in runs:
        if played >= games:
            return covered_shares(fit(pair_sums(history)), truth)
    raise AssertionError("unreachable: the ladder runs forever")


RULES = {"uniform": run_uniform, "targeted": run_targeted, "adversarial": run_adversarial}


def row(
    rule: str,
    count: int,
    games: int,
    seeds: int,
    heteroscedastic: bool = False,
    matchmaking: MatchmakingSettings = DEFAULT_MATCHMAKING,
) -> Coverage:
    """The coverage of one pairing rule over ``seeds`` seeds (``matchmaking``: the
    targeted rule's settings)."""
    return Coverage.of(
        [RULES[rule](count, games, seed, heteroscedastic, matchmaking) for seed in range(seeds)]
    )


def _text(value: float, half: float) -> str:
    mark = "" if TARGET[0] <= value <= TARGET[1] else " *"
    return f"{value:.3f} [{value - half:.3f}-{value + half:.3f}]{mark}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000, help="seeds per row (1000)")
    parser.add_argument("--bots", type=int, default=10, help="bots (10)")
    parser.add_argument(
        "--heteroscedastic", action="store_true", help="each pair its own score SD (75 to 300)"
    )
    parser.add_argument(
        "--pairing", choices=sorted(RULES), nargs="*", default=sorted(RULES), help="rows to run"
    )
    parser.add_argument(
        "--per-pair", type=float, nargs="*", default=None, help="rows of these games per pair only"
    )
    parser.add_argument(
        "--placement-games",
        type=int,
        default=None,
        help="the targeted rows' matchmaking placement_games (its default)",
    )
    parser.add_argument(
        "--z-scores",
        action="store_true",
        help="also each row's z-scores (error over standard error): mean and SD",
    )
    parser.add_argument("--quick", action="store_true", help="the test suite's tiny run")
    args = parser.parse_args(argv)
    count, seeds = args.bots, args.seeds
    matchmaking = DEFAULT_MATCHMAKING
    if args.placement_games is not None:
        try:
            matchmaking = MatchmakingSettings(placement_games=args.placement_games)
        except ValueError as error:
            parser.error(str(error))
    if args.quick:
        count, seeds = 6, 20
    pairs = count * (count - 1) // 2
    rows = [
        ("uniform", pairs),
        ("uniform", 2 * pairs),
        ("uniform", 4 * pairs),
        ("targeted", 2 * pairs),
        ("targeted", 4 * pairs),
        ("adversarial", 2 * pairs),
    ]
    if args.heteroscedastic:
        rows = [r for r in rows if r[0] != "targeted"]
    rows = [r for r in rows if r[0] in args.pairing]
    if args.per_pair is not None:
        rows = [r for r in rows if r[1] / pairs in args.per_pair]
    spread = "its own per pair (75-300)" if args.heteroscedastic else f"{GAME_SD:g}"
    print(f"Coverage of the ladder's {CONFIDENCE:.0%} intervals ({count} bots, game SD {spread})")
    print(
        f"   (targeted: placement_games {matchmaking.placement_games}, "
        f"a fit every {default_batch(count)} games)"
    )
    print(f"   (* outside {TARGET[0]:.2f}-{TARGET[1]:.2f}; [ ] the 95% interval over the seeds)")
    print(
        f"   {'pairing':>12} {'games':>6} {'per pair':>8} {'seeds':>6} "
        f"{'strength intervals':>26} {'neighbour gaps':>26} {'time s':>7}"
    )
    for rule, games in rows:
        started = time.perf_counter()
        result = row(rule, count, games, seeds, args.heteroscedastic, matchmaking)
        print(
            f"   {rule:>12} {games:>6} {games / pairs:>8.1f} {result.seeds:>6} "
            f"{_text(result.strength, result.strength_half):>26} "
            f"{_text(result.neighbours, result.neighbours_half):>26} "
            f"{time.perf_counter() - started:>7.1f}",
            flush=True,
        )
        if args.z_scores:
            (bot_mean, bot_sd), (gap_mean, gap_sd) = result.strength_z, result.neighbours_z
            print(
                f"   {'':>12} {'':>6} {'z-scores: mean, SD':>15} "
                f"{bot_mean:>+17.3f}, {bot_sd:.3f} {gap_mean:>+19.3f}, {gap_sd:.3f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
