"""Hands for the luck estimator's tests: random legal play with the engine, seeded.

:func:`random_record` plays one hand with random legal actions and returns it as a
``hands.jsonl`` hand record (``history`` and ``decisions``). With ``mixed`` every betting
decision draws its action from a random distribution over a few legal actions and records
that distribution, as the arena does for a bot that reports a mixed strategy.
"""

from __future__ import annotations

import random
from typing import Any

from arena.luck.made_hands import is_made
from engine.actions import Action, Call, Check, Discard, Fold, RaiseTo
from engine.config import GameConfig, Variant
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history


def _choices(hand: Hand, rng: random.Random) -> list[tuple[Action, dict[str, Any]]]:
    legal = hand.legal_actions()
    assert legal is not None
    options: list[tuple[Action, dict[str, Any]]] = []
    if legal.can_fold and not legal.can_check:
        options.append((Fold(), {"action": "FOLD"}))
    if legal.can_check:
        options.append((Check(), {"action": "CHECK"}))
    if legal.can_call:
        options.append((Call(), {"action": "CALL"}))
    if legal.can_raise:
        amount = rng.randint(legal.min_raise_to, legal.max_raise_to)
        options.append((RaiseTo(amount), {"action": "RAISE", "amount": amount}))
    return options


def _made(hand: Hand, seat: int) -> bool:
    view = hand.view(seat)
    board = tuple(view.board)
    return len(board) >= 3 and is_made(tuple(view.hole_cards), board)


def random_record(
    seed: int,
    *,
    variant: str = "holdem",
    seat_count: int = 2,
    stacks: tuple[int, ...] = (20, 100, 200),
    mixed: bool = False,
    config: GameConfig | None = None,
    policy: str = "random",
    dice: int = 0,
) -> dict[str, Any]:
    """One hand of random legal play as a hand record (see the module docstring).

    ``policy`` ``"call"`` makes every seat a calling station (check or call, never fold);
    ``"made"`` makes seat 0 raise (the least it may) exactly where its cards make a made
    hand (:func:`arena.luck.made_hands.is_made`) from the flop on, and check or call
    elsewhere, and every other seat a calling station.
    ``dice`` changes the players' random choices but not the deal (the other arrangement
    of a duplicate deal)."""
    rng = random.Random(seed)
    game = config or GameConfig(variant=Variant(variant))
    seats = [SeatSetup(i, f"p{i}", rng.choice(stacks)) for i in range(seat_count)]
    hand = Hand.start(game, seats, button_index=seed % seat_count, rng=random.Random(~seed))
    if dice:
        rng = random.Random(seed * 7919 + dice)
    decisions: list[dict[str, Any]] = []
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        seat = legal.seat_index
        if legal.can_draw:
            hole = hand.view(seat).hole_cards
            count = rng.randint(0, legal.max_discard_count)
            cards = tuple(rng.sample(list(hole), count))
            hand.act(Discard(cards))
            decisions.append({"seat_index": seat, "by": "bot", "action": {"action": "DISCARD"}})
            continue
        options = _choices(hand, rng)
        if policy == "made" and seat == 0 and _made(hand, seat) and legal.can_raise:
            hand.act(RaiseTo(legal.min_raise_to))
            decisions.append({"seat_index": seat, "by": "bot", "action": {"action": "RAISE"}})
            continue
        if policy in ("call", "made"):
            options = [o for o in options if o[1]["action"] in ("CHECK", "CALL")]
        decision: dict[str, Any] = {"seat_index": seat, "by": "bot"}
        if mixed and len(options) > 1:
            weights = [rng.random() + 0.05 for _ in options]
            total = sum(weights)
            probabilities = [w / total for w in weights]
            index = rng.choices(range(len(options)), probabilities)[0]
            decision["distribution"] = [
                {"action": data, "probability": p}
                for (_, data), p in zip(options, probabilities, strict=True)
            ]
        else:
            index = rng.randrange(len(options))
        action, data = options[index]
        decision["action"] = data
        hand.act(action)
        decisions.append(decision)
    return {
        "type": "hand",
        "hand_number": 1,
        "decisions": decisions,
        "history": hand_to_history(hand, seed=f"{seed}:1"),
    }
