"""A starter bot that plays a random legal action. Standard library only.

Usage: ``bot.py`` (what its manifest runs), ``bot.py --draw [SEED]``.

By default the bot reports its mixed strategy: every ``act`` is answered with a
``distribution`` (each action it might play with its probability) and the arena draws the
action. The bot then has no dice of its own to seed - the arena's draw comes from the
match's secret seed, so a match with it repeats exactly - and the luck-adjusted score can
take out the luck of that draw too (protocol/PROTOCOL.md, "Mixed strategies").

With ``--draw`` it draws the action itself from the same distribution, seeded by SEED (an
integer: the same play every time it sees the same requests) or, without one, by a fresh
seed.

Protocol: one JSON object per line on stdin; reply on stdout with one JSON line to every
message that has a "seq" (hello, act, draw), echoing that seq, and flush each line.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

NAME = "python random"
#: How often an all-in joins the choice: one decision in twenty.
ALL_IN_SHARE = 0.05
#: The raise sizes, in multiples of the minimum raise-to: mostly small raises.
RAISE_MULTIPLES = (1, 2, 3)


def send(message: dict[str, Any]) -> None:
    """Write one reply line and flush it (an unflushed reply is a timeout)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _round_total(entry: dict[str, Any], request: dict[str, Any]) -> int | None:
    """What a move comes to: my total bet this round after it (None for a fold). Two
    entries with the same total are the same move, which a distribution may name once."""
    mine: int = next(
        (
            s["current_bet"]
            for s in request["table_state"]
            if s["seat_index"] == request["seat_index"]
        ),
        request["current_bet"] - request["to_call"],
    )
    all_in_to: int = mine + request["player_stack"]
    name = entry["action"]
    if name == "FOLD":
        return None
    if name == "CHECK":
        return mine
    if name == "CALL":
        return min(int(request["current_bet"]), all_in_to)
    if name == "RAISE":
        return int(entry["amount"])
    return all_in_to


def strategy(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The distribution over this decision's actions: every legal kind of action equally
    likely (never a fold when checking is free), an all-in joining the choice one time in
    twenty, a raise to 1, 2 or 3 times the minimum (each equally likely, within the legal
    range). Moves that come to the same bet are merged (a raise to the whole stack is the
    all-in)."""
    legal = list(request["legal_actions"])
    if "CHECK" in legal and "FOLD" in legal:
        legal.remove("FOLD")
    others = [name for name in legal if name != "ALL_IN"]
    weights: dict[str, float] = {}
    if "ALL_IN" in legal and others:
        for name in others:
            weights[name] = (1 - ALL_IN_SHARE) / len(others) + ALL_IN_SHARE / (len(others) + 1)
        weights["ALL_IN"] = ALL_IN_SHARE / (len(others) + 1)
    else:
        weights = {name: 1 / len(legal) for name in legal}
    entries: list[dict[str, Any]] = []
    for name, weight in weights.items():
        if name != "RAISE":
            entries.append({"action": name, "probability": weight})
            continue
        low, high = request["min_raise_to"], request["max_raise_to"]
        sizes = sorted({min(high, low * multiple) for multiple in RAISE_MULTIPLES})
        for size in sizes:
            entries.append({"action": name, "amount": size, "probability": weight / len(sizes)})
    merged: dict[int | None, dict[str, Any]] = {}
    for entry in entries:
        total = _round_total(entry, request)
        if total not in merged:
            merged[total] = entry
            continue
        kept = merged[total]
        if entry["action"] == "ALL_IN":  # keep the all-in's name for the move
            entry, kept = kept, entry
            merged[total] = kept
        kept["probability"] += entry["probability"]
    return list(merged.values())


def report(request: dict[str, Any]) -> dict[str, Any]:
    """The reply that reports the distribution: the arena draws the action."""
    return {"type": "action", "seq": request["seq"], "distribution": strategy(request)}


def draw(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The reply with one action drawn from the distribution with ``rng``."""
    entries = strategy(request)
    chosen = rng.choices(entries, [entry["probability"] for entry in entries])[0]
    reply: dict[str, Any] = {"type": "action", "seq": request["seq"], "action": chosen["action"]}
    if "amount" in chosen:
        reply["amount"] = chosen["amount"]
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
    arguments = sys.argv[1:]
    rng: random.Random | None = None
    if arguments[:1] == ["--draw"]:
        rng = random.Random(int(arguments[1]) if len(arguments) > 1 else None)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": NAME, "protocol_version": 1})
        elif kind == "act":
            send(report(message) if rng is None else draw(message, rng))
        elif kind == "draw":
            send({"type": "discard", "seq": message["seq"], "cards": cards_to_discard(message)})
        elif kind == "error":
            print(f"arena rejected my reply: {message.get('message')}", file=sys.stderr)
        elif kind == "match_end":
            break
        # hand_start, hand_end and unknown types need no answer.


if __name__ == "__main__":
    main()
