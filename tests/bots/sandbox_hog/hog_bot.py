"""Sandbox test bot: allocates memory until the sandbox stops it (at most 2 GiB).

``hog_bot.py WHEN [MIB]``: WHEN is ``start`` (at once) or ``act`` (at the first decision);
it allocates MIB mebibytes (default 2048) in 16 MiB blocks, each one written to, then
holds them and plays like a calling station.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

_BLOCK = 16 * 1024 * 1024
held: list[bytes] = []


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def misbehave(mebibytes: int) -> None:
    """Allocate up to ``mebibytes`` MiB, touching every page."""
    for _ in range(mebibytes * 1024 * 1024 // _BLOCK):
        held.append(b"\x01" * _BLOCK)
        time.sleep(0.002)


def main() -> None:
    """Misbehave at the chosen moment, then check or call."""
    when = sys.argv[1] if len(sys.argv) > 1 else "act"
    bound = int(sys.argv[2]) if len(sys.argv) > 2 else 2048
    if when == "start":
        misbehave(bound)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "hog"})
        elif kind == "act":
            if when == "act" and not held:
                misbehave(bound)
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
