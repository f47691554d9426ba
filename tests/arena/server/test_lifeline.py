"""A worker of arena server run dies with it: a worker that starts after its server was
killed (the parent-death signal asked for too late) stops at once instead of running for
good, and one whose server is alive asks for the signal and goes on."""

from __future__ import annotations

import os
import subprocess
import sys

from arena.server.lifeline import PARENT_ENV, parent_env

# A worker's first act, then a line saying it went on.
_WORKER = "from arena.server.lifeline import die_with_parent; die_with_parent(); print('on')"


def _worker(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WORKER],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_worker_whose_server_is_alive_goes_on() -> None:
    assert parent_env() == {PARENT_ENV: str(os.getpid())}
    done = _worker(parent_env())  # this test's process is the worker's parent
    assert (done.returncode, done.stdout) == (0, "on\n")


def test_a_worker_whose_server_died_before_it_asked_stops_at_once() -> None:
    # The parent named is not the worker's parent: the server it was started for is gone
    # (the worker was handed to another process), so the signal would never come.
    done = _worker({PARENT_ENV: str(os.getpid() + 1_000_000)})
    assert (done.returncode, done.stdout) == (0, "")


def test_a_worker_started_by_hand_only_asks_for_the_signal() -> None:
    environment = {key: value for key, value in os.environ.items() if key != PARENT_ENV}
    done = subprocess.run(
        [sys.executable, "-c", _WORKER], env=environment, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.stdout == "on\n"
