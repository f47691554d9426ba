"""How fast the ladder's ranking converges, and how long a matchmaking decision takes.

Run: ``.venv/bin/python bench/bench_ladder.py`` (default: 10 and 50 bots, 7 seeds, and a
scale test of 300 bots: about a minute on an idle core); ``--bots 10 50 200`` for the full
table and ``--scale-bots 1000`` for the issue's scale (each takes minutes: a ladder of
many bots plays many games, refitted after every batch; the fit is ``n**3`` work, numpy's);
``--quick`` for the test suite's tiny run.

1. Convergence (pure ladder logic, no processes). Bots of known strength: ``n`` bots whose
   strengths (mbb/hand against the field's average) are the normal quantiles
   ``200 * Phi^-1((n - i - 0.5) / n)``, so the top is spread out as on real ladders (for
   200 bots the top gaps are 76, 38 and 26 mbb/hand). A game is one duplicate unit of 100
   deals played both ways (200 hands); its luck-adjusted score is drawn from a normal with
   the true difference as mean and ``--game-sd`` (150 mbb/hand: a duplicate deal's
   luck-adjusted spread of about 1,500 mbb over 100 deals). Every ``batch`` games (the games
   the server's workers finish between two fits, :func:`default_batch`: its refit cadence,
   :class:`arena.ladder.cadence.FitCadence`, for a fit's modeled duration, with one worker
   at 1 s a game: 3 games up to 39 bots) the ratings are refitted; the run stops when the
   fit's top 3 are the true top 3 and the fit is 95% sure of them (the product of the
   chances that 1st > 2nd, 2nd > 3rd and 3rd > 4th is 0.95 or
   more). A claim of 95% on a wrong top 3 is counted and the run goes on. Two pairings
   are compared on the same seeds: the ladder's matchmaking (placement, floor,
   uncertainty; every bot its own team) and uniformly random pairs. Reported: median hands
   to converge, the ratio (target: the ladder needs at least 2x fewer), wrong claims.
   ``--whole-ranking HANDS`` adds the price of that focus: for 50 bots after HANDS hands
   (3 seeds), Kendall's tau of the whole fitted order against the true one, the mean
   distance of a bot from its true place and the fewest games any bot played, ladder
   against random pairs.
   The bots are named in a shuffled order (:func:`strengths`): the fit breaks ties by
   name, and names in the order of strength would give matchmaking the true order at
   the start.
2. Scale: ``--scale-bots`` bots (the issue's figure: 1,000), 10 workers. Standings are
   fitted once from a synthetic history (the fit's time is printed apart: it runs once per
   batch of results, not per game), then each of 2,000 decisions is timed: ten games in
   flight, the oldest finishes, :func:`next_game` picks the next (target: under 10 ms a
   decision). Wall-clock and CPU time are both printed: on a shared machine the wall
   clock's tail is other processes' time slices. The worker's own overhead per game
   against ``arena tournament`` needs the server's worker: not measured here.
4. The version test (``--version-tests RUNS``): simulated "is my new version better?"
   tests, the verdict read after every game; the false "better" rate for an equal version
   and the false "not better" rate for one better by H1's margin, each with its interval.
5. Hands to a right top 3 under two stopping rules (``--settle-bots 10 30``, 100 seeds,
   ``--jobs`` processes): "claimed" (the fit's top 3 right and 95% sure) and "stays right"
   (the fitted top 3 right at every refit from then to the run's end), the ladder's
   matchmaking against random pairs on the same seeds, the ratio of the medians with its
   bootstrap interval. ``--batch N``: N games between two fits instead of the default
   (the resolution of both rules: hands are counted at the refits); ``--oracle`` adds a
   pairing that knows the true order (:func:`oracle_pairing`), a reference for what any
   matchmaking could reach at that resolution.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import itertools
import math
import random
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import NormalDist

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.ladder.cadence import FitCadence  # noqa: E402
from arena.ladder.games import GameResult, TableResult  # noqa: E402
from arena.ladder.matchmaking import (  # noqa: E402
    Entrant,
    GameKind,
    LadderState,
    MatchmakingSettings,
    Pairing,
    next_game,
)
from arena.ladder.promotion import PromotionTest, corrected_llr_of  # noqa: E402
from arena.ladder.ratings import Standings, fit  # noqa: E402
from arena.ladder.sums import PairSums, pair_sums  # noqa: E402
from arena.stats.sprt import Sprt  # noqa: E402

HANDS_PER_GAME = 200
#: A game's deals: a heads-up game plays them twice, a table of n in its n rotations.
DEALS = HANDS_PER_GAME // 2
CONFIDENCE = 0.95
#: The settling runs' horizon: this many hands for each bot of the ladder.
HORIZON_HANDS_PER_BOT = 20_000


@dataclass(frozen=True, slots=True)
class Run:
    """One convergence run: hands until converged (None: not within the budget), wrong claims."""

    hands: int | None
    wrong_claims: int


def strengths(count: int) -> dict[str, float]:
    """True strengths: normal quantiles scaled to an SD of 200 mbb/hand, best first. The
    names are numbered in a shuffled order (the same for every seed): the fit breaks ties
    by name, and before any game every bot ties at 0, so names in the order of strength
    would hand the matchmaking the true order at the start."""
    normal = NormalDist(0.0, 200.0)
    numbers = list(range(count))
    random.Random(count).shuffle(numbers)
    return {
        f"bot-{numbers[i]:04d}": normal.inv_cdf((count - i - 0.5) / count) for i in range(count)
    }


def play(
    first: str, second: str, truth: dict[str, float], sd: float, rng: random.Random
) -> GameResult:
    """One simulated duplicate game."""
    score = rng.gauss(truth[first] - truth[second], sd)
    return GameResult(first, second, score, score + rng.gauss(0.0, 2 * sd), HANDS_PER_GAME)


def play_table(
    bots: Sequence[str], truth: dict[str, float], sd: float, rng: random.Random
) -> TableResult:
    """One simulated ring table: each bot's score is its centred strength (its strength
    less the others' mean) plus noise, the noise centred too (a table is zero-sum; centring
    leaves every difference as it was). The noise per seat is ``sd * sqrt(2)``: a table of
    two is then a heads-up game of score SD ``sd``."""
    n = len(bots)
    total = math.fsum(truth[bot] for bot in bots)
    centred = [truth[bot] - (total - truth[bot]) / (n - 1) for bot in bots]
    noise = [rng.gauss(0.0, sd * math.sqrt(2.0)) for _ in bots]
    extra = [rng.gauss(0.0, 2 * sd * math.sqrt(2.0)) for _ in bots]
    mean_noise, mean_extra = statistics.fmean(noise), statistics.fmean(extra)
    adjusted = tuple(c + e - mean_noise for c, e in zip(centred, noise, strict=True))
    raw = tuple(a + x - mean_extra for a, x in zip(adjusted, extra, strict=True))
    return TableResult(tuple(bots), adjusted, raw, DEALS * n)


def top3_confidence(standings: Standings) -> float:
    """The fit's chance that its top 3 are right (the three neighbour chances, multiplied)."""
    order = standings.order
    chance = 1.0
    for a, b in itertools.pairwise(order[:4]):
        chance *= standings.chance_above(a, b)
    return chance


