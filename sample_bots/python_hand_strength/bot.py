"""A starter bot that weighs its hand against the price of a call. Standard library only.

Before the flop (two hole cards) it scores its hand with Bill Chen's formula; afterwards,
and in five-card draw, it looks at the best made hand (pair, two pair, ...) and turns it
into a rough chance of winning. It calls when that chance beats the pot odds
(to_call / (pot + to_call)), raises with strong hands, and otherwise checks or folds.

Protocol: one JSON object per line on stdin; reply on stdout with one JSON line to every
message that has a "seq" (hello, act, draw), echoing that seq, and flush each line.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from typing import Any

NAME = "python hand strength"
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]

# A rough chance of winning for each made-hand category (high card .. straight flush).
CATEGORY_STRENGTH = [0.15, 0.45, 0.70, 0.80, 0.85, 0.88, 0.95, 0.98, 1.00]


def send(message: dict[str, Any]) -> None:
    """Write one reply line and flush it (an unflushed reply is a timeout)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def rank_value(card: dict[str, str]) -> int:
    """2..14 (an ace is 14)."""
    return RANKS.index(card["rank"]) + 2


def chen_score(first: dict[str, str], second: dict[str, str]) -> int:
    """Bill Chen's starting-hand score, from -1 (72 offsuit) to 20 (aces)."""
    high, low = sorted((rank_value(first), rank_value(second)), reverse=True)
    points = {14: 10.0, 13: 8.0, 12: 7.0, 11: 6.0}.get(high, high / 2)
    if high == low:
        return math.ceil(max(5.0, points * 2))
    if first["suit"] == second["suit"]:
        points += 2
    gap = high - low - 1
    points -= [0, 1, 2, 4][gap] if gap < 4 else 5
    if gap <= 1 and high < 12:
        points += 1  # connected small cards make straights
    return math.ceil(points)


def is_straight(values: set[int]) -> bool:
    """Five consecutive ranks among ``values`` (the ace also plays low)."""
    if 14 in values:
        values = values | {1}
    return any(all(v + i in values for i in range(5)) for v in values)


def category(cards: list[dict[str, str]]) -> int:
    """Best made hand among the cards: 0 high card, 1 pair, ... 8 straight flush."""
    counts = sorted(Counter(rank_value(c) for c in cards).values(), reverse=True)
    suits = Counter(c["suit"] for c in cards)
    flush_suit = next((s for s, n in suits.items() if n >= 5), None)
    if flush_suit and is_straight({rank_value(c) for c in cards if c["suit"] == flush_suit}):
        return 8
    if counts[0] >= 4:
        return 7
    if counts[0] == 3 and len(counts) > 1 and counts[1] >= 2:
        return 6
    if flush_suit:
        return 5
    if is_straight({rank_value(c) for c in cards}):
        return 4
    if counts[0] == 3:
        return 3
    if counts[0] == 2 and len(counts) > 1 and counts[1] == 2:
        return 2
    return 1 if counts[0] == 2 else 0


def win_chance(request: dict[str, Any]) -> float:
    """A rough chance of winning this hand."""
    hole, board = request["hole_cards"], request["community_cards"]
    if len(hole) == 2 and not board:
        # Chen scores run from about 0 to 20; 10 and more is a hand worth raising.
        return min(1.0, max(0.0, chen_score(hole[0], hole[1]) / 14))
    made = category(hole + board)
    if len(board) >= 3 and made == category(board):
        made = 0  # the hand is all on the board: everyone has it
    return CATEGORY_STRENGTH[made]


def choose_action(request: dict[str, Any]) -> dict[str, Any]:
    """Raise strong hands, call when the chance beats the pot odds, else check or fold."""
    legal = request["legal_actions"]
    seq = request["seq"]
    chance = win_chance(request)
    to_call = request["to_call"]
    pot_odds = to_call / (request["pot_total"] + to_call) if to_call else 0.0
    if chance >= 0.7 and "RAISE" in legal:
        # About a pot-sized raise, kept inside the legal range.
        target = request["current_bet"] + request["pot_total"]
        amount = min(max(target, request["min_raise_to"]), request["max_raise_to"])
        return {"type": "action", "seq": seq, "action": "RAISE", "amount": amount}
    if "CHECK" in legal:
        return {"type": "action", "seq": seq, "action": "CHECK"}
    if chance > pot_odds and "CALL" in legal:
        return {"type": "action", "seq": seq, "action": "CALL"}
    if chance > pot_odds and "ALL_IN" in legal:
        return {"type": "action", "seq": seq, "action": "ALL_IN"}  # a call for the whole stack
    return {"type": "action", "seq": seq, "action": "FOLD"}


def cards_to_discard(request: dict[str, Any]) -> list[dict[str, str]]:
    """Five-card draw: throw away the cards that pair nothing, lowest first."""
    cards = request["hole_cards"]
    if category(cards) >= 4:
        return []  # a straight or better: stand pat
    ranks = [card["rank"] for card in cards]
    lonely = sorted((c for c in cards if ranks.count(c["rank"]) == 1), key=rank_value)
    if len(lonely) == len(cards):
        lonely = lonely[:-1]  # nothing pairs: keep the highest card
    return lonely[: request.get("max_discards", 5)]


def main() -> None:
    """Answer the arena until match_end or the end of input."""
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": NAME, "protocol_version": 1})
        elif kind == "act":
            send(choose_action(message))
        elif kind == "draw":
            send({"type": "discard", "seq": message["seq"], "cards": cards_to_discard(message)})
        elif kind == "error":
            print(f"arena rejected my reply: {message.get('message')}", file=sys.stderr)
        elif kind == "match_end":
            break
        # hand_start, hand_end and unknown types need no answer.


if __name__ == "__main__":
    main()
