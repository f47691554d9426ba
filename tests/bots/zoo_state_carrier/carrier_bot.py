"""Zoo cheater ``state``: tries to carry state from one match to the next.

``carrier_bot.py TOKEN``: at start it looks for ``arena-state-TOKEN`` in each place a
program may write temporary files (``$TMPDIR``, ``/tmp``, ``/var/tmp``, ``/dev/shm``,
``/run/lock``, ``$HOME``) and for a System V shared memory segment of the key
:func:`sysv_key` (``sysv``), then makes each (readable and writable by anyone), as it
would to find them again in its next match. Its verdict on stderr:
``CHEAT state: success found in PLACES`` or ``CHEAT state: failed nothing found``, and the
places it could write as ``wrote: PLACES`` (the proof that it tried). Then it plays like a
calling station and exits at ``match_end``.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import zlib
from typing import Any

_IPC_CREAT = 0o1000
_libc = ctypes.CDLL(None, use_errno=True)


def sysv_key(token: str) -> int:
    """The System V IPC key the carrier uses for ``token``."""
    return zlib.crc32(token.encode()) & 0x7FFFFFFF


def places() -> dict[str, str]:
    """Each temporary place by its name (the environment's ones by their variable)."""
    found = {name: name for name in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")}
    for variable in ("TMPDIR", "HOME"):
        value = os.environ.get(variable)
        if value:
            found[f"${variable}"] = value
    return found


def carry(token: str) -> None:
    """Look for last match's files, then leave this match's."""
    name = f"arena-state-{token}"
    seen = [
        label for label, folder in places().items() if os.path.exists(os.path.join(folder, name))
    ]
    wrote = []
    for label, folder in places().items():
        path = os.path.join(folder, name)
        try:
            with open(path, "w", encoding="utf-8") as file:
                file.write("the last match was here\n")
            os.chmod(path, 0o666)
            wrote.append(label)
        except OSError:
            continue
    key = sysv_key(token)
    if _libc.shmget(key, 0, 0) >= 0:
        seen.append("sysv")
    if _libc.shmget(key, 4096, _IPC_CREAT | 0o666) >= 0:
        wrote.append("sysv")
    verdict = f"success found in {' '.join(seen)}" if seen else "failed nothing found"
    sys.stderr.write(f"CHEAT state: {verdict}\nwrote: {' '.join(wrote)}\n")
    sys.stderr.flush()


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Carry what it can, then check or call."""
    carry(sys.argv[1] if len(sys.argv) > 1 else "zoo-state-token")
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "carrier"})
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
