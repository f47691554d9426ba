"""Do the ladder's 95% intervals cover the true strengths 95% of the time, whatever the pairing?

Run: ``.venv/bin/python bench/bench_coverage.py`` (1,000 seeds per row, a few minutes on an
idle core); ``--seeds N`` for another count (docs/ladder.md quotes 10,000: half an hour or
more, most of it the targeted rows), ``--quick`` for the test suite's tiny run.

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

After the games the ratings are fitted once (:func:`arena.ladder.ratings.fit`). An interval's
coverage is defined for a quantity fixed before the data, so the coverage claims are on fixed
quantities: **strength**, each bot's interval ``[low, high]`` covers its true strength (the
leaderboard's interval); **true neighbours**, for each pair of neighbours in the TRUE order
(the closest pairs, fixed in advance), the interval ``gap +- 1.96 sd(gap)`` covers their true
difference (any two bots' gap has this interval: the covariance's claim). A row's coverage is
the mean over seeds of each seed's share covered, with its 95% interval (``1.96`` standard
errors of that mean over the seeds: a seed's bots share its games, so the seed is the
independent unit); the band ``TARGET`` applies to these two.

Printed beside them, not coverage claims: **fitted neighbours**, the same interval for the
pairs of neighbours in the FITTED order, a quantity the data chose (two bots come out as
neighbours more often when their noise drew them together, and then their gap's error is
larger than its standard error says: the selection costs about a point at two games a pair,
even with the exact variance); and what the leaderboard shows for those pairs, the **chance
above the next** (``Phi(gap / sd)``): its mean over the fitted neighbours against the share
of them whose order is right (the chance is honest in the large when the share right is at
least the mean chance).
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
    """One seed's fit against the truth: the shares of the bots' intervals, of the gaps'
    intervals between neighbours in the true order and between neighbours in the fitted
    order that cover it, each one's z-scores (its error over its standard error), and over
    the fitted neighbours the mean chance above the next and the share in the right order."""

    strength: float
    true_neighbours: float
    fitted_neighbours: float
    chance: float
    right: float
    strength_z: tuple[float, ...]
    true_neighbours_z: tuple[float, ...]
    fitted_neighbours_z: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Share:
    """A mean over the seeds of one per-seed share, with its 95% interval's half-width."""

    mean: float
    half: float

    @staticmethod
    def of(values: Sequence[float]) -> Share:
        z = NormalDist().inv_cdf(0.975)
        half = z * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
        return Share(statistics.fmean(values), half)


@dataclass(frozen=True, slots=True)
class Coverage:
    """One row's result over ``seeds`` seeds: the mean shares covered (bots, true-order
    neighbour gaps, fitted-order neighbour gaps) with their intervals, the fitted neighbours'
    mean chance above the next and share right, and the mean and SD of the z-scores over
    every bot (gap) of every seed: a mean away from 0 is an off centre, an SD above the t's
    (about 1.0-1.05 here) too small a standard error."""

    strength: Share
    true_neighbours: Share
    fitted_neighbours: Share
    chance: Share
    right: Share
    seeds: int
    strength_z: tuple[float, float]
    true_neighbours_z: tuple[float, float]
    fitted_neighbours_z: tuple[float, float]

    @staticmethod
    def of(outcomes: Sequence[Outcome]) -> Coverage:
        def share(name: str) -> Share:
            return Share.of([getattr(outcome, name) for outcome in outcomes])

        def spread(name: str) -> tuple[float, float]:
            values = [value for outcome in outcomes for value in getattr(outcome, name)]
            return statistics.fmean(values), statistics.pstdev(values)

        return Coverage(
            share("strength"),
            share("true_neighbours"),
            share("fitted_neighbours"),
            share("chance"),
            share("right"),
            len(outcomes),
            spread("strength_z"),
            spread("true_neighbours_z"),
            spread("fitted_neighbours_z"),
        )


