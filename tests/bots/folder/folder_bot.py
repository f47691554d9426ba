"""A bot of known (bad) strength: it folds whenever it may, else checks.

Against a calling station it loses a blind every hand, so a tournament must rank it last
with an interval below zero. Five-card draw: it keeps its hand (stands pat).
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
    """Fold until ``match_end``."""
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "folder"})
        elif kind == "act":
            action = "FOLD" if "FOLD" in message["legal_actions"] else "CHECK"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "draw":
            send({"type": "discard", "seq": message["seq"], "cards": []})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
