"""The strict layer's system call filter: the program read back by a small classic-BPF
interpreter (what each call gets, per architecture), and a bot in a real box trying every
denied call, getting EPERM for each, and playing on."""

from __future__ import annotations

import errno
import json
import os
import struct
import sys
import time
from collections.abc import Iterator

import pytest

from arena.bots.manifest import load_manifest
from arena.bots.process import ProcessTransport
from arena.bots.sandbox.bwrap import SECCOMP_FD, StrictLauncher
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.resources import DEFAULT_RESOURCES
from arena.bots.sandbox.seccomp import (
    AUDIT_ARCH,
    CLONE_NEW_FLAGS,
    DENIED,
    SYSCALL_NUMBERS,
    UnknownMachineError,
    compile_filter,
    filter_for_machine,
)
from arena.bots.sandbox.select import probe
from tests import TEST_BOTS

ALLOW = 0x7FFF0000
KILL = 0x80000000
EPERM = 0x00050000 | errno.EPERM
ENOSYS = 0x00050000 | errno.ENOSYS
DEADLINE_S = 20.0
I386 = 0x40000003


def run(program: bytes, *, arch: int, nr: int, arg0: int = 0) -> int:
    """What the filter returns for a call (a classic-BPF interpreter of the opcodes used)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    code = [struct.unpack_from("=HBBI", program, at) for at in range(0, len(program), 8)]
    accumulator: int = 0
    pc = 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        if op == 0x20:  # ld word at k
            (accumulator,) = struct.unpack_from("=I", data, k)
        elif op == 0x06:  # ret k
            return int(k)
        else:
            taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: accumulator & k}[op]
            pc += jt if taken else jf


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_every_denied_call_gets_eperm_and_the_rest_pass(machine: str) -> None:
    program = compile_filter(machine)
    arch, numbers = AUDIT_ARCH[machine], SYSCALL_NUMBERS[machine]
    for name in DENIED:
        if name in numbers:
            assert run(program, arch=arch, nr=numbers[name]) == EPERM, name
    for allowed in (0, 1, 2, 3, 60, 63, 231, 293):  # read, write, open/close, exit...
        if allowed not in numbers.values():
            assert run(program, arch=arch, nr=allowed) == ALLOW, allowed
    assert run(program, arch=arch, nr=numbers["clone3"]) == ENOSYS
    clone = numbers["clone"]
    assert run(program, arch=arch, nr=clone, arg0=0x01200011) == ALLOW  # a fork, a thread
    for flag in range(32):
        if CLONE_NEW_FLAGS & (1 << flag):
            assert run(program, arch=arch, nr=clone, arg0=1 << flag | 17) == EPERM


def test_a_call_in_another_architecture_kills_and_x32_calls_are_refused() -> None:
    program = compile_filter("x86_64")
    assert run(program, arch=I386, nr=1) == KILL  # int 0x80: the numbers mean other calls
    assert run(program, arch=AUDIT_ARCH["x86_64"], nr=0x40000000 | 1) == EPERM  # x32 write
    assert run(compile_filter("aarch64"), arch=AUDIT_ARCH["x86_64"], nr=1) == KILL


def test_an_unknown_machine_has_no_filter() -> None:
    with pytest.raises(UnknownMachineError, match="no system call table for 'riscv64'"):
        compile_filter("riscv64")
    assert filter_for_machine() == compile_filter(os.uname().machine)


@pytest.fixture
def launcher() -> Iterator[StrictLauncher]:
    problem = probe().strict_problem
    box = probe().box
    if problem is not None or box is None:
        pytest.skip(f"the strict layer cannot run here: {problem}")
    if box.seccomp is None:
        pytest.skip("no system call filter for this machine")
    inner = LimitsLauncher(DEFAULT_RESOURCES, python=os.path.realpath(sys.executable))
    made = StrictLauncher(inner, box)
    assert made.filter_fd is not None
    with open(f"/proc/self/fd/{made.filter_fd}", "rb") as filter_file:
        assert filter_file.read() == box.seccomp  # what every box opens, whole
    with pytest.raises(PermissionError):  # sealed: no one changes it once written
        open(f"/proc/self/fd/{made.filter_fd}", "wb").close()
    yield made
    made.close()
    assert made._finalizer is not None and not made._finalizer.alive  # the file is closed


def test_a_bot_in_the_box_gets_eperm_for_every_denied_call_and_plays_on(
    launcher: StrictLauncher,
) -> None:
    manifest = load_manifest(TEST_BOTS / "strict_syscalls" / "bot.toml")
    spec = launcher.prepare(manifest)
    assert ("--seccomp", str(SECCOMP_FD)) in zip(spec.argv, spec.argv[1:], strict=False)
    transport = ProcessTransport.from_spec(spec, name=manifest.name)
    try:
        line = transport.read_line(time.monotonic() + DEADLINE_S)
        assert line is not None
        report = json.loads(line)
        refused = {name: code for name, code in report["errno"].items() if code != errno.EPERM}
        assert not refused, f"not refused with EPERM: {refused}"
        assert report["clone_newuser"] == errno.EPERM
        assert report["clone3"] == errno.ENOSYS
        transport.send(b'{"type":"hello","seq":1}\n')
        ready = transport.read_line(time.monotonic() + DEADLINE_S)
        assert ready is not None and json.loads(ready)["type"] == "ready"
        transport.send(b'{"type":"act","seq":2,"hand_id":"h1","legal_actions":["CHECK","FOLD"]}\n')
        answer = transport.read_line(time.monotonic() + DEADLINE_S)
        assert answer is not None and json.loads(answer)["action"] == "CHECK"
    finally:
        info = transport.close(1.0)
    assert info.limit_reason is None


def test_the_probe_box_carries_the_machine_s_filter() -> None:
    box = probe().box
    if box is None:
        pytest.skip(f"the strict layer cannot run here: {probe().strict_problem}")
    assert box.seccomp == filter_for_machine()
