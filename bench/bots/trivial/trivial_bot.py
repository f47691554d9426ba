"""A trivial bot for the tournament benchmark: its first argument picks how it plays.

``check``: checks when checking is free, else folds (it never puts in a chip beyond its
blinds). ``min_raise``: raises to the minimum while that costs at most 20 chips (ten big
blinds at the default blinds), else checks or calls, so its hands are longer than a
calling station's without turning every pot into an all-in. Standard library only; it
answers every message that has a ``seq`` and leaves at ``match_end``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

#: The most a ``min_raise`` bot raises to.
RAISE_CAP = 20


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it (an unflushed reply is a timeout)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def action(request: dict[str, Any], mode: str) -> dict[str, Any]:
    """The reply to an ``act`` request."""
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
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": name})
        elif kind == "act":
            send(action(message, mode))
        elif kind == "draw":
            send({"type": "discard", "seq": message["seq"], "cards": []})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
