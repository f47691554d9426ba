"""Sandbox test bot: reports what it sees of its sandbox as its first line, then plays.

The first line is ``{"type": "probe", ...}`` with its environment, user and group ids,
working directory, the content of its own ``data.txt``, and whether it could write a file
in its working directory; after that it checks or calls like a calling station.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Report, then check or call."""
    with open("data.txt", encoding="utf-8") as file:
        data = file.read().strip()
    with open("written_by_bot.txt", "w", encoding="utf-8") as file:
        file.write("the bot wrote this\n")
    send(
        {
            "type": "probe",
            "env": dict(os.environ),
            "uid": os.getuid(),
            "gid": os.getgid(),
            "cwd": os.getcwd(),
            "data": data,
        }
    )
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "sandbox probe"})
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
