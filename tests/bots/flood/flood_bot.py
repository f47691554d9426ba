"""Hostile test bot: floods stderr at start and stdout at each ``hand_start``.

``flood_bot.py STDERR_MB STDOUT_MB``: writes STDERR_MB megabytes to stderr before its
``ready``, and STDOUT_MB megabytes of lines with a stale seq (0) to stdout after each
``hand_start``; otherwise it checks or calls. A bot like this must neither block on a full
pipe nor make the arena hold all of its output.
"""

from __future__ import annotations

import json
import sys
from typing import Any

MEGABYTE = 1024 * 1024


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def flood_stdout(megabytes: float) -> None:
    """Lines that look like late replies to a request long gone (seq 1, the hello's)."""
    line = json.dumps({"type": "action", "seq": 1, "action": "FOLD", "pad": "x" * 1000}) + "\n"
    count = int(megabytes * MEGABYTE) // len(line)
    for _ in range(count):
        sys.stdout.write(line)
    sys.stdout.flush()


def main() -> None:
    """Flood, then play like a calling station."""
    stderr_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
    stdout_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    chunk = "flood " * 10_000 + "\n"
    for _ in range(int(stderr_mb * MEGABYTE) // len(chunk)):
        sys.stderr.write(chunk)
    sys.stderr.flush()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "flood"})
        elif kind == "hand_start":
            flood_stdout(stdout_mb)
        elif kind == "act":
            legal = message["legal_actions"]
            action = "CHECK" if "CHECK" in legal else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
