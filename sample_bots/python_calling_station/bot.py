"""A starter bot that never folds and never raises: it checks, or calls. Standard library only.

Protocol: one JSON object per line on stdin; reply on stdout with one JSON line to every
message that has a "seq" (hello, act, draw), echoing that seq, and flush each line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

NAME = "python calling station"


def send(message: dict[str, Any]) -> None:
    """Write one reply line and flush it (an unflushed reply is a timeout)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def choose_action(request: dict[str, Any]) -> str:
    """Check when it is free, else call; all-in only when that is the only way to call."""
    for action in ("CHECK", "CALL", "ALL_IN", "FOLD"):
        if action in request["legal_actions"]:
            return action
    return "FOLD"


def cards_to_discard(request: dict[str, Any]) -> list[dict[str, str]]:
    """Five-card draw: throw away the cards that pair nothing, lowest first."""
    order = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    cards = request["hole_cards"]
    ranks = [card["rank"] for card in cards]
    lonely = [card for card in cards if ranks.count(card["rank"]) == 1]
    lonely.sort(key=lambda card: order.index(card["rank"]))
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
            send({"type": "action", "seq": message["seq"], "action": choose_action(message)})
        elif kind == "draw":
            send({"type": "discard", "seq": message["seq"], "cards": cards_to_discard(message)})
        elif kind == "error":
            print(f"arena rejected my reply: {message.get('message')}", file=sys.stderr)
        elif kind == "match_end":
            break
        # hand_start, hand_end and unknown types need no answer.


if __name__ == "__main__":
    main()