#: What the bench models of the server between two fits: the server's refit cadence, a
#: fit's duration (the server's full refit at 10 and at 1,000 versions, the slowest median
#: measured at each size, docs/ladder.md "At scale": 51 ms at 10 versions, an earlier run at
#: a load of 7.7 to 10.9, where the current code's runs took 10 to 13 ms; 354 ms at 1,000,
#: with the fit's residual check; in between, on the line through them), one ladder worker
#: (the server's default) and a game of two C starters at 100 deals (about 1 s:
#: docs/server.md).
FIT_S_AT = ((10, 0.051), (1000, 0.354))
WORKERS = 1
GAME_S = 1.0


def modeled_fit_s(count: int) -> float:
    """The server's fit of ``count`` versions, in seconds, as :data:`FIT_S_AT` models it."""
    (low, low_s), (high, high_s) = FIT_S_AT
    return max(low_s, low_s + (high_s - low_s) * (count - low) / (high - low))


def default_batch(count: int, workers: int = WORKERS) -> int:
    """The games between two fits the bench models for a ladder of ``count`` bots: the
    games ``workers`` workers finish in the server's interval between two fits
    (:data:`arena.server.ladder.fitting.CADENCE`'s rule, :class:`FitCadence`, for the fit's
    modeled duration): for one worker 3 up to 39 bots, 4 from 40 and 5 from 105."""
    return FitCadence().games_between_fits(modeled_fit_s(count), workers=workers, game_s=GAME_S)


#: The oracle's cycle of pairs once every bot below the top 3 has played (places, 0 the
#: 1st): the pairs that decide the top 3, the closest ones twice.
ORACLE_CYCLE = ((0, 1), (1, 2), (2, 3), (1, 2), (2, 3), (2, 4))


