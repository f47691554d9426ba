"""Everything a bot started is killed: grandchildren in and out of its process group, and
orphans found by their token.

The autouse fixture of tests/conftest.py also fails any test that leaves a process behind.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from arena.bots.process import ProcessTransport
from arena.bots.process_tree import kill_process_tree
from arena.bots.transport import TransportClosedError
from tests.arena.bots.programs import hostile, script_manifest, soon, start


@pytest.mark.parametrize("mode", ["group", "setsid"])
def test_close_kills_grandchildren_in_and_out_of_the_process_group(
    started: list[ProcessTransport], mode: str
) -> None:
    transport = start(started, hostile("forker", mode))
    deadline = soon()
    while "grandchild" not in transport.stderr_log.text() and time.monotonic() < deadline:
        time.sleep(0.01)
    grandchild = int(transport.stderr_log.text().split()[1])
    assert psutil.pid_exists(grandchild)
    transport.close(0.0)
    gone = not psutil.pid_exists(grandchild)
    assert gone or psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE


def test_an_orphan_that_left_the_group_is_found_by_its_token(
    started: list[ProcessTransport], tmp_path: Path
) -> None:
    code = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],\n"
        "    start_new_session=True, stdout=subprocess.DEVNULL)\n"
        "print(child.pid, flush=True)\n"
    )
    transport = start(started, script_manifest(code, tmp_path))
    orphan = int(transport.read_line(soon()) or b"0")
    with pytest.raises(TransportClosedError, match="exit code 0"):
        transport.read_line(soon())
    assert psutil.pid_exists(orphan)  # the bot is gone; its child lives on, in its own session
    transport.close(0.0)
    assert not psutil.pid_exists(orphan) or psutil.Process(orphan).status() == "zombie"


def test_kill_process_tree_kills_a_process_and_ignores_a_dead_one() -> None:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    kill_process_tree(process.pid)
    assert process.wait(timeout=5) == -signal.SIGKILL
    kill_process_tree(process.pid)  # already gone: nothing to do, nothing raised
