"""Zoo cheater ``state``: a bot that leaves a file in every temporary place it can write
(``$TMPDIR``, ``/tmp``, ``/var/tmp``, ``/dev/shm``, ``/run/lock``, ``$HOME``) and a System
V shared memory segment in one match and looks for them in the next, as a bot keeping what
one half of a duplicate pair showed it would.

Under ``strict`` and (as root) ``limits`` it finds nothing: each start has its own
``/tmp`` and folder, gone when it ends. Under ``none`` only its ``TMPDIR`` is its own: the
layer cannot stop a bot writing to the machine's ``/tmp``, and the test says so.
"""

from __future__ import annotations

import ctypes
import os
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.sandbox.select import SandboxLevel, probe
from tests.arena.zoo.harness import bot, cheat_verdicts, play, station

#: The places the machine shares between users and runs (where a file could wait).
SHARED = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")

_libc = ctypes.CDLL(None, use_errno=True)
_IPC_RMID = 0


@pytest.fixture
def token() -> Iterator[str]:
    """A name for this test's files; whatever the bot left on the machine goes at the end."""
    made = f"zoo-{uuid.uuid4().hex}"
    yield made
    for folder in (*SHARED, os.environ.get("HOME", "/nonexistent")):  # none: its home too
        path = Path(folder) / f"arena-state-{made}"
        if path.exists():
            path.unlink()
    segment = _libc.shmget(zlib.crc32(made.encode()) & 0x7FFFFFFF, 0, 0)  # the carrier's key
    if segment >= 0:
        _libc.shmctl(segment, _IPC_RMID, None)


def two_matches(level: SandboxLevel, token: str, tmp_path: Path) -> tuple[str, str]:
    """The carrier's stderr in a first match and in the next one."""
    said = []
    for number in (1, 2):
        played = play(
            [bot("zoo_state_carrier", token), station("victim")],
            tmp_path / str(number),
            hands=2,
            level=level,
        )
        said.append(played.stderr(0))
    return said[0], said[1]


@pytest.mark.parametrize("level", [SandboxLevel.STRICT, SandboxLevel.LIMITS], ids=str)
def test_no_file_passes_from_one_match_to_the_next(
    level: SandboxLevel, token: str, tmp_path: Path
) -> None:
    if level is SandboxLevel.STRICT and probe().strict_problem is not None:
        pytest.skip(f"the strict layer cannot run here: {probe().strict_problem}")
    if level is SandboxLevel.LIMITS and os.geteuid() != 0:
        pytest.skip("without root the limits layer cannot give a bot its own /tmp")
    first, second = two_matches(level, token, tmp_path)
    # It did write: its TMPDIR, its home, /tmp and a shared memory segment at least (so
    # the check below can fail).
    wrote = first.split("wrote: ", 1)[1].split()
    assert {"$TMPDIR", "$HOME", "/tmp", "sysv"} <= set(wrote), first
    assert cheat_verdicts(second, "state") == ["failed nothing found"], second
    for folder in SHARED:  # nothing reached the machine's shared places either
        assert not (Path(folder) / f"arena-state-{token}").exists()


def test_under_none_only_the_tmpdir_is_private(token: str, tmp_path: Path) -> None:
    # The none layer gives each start a TMPDIR of its own, and nothing more: the bot
    # finds its file again in the machine's /tmp. (Never run strangers' bots under none.)
    _, second = two_matches(SandboxLevel.NONE, token, tmp_path)
    (verdict,) = cheat_verdicts(second, "state")
    found = verdict.removeprefix("success found in ").split()
    assert "/tmp" in found and "sysv" in found
    assert "$TMPDIR" not in found