def oracle_pairing(true_order: Sequence[str], number: int) -> Pairing:
    """Game ``number`` of a pairing rule that knows the true order (a reference no
    matchmaking can beat by knowing more): each bot below the top 3 plays once against the
    true 3rd, then the games cycle over :data:`ORACLE_CYCLE`."""
    below = len(true_order) - 3
    if number < below:
        return Pairing(true_order[3 + number], true_order[2], GameKind.UNCERTAINTY, "oracle")
    first, second = ORACLE_CYCLE[(number - below) % len(ORACLE_CYCLE)]
    return Pairing(true_order[first], true_order[second], GameKind.UNCERTAINTY, "oracle")


def ladder_runs(
    count: int,
    seed: int,
    *,
    targeted: bool,
    sd: float,
    matchmaking: MatchmakingSettings,
    seats: int = 2,
    batch: int | None = None,
    oracle: bool = False,
) -> Iterator[tuple[int, int, Standings, dict[str, int], list[GameResult]]]:
    """After each batch of games (tables of ``seats`` when above 2; ``batch`` games,
    :func:`default_batch` when None): the games so far, the hands so far, the fit, each
    bot's game count and the results so far (a table's as its pair comparisons).
    ``oracle`` (heads-up only) plays :func:`oracle_pairing` instead of either rule."""
    truth = strengths(count)
    names = sorted(truth)  # the entrants in name order, as a server lists them
    rng = random.Random(seed)
    batch = batch or default_batch(count)
    # Every bot is its own team and the cap never binds: the bench measures the rule.
    settings = replace(
        matchmaking, team_cap=max(matchmaking.team_cap, batch * seats), table_size=seats
    )
    games: list[GameResult] = []
    # Each pair's running sums, kept up to date game by game as the server's are (adding
    # the same games in the same order as pair_sums over the history: the same fit, at a
    # cost per game rather than per game so far at every refit).
    sums: dict[tuple[str, str], PairSums] = {}
    played = hands = 0
    counts = dict.fromkeys(names, 0)
    last: dict[str, int | None] = dict.fromkeys(names, None)
    standings = fit({}, names)
    while True:
        planned: list[Pairing] = []
        for _ in range(batch):
            pairing: Pairing | None
            if oracle:
                pairing = oracle_pairing(list(truth), played + len(planned))
            elif targeted:
                state = LadderState(
                    entrants=tuple(Entrant(n, n, counts[n], last[n]) for n in names),
                    standings=standings,
                    in_flight=tuple(planned),
                    game_number=played + len(planned),
                )
                pairing = next_game(state, settings, rng)
                if pairing is None:
                    # Every placement pair is in flight already (big tables while nobody
                    # is placed): the free workers wait for this batch's results.
                    assert planned, "nothing in flight, yet no game to play"
                    break
            elif seats == 2:
                a, b = rng.sample(names, 2)
                pairing = Pairing(a, b, GameKind.UNCERTAINTY, "uniformly random")
            else:
                a, b, *others = rng.sample(names, seats)
                pairing = Pairing(a, b, GameKind.UNCERTAINTY, "uniformly random", tuple(others))
            planned.append(pairing)
            for bot in pairing.bots:
                last[bot] = played + len(planned) - 1
        for pairing in planned:
            if pairing.others:
                results = play_table(pairing.bots, truth, sd, rng).pairwise()
                hands += DEALS * len(pairing.bots)
            else:
                results = (play(pairing.first, pairing.second, truth, sd, rng),)
                hands += HANDS_PER_GAME
            games.extend(results)
            for result in results:
                if result.is_rated:
                    sums[result.pair] = sums.get(result.pair, PairSums(*result.pair)).add(result)
            for bot in pairing.bots:
                counts[bot] += 1
        played += len(planned)
        standings = fit(sums, names)
        yield played, hands, standings, counts, games


def converge(
    count: int,
    seed: int,
    *,
    targeted: bool,
    sd: float,
    max_games: int,
    matchmaking: MatchmakingSettings,
    seats: int = 2,
) -> Run:
    """Hands until the fit's top 3 are right and 95% sure, with one pairing rule (games,
    or tables of ``seats``; ``max_games`` of them at most)."""
    true_top = tuple(list(strengths(count))[:3])
    wrong = 0
    runs = ladder_runs(count, seed, targeted=targeted, sd=sd, matchmaking=matchmaking, seats=seats)
    for played, hands, standings, _counts, _games in runs:
        if top3_confidence(standings) >= CONFIDENCE:
            if standings.order[:3] == true_top:
                return Run(hands, wrong)
            wrong += 1
        if played >= max_games:
            break
    return Run(None, wrong)


