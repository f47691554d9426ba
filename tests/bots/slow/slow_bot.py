"""Hostile test bot: answers every ``act`` after sleeping ``SECONDS`` (argument 1)."""

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
    """Check or call, slowly."""
    delay = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "slow"})
        elif kind == "act":
            time.sleep(delay)
            legal = message["legal_actions"]
            action = "CHECK" if "CHECK" in legal else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
