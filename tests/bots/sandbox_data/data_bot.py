"""Sandbox test bot: an honest bot whose name and choices come from its data file.

It reads ``data/table.json`` (a name and an order of preferred actions) at start and keeps
a log of the messages it saw in ``notes.log`` in its working directory, as a bot with an
opening book and a diary would; it exits at ``match_end``.
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
    """Play the first preferred action that is legal."""
    with open("data/table.json", encoding="utf-8") as file:
        table = json.load(file)
    with open("notes.log", "a", encoding="utf-8") as notes:
        for line in sys.stdin:
            message = json.loads(line)
            kind = message.get("type")
            notes.write(f"{kind}\n")
            if kind == "hello":
                send({"type": "ready", "seq": message["seq"], "name": table["name"]})
            elif kind == "act":
                legal = message["legal_actions"]
                action = next(choice for choice in table["prefer"] if choice in legal)
                send({"type": "action", "seq": message["seq"], "action": action})
            elif kind == "draw":
                send({"type": "discard", "seq": message["seq"], "cards": []})
            elif kind == "match_end":
                break


if __name__ == "__main__":
    main()
