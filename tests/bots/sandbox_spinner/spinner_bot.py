"""Sandbox test bot: burns CPU until the sandbox stops it (at most 60 s).

``spinner_bot.py WHEN [SECONDS]``: WHEN is ``start`` (at once) or ``act`` (at the first
decision); it spins for SECONDS (default 60), then plays like a calling station.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

spun = [False]


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def misbehave(seconds: float) -> None:
    """Spin for ``seconds``."""
    spun[0] = True
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def main() -> None:
    """Misbehave at the chosen moment, then check or call."""
    when = sys.argv[1] if len(sys.argv) > 1 else "act"
    bound = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    if when == "start":
        misbehave(bound)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "spinner"})
        elif kind == "act":
            if when == "act" and not spun[0]:
                misbehave(bound)
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
