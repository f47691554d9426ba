"""Hostile test bot: plays like a calling station, then crashes at a chosen point.

``crasher_bot.py WHEN [HOW]``: WHEN is ``startup``, ``hand_start``, ``hand_end``,
``draw`` or a betting round (``PRE_FLOP``, ``FLOP``, ``TURN``, ``RIVER``,
``PRE_DRAW_BET``, ``POST_DRAW_BET``); HOW is ``exit`` (exit code 3), ``exit0`` (exit
code 0, as if it had finished), ``signal`` (SIGKILL itself) or ``close`` (close stdout and
keep running).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def crash(how: str, where: str) -> None:
    """Die the chosen way, saying so on stderr first."""
    sys.stderr.write(f"crasher: crashing at {where} ({how})\n")
    sys.stderr.flush()
    if how == "signal":
        os.kill(os.getpid(), signal.SIGKILL)
    if how == "close":
        os.close(1)
        time.sleep(3600)
    sys.exit(0 if how == "exit0" else 3)


def main() -> None:
    """Answer like a calling station until the crash point."""
    when = sys.argv[1] if len(sys.argv) > 1 else "FLOP"
    how = sys.argv[2] if len(sys.argv) > 2 else "exit"
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if when == "startup":
                crash(how, when)
            send({"type": "ready", "seq": message["seq"], "name": f"crasher {when}"})
        elif kind in ("hand_start", "hand_end") and when == kind:
            crash(how, when)
        elif kind == "act":
            if message.get("game_state") == when:
                crash(how, when)
            legal = message["legal_actions"]
            action = "CHECK" if "CHECK" in legal else "CALL" if "CALL" in legal else "FOLD"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "draw":
            if when == "draw":
                crash(how, when)
            send({"type": "discard", "seq": message["seq"], "cards": []})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
