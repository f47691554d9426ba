"""A bot's processes: started in a session of their own with a token, found, and killed
without reaping the bot too early.

:func:`start_bot_process` runs a bot in its own session (so a Ctrl-C meant for the arena
does not reach it, and its pid is its process group's id) with :data:`TOKEN_VARIABLE` set
to a fresh value. A bot may fork, and a child may even ``setsid``; :class:`ProcessTree`
kills all of it by combining its process group (:func:`kill_session`), its descendants
(:func:`find_descendants`, also taken while the bot runs: its children are orphaned once it
exits) and every process carrying its token (:func:`find_tagged`: children inherit the
environment).

The bot is not reaped before the kill (:func:`peek_returncode` uses ``waitid(WNOWAIT)``), so
its pid, the group id, cannot have been reused when the group is killed. Only processes
the arena started are ever touched."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import time

import psutil

from arena.bots.launcher import LaunchSpec

__all__ = [
    "TOKEN_VARIABLE",
    "ProcessTree",
    "find_descendants",
    "find_tagged",
    "kill_process_tree",
    "kill_session",
    "peek_returncode",
    "start_bot_process",
    "unique_processes",
]

#: Set in every bot process's environment to a value of its own, to find its descendants.
TOKEN_VARIABLE = "POKER_ARENA_BOT_TOKEN"

_POLL_INTERVAL_S = 0.005
_KILL_WAIT_S = 1.0  # how long to wait for killed descendants to die
# psutil's creation times are derived from clock ticks since boot: allow for their rounding.
_CREATE_TIME_MARGIN_S = 1.0


def start_bot_process(spec: LaunchSpec) -> tuple[subprocess.Popen[bytes], str]:
    """Execute exactly ``spec`` (no shell) in a session of its own, with unbuffered pipes
    for its three standard streams and a fresh :data:`TOKEN_VARIABLE`.

    Returns the process and its token; raises :class:`OSError` if it cannot be executed.
    """
    token = secrets.token_hex(8)
    process = subprocess.Popen(
        list(spec.argv),
        cwd=spec.cwd,
        env={**spec.env, TOKEN_VARIABLE: token},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        close_fds=True,
        start_new_session=True,
    )
    return process, token


class ProcessTree:
    """The processes of one bot: the session it leads, its descendants, its tagged orphans.

    Call :meth:`note_descendants` while the bot still runs, :meth:`kill` at the end.
    """

    def __init__(self, pid: int, token: str | None = None) -> None:
        self.pid = pid
        self.token = token
        try:
            self._created = psutil.Process(pid).create_time()
        except psutil.Error:  # pragma: no cover - gone already; the token scan needs no bound
            self._created = 0.0
        self._noted: list[psutil.Process] = []

    def note_descendants(self) -> None:
        """Remember the bot's descendants now, before its exit orphans them."""
        self._noted = find_descendants(self.pid)

    def kill(self) -> None:
        """SIGKILL the bot's group, its descendants noted and present, and its tagged
        processes; wait for the descendants to die."""
        tagged = (
            []
            if self.token is None
            else find_tagged(self.token, created_after=self._created, excluding_pid=self.pid)
        )
        members = unique_processes([*self._noted, *find_descendants(self.pid), *tagged])
        kill_session(self.pid, members)


def find_descendants(pid: int) -> list[psutil.Process]:
    """The children of ``pid``, their children and so on; empty if ``pid`` is gone."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def find_tagged(token: str, *, created_after: float, excluding_pid: int) -> list[psutil.Process]:
    """Processes whose :data:`TOKEN_VARIABLE` is ``token``, started no earlier than
    ``created_after`` (a psutil creation time), other than ``excluding_pid``."""
    found = []
    for process in psutil.process_iter(["create_time"]):
        # Reading an environment is the costly part: skip what is older than the bot.
        created = process.info.get("create_time")
        if (
            process.pid == excluding_pid
            or created is None
            or created < created_after - _CREATE_TIME_MARGIN_S
        ):
            continue
        try:
            if process.environ().get(TOKEN_VARIABLE) == token:
                found.append(process)
        except psutil.Error:
            continue
    return found


def unique_processes(processes: list[psutil.Process]) -> list[psutil.Process]:
    """``processes`` with each pid once (the last one seen wins)."""
    return list({process.pid: process for process in processes}.values())


def peek_returncode(process: subprocess.Popen[bytes]) -> int | None:
    """The returncode (negative for a signal) if ``process`` exited, else None.

    The process is not reaped, so its pid stays taken until :meth:`~subprocess.Popen.wait`.
    """
    if not hasattr(os, "waitid"):  # pragma: no cover - macOS: reap, a tiny pid-reuse risk
        return process.poll()
    try:
        result = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # pragma: no cover - reaped elsewhere
        return process.poll()
    if result is None:
        return None
    if result.si_code == os.CLD_EXITED:
        return result.si_status
    return -result.si_status


def kill_session(pid: int, descendants: list[psutil.Process] | None = None) -> None:
    """SIGKILL the process group of the session leader ``pid``, then
    :func:`kill_process_tree` for the descendants that left the group.

    The leader must not be reaped yet, or its pid (the group id) might name another group.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    kill_process_tree(pid, descendants)


def kill_process_tree(pid: int, descendants: list[psutil.Process] | None = None) -> None:
    """SIGKILL ``pid`` and its descendants (a snapshot taken first), then wait for them.

    Only processes the arena started are touched: the pid of a bot and what psutil lists
    as its descendants. Descendants that left the bot's process group (``setsid``) are
    caught here; those still in it are also caught by :func:`kill_session`'s ``killpg``.
    """
    if descendants is None:
        descendants = find_descendants(pid)
    targets = list(descendants)
    with contextlib.suppress(psutil.Error):
        targets.insert(0, psutil.Process(pid))
    for process in targets:
        with contextlib.suppress(psutil.Error):
            process.kill()
    # Wait for the descendants only (the bot itself is reaped by its Popen). A zombie is
    # dead enough: reaping it is its new parent's job, which may never happen in a container.
    deadline = time.monotonic() + _KILL_WAIT_S
    waiting = list(descendants)
    while waiting and time.monotonic() < deadline:
        waiting = [process for process in waiting if _is_running(process)]
        if waiting:
            time.sleep(_POLL_INTERVAL_S)


def _is_running(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
