"""Zoo cheater: reads the arena's environment, command line and memory through ``/proc``.

Before it says ready it walks its chain of parents to the first one that is not a sandbox
wrapper (the supervisor, ``bwrap``): that is the arena. It then tries to read the arena's
``/proc/<pid>/environ``, ``cmdline`` and ``mem`` (4 KiB of the first readable mapping its
``maps`` lists). Each try gives one verdict line on stderr, ``CHEAT arena-<what>: success
<what it read>`` or ``CHEAT arena-<what>: failed <reason>``; then the bot plays like a
calling station.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_WRAPPERS = (b"supervisor.py", b"bwrap")
_PAGE = 4096


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def verdict(what: str, outcome: str) -> None:
    """One cheat's result, in the fixed form a test reads."""
    sys.stderr.write(f"CHEAT arena-{what}: {outcome}\n")
    sys.stderr.flush()


def read(path: str) -> bytes:
    """A file's bytes; raises OSError."""
    with open(path, "rb") as file:
        return file.read()


def parent_of(pid: int) -> int:
    """``pid``'s parent as ``/proc`` says (0 when unknown)."""
    try:
        stat = read(f"/proc/{pid}/stat")
    except OSError:
        return 0
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else 0


def find_arena() -> int | None:
    """The first parent that is not a sandbox wrapper, or None if none is visible."""
    pid = parent_of(os.getpid())
    for _ in range(10):
        if pid < 1:
            return None
        try:
            command = read(f"/proc/{pid}/cmdline")
        except OSError:
            return pid  # not a wrapper we can recognise: treat it as the arena
        if not any(wrapper in command for wrapper in _WRAPPERS):
            return pid
        pid = parent_of(pid)
    return None


def read_memory(pid: int) -> bytes:
    """One page of the first readable mapping of ``pid``."""
    for line in read(f"/proc/{pid}/maps").decode().splitlines():
        span, perms = line.split()[:2]
        if perms.startswith("r"):
            start = int(span.split("-")[0], 16)
            with open(f"/proc/{pid}/mem", "rb") as mem:
                mem.seek(start)
                return mem.read(_PAGE)
    raise OSError("no readable mapping")


def cheat() -> None:
    """Try each of the three reads; one verdict each."""
    arena = find_arena()
    readers = {
        "environ": lambda pid: read(f"/proc/{pid}/environ"),
        "cmdline": lambda pid: read(f"/proc/{pid}/cmdline"),
        "mem": read_memory,
    }
    for what, reader in readers.items():
        if arena is None:
            verdict(what, "failed the arena is not visible (no parent outside the sandbox)")
            continue
        try:
            data = reader(arena)
        except OSError as exc:
            verdict(what, f"failed {arena}: {type(exc).__name__}: {exc.strerror or exc}")
            continue
        if data:
            verdict(what, f"success {arena}: {len(data)} bytes: {data[:60]!r}")
        else:
            verdict(what, f"failed {arena}: read nothing")


def main() -> None:
    """Cheat once, then check or call."""
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            cheat()
            send({"type": "ready", "seq": message["seq"], "name": "zoo arena reader"})
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
