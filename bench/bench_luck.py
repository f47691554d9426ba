"""How much the luck estimator cuts the variance of results, and what it costs per hand.

Run: ``.venv/bin/python bench/bench_luck.py`` (the defaults are the sizes the docs quote:
1,000 deals per pair, 6 seeds; about ten minutes on a quiet core, ``--rounds 0`` skips the
cost; ``--deals``, ``--seeds`` and ``--hands`` change the sizes). Prints figures, asserts
nothing.

1. Variance reduction. The shipped starter bots play a heads-up duplicate round robin,
   modelled on the tournament's: each pair plays its deals in blocks of 100 (the default
   ``block_deals``), a block is one seed played by two matches, the pair one way and then
   swapped, hands numbered from 1 in each match, stacks reset every hand (100 big blinds).
   The bots are the ones in ``sample_bots/``: their own decision functions (loaded from
   their ``bot.py``), fed the arena's own ``act`` requests in-process. What the
   processes would add is not modelled; what decides the play is:

   * ``python_random`` as shipped reports its mixed strategy, and the action is drawn the
     way the arena draws it (:class:`arena.session.draws.StrategyDraws`, keyed by the
     block's seed, the hand number and the decision's place, so both matches of a block
     draw the same numbers) and recorded with its distribution, so the estimator's action
     term applies;
   * ``random --draw 1`` is the same bot drawing itself, seeded as its manifest used to
     run it: a new process each match, so its generator restarts with seed 1 in both
     matches of a block (its dice repeat in the two halves of a duplicate pair);
   * ``random --draw`` is that bot unseeded: fresh dice in every match.

   Each hand is estimated with the players' leans its match had at that hand, counted on
   the match's earlier hands (:func:`with_leans`), as the arena's match does.

   A duplicate unit is a deal's mean over its two matches (``arena.stats.units``), in big
   blinds for the first bot of the pair. Per pair: the variance of raw units and of
   adjusted units, and so how many times fewer hands adjusted results need for the same
   interval width (``var_raw / var_adjusted``), beside the same with version 5's value
   (no made-hand term, so no leans) and with the chips-only value (the estimator without
   a betting term, as version 1), on the same hands; and the paired null test, z of the
   mean of adjusted - raw over every deal of every seed (it has mean zero, and is
   computed on the same hands, so it is a sensitive bias test). The
   round robin's figure is the three pairs' variances summed (one bot's standing sums its
   pairs). Each figure is the mean over ``--seeds`` independent tournaments of ``--deals``
   deals per pair, with a 95% interval over the seeds (Student's t).
   With ``--sources N``, step 1b: where the calling station v hand strength pair's adjusted
   variance is left, over N seeds of ``--deals`` deals: per betting round, the variance of
   its cards' correction and of what its betting moved the value by, each one's covariance
   with the adjusted unit, and the rounds split by whether both halves of the deal began
   them in the same state (:func:`variance_sources`).
2. Cost. A real match between two ``python_calling_station`` bots (processes, the real
   loop; their hands all go to showdown, the estimator's most work): wall time per hand
   with luck off and with luck on, and the estimator's own time per hand over the first
   match's ``hands.jsonl`` records; interleaved over ``--rounds`` rounds, medians shown.
   The machine's load moves the match times a lot; the estimator alone is CPU time.
3. The estimator's CPU per hand (process time, best of 3, interleaved) on the hands of each
   pair of the shipped round robin (``--cpu-deals`` deals per pair), as it runs, without
   its betting term, and with its fast paths off (``arena.luck.fast_ranks`` and
   ``arena.luck.fast_boards``: the same numbers): the random bot's reported strategies
   make its hands the dearest.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import importlib.util
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots.manifest import load_manifest  # noqa: E402
from arena.luck import ESTIMATOR, HandLuck, estimate_hand, fast_boards, fast_ranks  # noqa: E402
from arena.luck import value as value_module  # noqa: E402
from arena.luck.leans import match_leans  # noqa: E402
from arena.luck.timeline import ChanceStep, TableState, walk_history  # noqa: E402
from arena.match.config import MatchConfig  # noqa: E402
from arena.match.players import distribution_of  # noqa: E402
from arena.match.records import action_to_dict  # noqa: E402
from arena.match.run import open_sessions, run_match  # noqa: E402
from arena.session.draws import StrategyDraws  # noqa: E402
from arena.store.hand_log import read_hand_log  # noqa: E402
from arena.tournament.seeds import derive_seed  # noqa: E402
from engine.actions import Action  # noqa: E402
from engine.config import GameConfig  # noqa: E402
from engine.deck import Deck  # noqa: E402
from engine.hand import Hand, SeatSetup  # noqa: E402
from engine.history import hand_to_history  # noqa: E402
from engine.seeds import hand_rng, hand_seed  # noqa: E402
from protocol.betting import action_from_reply  # noqa: E402
from protocol.messages import act_request  # noqa: E402
from protocol.strategy import strategy_from_reply  # noqa: E402

STACK = 200  # 100 big blinds at 1/2
GAME = GameConfig(small_blind=1, big_blind=2)
BLOCK_DEALS = 100  # the tournament's default block_deals

# -- the shipped starter bots, in-process ----------------------------------------------------


def load_bot(folder: str) -> ModuleType:
    """A starter bot's ``bot.py`` as a module (its decision functions, not its process)."""
    path = ROOT / "sample_bots" / folder / "bot.py"
    spec = importlib.util.spec_from_file_location(f"starter_{folder}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


STATION = load_bot("python_calling_station")
STRENGTH = load_bot("python_hand_strength")
RANDOM = load_bot("python_random")


@dataclass(frozen=True)
class BotModel:
    """How a bench bot answers: ``reply(request, rng)`` is its ``act`` reply; ``seed(match)``
    the seed its generator restarts with in each match (a new process), None: no dice."""

    name: str
    reply: Callable[[dict[str, Any], random.Random], dict[str, Any]]
    seed: Callable[[int], int] | None = None


def _station(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return {"action": STATION.choose_action(request)}


def _strength(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return dict(STRENGTH.choose_action(request))


def _reporting(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return dict(RANDOM.report(request))


def _drawing(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return dict(RANDOM.draw(request, rng))


BOTS: dict[str, BotModel] = {
    "calling station": BotModel("calling station", _station),
    "hand strength": BotModel("hand strength", _strength),
    "random": BotModel("random", _reporting),
    # The manifest's old command: "bot.py 1", a new process (seed 1) every match.
    "random --draw 1": BotModel("random --draw 1", _drawing, seed=lambda match: 1),
    # Unseeded: fresh dice every match (a seed no other match shares).
    "random --draw": BotModel("random --draw", _drawing, seed=lambda match: 1_000_003 + match),
}

# -- duplicate play -----------------------------------------------------------------------


def play_hand(
    seed: int,
    number: int,
    bots: tuple[BotModel, BotModel],
    rngs: Sequence[random.Random],
) -> dict[str, Any]:
    """Hand ``number`` of a match with seed ``seed``, ``bots`` in seats 0 and 1 (``rngs``:
    their generators, carried across the match's hands); the record as the arena writes
    it (a reported strategy's decisions carry their distribution, drawn as the arena
    draws)."""
    deck = Deck.shuffled(hand_rng(seed, number))
    seats = [SeatSetup(0, "p0", STACK), SeatSetup(1, "p1", STACK)]
    hand = Hand.start(GAME, seats, button_index=(number - 1) % 2, deck=deck, hand_number=number)
    draws = StrategyDraws(seed)
    decisions: list[dict[str, Any]] = []
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        seat = legal.seat_index
        request = act_request(hand.view(seat), seq=1, hand_id="h", time_limit_ms=1000)
        reply = bots[seat].reply(request, rngs[seat])
        decision: dict[str, Any] = {"seat_index": seat, "by": "bot"}
        action: Action
        if "distribution" in reply:
            strategy = strategy_from_reply(reply["distribution"], legal)
            action = draws.action(strategy, hand)
            distribution = distribution_of(strategy)
            assert distribution is not None
            decision["distribution"] = [
                {"action": entry, "probability": p} for entry, p in distribution
            ]
        else:
            action = action_from_reply(reply["action"], reply.get("amount"), legal)
        decision["action"] = action_to_dict(action)
        decisions.append(decision)
        hand.act(action)
    return {"decisions": decisions, "history": hand_to_history(hand, seed=hand_seed(seed, number))}


def pair_hands(
    first: BotModel, second: BotModel, deals: int, seed: int
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Per deal, its two hand records: ``first`` in seat 0, then swapped. The pair plays
    ``deals`` deals in blocks of 100, each block one seed played by two matches; each
    record carries the leans its match had (:func:`with_leans`)."""
    deal_records: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for block in range(math.ceil(deals / BLOCK_DEALS)):
        block_seed = derive_seed(seed, f"{first.name}-vs-{second.name}-b{block + 1}")
        size = min(BLOCK_DEALS, deals - block * BLOCK_DEALS)
        per_match: list[list[dict[str, Any]]] = []
        for arrangement, bots in enumerate(((first, second), (second, first))):
            match = 2 * (seed * 10_000 + block) + arrangement
            rngs = [random.Random(bot.seed(match) if bot.seed else 0) for bot in bots]
            records = [play_hand(block_seed, number, bots, rngs) for number in range(1, size + 1)]
            per_match.append(with_leans(records))
        deal_records += zip(*per_match, strict=True)
    return deal_records


def with_leans(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One match's records, each with the players' leans the match had at that hand
    (:class:`~arena.luck.leans.BettingLeans` of its earlier hands) under ``leans``, as the
    arena's match estimates them."""
    for record, (_, leans) in zip(records, match_leans(records), strict=True):
        record["leans"] = leans
    return records


def estimate(record: dict[str, Any]) -> HandLuck:
    """The estimate of a record of :func:`pair_hands` with its match's leans."""
    return estimate_hand(record, None, record.get("leans"))


def pair_records(first: BotModel, second: BotModel, deals: int, seed: int) -> list[dict[str, Any]]:
    """Every hand record of the pair's ``deals`` deals (both seatings)."""
    return [record for both in pair_hands(first, second, deals, seed) for record in both]


#: Version 5's betting term (``chance-equity/5#79cee89c``): the three betting features'
#: weights it froze and no made-hand term (so no lean counts); the rest is the same.
VERSION_5_WEIGHTS: dict[int, dict[str, float]] = {
    0: {"raised": 1.9072, "to_call": 1.2483, "last_raised": 0.0},
    3: {"raised": 1.892, "to_call": 1.0996, "last_raised": 0.2469},
    4: {"raised": 1.282, "to_call": 1.6325, "last_raised": 4.9804},
    5: {"raised": 0.4945, "to_call": 1.711, "last_raised": 2.1076},
}


@contextlib.contextmanager
def betting_weights(weights: dict[int, dict[str, float]]) -> Iterator[None]:
    """The estimator with these betting weights in place of its frozen ones, for
    comparison on the same hands."""
    saved = value_module.BETTING_WEIGHTS
    value_module.BETTING_WEIGHTS = weights
    try:
        yield
    finally:
        value_module.BETTING_WEIGHTS = saved


def chips_only() -> contextlib.AbstractContextManager[None]:
    """The estimator with the chips-only value (no betting term: version 1's value)."""
    return betting_weights({})


def pair_units(first: BotModel, second: BotModel, deals: int, seed: int) -> dict[str, list[float]]:
    """Per deal, ``first``'s duplicate unit in big blinds (the mean over the deal's two
    matches): raw, adjusted, adjusted with version 5's value (no made-hand term) and with
    the chips-only value."""
    out: dict[str, list[float]] = {"raw": [], "adjusted": [], "version 5": [], "chips": []}
    big = GAME.big_blind
    for forward, backward in pair_hands(first, second, deals, seed):
        ahead, behind = estimate(forward), estimate(backward)
        out["raw"].append((ahead.raw[0] + behind.raw[1]) / 2 / big)
        out["adjusted"].append((ahead.adjusted[0] + behind.adjusted[1]) / 2 / big)
        for kind, context in (
            ("version 5", betting_weights(VERSION_5_WEIGHTS)),
            ("chips", chips_only()),
        ):
            with context:
                other = estimate(forward).adjusted[0] + estimate(backward).adjusted[1]
            out[kind].append(other / 2 / big)
    return out


def interval(values: Sequence[float]) -> str:
    """``mean +- half-width`` of a 95% Student's t interval over ``values`` (the seeds)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:.2f}"
    t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}
    half = t.get(len(values), 2.0) * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:.2f}x +- {half:.2f}"


ROUND_ROBINS: dict[str, tuple[str, str, str]] = {
    "shipped (random reports)": ("calling station", "hand strength", "random"),
    "random --draw 1 (seeded)": ("calling station", "hand strength", "random --draw 1"),
    "random --draw (unseeded)": ("calling station", "hand strength", "random --draw"),
}


def _pairs() -> list[tuple[str, str]]:
    """Every pair of the round robins, each once, in order."""
    pairs: list[tuple[str, str]] = []
    for bots in ROUND_ROBINS.values():
        pairs += [(a, b) for i, a in enumerate(bots) for b in bots[i + 1 :] if (a, b) not in pairs]
    return pairs


def seed_units(deals: int, seed: int) -> dict[tuple[str, str], dict[str, list[float]]]:
    """One seed's tournament: every pair's duplicate units (see :func:`pair_units`)."""
    print(f"   seed {seed} ...", flush=True)
    return {(a, b): pair_units(BOTS[a], BOTS[b], deals, seed) for a, b in _pairs()}


def variance_table(deals: int, seeds: int, first_seed: int, jobs: int = 1) -> None:
    """Part 1 (see the module docstring); ``jobs``: seeds played at once in worker
    processes (the figures are the same for any number)."""
    pairs = _pairs()
    print(
        f"1. Variance reduction ({ESTIMATOR}; 'version 5': the same with version 5's value,"
        " without the made-hand term; 'chips only': without a betting term, as version 1):"
        f" {deals} duplicate deals per pair, {seeds} seeds; times fewer hands than duplicate"
        " alone, mean +- 95% interval over the seeds"
    )
    kinds = ("raw", "adjusted", "version 5", "chips")
    variances: dict[tuple[str, str], list[dict[str, float]]] = {pair: [] for pair in pairs}
    units: dict[tuple[str, str], dict[str, list[float]]] = {
        pair: {kind: [] for kind in kinds} for pair in pairs
    }
    seed_list = range(first_seed, first_seed + seeds)
    if jobs > 1:
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            per_seed = list(pool.map(seed_units, [deals] * seeds, seed_list))
    else:
        per_seed = [seed_units(deals, seed) for seed in seed_list]
    for by_pair in per_seed:  # in seed order, whatever the jobs
        for pair in pairs:
            these = by_pair[pair]
            variances[pair].append({kind: statistics.variance(these[kind]) for kind in kinds})
            for kind in kinds:
                units[pair][kind] += these[kind]
    print(
        f"{'pair':34} {'raw bb':>7} {'adj bb':>7} {'null z':>7} {'var raw':>8} {'var adj':>8}"
        f" {'fewer hands':>15} {'version 5':>15} {'chips only':>15}"
    )
    for pair in pairs:
        raw, adjusted = units[pair]["raw"], units[pair]["adjusted"]
        # The paired null test: adjusted - raw has mean zero (the same hands, so sensitive).
        luck = [a - r for a, r in zip(adjusted, raw, strict=True)]
        z = statistics.fmean(luck) / (statistics.stdev(luck) / math.sqrt(len(luck)))
        print(
            f"{pair[0] + ' v ' + pair[1]:34} {statistics.fmean(raw):7.3f}"
            f" {statistics.fmean(adjusted):7.3f} {z:7.2f}"
            f" {statistics.fmean(v['raw'] for v in variances[pair]):8.2f}"
            f" {statistics.fmean(v['adjusted'] for v in variances[pair]):8.2f}"
            + "".join(
                f" {interval([v['raw'] / v[kind] for v in variances[pair]]):>15}"
                for kind in kinds[1:]
            )
        )
    for label, bots in ROUND_ROBINS.items():
        members = [(a, b) for i, a in enumerate(bots) for b in bots[i + 1 :]]
        ratios = {
            kind: [
                sum(variances[pair][k]["raw"] for pair in members)
                / sum(variances[pair][k][kind] for pair in members)
                for k in range(seeds)
            ]
            for kind in kinds[1:]
        }
        print(
            f"round robin, {label:29} {'':48}"
            + "".join(f" {interval(ratios[kind]):>15}" for kind in kinds[1:])
        )


# -- where the variance left comes from -----------------------------------------------------

#: A hand's betting rounds by the board they are played on.
ROUND_NAMES = {0: "pre-flop", 3: "flop", 4: "turn", 5: "river"}


def hand_parts(record: dict[str, Any], position: int) -> list[tuple[str, TableState, float, float]]:
    """Seat ``position``'s result of one hand, cut where the estimator cuts it: per betting
    round (the board it is played on), the state its chance event left, the estimator's
    correction for that event (the value after the cards minus their average) and what the
    round's betting moved the value by (the average value over the next street's cards,
    or the result when there is none, minus the value the round began with). The
    corrections and the rounds add up to the raw result; the rounds alone to the adjusted
    one (for bots that report no strategy, so get no action term)."""
    timeline = walk_history(record["history"])
    value = value_module.ValueFunction(
        variant=timeline.variant,
        unit=timeline.unit,
        key=timeline.key,
        street_pots=timeline.street_pots,
        leans=[record["leans"].get(seat["player_id"], 0.0) for seat in record["history"]["seats"]],
    )
    parts: list[tuple[str, TableState, float, float]] = []
    start: tuple[str, TableState, float, float] | None = None
    for step in timeline.steps:
        if not isinstance(step, ChanceStep):
            continue
        after = value.value(step.after)[position]
        if step.kind == "deal":
            average = value.dealt_expectation(step.after)[position]
        else:
            average = value.street_expectation(step.before, len(step.after.board))[position]
            assert start is not None
            parts.append((start[0], start[1], start[2], average - start[3]))
        start = (ROUND_NAMES[len(step.after.board)], step.after, after - average, after)
    assert start is not None
    parts.append((start[0], start[1], start[2], timeline.raw[position] - start[3]))
    return parts


def variance_sources(pair: tuple[str, str], deals: int, seeds: int, first_seed: int) -> None:
    """Where the adjusted variance of ``pair``'s duplicate units comes from (in big blinds
    per hand, the first bot's): per betting round, the variance of its correction and of
    its betting's part of the unit, and each part's covariance with the adjusted unit (the
    betting parts' covariances add up to the adjusted variance); then the rounds split by
    whether they began in the same state in both halves of the deal (a value that does not
    know which bot sits where gives such a state the same value in both, so the luck of
    what the bots then do differently is left in) or after the halves had differed, the
    latter by how the deal's two pre-flops went (one half ended before the flop, their
    bets differed, or they were the same)."""
    first, second = BOTS[pair[0]], BOTS[pair[1]]
    keys = [f"{kind} {name}" for name in ROUND_NAMES.values() for kind in ("cards", "betting")]
    units: list[dict[str, float]] = []
    kinds: list[str] = []  # per deal, how its two halves' pre-flops went
    scale = 1 / 2 / GAME.big_blind
    for seed in range(first_seed, first_seed + seeds):
        for forward, backward in pair_hands(first, second, deals, seed):
            ahead, behind = hand_parts(forward, 0), hand_parts(backward, 1)
            unit = dict.fromkeys([*keys, "same start", "after they differ"], 0.0)
            for number in range(max(len(ahead), len(behind))):
                same = (
                    number < len(ahead)
                    and number < len(behind)
                    and ahead[number][1] == behind[number][1]
                )
                for parts in (ahead, behind):
                    if number < len(parts):
                        name, _, correction, betting = parts[number]
                        unit[f"cards {name}"] += correction * scale
                        unit[f"betting {name}"] += betting * scale
                        unit["same start" if same else "after they differ"] += betting * scale
            unit["adjusted"] = sum(unit[f"betting {name}"] for name in ROUND_NAMES.values())
            kind = (
                "one half ended before the flop"
                if (len(ahead) == 1) != (len(behind) == 1)
                else "the halves' pre-flop bets differed"
                if len(ahead) > 1 and ahead[1][1].committed != behind[1][1].committed
                else "the same pre-flop"
            )
            kinds.append(kind)
            units.append(unit)
    adjusted = [unit["adjusted"] for unit in units]
    print(
        f"1b. Where {pair[0]} v {pair[1]}'s adjusted variance comes from ({ESTIMATOR}; {seeds}"
        f" seeds of {deals} deals, {len(units)} duplicate units, big blinds per hand):"
        f" adjusted variance {statistics.variance(adjusted):.2f}"
    )
    for key in [*keys, "same start", "after they differ"]:
        values = [unit[key] for unit in units]
        print(
            f"   {key:18} variance {statistics.variance(values):7.2f}, covariance with the"
            f" adjusted unit {statistics.covariance(values, adjusted):7.2f}"
        )
    # The rounds after the halves differ, by how their pre-flops went: each kind's part of
    # that covariance (its deals' terms of the sum; the parts add up to the whole).
    mean = statistics.fmean(adjusted)
    for kind in sorted(set(kinds)):
        chosen = [unit for unit, its in zip(units, kinds, strict=True) if its == kind]
        part = sum(unit["after they differ"] * (unit["adjusted"] - mean) for unit in chosen)
        print(
            f"   after they differ, where {kind}: {len(chosen) / len(units):.0%} of the deals,"
            f" covariance part {part / (len(units) - 1):.2f}"
        )


# -- cost -----------------------------------------------------------------------------------


def _match_s(config: MatchConfig, out: Path) -> float:
    manifest = load_manifest(ROOT / "sample_bots" / "python_calling_station" / "bot.toml")
    started = time.perf_counter()
    run_match(config, open_sessions([manifest, manifest], config), out)
    return time.perf_counter() - started


def cost_rounds(hands: int, rounds: int, seed: int) -> None:
    if rounds < 1:
        return
    off, on, alone = [], [], []
    for number in range(rounds):
        with tempfile.TemporaryDirectory() as out:
            # Off, then on, then the estimator by itself over the first match's records.
            off.append(_match_s(MatchConfig(hand_count=hands, seed=seed + number), Path(out)))
            records = list(read_hand_log(Path(out) / "hands.jsonl").hands)
        with tempfile.TemporaryDirectory() as out:
            config = MatchConfig(hand_count=hands, seed=seed + number, luck=True)
            on.append(_match_s(config, Path(out)))
        started = time.perf_counter()
        for record in records:
            estimate(record)
        alone.append(time.perf_counter() - started)
        print(
            f"   round {number + 1}: match {1e3 * off[-1] / hands:.2f} ms/hand with luck off, "
            f"{1e3 * on[-1] / hands:.2f} with luck on; the estimator alone "
            f"{1e3 * alone[-1] / hands:.2f} ms/hand"
        )
    off_ms, on_ms = (1e3 * statistics.median(x) / hands for x in (off, on))
    alone_ms = 1e3 * statistics.median(alone) / hands
    print(
        f"2. Cost (two calling stations, {hands} hands, median of {rounds} rounds): match "
        f"{off_ms:.2f} ms/hand with luck off, {on_ms:.2f} with luck on "
        f"({100 * (on_ms - off_ms) / off_ms:+.0f}%); the estimator alone {alone_ms:.2f} ms/hand "
        f"= {100 * alone_ms / off_ms:.0f}% of the match's wall time (the targets: luck on within 3%"
        " of luck off in wall time, the estimator's CPU under 10% of the arena's)"
    )


@contextlib.contextmanager
def plain_paths() -> Iterator[None]:
    """The estimator with its fast paths off (:mod:`arena.luck.fast_ranks`,
    :mod:`arena.luck.fast_boards`): the same numbers, computed the plain way."""
    saved = fast_ranks.USE_FAST_RANKS, fast_boards.USE_FAST_BOARDS
    fast_ranks.USE_FAST_RANKS = fast_boards.USE_FAST_BOARDS = False
    try:
        yield
    finally:
        fast_ranks.USE_FAST_RANKS, fast_boards.USE_FAST_BOARDS = saved


def estimator_cpu(deals: int, seed: int) -> None:
    """The estimator's CPU per hand on the shipped round robin's hands, by pair (and two
    calling stations, a bench_arena match's hands): as it runs, with version 5's value (no
    made-hand term), without a betting term, and with its fast paths off (the same numbers): a
    reporting bot's decisions each need the value after every action of its
    distribution, an all-in among them. The four are interleaved, best of 3 each."""
    if deals < 1:
        return
    print(
        f"3. The estimator's CPU per hand, {deals} deals per pair (both seatings), best of 3,"
        " interleaved"
    )
    bots = ROUND_ROBINS["shipped (random reports)"]
    pairs = [(a, b) for i, a in enumerate(bots) for b in bots[i + 1 :]]
    for first, second in [*pairs, ("calling station", "calling station")]:
        records = pair_records(BOTS[first], BOTS[second], deals, seed)
        contexts: tuple[Callable[[], contextlib.AbstractContextManager[Any]], ...] = (
            contextlib.nullcontext,
            lambda: betting_weights(VERSION_5_WEIGHTS),
            chips_only,
            plain_paths,
        )
        best = [math.inf] * len(contexts)
        for _ in range(3):
            for index, context in enumerate(contexts):
                with context():
                    started = time.process_time()
                    for record in records:
                        estimate(record)
                    best[index] = min(best[index], time.process_time() - started)
        on, version_5, chips, plain = (1e3 * figure / len(records) for figure in best)
        print(
            f"   {first + ' v ' + second:34} {on:.2f} ms/hand ({version_5:.2f} with version"
            f" 5's value, {chips:.2f} without a betting term; {plain:.2f} with the fast paths"
            f" off: {plain / on:.2f}x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals per pair")
    parser.add_argument("--seeds", type=int, default=6, help="independent tournaments")
    parser.add_argument("--hands", type=int, default=300, help="hands per cost round")
    parser.add_argument("--rounds", type=int, default=3, help="cost rounds")
    parser.add_argument("--cpu-deals", type=int, default=100, help="deals per pair of step 3")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--jobs", type=int, default=1, help="seeds of step 1 played at once (the same figures)"
    )
    parser.add_argument(
        "--sources",
        type=int,
        default=0,
        help="seeds of step 1b (where the calling station v hand strength variance is left)",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.deals, args.seeds, args.hands, args.rounds, args.cpu_deals = 10, 2, 10, 1, 5
        args.sources = 1
    started = time.perf_counter()
    variance_table(args.deals, args.seeds, args.seed, args.jobs)
    if args.sources:
        variance_sources(("calling station", "hand strength"), args.deals, args.sources, args.seed)
    cost_rounds(args.hands, args.rounds, args.seed)
    estimator_cpu(args.cpu_deals, args.seed)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
