"""The client side of a worker's referee zygote.

A referee costs a fork, not a fresh interpreter: each worker process has a *zygote*, a
process that imported the arena once and forks referees on request (its side is in
:mod:`arena.cluster.referee`). :func:`shared_zygote` starts this process's zygote on first
use (the check before the first match does it, so the first match does not wait) and again
if it died; it exits when its worker does, and :func:`close_zygote` (also run at exit) stops
it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path

import psutil

__all__ = [
    "READY",
    "REFEREE_MODULE",
    "REQUEST",
    "Zygote",
    "ZygoteError",
    "close_zygote",
    "shared_zygote",
]

#: The module run as the referee (``python -m``).
REFEREE_MODULE = "arena.cluster.referee"
#: The zygote's first message (then its folder), and the request for one referee.
READY = b"ready "
REQUEST = b"run"
#: Seconds the zygote may take to import the arena and say it is ready, and to end.
ZYGOTE_START_S = 120.0
ZYGOTE_STOP_S = 10.0


class ZygoteError(RuntimeError):
    """The zygote could not be started or stopped answering."""


class Zygote:
    """The client side of a zygote process (see :mod:`arena.cluster.referee`)."""

    def __init__(self, *, python: str = sys.executable) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._lock = threading.Lock()
        self._socket = ours
        try:
            self.process = subprocess.Popen(
                [python, "-m", REFEREE_MODULE, "--zygote", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C at the worker's terminal is the worker's
            )
        finally:
            theirs.close()
        try:
            ours.settimeout(ZYGOTE_START_S)
            hello = ours.recv(4096)
            ours.settimeout(None)
        except OSError as exc:
            self.close()
            raise ZygoteError(f"the referee zygote did not start: {exc}") from None
        if not hello.startswith(READY):
            self.close()
            raise ZygoteError(
                f"the referee zygote did not start (exit code {self.process.returncode}): "
                "is the arena installed for this worker's Python?"
            )
        self.root = Path(os.fsdecode(hello.removeprefix(READY)))

    def spawn(self, stdin: int, stdout: int, stderr: int) -> int:
        """Hand these standard streams to a referee (the zygote's spare); its process id."""
        with self._lock:
            try:
                socket.send_fds(self._socket, [REQUEST], [stdin, stdout, stderr])
                answer = self._socket.recv(16)
            except OSError as exc:
                raise ZygoteError(f"the referee zygote stopped answering: {exc}") from None
        if len(answer) != 4 or (pid := struct.unpack("!i", answer)[0]) <= 0:
            raise ZygoteError(f"the referee zygote could not fork a referee ({answer!r})")
        return int(pid)

    def is_alive(self) -> bool:
        """Whether the zygote process still runs."""
        return self.process.poll() is None

    def close(self) -> None:
        """Stop the zygote: it exits when its socket closes (killed if it does not), and
        its referees with it; returns when they are all gone."""
        below: list[psutil.Process] = []
        # Not reaped yet, so its process id is still its own (a zombie's children are
        # gone to init already: nothing to wait for).
        with contextlib.suppress(psutil.NoSuchProcess):
            if self.is_alive():
                below = psutil.Process(self.process.pid).children(recursive=True)
        self._socket.close()
        try:
            self.process.wait(timeout=ZYGOTE_STOP_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        psutil.wait_procs(below, timeout=ZYGOTE_STOP_S)


_zygote: Zygote | None = None
_zygote_lock = threading.Lock()


def shared_zygote() -> Zygote:
    """This process's zygote, started (again) when there is none running."""
    global _zygote
    with _zygote_lock:
        if _zygote is None or not _zygote.is_alive():
            if _zygote is not None:
                _zygote.close()
            _zygote = Zygote()
        return _zygote


def close_zygote() -> None:
    """Stop this process's zygote, if it has one (also done at exit)."""
    global _zygote
    with _zygote_lock:
        if _zygote is not None:
            _zygote.close()
            _zygote = None


atexit.register(close_zygote)