@dataclass(frozen=True, slots=True)
class Settling:
    """One run to its horizon under both stopping rules: the hands until the fit first
    claims a right top 3 at 95% (None: never), the hands from which the fitted top 3 is
    right at every refit up to the horizon (None: wrong at the horizon), and the claims at
    95% of a wrong top 3 before the right one."""

    claimed: int | None
    stays_right: int | None
    wrong_claims: int


def settle(
    count: int,
    seed: int,
    *,
    targeted: bool,
    sd: float,
    horizon_hands: int,
    matchmaking: MatchmakingSettings,
    budget_hands: int | None = None,
    batch: int | None = None,
    oracle: bool = False,
) -> Settling:
    """Plays one heads-up ladder for ``horizon_hands`` hands, and on until the fit claims a
    right top 3 (at most ``budget_hands``, 5 horizons by default), and reads both stopping
    rules off the same games (the games do not depend on when a rule would have stopped);
    "stays right" holds to the run's end. ``batch`` and ``oracle``: as
    :func:`ladder_runs`."""
    if budget_hands is None:
        budget_hands = 5 * horizon_hands
    true_top = tuple(list(strengths(count))[:3])
    claimed: int | None = None
    right_since: int | None = None
    wrong = 0
    runs = ladder_runs(
        count,
        seed,
        targeted=targeted,
        sd=sd,
        matchmaking=matchmaking,
        batch=batch,
        oracle=oracle,
    )
    for _played, hands, standings, _counts, _games in runs:
        right = standings.order[:3] == true_top
        if claimed is None and top3_confidence(standings) >= CONFIDENCE:
            if right:
                claimed = hands
            else:
                wrong += 1
        if not right:
            right_since = None
        elif right_since is None:
            right_since = hands
        if hands >= horizon_hands and (claimed is not None or hands >= budget_hands):
            return Settling(claimed, right_since, wrong)
    raise AssertionError("unreachable: the ladder runs forever")


def whole_ranking(
    count: int,
    seed: int,
    *,
    targeted: bool,
    sd: float,
    games: int,
    matchmaking: MatchmakingSettings,
) -> tuple[float, float, int]:
    """After ``games`` games: Kendall's tau of the fitted order against the true one, the
    mean distance of a bot from its true place, and the fewest games any bot played."""
    names = list(strengths(count))
    runs = ladder_runs(count, seed, targeted=targeted, sd=sd, matchmaking=matchmaking)
    standings, counts = next((st, n) for played, _, st, n, _ in runs if played >= games)
    place = {bot: index for index, bot in enumerate(standings.order)}
    agree = sum(1 if place[a] < place[b] else -1 for a, b in itertools.combinations(names, 2))
    tau = agree / (count * (count - 1) / 2)
    error = statistics.mean(abs(place[bot] - index) for index, bot in enumerate(names))
    return tau, error, min(counts.values())


def bench_whole_ranking(
    count: int, hands: int, seeds: int, sd: float, matchmaking: MatchmakingSettings
) -> None:
    print(f"3. The whole ranking after {hands:,} hands, {count} bots (the price of the focus)")
    print(
        f"   {'seed':>5} {'rule':>7} {'Kendall tau':>12} {'mean place error':>17} "
        f"{'fewest games':>13}"
    )
    for seed in range(seeds):
        for targeted in (True, False):
            tau, error, fewest = whole_ranking(
                count,
                seed,
                targeted=targeted,
                sd=sd,
                games=hands // HANDS_PER_GAME,
                matchmaking=matchmaking,
            )
            rule = "ladder" if targeted else "random"
            print(f"   {seed:>5} {rule:>7} {tau:>12.3f} {error:>17.2f} {fewest:>13}")


def bench_convergence(
    bot_counts: Sequence[int],
    seeds: int,
    sd: float,
    max_games: int,
    matchmaking: MatchmakingSettings,
    *,
    ring_seats: int = 0,
    verbose: bool = False,
) -> None:
    print("1. Convergence: hands until the top 3 are right with 95% confidence")
    print(f"   (game = 100 duplicate deals, {HANDS_PER_GAME} hands, score SD {sd:g} mbb/hand;")
    print("   a ring table: the deals in every rotation, noise SD per seat sd * sqrt(2))")
    header = (
        f"   {'bots':>5} {'table':>6} {'seeds':>5} {'ladder (median)':>16} "
        f"{'random (median)':>16} {'ratio':>6} {'[bootstrap]':>13} {'wrong claims L/R':>17} "
        f"{'time s':>7}"
    )
    print(header)
    for count in bot_counts:
        for seats in (2, ring_seats) if ring_seats > 2 else (2,):
            _convergence_row(count, seats, seeds, sd, max_games, matchmaking, verbose=verbose)


