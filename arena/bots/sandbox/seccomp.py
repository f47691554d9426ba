"""The strict layer's system call filter: a classic BPF program for ``bwrap --seccomp``.

A bot in the box already runs as an unprivileged user with no capabilities, so most of the
calls below fail for it anyway. The filter is the second wall: it takes away the kernel
interfaces that have held most of the kernel's own bugs, which a bot needs for nothing,
before the kernel even looks at the caller's rights. Each denied call returns ``EPERM``
(a program that probes for a feature sees it refused and carries on); nothing else
changes for the bot.

What is denied, and why, is :data:`DENIED` (listed for people in docs/sandbox.md, "The
strict layer's system call filter"): ptrace and its kin, mounts and namespaces (and
``clone`` with any ``CLONE_NEW*`` flag; ``clone3``, whose flags a filter cannot read,
returns ``ENOSYS`` so that the C library falls back to ``clone``), kernel machinery (bpf,
io_uring, the key ring...) and the machine itself (modules, kexec, reboot, swap...).

The program first checks the architecture the call was made for: a call made in another
one (a 32-bit ``int 0x80`` on x86-64, whose numbers mean other calls) kills the process,
and on x86-64 an x32 call (number with bit 30 set) returns ``EPERM``. Everything else is
allowed. The program is built for the arena's own machine, x86-64 or AArch64
(:func:`compile_filter`); elsewhere :func:`filter_for_machine` says none is known.

>>> len(compile_filter("x86_64")) % 8, len(compile_filter("aarch64")) > 0
(0, True)
"""

from __future__ import annotations

import errno
import platform
import struct
from collections.abc import Iterable

__all__ = [
    "AUDIT_ARCH",
    "CLONE_NEW_FLAGS",
    "DENIED",
    "SYSCALL_NUMBERS",
    "UnknownMachineError",
    "compile_filter",
    "filter_for_machine",
]

#: Each call's number on x86-64 and on AArch64 ("-": the machine has no such call), from
#: the kernel's tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h).
_TABLE = """
ptrace 101 117           process_vm_readv 310 270    process_vm_writev 311 271
mount 165 40             umount2 166 39              pivot_root 155 41
open_tree 428 428        move_mount 429 429          fsopen 430 430
fsconfig 431 431         fsmount 432 432             fspick 433 433
mount_setattr 442 442    unshare 272 97              setns 308 268
bpf 321 280              perf_event_open 298 241     userfaultfd 323 282
io_uring_setup 425 425   io_uring_enter 426 426      io_uring_register 427 427
keyctl 250 219           add_key 248 217             request_key 249 218
fanotify_init 300 262    name_to_handle_at 303 264   open_by_handle_at 304 265
lookup_dcookie 212 18    kexec_load 246 104          kexec_file_load 320 294
init_module 175 105      finit_module 313 273        delete_module 176 106
reboot 169 142           swapon 167 224              swapoff 168 225
acct 163 89              quotactl 179 60             quotactl_fd 443 443
syslog 103 116           vhangup 153 58              personality 135 92
iopl 172 -               ioperm 173 -                uselib 134 -
clone 56 220             clone3 435 435
"""


#: The calls denied with EPERM, by name (those a machine lacks are left out for it): every
#: call of the table but ``clone`` (denied by its flags) and ``clone3`` (``ENOSYS``).
DENIED = tuple(name for name in _TABLE.split()[0::3] if name not in ("clone", "clone3"))


def _numbers(column: int) -> dict[str, int]:
    words = _TABLE.split()
    rows = zip(words[0::3], words[1::3], words[2::3], strict=True)
    return {row[0]: int(row[column]) for row in rows if row[column] != "-"}


#: System call numbers per machine (``platform.machine()``).
SYSCALL_NUMBERS: dict[str, dict[str, int]] = {"x86_64": _numbers(1), "aarch64": _numbers(2)}
SYSCALL_NUMBERS["arm64"] = SYSCALL_NUMBERS["aarch64"]

#: The audit architecture each machine's calls carry (``AUDIT_ARCH_X86_64``, ``_AARCH64``).
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7, "arm64": 0xC00000B7}

#: ``CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME``.
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
CLONE_NEW_FLAGS |= 0x20000000 | 0x40000000 | 0x00000080

_X32_SYSCALL_BIT = 0x40000000

# Classic BPF opcodes (linux/filter.h) and seccomp's return values (linux/seccomp.h).
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000

# Offsets in struct seccomp_data: nr, arch, instruction_pointer, args[6] (little-endian:
# the low half of args[0] comes first).
_NR = 0
_ARCH = 4
_ARG0_LOW = 16


class UnknownMachineError(RuntimeError):
    """No system call table is known for this machine."""

    code = "sandbox_unavailable"


def _statement(code: int, k: int) -> tuple[int, int, int, int]:
    return (code, 0, 0, k)


def _jump(code: int, k: int, if_true: int, if_false: int) -> tuple[int, int, int, int]:
    return (code, if_true, if_false, k)


def compile_filter(machine: str, denied: Iterable[str] = DENIED) -> bytes:
    """The filter for ``machine`` (``platform.machine()``) as bwrap reads it: an array of
    ``struct sock_filter`` (code u16, jt u8, jf u8, k u32), in the machine's byte order.

    Raises :class:`UnknownMachineError` for a machine without a known table.
    """
    numbers = SYSCALL_NUMBERS.get(machine)
    if numbers is None:
        raise UnknownMachineError(
            f"no system call table for {machine!r} (known: {', '.join(sorted(AUDIT_ARCH))})"
        )
    eperm = _RET_ERRNO | errno.EPERM
    program = [
        _statement(_LD_W_ABS, _ARCH),
        _jump(_JEQ_K, AUDIT_ARCH[machine], 1, 0),
        _statement(_RET_K, _RET_KILL_PROCESS),  # a call made in another architecture
        _statement(_LD_W_ABS, _NR),
    ]
    if machine == "x86_64":
        program += [_jump(_JGE_K, _X32_SYSCALL_BIT, 0, 1), _statement(_RET_K, eperm)]
    for name in denied:
        if name in numbers:
            program += [_jump(_JEQ_K, numbers[name], 0, 1), _statement(_RET_K, eperm)]
    program += [
        _jump(_JEQ_K, numbers["clone3"], 0, 1),
        _statement(_RET_K, _RET_ERRNO | errno.ENOSYS),
        # clone: refused when its flags ask for any new namespace.
        _jump(_JEQ_K, numbers["clone"], 0, 3),
        _statement(_LD_W_ABS, _ARG0_LOW),
        _jump(_JSET_K, CLONE_NEW_FLAGS, 0, 1),
        _statement(_RET_K, eperm),
        _statement(_RET_K, _RET_ALLOW),
    ]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


def filter_for_machine() -> bytes:
    """The filter for the machine the arena runs on (see :func:`compile_filter`)."""
    return compile_filter(platform.machine())
