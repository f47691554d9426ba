"""A starter bot that plays a random legal action. Standard library only.

Usage: ``bot.py [SEED]``. With a seed (an integer) the bot plays the same way every time
it sees the same requests, so a match with it can be repeated exactly; without one it
draws a fresh seed.

Protocol: one JSON object per line on stdin; reply on stdout with one JSON line to every
message that has a "seq" (hello, act, draw), echoing that seq, and flush each line.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

NAME = "python random"


def send(message: dict[str, Any]) -> None:
    """Write one reply line and flush it (an unflushed reply is a timeout)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def choose_action(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Pick any legal action; never fold when checking is free."""
    legal = list(request["legal_actions"])
    if "CHECK" in legal and "FOLD" in legal:
        legal.remove("FOLD")
    # All-in is rarely a good idea at random: keep it for one decision in twenty.
    if "ALL_IN" in legal and len(legal) > 1 and rng.random() > 0.05:
        legal.remove("ALL_IN")
    action = rng.choice(legal)
    reply: dict[str, Any] = {"type": "action", "seq": request["seq"], "action": action}
    if action == "RAISE":
        low, high = request["min_raise_to"], request["max_raise_to"]
        # Mostly small raises: up to three times the minimum.
        reply["amount"] = rng.randint(low, max(low, min(high, 3 * low)))
    return reply


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
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else None
    rng = random.Random(seed)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": NAME, "protocol_version": 1})
        elif kind == "act":
            send(choose_action(message, rng))
        elif kind == "draw":
            send({"type": "discard", "seq": message["seq"], "cards": cards_to_discard(message)})
        elif kind == "error":
            print(f"arena rejected my reply: {message.get('message')}", file=sys.stderr)
        elif kind == "match_end":
            break
        # hand_start, hand_end and unknown types need no answer.


if __name__ == "__main__":
    main()
