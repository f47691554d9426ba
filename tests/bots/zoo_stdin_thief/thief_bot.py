"""Zoo cheater: reads the other bot's input through ``/proc/<pid>/fd/0``.

At each of its first three decisions it looks in ``/proc`` for every other process whose
command line holds ``$ZOO_TARGET`` (the victim's marker), opens its standard input by that
path without blocking, reads what is waiting for up to half a second (at most 1 MiB) and
writes it back, so that the victim would not notice. The verdict goes to stderr as ``CHEAT
stdin: success <pid and bytes read>`` or ``CHEAT stdin: failed <reason>``; the bot checks or
calls all along.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

_TRIES = 3
_READ_FOR_S = 0.5
_MAX_BYTES = 1024 * 1024


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def verdict(outcome: str) -> None:
    """The cheat's result, in the fixed form a test reads."""
    sys.stderr.write(f"CHEAT stdin: {outcome}\n")
    sys.stderr.flush()


def processes_with(marker: str) -> list[int]:
    """Other processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                if marker.encode() in file.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def steal(pid: int) -> bytes:
    """What waits in ``pid``'s standard input, read and written back."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    stolen = b""
    try:
        end = time.monotonic() + _READ_FOR_S
        while time.monotonic() < end and len(stolen) < _MAX_BYTES:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            if not chunk:
                break
            stolen += chunk
    finally:
        os.close(fd)
    if stolen:
        back = os.open(f"/proc/{pid}/fd/0", os.O_WRONLY | os.O_NONBLOCK)
        try:
            os.write(back, stolen)
        finally:
            os.close(back)
    return stolen


def cheat() -> None:
    """Try every process of the victim; report."""
    marker = os.environ.get("ZOO_TARGET", "zoo-station-marker")
    pids = processes_with(marker)
    if not pids:
        verdict(f"failed no process with {marker!r} is visible")
        return
    reasons = []
    for pid in pids:
        try:
            stolen = steal(pid)
        except OSError as exc:
            reasons.append(f"{pid}: {type(exc).__name__}: {exc.strerror}")
            continue
        if stolen:
            verdict(f"success read {len(stolen)} bytes of {pid}'s input: {stolen[:80]!r}")
            return
        reasons.append(f"{pid}: opened its input, nothing to read")
    verdict("failed " + "; ".join(reasons))


def main() -> None:
    """Cheat at the first decisions, check or call at every one."""
    tries = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "zoo stdin thief"})
        elif kind == "act":
            if tries < _TRIES:
                tries += 1
                cheat()
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
