"""Strict-layer test bot: tries each system call the strict layer's filter denies, reports
the error of each on its first line, then plays like a calling station.

Its first line is ``{"type": "syscalls", "machine": ..., "errno": {name: code, ...},
"clone_newuser": code, "clone3": code}`` (0: the call succeeded). Every call is made
with arguments that do nothing harmful where the call is allowed: a bad request, a null
pointer, zero lengths, invalid flags. ``unshare(0)``, ``process_vm_readv`` with no vectors
and ``personality(0xffffffff)`` (which only reads) succeed without the filter, so the
report shows whether the filter was there.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import sys
from typing import Any

#: Each call with harmless arguments, by number on x86-64 and AArch64 (None: no such call).
CALLS: dict[str, tuple[int | None, int | None, tuple[int, ...]]] = {
    "ptrace": (101, 117, (-1, 0, 0, 0)),  # no such request
    "process_vm_readv": (310, 270, (os.getpid(), 0, 0, 0, 0, 0)),  # no vectors: reads nothing
    "process_vm_writev": (311, 271, (os.getpid(), 0, 0, 0, 0, 0)),
    "mount": (165, 40, (0, 0, 0, 0, 0)),
    "umount2": (166, 39, (0, 0)),
    "pivot_root": (155, 41, (0, 0)),
    "unshare": (272, 97, (0,)),  # no flags: changes nothing
    "setns": (308, 268, (-1, 0)),
    "bpf": (321, 280, (-1, 0, 0)),
    "perf_event_open": (298, 241, (0, 0, -1, -1, 0)),
    "keyctl": (250, 219, (-1, 0, 0, 0, 0)),
    "add_key": (248, 217, (0, 0, 0, 0, 0)),
    "request_key": (249, 218, (0, 0, 0, 0)),
    "userfaultfd": (323, 282, (-1,)),  # invalid flags
    "kexec_load": (246, 104, (0, 0, 0, 0xFFFFFFFF)),
    "kexec_file_load": (320, 294, (-1, -1, 0, 0, 0xFFFFFFFF)),
    "init_module": (175, 105, (0, 0, 0)),
    "finit_module": (313, 273, (-1, 0, 0)),
    "delete_module": (176, 106, (0, 0)),
    "io_uring_setup": (425, 425, (0, 0)),
    "io_uring_enter": (426, 426, (-1, 0, 0, 0, 0, 0)),
    "io_uring_register": (427, 427, (-1, 0, 0, 0)),
    "open_tree": (428, 428, (-1, 0, 0xFFFFFFFF)),
    "fsopen": (430, 430, (0, 0xFFFFFFFF)),
    "mount_setattr": (442, 442, (-1, 0, 0xFFFFFFFF, 0, 0)),
    "swapoff": (168, 225, (0,)),
    "reboot": (169, 142, (0, 0, 0, 0)),  # no magic: refused whatever the rights
    "acct": (163, 89, (1,)),  # a bad pointer
    "syslog": (103, 116, (-1, 0, 0)),
    "personality": (135, 92, (0xFFFFFFFF,)),  # only reads the persona
    "iopl": (172, None, (0,)),
}

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def call(number: int, *args: int) -> int:
    """The call's errno (0 when it succeeded)."""
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(arg) for arg in args))
    return ctypes.get_errno() if result == -1 else 0


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Report, then check or call."""
    machine = platform.machine()
    column = 0 if machine == "x86_64" else 1
    found: dict[str, int] = {}
    for name, (*numbers, args) in CALLS.items():
        number = numbers[column]
        if number is not None:
            found[name] = call(number, *args)
    clone = 56 if column == 0 else 220
    # clone(CLONE_NEWUSER | CLONE_FS): the kernel refuses the pair (EINVAL) before making
    # anything, so no child can come of it; the filter refuses it first (EPERM).
    newuser = call(clone, 0x10000000 | 0x200, 0, 0, 0, 0)
    report = {
        "type": "syscalls",
        "machine": machine,
        "errno": found,
        "clone_newuser": newuser,
        "clone3": call(435, 0, 0),
    }
    send(report)
    # Also on stderr, whole: a match keeps a bot's stderr, where the zoo reads the report.
    print(json.dumps(report), file=sys.stderr, flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "ready", "seq": message["seq"], "name": "syscalls"})
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
