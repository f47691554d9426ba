"""A trivial bot for the tournament benchmark: its first argument picks how it plays.

``check``: checks when checking is free, else folds (it never puts in a chip beyond its
blinds). ``min_raise``: raises to the minimum while that costs at most 20 chips (ten big
blinds at the default blinds), else checks or calls, so its hands are longer than a
calling station's without turning every pot into an all-in. ``random SEED``: any legal
action, seeded, drawn exactly as the starter random bot drew its own before it reported its
mixed strategy (``sample_bots/python_random/bot.py SEED`` at f5af95d; the same draws in the
same order), so the tournament benchmark plays the very same matches at revisions from
before and after that change. Standard library only; it answers every message that has a
``seq`` and leaves at ``match_end``.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

#: The most a ``min_raise`` bot raises to.
RAISE_CAP = 20


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it (an unflushed reply is a timeout)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def random_action(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Any legal action, never a fold when checking is free, an all-in one time in twenty,
    raises up to three times the minimum (the draws of the old starter bot, in its order)."""
    legal = list(request["legal_actions"])
    if "CHECK" in legal and "FOLD" in legal:
        legal.remove("FOLD")
    if "ALL_IN" in legal and len(legal) > 1 and rng.random() > 0.05:
        legal.remove("ALL_IN")
    name = rng.choice(legal)
    reply: dict[str, Any] = {"type": "action", "seq": request["seq"], "action": name}
    if name == "RAISE":
        low, high = request["min_raise_to"], request["max_raise_to"]
        reply["amount"] = rng.randint(low, max(low, min(high, 3 * low)))
    return reply


def action(request: dict[str, Any], mode: str) -> dict[str, Any]:
    """The reply to an ``act`` request (``check`` or ``min_raise``)."""
    legal = request["legal_actions"]
    reply: dict[str, Any] = {"type": "action", "seq": request["seq"]}
    if mode == "min_raise" and "RAISE" in legal and request["min_raise_to"] <= RAISE_CAP:
        reply.update(action="RAISE", amount=request["min_raise_to"])
        return reply
    preferred = ("CHECK", "FOLD") if mode == "check" else ("CHECK", "CALL", "ALL_IN", "FOLD")
    reply["action"] = next((name for name in preferred if name in legal), "FOLD")
    return reply


def main() -> None:
    """Answer the arena until ``match_end`` or the end of input."""
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    name = f"bench {mode}"
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else None)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": name})
        elif kind == "act":
            send(random_action(message, rng) if mode == "random" else action(message, mode))
        elif kind == "draw":
            send({"type": "discard", "seq": message["seq"], "cards": []})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
