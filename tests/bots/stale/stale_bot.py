"""Hostile test bot: answers ``act`` with the wrong seq.

``stale_bot.py always``: only with the previous seq (a late answer; the arena drops it
and the decision times out). ``then_valid``: the previous seq, then the right one.
``future``: seq + 1 (a seq never asked for). ``repeat_on_error``: answers correctly, but
after an ``error`` sends its last answer again (with the old seq) instead of waiting.
``twice``: answers correctly, then sends the same answer again at once.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Answer hello properly and act with a wrong seq."""
    mode = sys.argv[1] if len(sys.argv) > 1 else "always"
    last: dict[str, Any] = {}
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": f"stale {mode}"})
        elif kind == "error" and mode == "repeat_on_error" and last:
            send(last)
        elif kind == "act":
            legal = message["legal_actions"]
            action = "CHECK" if "CHECK" in legal else "CALL"
            seq = message["seq"]
            if mode in ("repeat_on_error", "twice"):
                last = {"type": "action", "seq": seq, "action": action}
                send(last)
                if mode == "twice":
                    send(last)
                continue
            send(
                {
                    "type": "action",
                    "seq": seq + 1 if mode == "future" else seq - 1,
                    "action": action,
                }
            )
            if mode == "then_valid":
                send({"type": "action", "seq": seq, "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