def _convergence_row(
    count: int,
    seats: int,
    seeds: int,
    sd: float,
    max_games: int,
    matchmaking: MatchmakingSettings,
    *,
    verbose: bool,
) -> None:
    started = time.perf_counter()
    ladder: list[Run] = []
    uniform: list[Run] = []
    for seed in range(seeds):
        # Interleaved: the same seed for both rules, one after the other.
        runs = [
            converge(
                count,
                seed,
                targeted=rule,
                sd=sd,
                max_games=max_games,
                matchmaking=matchmaking,
                seats=seats,
            )
            for rule in (True, False)
        ]
        ladder.append(runs[0])
        uniform.append(runs[1])
        if verbose:
            print(
                f"     {count} bots, {seats} seats, seed {seed}: ladder {runs[0]}, "
                f"random {runs[1]}",
                flush=True,
            )
    budget = max_games * DEALS * seats
    ladder_hands = [float(r.hands if r.hands is not None else budget) for r in ladder]
    uniform_hands = [float(r.hands if r.hands is not None else budget) for r in uniform]
    lad, uni = statistics.median(ladder_hands), statistics.median(uniform_hands)
    _ratio, low, high = ratio_interval(ladder_hands, uniform_hands)
    wrong = f"{sum(r.wrong_claims for r in ladder)}/{sum(r.wrong_claims for r in uniform)}"
    unfinished = sum(r.hands is None for r in ladder + uniform)
    note = f"  ({unfinished} runs hit the budget of {budget:,} hands)" if unfinished else ""
    table = "HU" if seats == 2 else f"{seats}-seat"
    print(
        f"   {count:>5} {table:>6} {seeds:>5} {lad:>16,.0f} {uni:>16,.0f} {uni / lad:>5.1f}x "
        f"{f'[{low:.2f}-{high:.2f}]':>13} {wrong:>17} {time.perf_counter() - started:>7.1f}{note}"
    )


def ratio_interval(
    ladder: Sequence[float], uniform: Sequence[float], resamples: int = 2000
) -> tuple[float, float, float]:
    """The ratio of the medians, uniform over ladder, with its 95% bootstrap interval (the
    seeds resampled with replacement, each seed's two runs together: they share it)."""
    rng = random.Random(1)
    seeds = len(ladder)
    ratios = []
    for _ in range(resamples):
        picks = [rng.randrange(seeds) for _ in range(seeds)]
        ratios.append(
            statistics.median(uniform[k] for k in picks)
            / statistics.median(ladder[k] for k in picks)
        )
    ratios.sort()
    point = statistics.median(uniform) / statistics.median(ladder)
    return point, ratios[int(0.025 * resamples)], ratios[int(0.975 * resamples) - 1]


#: The settling runs' pairing rules: the ladder's matchmaking, uniformly random pairs, and
#: the reference that knows the true order (:func:`oracle_pairing`).
SETTLE_RULES = ("ladder", "random", "oracle")


def _settle_one(
    count: int,
    task: tuple[str, int],
    *,
    sd: float,
    horizon_hands: int,
    matchmaking: MatchmakingSettings,
    batch: int | None,
) -> Settling:
    rule, seed = task
    return settle(
        count,
        seed,
        targeted=rule == "ladder",
        sd=sd,
        horizon_hands=horizon_hands,
        matchmaking=matchmaking,
        batch=batch,
        oracle=rule == "oracle",
    )


