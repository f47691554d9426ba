"""How much the luck estimator cuts the variance of results, and what it costs per hand.

Run: ``.venv/bin/python bench/bench_luck.py`` (about a minute; ``--deals`` and ``--hands``
change the sizes). Prints figures, asserts nothing.

1. Variance reduction. The starter bots' strategies, reimplemented in-process (calling
   station, hand strength, random; the same rules as ``sample_bots/``), play a heads-up
   duplicate round robin with the engine: every deal is played twice, the bots' seats
   swapped, stacks reset every hand (100 big blinds). A duplicate unit is a deal's mean
   over its two arrangements (``arena.stats.units``), in big blinds for the first bot of
   the pair. Per pair: the variance of raw units and of adjusted units, and the hands
   needed for the same interval width (``var_raw / var_adjusted`` times fewer), beside
   the same ratio without duplicate (single hands). A pair of random bots is included.
2. Cost. A real match between two ``python_calling_station`` bots (processes, the real
   loop; their hands all go to showdown, the estimator's most work): wall time per hand
   with luck off and with luck on (the match estimates while the bots think), and the
   estimator's own time per hand over the first match's ``hands.jsonl`` records;
   interleaved over ``--rounds`` rounds, medians shown (the target: the estimator adds
   under 25% to a match's wall time). The machine's load moves the match times a lot;
   the estimator alone is CPU time.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots.manifest import load_manifest  # noqa: E402
from arena.luck import ESTIMATOR, estimate_hand  # noqa: E402
from arena.match.config import MatchConfig  # noqa: E402
from arena.match.run import open_sessions, run_match  # noqa: E402
from arena.store.hand_log import read_hand_log  # noqa: E402
from engine.actions import Action, AllIn, Call, Check, Fold, LegalActions, RaiseTo  # noqa: E402
from engine.cards import Card  # noqa: E402
from engine.config import GameConfig  # noqa: E402
from engine.deck import Deck  # noqa: E402
from engine.evaluator import category_of, rank_class  # noqa: E402
from engine.hand import Hand, SeatSetup  # noqa: E402
from engine.history import hand_to_history  # noqa: E402
from engine.table import hand_rng  # noqa: E402

STACK = 200  # 100 big blinds at 1/2
GAME = GameConfig(small_blind=1, big_blind=2)

# -- the starter bots' strategies, in-process -------------------------------------------

Strategy = Callable[[Hand, LegalActions, random.Random], Action]


def calling_station(hand: Hand, legal: LegalActions, rng: random.Random) -> Action:
    """Checks when it can, calls otherwise (all-in for less when short)."""
    return Check() if legal.can_check else Call()


def random_bot(hand: Hand, legal: LegalActions, rng: random.Random) -> Action:
    """A random legal action; never folds when checking is free; rarely all-in."""
    names = ["FOLD"] if legal.can_fold else []
    if legal.can_check:
        names = ["CHECK"]
    elif legal.can_call:
        names.append("CALL")
    if legal.can_raise:
        names.append("RAISE")
    if legal.can_all_in and rng.random() <= 0.05:
        names.append("ALL_IN")
    name = rng.choice(names)
    if name == "RAISE":
        low, high = legal.min_raise_to, legal.max_raise_to
        return RaiseTo(rng.randint(low, max(low, min(high, 3 * low))))
    simple: dict[str, Action] = {
        "FOLD": Fold(),
        "CHECK": Check(),
        "CALL": Call(),
        "ALL_IN": AllIn(),
    }
    return simple[name]


_STRENGTH = [0.15, 0.45, 0.70, 0.80, 0.85, 0.88, 0.95, 0.98, 1.00]


def _chen(first: Card, second: Card) -> int:
    high, low = sorted(((first >> 2) + 2, (second >> 2) + 2), reverse=True)
    points = {14: 10.0, 13: 8.0, 12: 7.0, 11: 6.0}.get(high, high / 2)
    if high == low:
        return math.ceil(max(5.0, points * 2))
    if first & 3 == second & 3:
        points += 2
    gap = high - low - 1
    points -= [0, 1, 2, 4][gap] if gap < 4 else 5
    if gap <= 1 and high < 12:
        points += 1
    return math.ceil(points)


def _made(cards: list[Card]) -> int:
    """0 high card .. 8 straight flush (pairs only with fewer than five cards)."""
    if len(cards) >= 5:
        return int(category_of(rank_class(cards))) - 1
    counts = sorted(sum(1 for c in cards if c >> 2 == r) for r in {c >> 2 for c in cards})[::-1]
    if counts[0] >= 3:
        return 3
    return 2 if counts[:2] == [2, 2] else (1 if counts[0] == 2 else 0)


def hand_strength(hand: Hand, legal: LegalActions, rng: random.Random) -> Action:
    """Chen formula pre-flop, made-hand strength after; raises strong hands (pot-sized),
    calls when the chance beats the pot odds, else checks or folds."""
    view = hand.view(legal.seat_index)
    hole, board = list(view.hole_cards), list(view.board)
    if not board:
        chance = min(1.0, max(0.0, _chen(hole[0], hole[1]) / 14))
    else:
        made = _made(hole + board)
        if len(board) >= 3 and made == _made(board):
            made = 0
        chance = _STRENGTH[made]
    to_call = legal.call_amount
    pot = view.pot_total
    odds = to_call / (pot + to_call) if to_call else 0.0
    if chance >= 0.7 and legal.can_raise:
        target = legal.current_bet + pot
        return RaiseTo(min(max(target, legal.min_raise_to), legal.max_raise_to))
    if legal.can_check:
        return Check()
    if chance > odds and legal.can_call:
        return Call()
    return Fold()


STRATEGIES: dict[str, Strategy] = {
    "calling station": calling_station,
    "hand strength": hand_strength,
    "random": random_bot,
}

# A bot that reports its mixed strategy: the arena draws its action from the distribution
# and the estimator adds the action term (the luck of the arena's draw).
Distribution = list[tuple[Action, dict[str, Any], float]]


def reporting_random(hand: Hand, legal: LegalActions) -> Distribution:
    """The random bot's kind of play, reported as a distribution: the legal kinds equally
    likely (never a fold when checking is free), raises to 1, 2 or 3 times the minimum,
    all-in 2% of the time when allowed."""
    kinds: list[tuple[Action, dict[str, Any]]] = []
    if legal.can_check:
        kinds.append((Check(), {"action": "CHECK"}))
    else:
        if legal.can_fold:
            kinds.append((Fold(), {"action": "FOLD"}))
        if legal.can_call:
            kinds.append((Call(), {"action": "CALL"}))
    raises: list[tuple[Action, dict[str, Any]]] = []
    if legal.can_raise:
        low, high = legal.min_raise_to, legal.max_raise_to
        for amount in sorted({min(high, low * k) for k in (1, 2, 3)}):
            raises.append((RaiseTo(amount), {"action": "RAISE", "amount": amount}))
    all_in = 0.02 if legal.can_all_in else 0.0
    share = (1.0 - all_in) / (len(kinds) + (1 if raises else 0))
    out: Distribution = [(action, data, share) for action, data in kinds]
    out += [(action, data, share / len(raises)) for action, data in raises]
    if all_in:
        out.append((AllIn(), {"action": "ALL_IN"}, all_in))
    return out


MIXED: dict[str, Callable[[Hand, LegalActions], Distribution]] = {
    "random (reports)": reporting_random,
}

# -- duplicate play -----------------------------------------------------------------------


def play_hand(seed: int, deal: int, bots: tuple[str, str], arrangement: int) -> dict[str, Any]:
    """One hand of deal ``deal`` (its deck from the seed), ``bots`` in seats 0 and 1; the
    bots' own dice differ by ``arrangement`` (a bot against itself is then two players).
    A reporting bot's decisions carry their distribution, as the arena records them."""
    deck = Deck.shuffled(hand_rng(seed, deal))
    seats = [SeatSetup(0, "p0", STACK), SeatSetup(1, "p1", STACK)]
    hand = Hand.start(GAME, seats, button_index=deal % 2, deck=deck, hand_number=deal)
    rng = random.Random((seed * 1_000_003 + deal) * 2 + arrangement)
    decisions: list[dict[str, Any]] = []
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        name = bots[legal.seat_index]
        decision: dict[str, Any] = {"seat_index": legal.seat_index, "by": "bot"}
        if name in MIXED:
            distribution = MIXED[name](hand, legal)
            weights = [p for _, _, p in distribution]
            action, data, _ = rng.choices(distribution, weights)[0]
            decision["distribution"] = [{"action": d, "probability": p} for _, d, p in distribution]
            decision["action"] = data
        else:
            action = STRATEGIES[name](hand, legal, rng)
        decisions.append(decision)
        hand.act(action)
    return {"decisions": decisions, "history": hand_to_history(hand, seed=f"{seed}:{deal}")}


