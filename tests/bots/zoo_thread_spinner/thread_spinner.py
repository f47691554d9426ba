"""Zoo bot: spins two background threads while answering every decision at once, as a
bot that "thinks" on the opponent's time would; the threads stop after 30 s at most.

At ``match_end`` it keeps spinning for one more second, then writes to stderr one JSON line
``{"cpu_s": ..., "wall_s": ...}``: the CPU time of its whole process and the wall time since
it started. Held to a CPU share (a cgroup quota), ``cpu_s / wall_s`` stays at that share;
unheld, it is about one (Python's lock lets one thread run at a time).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

STARTED = time.monotonic()
STOP = threading.Event()


def spin() -> None:
    """Burn CPU until told to stop, or for 30 s."""
    end = time.monotonic() + 30.0
    while not STOP.is_set() and time.monotonic() < end:
        pass


def send(message: dict[str, object]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Spin, play a calling station, report."""
    threads = [threading.Thread(target=spin, daemon=True) for _ in range(2)]
    for thread in threads:
        thread.start()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "thread spinner"})
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break
    time.sleep(1.0)  # the threads spin on: a long enough window to measure the share
    STOP.set()
    times = os.times()
    wall = time.monotonic() - STARTED
    print(json.dumps({"cpu_s": times.user + times.system, "wall_s": wall}), file=sys.stderr)
    sys.stderr.flush()


if __name__ == "__main__":
    main()
