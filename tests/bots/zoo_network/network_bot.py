"""Zoo cheater: tries a TCP connection to ``127.0.0.1:$ZOO_PORT`` before it says ready.

A test opens the port and passes its number in the manifest's ``[env]``. The verdict goes
to stderr as ``CHEAT network: success <what it got>`` or ``CHEAT network: failed
<reason>``; then the bot plays like a calling station.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any

_TIMEOUT_S = 2.0


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def verdict(outcome: str) -> None:
    """The cheat's result, in the fixed form a test reads."""
    sys.stderr.write(f"CHEAT network: {outcome}\n")
    sys.stderr.flush()


def cheat() -> None:
    """Connect, read what the server says, report."""
    port = int(os.environ.get("ZOO_PORT", "0"))
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=_TIMEOUT_S) as conn:
            data = conn.recv(64)
    except OSError as exc:
        verdict(f"failed {type(exc).__name__}: {exc}")
        return
    verdict(f"success connected to 127.0.0.1:{port}, received {data!r}")


def main() -> None:
    """Cheat once, then check or call."""
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            cheat()
            send({"type": "ready", "seq": message["seq"], "name": "zoo network"})
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