def gap_z_scores(
    standings: Standings, truth: dict[str, float], order: Sequence[str]
) -> tuple[float, ...]:
    """Each gap's z-score between neighbours of ``order``: its error over its standard error."""
    scores = []
    for first, second in itertools.pairwise(order):
        gap, variance = standings.gap(first, second)
        scores.append((gap - (truth[first] - truth[second])) / math.sqrt(variance))
    return tuple(scores)


def covered_shares(standings: Standings, truth: dict[str, float]) -> Outcome:
    """The shares of the bots' intervals and of the neighbour gaps' intervals (neighbours in
    the true order and in the fitted one, among the fitted bots) that cover the truth (the
    truth centred on the fitted bots' mean, as the fit's strengths are), with each one's
    z-score, and the fitted neighbours' chances above the next against the truth."""
    mean = statistics.fmean(truth[bot] for bot in standings.order)
    strength_z = tuple(
        (rating.strength - (truth[rating.bot] - mean)) / rating.sd for rating in standings.ratings
    )
    strength = statistics.fmean(
        float(rating.low <= truth[rating.bot] - mean <= rating.high) for rating in standings.ratings
    )
    z = NormalDist().inv_cdf(0.5 + standings.confidence / 2.0)
    true_order = sorted(standings.order, key=lambda bot: -truth[bot])
    true_z = gap_z_scores(standings, truth, true_order)
    fitted_z = gap_z_scores(standings, truth, standings.order)
    fitted_pairs = list(itertools.pairwise(standings.order))
    return Outcome(
        strength,
        statistics.fmean(float(abs(value) <= z) for value in true_z),
        statistics.fmean(float(abs(value) <= z) for value in fitted_z),
        statistics.fmean(standings.chance_above(first, second) for first, second in fitted_pairs),
        statistics.fmean(float(truth[first] > truth[second]) for first, second in fitted_pairs),
        strength_z,
        true_z,
        fitted_z,
    )


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


def _text(share: Share, *, claim: bool = True) -> str:
    """A share with its interval, marked ``*`` when a coverage claim's is outside the band."""
    mark = " *" if claim and not TARGET[0] <= share.mean <= TARGET[1] else ""
    return f"{share.mean:.3f} [{share.mean - share.half:.3f}-{share.mean + share.half:.3f}]{mark}"


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
    print(
        f"   (* outside {TARGET[0]:.2f}-{TARGET[1]:.2f}, for the coverage claims: the bots' "
        "intervals and the gaps of neighbours in the true order; [ ] the 95% interval over "
        "the seeds)"
    )
    print(
        "   (fitted neighbours: the pairs the fit's order chose, a selected quantity, not a "
        "coverage claim; chance / right: their mean chance above the next / share in the "
        "right order)"
    )
    print(
        f"   {'pairing':>12} {'games':>6} {'per pair':>8} {'seeds':>6} "
        f"{'strength intervals':>26} {'true neighbours':>26} {'fitted neighbours':>26} "
        f"{'chance / right':>15} {'time s':>7}"
    )
    for rule, games in rows:
        started = time.perf_counter()
        result = row(rule, count, games, seeds, args.heteroscedastic, matchmaking)
        print(
            f"   {rule:>12} {games:>6} {games / pairs:>8.1f} {result.seeds:>6} "
            f"{_text(result.strength):>26} {_text(result.true_neighbours):>26} "
            f"{_text(result.fitted_neighbours, claim=False):>26} "
            f"{f'{result.chance.mean:.3f} / {result.right.mean:.3f}':>15} "
            f"{time.perf_counter() - started:>7.1f}",
            flush=True,
        )
        if args.z_scores:
            scores = (result.strength_z, result.true_neighbours_z, result.fitted_neighbours_z)
            print(
                f"   {'z-scores: mean, SD':>35} "
                + " ".join(f"{f'{mean:+.3f}, {sd:.3f}':>26}" for mean, sd in scores),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
