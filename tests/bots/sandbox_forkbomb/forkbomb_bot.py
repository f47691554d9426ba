"""Sandbox test bot: forks sleeping children until the sandbox stops it (at most 200).

``forkbomb_bot.py WHEN [COUNT]``: WHEN is ``start`` (at once) or ``act`` (at the first
decision); it forks COUNT children (default 200), each of which sleeps 30 s and exits
without forking further (a failed fork is skipped), then plays like a calling station.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

forked: list[int] = []


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def misbehave(count: int) -> None:
    """Fork up to ``count`` sleeping children."""
    for _ in range(count):
        try:
            pid = os.fork()
        except OSError:  # the process limit said no
            time.sleep(0.01)
            continue
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        forked.append(pid)


def main() -> None:
    """Misbehave at the chosen moment, then check or call."""
    when = sys.argv[1] if len(sys.argv) > 1 else "act"
    bound = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    if when == "start":
        misbehave(bound)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "fork bomb"})
        elif kind == "act":
            if when == "act" and not forked:
                misbehave(bound)
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
