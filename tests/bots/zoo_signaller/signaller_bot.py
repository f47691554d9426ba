"""Zoo cheater: sends SIGSTOP then SIGKILL to another bot, or to the arena.

``signaller_bot.py TARGET`` at its first decision; TARGET is ``bot`` (every other process
whose command line holds ``$ZOO_TARGET``, the victim's marker) or ``arena`` (its chain of
parents, up to and including the first one that is not a sandbox wrapper: never further,
so a sandbox that failed stops only the arena). The verdict goes to stderr as ``CHEAT
signal-<TARGET>: success <pids signalled>`` or ``CHEAT signal-<TARGET>: failed <reason>``;
the bot checks or calls all along.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

_WRAPPERS = (b"supervisor.py", b"bwrap")


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def verdict(target: str, outcome: str) -> None:
    """The cheat's result, in the fixed form a test reads."""
    sys.stderr.write(f"CHEAT signal-{target}: {outcome}\n")
    sys.stderr.flush()


def read(path: str) -> bytes:
    """A ``/proc`` file's bytes (empty when it cannot be read)."""
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError:
        return b""


def parent_of(pid: int) -> int:
    """``pid``'s parent as ``/proc`` says (0 when unknown)."""
    stat = read(f"/proc/{pid}/stat")
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else 0


def victims(target: str) -> list[int]:
    """The pids to signal."""
    if target == "bot":
        marker = os.environ.get("ZOO_TARGET", "zoo-station-marker").encode()
        return [
            int(entry)
            for entry in os.listdir("/proc")
            if entry.isdigit()
            and int(entry) != os.getpid()
            and marker in read(f"/proc/{entry}/cmdline")
        ]
    chain: list[int] = []
    pid = parent_of(os.getpid())
    while pid > 1 and len(chain) < 10:
        chain.append(pid)
        command = read(f"/proc/{pid}/cmdline")
        if command and not any(wrapper in command for wrapper in _WRAPPERS):
            break  # the arena itself: nothing above it is touched
        pid = parent_of(pid)
    return chain


def cheat(target: str) -> None:
    """SIGSTOP, then SIGKILL, each victim; report."""
    pids = victims(target)
    if not pids:
        verdict(target, "failed no process to signal is visible")
        return
    hit, reasons = [], []
    for number in (signal.SIGSTOP, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, number)
            except OSError as exc:
                reasons.append(f"{number.name} {pid}: {exc.strerror}")
                continue
            hit.append(f"{number.name} {pid}")
        time.sleep(0.1)
    if hit:
        verdict(target, "success " + ", ".join(hit))
    else:
        verdict(target, "failed " + "; ".join(reasons))


def main() -> None:
    """Cheat at the first decision, check or call at every one."""
    target = sys.argv[1] if len(sys.argv) > 1 else "bot"
    has_cheated = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": f"zoo signaller {target}"})
        elif kind == "act":
            if not has_cheated:
                has_cheated = True
                cheat(target)
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
