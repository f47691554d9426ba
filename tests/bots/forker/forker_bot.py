"""Hostile test bot: leaves a sleeping grandchild behind, then plays normally.

``forker_bot.py group``: the grandchild stays in the bot's process group.
``forker_bot.py setsid``: the grandchild starts its own session (leaves the group).
The grandchild's pid is written to stderr as ``grandchild <pid>``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Start the grandchild, then check or call."""
    mode = sys.argv[1] if len(sys.argv) > 1 else "group"
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(3600)"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=mode == "setsid",
    )
    sys.stderr.write(f"grandchild {child.pid}\n")
    sys.stderr.flush()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": f"forker {mode}"})
        elif kind == "act":
            legal = message["legal_actions"]
            action = "CHECK" if "CHECK" in legal else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