def bench_settling(
    bot_counts: Sequence[int],
    seeds: int,
    sd: float,
    matchmaking: MatchmakingSettings,
    jobs: int = 1,
    *,
    batch: int | None = None,
    oracle: bool = False,
    workers: int = WORKERS,
) -> None:
    """Hands to a right top 3 under both stopping rules, the ladder's matchmaking against
    uniformly random pairs, with the ratio's bootstrap interval; with ``oracle`` the
    pairing that knows the true order too (:func:`oracle_pairing`), against the same
    random pairs. ``batch``: the games between two fits (:func:`default_batch` for
    ``workers`` workers when None)."""
    print("5. Hands to a right top 3, heads-up, both stopping rules (median over the seeds)")
    print("   claimed: the fit's top 3 right and 95% sure; stays right: the fitted top 3 right")
    print(
        f"   at every refit from then to the run's end (at least {HORIZON_HANDS_PER_BOT:,} "
        "hands a bot, and on until the claim; censored: no claim in 5 times that)"
    )
    if oracle:
        print(
            "   oracle: knows the true order; each bot below the top 3 plays the 3rd once, "
            f"then the pairs of places {', '.join(f'{a + 1}-{b + 1}' for a, b in ORACLE_CYCLE)}"
            " in turn"
        )
    print(
        f"   {'bots':>5} {'batch':>5} {'seeds':>5} {'rule':>12} {'pairing':>8} {'hands':>9} "
        f"{'random':>9} {'ratio [95% bootstrap]':>24} {'wrong claims (runs)':>21} {'censored':>9} "
        f"{'time s':>7}"
    )
    rules = SETTLE_RULES if oracle else SETTLE_RULES[:2]
    for count in bot_counts:
        started = time.perf_counter()
        horizon = HORIZON_HANDS_PER_BOT * count
        games_a_fit = batch or default_batch(count, workers)
        run = functools.partial(
            _settle_one,
            count,
            sd=sd,
            horizon_hands=horizon,
            matchmaking=matchmaking,
            batch=games_a_fit,
        )
        tasks = [(rule, seed) for rule in rules for seed in range(seeds)]
        if jobs > 1:
            with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
                results = list(pool.map(run, tasks, chunksize=4))
        else:
            results = [run(task) for task in tasks]
        runs = {rule: results[k * seeds : (k + 1) * seeds] for k, rule in enumerate(rules)}
        for label in ("claimed", "stays right"):
            hands = {
                rule: [
                    float(value if value is not None else horizon)
                    for value in (
                        (r.claimed if label == "claimed" else r.stays_right) for r in results
                    )
                ]
                for rule, results in runs.items()
            }
            for rule in (rule for rule in rules if rule != "random"):
                censored = sum(
                    (r.claimed if label == "claimed" else r.stays_right) is None
                    for r in runs[rule] + runs["random"]
                )
                # A wrong claim is counted at every refit that makes it: the runs that
                # made one, beside the count, tell a few stubborn runs from many.
                wrong = "/".join(
                    str(sum(r.wrong_claims for r in runs[key])) for key in (rule, "random")
                ) + " ({} runs)".format(
                    "/".join(
                        str(sum(r.wrong_claims > 0 for r in runs[key])) for key in (rule, "random")
                    )
                )
                ratio, low, high = ratio_interval(hands[rule], hands["random"])
                print(
                    f"   {count:>5} {games_a_fit:>5} {seeds:>5} {label:>12} "
                    f"{rule:>8} {statistics.median(hands[rule]):>9,.0f} "
                    f"{statistics.median(hands['random']):>9,.0f} "
                    f"{f'{ratio:.2f}x [{low:.2f}-{high:.2f}]':>24} {wrong:>21} {censored:>9} "
                    f"{time.perf_counter() - started:>7.1f}",
                    flush=True,
                )


def bench_scale(count: int, workers: int, decisions: int, ring_seats: int = 0) -> None:
    print(f"2. Scale: {count:,} bots, {workers} workers, {decisions:,} decisions")
    truth = strengths(count)
    names = list(truth)
    rng = random.Random(7)
    # A history: each bot has played its two neighbours and a few random others.
    games = []
    for index, name in enumerate(names):
        for other in (names[(index + 1) % count], names[rng.randrange(count)]):
            if other != name:
                for _ in range(3):
                    games.append(play(name, other, truth, 150.0, rng))
    started = time.perf_counter()
    standings = fit(pair_sums(games), names)
    print(
        f"   fit of {count:,} bots from {len(games):,} games: "
        f"{time.perf_counter() - started:.1f} s (once per batch of results, not per game)"
    )
    for seats in (2, ring_seats) if ring_seats > 2 else (2,):
        _time_decisions(names, standings, workers, decisions, seats, rng)


