"""Sandbox test bot: writes until the sandbox stops it (at most 1 GiB).

``writer_bot.py WHEN [MIB] [WHERE]``: WHEN is ``start`` (at once) or ``act`` (at the first
decision); it writes MIB mebibytes (default 1024), 1 MiB at a time, then plays like a
calling station. WHERE is ``file`` (the default: one file, ``big.bin`` in its working
directory), ``files`` (files of 1 MiB each in its working directory, none of them past a
file size limit) or ``tmp`` (files of 1 MiB each in ``/tmp``). Like a C program (and
unlike Python's default) it dies of SIGXFSZ when a write goes past the file size limit;
a write that fails (``ENOSPC``: the disk limit) ends it with exit code 1 and
``wrote N MiB: ERRNO`` on stderr.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import sys
from typing import Any

_MIB = 1024 * 1024
written = [0]


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def misbehave(mebibytes: int, where: str) -> None:
    """Write ``mebibytes`` MiB where told; exit 1 saying how much when a write fails."""
    block = b"\x01" * _MIB
    try:
        if where == "file":
            with open("big.bin", "wb") as file:
                for _ in range(mebibytes):
                    file.write(block)
                    file.flush()
                    written[0] += 1
            return
        folder = "/tmp" if where == "tmp" else "."
        for index in range(mebibytes):
            with open(os.path.join(folder, f"writer-{os.getpid()}-{index}.bin"), "wb") as file:
                file.write(block)
            written[0] += 1
    except OSError as exc:
        name = errno.errorcode.get(exc.errno or 0, str(exc.errno))
        sys.stderr.write(f"wrote {written[0]} MiB: {name}\n")
        sys.stderr.flush()
        sys.exit(1)


def main() -> None:
    """Misbehave at the chosen moment, then check or call."""
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    when = sys.argv[1] if len(sys.argv) > 1 else "act"
    bound = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    where = sys.argv[3] if len(sys.argv) > 3 else "file"
    if when == "start":
        misbehave(bound, where)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "writer"})
        elif kind == "act":
            if when == "act" and not written[0]:
                misbehave(bound, where)
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
