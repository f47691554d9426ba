"""Sandbox test bot: writes one file until the sandbox stops it (at most 1 GiB).

``writer_bot.py WHEN [MIB]``: WHEN is ``start`` (at once) or ``act`` (at the first
decision); it writes MIB mebibytes (default 1024) to ``big.bin`` in its working directory,
1 MiB at a time, then plays like a calling station. Like a C program (and unlike Python's
default) it dies of SIGXFSZ when a write goes past the file size limit.
"""

from __future__ import annotations

import json
import signal
import sys
from typing import Any

_MIB = 1024 * 1024
written = [0]


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def misbehave(mebibytes: int) -> None:
    """Write ``mebibytes`` MiB to big.bin."""
    block = b"\x01" * _MIB
    with open("big.bin", "wb") as file:
        for _ in range(mebibytes):
            file.write(block)
            file.flush()
            written[0] += 1


def main() -> None:
    """Misbehave at the chosen moment, then check or call."""
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    when = sys.argv[1] if len(sys.argv) > 1 else "act"
    bound = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    if when == "start":
        misbehave(bound)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "writer"})
        elif kind == "act":
            if when == "act" and not written[0]:
                misbehave(bound)
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
