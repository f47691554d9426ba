"""Hand history files for the export tests, written as the arena writes ``hands.jsonl``."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from engine.config import GameConfig
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history
from tests.engine.policies import random_policy

__all__ = ["play_hands", "write_hands"]


def play_hands(
    config: GameConfig, count: int, *, players: int = 2, seed: int = 0, stack: int = 200
) -> list[Hand]:
    """``count`` finished hands of ``players`` seats (player ids ``p0``..), the button
    moving each hand."""
    rng = random.Random(seed)
    policy = random_policy(rng)
    hands = []
    for number in range(1, count + 1):
        seats = [SeatSetup(seat, f"p{seat}", stack) for seat in range(players)]
        hand = Hand.start(config, seats, button_index=number % players, rng=rng, hand_number=number)
        while not hand.is_over:
            hand.act(policy(hand))
        hands.append(hand)
    return hands


def write_hands(path: Path, match_id: str, names: Sequence[str], hands: Sequence[Hand]) -> Path:
    """Write ``hands`` as a match's ``hands.jsonl`` (players ``p0``.. named ``names``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {
        "type": "match",
        "format": 1,
        "match_id": match_id,
        "players": [
            {"player_id": f"p{index}", "seat_index": index, "name": name}
            for index, name in enumerate(names)
        ],
    }
    lines = [json.dumps(header)]
    for hand in hands:
        record = {
            "type": "hand",
            "hand_number": hand.hand_number,
            "hand_id": f"{match_id}-{hand.hand_number}",
            "sitting_out": [],
            "decisions": [],
            "history": hand_to_history(hand),
        }
        lines.append(json.dumps(record, separators=(",", ":")))
    lines.append(json.dumps({"type": "match_end", "hands_played": len(hands)}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
