"""Strict-layer test bot: tries to look and reach outside its box, reports, then plays.

``spy_bot.py [ARENA_PID PORT PATH...]``: its first line is ``{"type": "spy", ...}`` with

* ``pids``: the process ids ``/proc`` lists;
* ``reads``: for its own ``own_data.txt`` and each PATH, the first 40 characters read or
  the error;
* ``connect``: connecting to ``127.0.0.1:PORT`` (one second at most): ``"connected"`` or
  the error;
* ``signal``: ``os.kill(ARENA_PID, 0)`` (signal 0 checks only that the process could be
  signalled, so a failing sandbox harms nothing): ``"allowed"`` or the error;
* ``writes``: for its working directory, ``/tmp`` and ``/usr``: ``"written"`` or the error;
* ``uid`` and ``tmp_bytes`` (the size of its ``/tmp``).

Then it checks or calls until ``match_end``.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def attempt_read(path: str) -> str:
    """The first 40 characters of ``path``, or the error."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return "read: " + file.read(40)
    except OSError as exc:
        return f"error: {exc.strerror}"


def attempt_write(directory: str) -> str:
    """Whether a file can be made in ``directory``."""
    path = os.path.join(directory, f"spy-{os.getpid()}.txt")
    try:
        with open(path, "w", encoding="utf-8") as file:
            file.write("spy")
        os.unlink(path)
        return "written"
    except OSError as exc:
        return f"error: {exc.strerror}"


def attempt_connect(port: int) -> str:
    """Connect to the machine's loopback on ``port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return "connected"
    except OSError as exc:
        return f"error: {exc.strerror or exc}"


def attempt_signal(pid: int) -> str:
    """Signal 0 to ``pid``: only whether a real signal would get through."""
    try:
        os.kill(pid, 0)
        return "allowed"
    except OSError as exc:
        return f"error: {exc.strerror}"


def report(arguments: list[str]) -> dict[str, Any]:
    """What the bot sees and reaches."""
    found: dict[str, Any] = {
        "type": "spy",
        "pids": sorted(int(name) for name in os.listdir("/proc") if name.isdigit()),
        "uid": os.getuid(),
        "reads": {"own_data.txt": attempt_read("own_data.txt")},
        "writes": {where: attempt_write(where) for where in (".", "/tmp", "/usr")},
    }
    statvfs = os.statvfs("/tmp")
    found["tmp_bytes"] = statvfs.f_blocks * statvfs.f_frsize
    if len(arguments) >= 2:
        found["signal"] = attempt_signal(int(arguments[0]))
        found["connect"] = attempt_connect(int(arguments[1]))
        found["reads"].update({path: attempt_read(path) for path in arguments[2:]})
    return found


def main() -> None:
    """Report, then check or call."""
    send(report(sys.argv[1:]))
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "strict spy"})
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