def _time_decisions(
    names: Sequence[str],
    standings: Standings,
    workers: int,
    decisions: int,
    seats: int,
    rng: random.Random,
) -> None:
    """Times ``decisions`` decisions of a ladder of ``names`` at tables of ``seats``."""
    count = len(names)
    print(f"   tables of {seats}:" if seats > 2 else "   heads-up:")
    # A ladder in its steady state: every bot placed, its last game somewhere in the last
    # n games (so the floor tier has bots coming due as the decisions go on).
    entrants = [Entrant(n, f"team-{n}", 6, -rng.randrange(count)) for n in names]
    position = {name: index for index, name in enumerate(names)}
    settings = MatchmakingSettings(table_size=seats)
    in_flight: list[Pairing] = []
    walls: list[float] = []
    cpus: list[float] = []
    kinds: dict[str, int] = {}
    first_wall = 0.0
    for number in range(decisions + workers):
        state = LadderState(
            entrants=tuple(entrants),
            standings=standings,
            in_flight=tuple(in_flight),
            game_number=number,
        )
        started, started_cpu = time.perf_counter(), time.process_time()
        pairing = next_game(state, settings, rng)
        wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu
        assert pairing is not None
        if number == 0:
            first_wall = wall  # fills the standings' memo of the neighbours' gaps
        elif number >= workers:
            walls.append(wall)
            cpus.append(cpu)
            kinds[str(pairing.kind)] = kinds.get(str(pairing.kind), 0) + 1
        in_flight.append(pairing)
        if len(in_flight) >= workers:
            done = in_flight.pop(0)
            for bot in done.bots:
                index = position[bot]
                entrants[index] = replace(
                    entrants[index],
                    game_count=entrants[index].game_count + 1,
                    last_game_number=number,
                )
    for label, values in (("wall clock", walls), ("CPU time", cpus)):
        values.sort()
        print(
            f"   decision ({label}): median {statistics.median(values) * 1e3:.2f} ms, "
            f"p99 {values[int(0.99 * len(values))] * 1e3:.2f} ms, "
            f"max {values[-1] * 1e3:.2f} ms (target < 10 ms)"
        )
    print(f"   first decision after a fit: {first_wall * 1e3:.1f} ms; games by tier: {kinds}")


def version_test_run(
    true_mbb: float, seed: int, test: PromotionTest, sd: float, *, heavy: bool, budget: int
) -> tuple[str, int]:
    """One simulated "is my new version better?" test: games of the candidate's score drawn
    around ``true_mbb`` (a normal of SD ``sd``, or when ``heavy`` a Student's t of 4 degrees
    of freedom scaled to that SD), the verdict read after every game as the server does;
    returns the status ("H1", "H0", or "continue" past ``budget`` games) and the games."""
    rng = random.Random(seed)
    sprt = test.sprt
    count, mean, squares = 0, 0.0, 0.0
    # A t of 4 degrees of freedom has variance 2: scaled by 1/sqrt(2) to the SD wanted.
    scale = sd / math.sqrt(2.0)
    while count < budget:
        if heavy:
            score = true_mbb + scale * rng.gauss(0.0, 1.0) / math.sqrt(rng.gammavariate(2.0, 0.5))
        else:
            score = rng.gauss(true_mbb, sd)
        count += 1
        step = score - mean
        mean += step / count
        squares += step * (score - mean)
        if count < test.min_games:
            continue
        # The server's verdict: the corrected ratio against the SPRT's own bounds.
        result = sprt.result(corrected_llr_of(count, mean, squares / (count - 1), sprt), count)
        if result.status != "continue":
            return result.status, count
    return "continue", count


