"""Hostile test bot that hangs somewhere.

``hang_bot.py MODE``: ``act`` never answers an act; ``startup`` never sends ready;
``deaf`` stops reading its input after ready; ``match_end`` plays like a calling station
but does not exit after ``match_end`` (nor at the end of its input); ``once`` hangs on its
first ``act`` only (it never answers that one, not even after the timeout's ``error``) and
plays like a calling station after that.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Read messages and answer only what the mode allows."""
    mode = sys.argv[1] if len(sys.argv) > 1 else "act"
    has_hung = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello" and mode != "startup":
            send({"type": "ready", "seq": message["seq"], "name": f"hang {mode}"})
            if mode == "deaf":
                time.sleep(3600)  # the arena's messages pile up in the pipe
        elif kind == "act" and mode == "once" and not has_hung:
            has_hung = True  # this one is never answered
        elif kind == "act" and mode in ("match_end", "once"):
            legal = message["legal_actions"]
            action = "CHECK" if "CHECK" in legal else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end" and mode == "once":
            break
        # Anything else, an act included: hang by not answering (and keep reading).
    if mode == "match_end":
        time.sleep(3600)


if __name__ == "__main__":
    main()