def pair_units(first: str, second: str, deals: int, seed: int) -> dict[str, list[float]]:
    """Per deal, ``first``'s raw and adjusted result in big blinds: each arrangement (the
    single hands) and their mean (the duplicate unit)."""
    a, b = first, second
    out: dict[str, list[float]] = {"raw": [], "adjusted": [], "raw_hand": [], "adj_hand": []}
    big = GAME.big_blind
    for deal in range(1, deals + 1):
        forward = estimate_hand(play_hand(seed, deal, (a, b), 0))
        backward = estimate_hand(play_hand(seed, deal, (b, a), 1))
        raws = (forward.raw[0] / big, backward.raw[1] / big)
        adjusted = (forward.adjusted[0] / big, backward.adjusted[1] / big)
        out["raw"].append(sum(raws) / 2)
        out["adjusted"].append(sum(adjusted) / 2)
        out["raw_hand"].extend(raws)
        out["adj_hand"].extend(adjusted)
    return out


def variance_table(deals: int, seed: int) -> None:
    names = list(STRATEGIES)
    pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    pairs.append(("random", "random"))
    pairs += [
        ("random (reports)", "calling station"),
        ("random (reports)", "hand strength"),
        ("random (reports)", "random (reports)"),
    ]
    print(f"1. Variance reduction ({ESTIMATOR}), {deals} duplicate deals per pair, bb per hand")
    header = (
        f"{'pair':36} {'raw mean':>9} {'adj mean':>9} {'var raw':>9} {'var adj':>9}"
        f" {'fewer hands':>11} {'(single hands)':>14}"
    )
    print(header)
    total_raw = total_adj = 0.0
    for first, second in pairs:
        units = pair_units(first, second, deals, seed)
        var_raw = statistics.variance(units["raw"])
        var_adj = statistics.variance(units["adjusted"])
        single = statistics.variance(units["raw_hand"]) / statistics.variance(units["adj_hand"])
        if first in STRATEGIES and second in STRATEGIES and first != second:
            total_raw += var_raw
            total_adj += var_adj
        print(
            f"{first + ' v ' + second:36} {statistics.fmean(units['raw']):9.3f}"
            f" {statistics.fmean(units['adjusted']):9.3f} {var_raw:9.2f} {var_adj:9.2f}"
            f" {var_raw / var_adj:10.2f}x {single:13.2f}x"
        )
    print(
        f"{'round robin (sum of the 3 pairs)':36} {'':9} {'':9} {total_raw:9.2f} {total_adj:9.2f}"
        f" {total_raw / total_adj:10.2f}x   (target 1.5x)"
    )


# -- cost -----------------------------------------------------------------------------------


def _match_s(config: MatchConfig, out: Path) -> float:
    manifest = load_manifest(ROOT / "sample_bots" / "python_calling_station" / "bot.toml")
    started = time.perf_counter()
    run_match(config, open_sessions([manifest, manifest], config), out)
    return time.perf_counter() - started


def cost_rounds(hands: int, rounds: int, seed: int) -> None:
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
            estimate_hand(record)
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
        f"= {100 * alone_ms / off_ms:.0f}% of the match (target under 25%)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=600, help="duplicate deals per pair")
    parser.add_argument("--hands", type=int, default=300, help="hands per cost round")
    parser.add_argument("--rounds", type=int, default=3, help="cost rounds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.deals, args.hands, args.rounds = 10, 10, 1
    started = time.perf_counter()
    variance_table(args.deals, args.seed)
    cost_rounds(args.hands, args.rounds, args.seed)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