def bench_version_tests(runs: int, sd: float, mbb1: float) -> None:
    """The version test's error rates over ``runs`` simulated tests per row."""
    test = PromotionTest("new", "old", sprt=Sprt(0.0, mbb1))
    budget = 100_000
    z = NormalDist().inv_cdf(0.975)
    print(
        f'4. "Is my new version better?": error rates over {runs:,} simulated tests per row '
        f"(H0 0, H1 {mbb1:g} mbb/hand, alpha = beta = {test.sprt.alpha:g}, game SD {sd:g}, "
        f"verdicts from game {test.min_games})"
    )
    print(
        f"   {'true mbb/hand':>13} {'scores':>8} {'runs':>6} {'wrong verdict':>14} "
        f"{'rate [95% interval]':>24} {'mean games':>11} {'unfinished':>10}"
    )
    rows = [(0.0, "H1", False), (mbb1, "H0", False), (0.0, "H1", True), (mbb1, "H0", True)]
    for true_mbb, wrong, heavy in rows:
        results = [
            version_test_run(true_mbb, seed, test, sd, heavy=heavy, budget=budget)
            for seed in range(runs)
        ]
        rate = sum(status == wrong for status, _ in results) / runs
        half = z * math.sqrt(rate * (1.0 - rate) / runs)
        label = '"better"' if wrong == "H1" else '"not better"'
        print(
            f"   {true_mbb:>13g} {'t(4)' if heavy else 'normal':>8} {runs:>6} {label:>14} "
            f"{f'{rate:.2%} [{max(rate - half, 0.0):.2%}-{min(rate + half, 1.0):.2%}]':>24} "
            f"{statistics.fmean(games for _, games in results):>11.0f} "
            f"{sum(status == 'continue' for status, _ in results):>10}",
            flush=True,
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--bots", type=int, nargs="*", default=[10, 50], help="ladder sizes (10 50; none: skip)"
    )
    parser.add_argument("--seeds", type=int, default=7, help="seeds per size (7)")
    parser.add_argument("--game-sd", type=float, default=150.0, help="SD of a game's score (150)")
    parser.add_argument("--max-games", type=int, default=200_000, help="budget per run (200000)")
    parser.add_argument(
        "--scale-bots", type=int, default=300, help="bots in the scale test (300; 1000: minutes)"
    )
    parser.add_argument("--decisions", type=int, default=2000, help="decisions timed (2000)")
    parser.add_argument(
        "--place-weight", type=float, default=None, help="matchmaking's place_weight"
    )
    parser.add_argument("--floor-share", type=float, default=None, help="matchmaking's floor_share")
    parser.add_argument("--focus-places", type=int, default=None, help="matchmaking's focus_places")
    parser.add_argument(
        "--placement-games", type=int, default=None, help="matchmaking's placement_games"
    )
    parser.add_argument(
        "--ring-seats",
        type=int,
        default=3,
        help="seats of the ring tables' convergence rows (3; 2 for heads-up only)",
    )
    parser.add_argument("--skip-scale", action="store_true", help="convergence only")
    parser.add_argument("--verbose", action="store_true", help="print every run")
    parser.add_argument(
        "--whole-ranking",
        type=int,
        metavar="HANDS",
        default=None,
        help="also compare the whole ranking of 50 bots after HANDS hands (3 seeds)",
    )
    parser.add_argument(
        "--settle-bots",
        type=int,
        nargs="*",
        default=[],
        help="also measure hands to a right top 3 under both stopping rules (10 30)",
    )
    parser.add_argument(
        "--settle-seeds", type=int, default=100, help="seeds of the settling runs (100)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes for the settling runs (1)")
    parser.add_argument(
        "--batch",
        type=int,
        default=None,
        help="games between two fits (the server's cadence for --workers workers)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=WORKERS,
        help=f"ladder workers the default batch models ({WORKERS}; a game {GAME_S:g} s)",
    )
    parser.add_argument(
        "--oracle",
        action="store_true",
        help="also run the settling runs' pairing that knows the true order",
    )
    parser.add_argument(
        "--version-tests",
        type=int,
        metavar="RUNS",
        default=0,
        help="also measure the version test's error rates over RUNS tests per row (10000)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the test suite's tiny run (10 bots, 2 seeds, 20 version tests)",
    )
    args = parser.parse_args(argv)
    if args.batch is not None and args.batch < 1:
        parser.error(f"--batch must be 1 or more, got {args.batch}")
    if args.workers < 1:
        parser.error(f"--workers must be 1 or more, got {args.workers}")
    if args.quick:
        args.bots, args.seeds, args.scale_bots, args.decisions = [10], 2, 100, 100
        args.settle_bots, args.settle_seeds, args.version_tests = [10], 2, 20
    matchmaking = MatchmakingSettings()
    if args.place_weight is not None:
        matchmaking = replace(matchmaking, place_weight=args.place_weight)
    if args.floor_share is not None:
        matchmaking = replace(matchmaking, floor_share=args.floor_share)
    if args.focus_places is not None:
        matchmaking = replace(matchmaking, focus_places=args.focus_places)
    if args.placement_games is not None:
        matchmaking = replace(matchmaking, placement_games=args.placement_games)
    print(
        f"   matchmaking: place_weight {matchmaking.place_weight:g}, "
        f"floor_share {matchmaking.floor_share:g}, focus_places {matchmaking.focus_places}, "
        f"placement_games {matchmaking.placement_games}"
    )
    if args.bots:
        bench_convergence(
            args.bots,
            args.seeds,
            args.game_sd,
            args.max_games,
            matchmaking,
            ring_seats=args.ring_seats,
            verbose=args.verbose,
        )
    if args.whole_ranking:
        bench_whole_ranking(50, args.whole_ranking, 3, args.game_sd, matchmaking)
    if not args.skip_scale:
        bench_scale(args.scale_bots, 10, args.decisions, args.ring_seats)
    if args.version_tests:
        bench_version_tests(args.version_tests, args.game_sd, PromotionTest("a", "b").sprt.mbb1)
    if args.settle_bots:
        bench_settling(
            args.settle_bots,
            args.settle_seeds,
            args.game_sd,
            matchmaking,
            args.jobs,
            batch=args.batch,
            oracle=args.oracle,
            workers=args.workers,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
