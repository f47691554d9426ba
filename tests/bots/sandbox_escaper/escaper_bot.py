"""Sandbox test bot: leaves behind a grandchild that left its session and environment.

``escaper_bot.py MARKER [CHILDREN]``: at start the bot forks a child that forks the
grandchild and exits at once, so the grandchild is orphaned; the grandchild calls
``setsid()`` and execs ``python -c <sleep 30 s> MARKER FD`` with an empty environment, so
neither the bot's process group, nor its descendants, nor its environment find it.
CHILDREN more children (default 0) sleep 30 s with MARKER in their arguments too. The
grandchild's pid goes to stderr as ``grandchild <pid>``; then the bot plays like a
calling station.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

_SLEEP = "import time; time.sleep(30)"
# The grandchild's program: says its pid on the inherited pipe (argv[2]), then sleeps.
_ESCAPED = (
    "import os, sys, time; fd = int(sys.argv[2]); os.write(fd, b'%d\\n' % os.getpid());"
    " os.close(fd); time.sleep(30)"
)


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def escape(marker: str) -> None:
    """Double fork; the grandchild leaves the session and the environment behind."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        grandchild = os.fork()
        if grandchild == 0:
            os.setsid()
            os.close(read_end)
            os.set_inheritable(write_end, True)
            argv = [sys.executable, "-c", _ESCAPED, marker, str(write_end)]
            os.execve(sys.executable, argv, {})
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:  # the grandchild runs its program once it speaks
        sys.stderr.write(f"grandchild {pipe.readline().strip()}\n")
        sys.stderr.flush()
    os.waitpid(child, 0)


def main() -> None:
    """Escape, then check or call."""
    marker = sys.argv[1] if len(sys.argv) > 1 else "sandbox-escaper-marker"
    children = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    escape(marker)
    for _ in range(children):
        subprocess.Popen([sys.executable, "-c", _SLEEP, marker], stdin=subprocess.DEVNULL)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "escaper"})
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
