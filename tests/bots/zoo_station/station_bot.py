"""Zoo victim: an honest calling station whose arguments carry a marker.

``station_bot.py MARKER``: the marker is only there so that a cheater can look for this
process (``/proc/<pid>/cmdline``); the bot checks, else calls, and exits at ``match_end``.
It says on stderr how many requests it answered, so a test can see it was not robbed of
its input.
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
    """Check or call until ``match_end``."""
    answered = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "zoo station"})
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
            answered += 1
        elif kind == "match_end":
            break
    sys.stderr.write(f"station: answered {answered} requests\n")


if __name__ == "__main__":
    main()
