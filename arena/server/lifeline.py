"""A worker of ``arena server run`` dies with it, even when it is killed with SIGKILL.

Linux's parent-death signal does that, but only from the moment the worker asks for it: a
server killed while the worker was still starting (importing Django takes a second) would
leave it running for good. So the server names itself in the worker's environment, and a
worker that asks for the signal and finds that its parent is no longer that process (it was
handed to init or a subreaper) stops at once.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["PARENT_ENV", "die_with_parent", "parent_env"]

#: The environment variable that names the server's process id to its workers.
PARENT_ENV = "ARENA_SERVER_PID"

_PR_SET_PDEATHSIG = 1


def parent_env() -> dict[str, str]:
    """What the server adds to a worker's environment."""
    return {PARENT_ENV: str(os.getpid())}


def die_with_parent() -> None:
    """Ask for SIGTERM when the parent dies; exit (code 0) if it already has.

    Without :data:`PARENT_ENV` (a worker started by hand) only the signal is asked for.
    """
    if sys.platform != "linux":
        return
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    expected = os.environ.get(PARENT_ENV, "")
    if expected.isdigit() and int(expected) != os.getppid():
        raise SystemExit(0)
