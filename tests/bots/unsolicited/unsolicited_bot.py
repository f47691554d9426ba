"""Hostile test bot: writes a line nobody asked for after each ``hand_start`` and
``hand_end``, then plays like a calling station."""

from __future__ import annotations

import json
import sys
from typing import Any


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Chat when nothing is asked, answer when asked."""
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "unsolicited"})
        elif kind in ("hand_start", "hand_end"):
            send({"type": "chat", "text": f"got {kind}"})
        elif kind == "act":
            legal = message["legal_actions"]
            action = "CHECK" if "CHECK" in legal else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
