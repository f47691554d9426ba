"""Benchmark: random-policy No-Limit Hold'em hands with this engine, pokerkit and texasholdem.

Every engine plays the same policy in the same run: fold 10% (check instead when nothing is
to be called), check or call 60%, and 30% a raise to a uniform amount between the minimum
raise and all-in when raising is legal (else check or call). Stacks are 100 big blinds
(blinds 1/2, stacks 200), reset before every hand; the button moves every hand. Heads-up and
6-max. A decision is timed from asking for the legal actions to applying the action.

    .venv/bin/python bench/bench_engine.py --hands 2000

Prints hands per second, actions per hand, p50/p99 microseconds per action, and our speed
relative to the other two. Each engine plays a few hands untimed first (one-time set-up).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from engine.actions import Action, Call, Check, Fold, RaiseTo
from engine.config import GameConfig
from engine.hand import Hand, SeatSetup

SMALL_BLIND, BIG_BLIND, STACK = 1, 2, 200
FOLD_SHARE, CALL_SHARE = 0.10, 0.70  # cumulative: fold 10%, check/call 60%, raise 30%


@dataclass
class Result:
    """One engine at one table size."""

    engine: str
    players: int
    hands: int
    actions: int
    seconds: float
    latencies_ns: list[int]

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds

    def percentile_us(self, fraction: float) -> float:
        ordered = sorted(self.latencies_ns)
        index = min(len(ordered) - 1, int(fraction * len(ordered)))
        return ordered[index] / 1000


def play_ours(hands: int, players: int, seed: int) -> Result:
    """This engine: ``Hand.start`` then ``legal_actions()`` / ``act()`` until it is over."""
    rng = random.Random(seed)
    config = GameConfig(small_blind=SMALL_BLIND, big_blind=BIG_BLIND)
    seats = [SeatSetup(i, f"p{i}", STACK) for i in range(players)]
    fold, check, call = Fold(), Check(), Call()
    latencies: list[int] = []
    actions = 0
    clock = time.perf_counter_ns
    start = time.perf_counter()
    for number in range(hands):
        hand = Hand.start(config, seats, button_index=number % players, rng=rng)
        while not hand.is_over:
            began = clock()
            legal = hand.legal_actions()
            assert legal is not None
            roll = rng.random()
            action: Action
            if roll < FOLD_SHARE:
                action = check if legal.can_check else fold
            elif roll < CALL_SHARE or not legal.can_raise:
                action = call
            else:
                action = RaiseTo(rng.randint(legal.min_raise_to, legal.max_raise_to))
            hand.act(action)
            latencies.append(clock() - began)
            actions += 1
    return Result("poker-arena", players, hands, actions, time.perf_counter() - start, latencies)


def play_pokerkit(hands: int, players: int, seed: int) -> Result:
    """pokerkit 0.7.7 with every dealing and bookkeeping step automated."""
    from pokerkit import Automation, NoLimitTexasHoldem

    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    rng = random.Random(seed)
    random.seed(seed)  # pokerkit shuffles with the global generator
    latencies: list[int] = []
    actions = 0
    clock = time.perf_counter_ns
    start = time.perf_counter()
    for _ in range(hands):
        state = NoLimitTexasHoldem.create_state(
            automations,
            True,
            0,
            (SMALL_BLIND, BIG_BLIND),
            BIG_BLIND,
            (STACK,) * players,
            players,
        )
        while state.status:
            began = clock()
            to_call = state.checking_or_calling_amount
            can_raise = state.can_complete_bet_or_raise_to()
            roll = rng.random()
            if roll < FOLD_SHARE:
                if to_call:
                    state.fold()
                else:
                    state.check_or_call()
            elif roll < CALL_SHARE or not can_raise:
                state.check_or_call()
            else:
                low = state.min_completion_betting_or_raising_to_amount
                high = state.max_completion_betting_or_raising_to_amount
                assert low is not None and high is not None
                state.complete_bet_or_raise_to(rng.randint(low, high))
            latencies.append(clock() - began)
            actions += 1
    return Result("pokerkit", players, hands, actions, time.perf_counter() - start, latencies)


def play_texasholdem(hands: int, players: int, seed: int) -> Result:
    """texasholdem 0.11: one game object, chips reset to the buy-in before each hand."""
    from texasholdem import ActionType, TexasHoldEm
    from texasholdem.game.player_state import PlayerState

    rng = random.Random(seed)
    random.seed(seed)  # texasholdem shuffles with the global generator
    game = TexasHoldEm(
        buyin=STACK, big_blind=BIG_BLIND, small_blind=SMALL_BLIND, max_players=players
    )
    latencies: list[int] = []
    actions = 0
    clock = time.perf_counter_ns
    start = time.perf_counter()
    for _ in range(hands):
        for player in game.players:
            player.chips = STACK
            player.state = PlayerState.IN
        game.start_hand()
        while game.is_hand_running():
            began = clock()
            moves = game.get_available_moves()
            kinds = moves.action_types
            roll = rng.random()
            if roll < FOLD_SHARE:
                game.take_action(ActionType.CHECK if ActionType.CHECK in kinds else ActionType.FOLD)
            elif roll < CALL_SHARE or ActionType.RAISE not in kinds:
                game.take_action(ActionType.CALL if ActionType.CALL in kinds else ActionType.CHECK)
            else:
                span = moves.raise_range
                game.take_action(ActionType.RAISE, total=rng.randint(span.start, span.stop - 1))
            latencies.append(clock() - began)
            actions += 1
    return Result("texasholdem", players, hands, actions, time.perf_counter() - start, latencies)


ENGINES: dict[str, Callable[[int, int, int], Result]] = {
    "poker-arena": play_ours,
    "pokerkit": play_pokerkit,
    "texasholdem": play_texasholdem,
}


#: Hands each engine plays untimed before the timed runs.
WARM_UP_HANDS = 20


def main(argv: list[str] | None = None) -> int:
    """Run every engine heads-up and 6-max and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per engine and table")
    parser.add_argument("--seed", type=int, default=1, help="seed of the policies and decks")
    parser.add_argument(
        "--engines",
        default=",".join(ENGINES),
        help="comma-separated subset of: " + ", ".join(ENGINES),
    )
    options = parser.parse_args(argv)
    names = [name for name in options.engines.split(",") if name]
    warnings.simplefilter("ignore")  # texasholdem's deprecation notices
    print(
        f"{'engine':<13} {'table':<9} {'hands/s':>9} {'actions/hand':>13} "
        f"{'p50 us/action':>14} {'p99 us/action':>14}"
    )
    # Each engine first plays a few hands untimed: what is done once per process (our
    # evaluator fills its tables at the first hand it ranks; the others' first-use set-up)
    # is not a cost per hand, and it would fall on whichever table is timed first.
    for name in names:
        ENGINES[name](WARM_UP_HANDS, 2, options.seed)
    for players in (2, 6):
        results: dict[str, Result] = {}
        for name in names:
            result = ENGINES[name](options.hands, players, options.seed)
            results[name] = result
            table = "heads-up" if players == 2 else f"{players}-max"
            print(
                f"{name:<13} {table:<9} {result.hands_per_second:>9.0f} "
                f"{result.actions / result.hands:>13.2f} "
                f"{result.percentile_us(0.50):>14.1f} {result.percentile_us(0.99):>14.1f}"
            )
        ours = results.get("poker-arena")
        if ours is not None:
            for name, other in results.items():
                if name != "poker-arena":
                    ratio = ours.hands_per_second / other.hands_per_second
                    print(f"  poker-arena / {name}: {ratio:.2f}x hands/s")
        mean_us = {n: statistics.fmean(r.latencies_ns) / 1000 for n, r in results.items()}
        print("  mean us/action: " + ", ".join(f"{n} {v:.1f}" for n, v in mean_us.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
