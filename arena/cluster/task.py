"""A tournament's match on a cluster worker: the task that has a referee play it.

:func:`run_in_referee` is what a Dask task runs. Dask cannot stop a running task, so the
task plays nothing in its own thread: it has a referee process play the match
(:mod:`arena.cluster.referee`, forked by the worker's zygote, :mod:`arena.cluster.zygote`),
waits for its outcome with a wall-clock deadline (:func:`match_deadline`) and, whatever
happened, kills the referee's whole process group and the processes below it. A match past
its deadline comes back as a failed outcome whose ``ended_reason`` is ``"timeout"`` and
whose error starts with ``timeout:``; the host stores it as a failed match (not counted)
and the next run plays it again.

The task also asks, before it forks the referee and every :data:`CANCEL_CHECK_S` while the
match plays, whether the host still wants the match (``is_wanted``): one the host
cancelled (its tournament stopped) forks no referee, or has its referee and bots killed at
once, instead of playing on to its deadline. Dask may start a task that its host has
already cancelled: a worker busy when both messages arrive starts the task before it reads
the cancel."""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

import psutil

from arena.cluster.job import MatchJob, failed_outcome
from arena.cluster.zygote import ZygoteError, shared_zygote
from arena.store.outcome import MatchOutcome

__all__ = ["RefereeCall", "match_deadline", "run_in_referee"]

#: A match's deadline, beyond its time limits: the referee's start and its bookkeeping.
DEADLINE_MARGIN_S = 60.0
#: Decisions per seat and hand that the deadline allows at the full decision time: far
#: more than a real hand needs (bots answer in milliseconds); the watchdog restarts a bot
#: that keeps timing out, so only an arena that hangs ever reaches the deadline.
DECISIONS_PER_HAND = 4
#: Hands assumed for a freezeout that has no cap on hands.
UNCAPPED_HANDS = 10_000
#: How much of the referee's standard error a failure's message quotes.
STDERR_TAIL_BYTES = 2000
#: Seconds between two questions of a playing task to its host's side (``is_wanted``): how
#: late a cancelled match's referee may be killed after its worker hears of the cancel.
CANCEL_CHECK_S = 0.25


@dataclass(frozen=True, slots=True)
class RefereeCall:
    """What a referee reads: the function that plays a match (``play_match``, or a
    stand-in in tests) and the job; both must pickle. ``ship_files``: play in the referee's
    own folder and send the files back in the outcome; otherwise the job's run folder is
    shared with the host and the match writes there, as in the local pool."""

    play: Callable[[MatchJob], MatchOutcome]
    job: MatchJob
    ship_files: bool = True


def match_deadline(job: MatchJob) -> float:
    """The wall-clock seconds a match may take before it is a timeout fault.

    Every seat may use its whole start-up time on each of its starts (the first and every
    restart), :data:`DECISIONS_PER_HAND` full decision times in every hand and its time
    bank; plus :data:`DEADLINE_MARGIN_S`. A 100-hand heads-up match with 5 s decisions gets
    a little over an hour: a backstop for an arena that hangs, not a time limit for bots.
    """
    config, seats = job.config, len(job.bots)
    limits = config.time_limits
    hands = config.hand_count if config.hand_count is not None else UNCAPPED_HANDS
    starts = seats * (config.restart_budget + 1) * limits.startup_s
    decisions = hands * seats * DECISIONS_PER_HAND * limits.decision_s
    return DEADLINE_MARGIN_S + starts + decisions + seats * limits.time_bank_s


def _always_wanted() -> bool:
    """The ``is_wanted`` of a match that nobody cancels: it plays to its end or deadline."""
    return True


def run_in_referee(
    play: Callable[[MatchJob], MatchOutcome],
    job: MatchJob,
    deadline_s: float,
    *,
    ship_files: bool = True,
    is_wanted: Callable[[], bool] = _always_wanted,
) -> MatchOutcome:
    """Have a referee play ``job`` with ``play``; its outcome, with the match's files
    packed in when ``ship_files`` (else the match wrote them into the shared run folder).

    Never raises for a match's own trouble: a referee past ``deadline_s`` seconds is a
    ``timeout`` outcome, one that dies or answers garbage an ``error`` outcome (with the
    end of its standard error). A match that ``is_wanted`` no longer (asked before the
    referee is forked, then every :data:`CANCEL_CHECK_S`) is a ``cancelled:`` outcome. The
    referee's process group and its descendants are killed when this returns, whatever
    happened.
    """
    started = time.monotonic()
    try:
        zygote = shared_zygote()
    except ZygoteError as exc:
        return failed_outcome(job, str(exc), duration_s=time.monotonic() - started)
    if not is_wanted():  # cancelled before it started (or while the zygote started)
        return _cancelled(job, duration_s=time.monotonic() - started)
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    try:
        pid = zygote.spawn(stdin_r, stdout_w, stderr_w)
    except ZygoteError as exc:
        for fd in (stdin_w, stdout_r, stderr_r):
            os.close(fd)
        return failed_outcome(job, str(exc), duration_s=time.monotonic() - started)
    finally:
        for fd in (stdin_r, stdout_w, stderr_w):  # the referee's ends
            os.close(fd)
    referee = _process(pid)
    data: bytes | None = None
    try:
        try:
            call = RefereeCall(play, job, ship_files)
            payload = pickle.dumps(call, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:
            os.close(stdin_w)  # _exchange closes it otherwise
            raise
        data, stderr = _exchange(
            stdin_w, stdout_r, stderr_r, payload, started + deadline_s, is_wanted
        )
    finally:
        os.close(stdout_r)
        os.close(stderr_r)
        # A referee that sent its outcome has ended its match and stopped its bots; any
        # other is killed with everything below it. (The zygote removes its folder.)
        _kill(pid, referee, with_descendants=not data)
    duration = time.monotonic() - started
    if data is None and not is_wanted():
        return _cancelled(job, duration_s=duration)
    if data is None:
        return failed_outcome(
            job,
            f"timeout: the match ran past its deadline of {deadline_s:g} s on "
            f"{socket.gethostname()}; its referee and bots were killed",
            duration_s=duration,
            ended_reason="timeout",
        )
    try:
        outcome = pickle.loads(data)
    except Exception:  # anything unpickling a truncated stream may raise
        outcome = None
    if not isinstance(outcome, MatchOutcome):
        said = stderr.decode("utf-8", "replace").strip() or "no message"
        return failed_outcome(
            job, f"the referee ended without an outcome: {said}", duration_s=duration
        )
    return outcome


def _cancelled(job: MatchJob, *, duration_s: float) -> MatchOutcome:
    """The outcome of a match its host cancelled (nobody stores it: the host let it go)."""
    return failed_outcome(
        job,
        f"cancelled: the host no longer wanted the match on {socket.gethostname()}; "
        "its referee and bots, if any, were killed",
        duration_s=duration_s,
    )


def _process(pid: int) -> psutil.Process | None:
    """The referee as psutil sees it (its start time guards against a reused pid)."""
    try:
        return psutil.Process(pid)
    except psutil.NoSuchProcess:  # pragma: no cover - a referee done in microseconds
        return None  # it already finished (and the kernel reaped it)


def _exchange(
    stdin: int,
    stdout: int,
    stderr: int,
    payload: bytes,
    deadline: float,
    is_wanted: Callable[[], bool] = _always_wanted,
) -> tuple[bytes | None, bytes]:
    """Send ``payload`` (then close ``stdin``), read ``stdout`` to its end and keep the
    last :data:`STDERR_TAIL_BYTES` of ``stderr``; the output is None when ``deadline``
    (monotonic) passes first, or ``is_wanted`` (asked every :data:`CANCEL_CHECK_S`) says
    no."""
    chunks: list[bytes] = []
    tail = bytearray()
    pending = memoryview(payload)
    os.set_blocking(stdin, False)
    os.set_blocking(stderr, False)
    readers = [stdout, stderr]
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not is_wanted():
                return None, bytes(tail)
            writers = [stdin] if pending else []
            wait = min(left, CANCEL_CHECK_S)
            readable, writable, _ = select.select(readers, writers, [], wait)
            if writable:
                try:
                    pending = pending[os.write(stdin, pending) :]
                except BrokenPipeError:
                    pending = pending[:0]  # it died before reading: its output says why
                if not pending:
                    os.close(stdin)
                    stdin = -1
            if stderr in readable and not _keep_tail(stderr, tail):
                readers.remove(stderr)
            if stdout in readable:
                chunk = os.read(stdout, 1 << 20)
                if not chunk:
                    while stderr in readers and _keep_tail(stderr, tail):
                        continue  # what it wrote before it ended
                    return b"".join(chunks), bytes(tail)
                chunks.append(chunk)
    finally:
        if stdin >= 0:
            os.close(stdin)


def _keep_tail(stream: int, tail: bytearray) -> bool:
    """Read what ``stream`` holds into ``tail`` (cut to its last bytes); False at its end
    or when it holds nothing now."""
    try:
        chunk = os.read(stream, 1 << 16)
    except BlockingIOError:
        return False
    tail += chunk
    del tail[:-STDERR_TAIL_BYTES]
    return bool(chunk)


def _kill(pid: int, referee: psutil.Process | None, *, with_descendants: bool) -> None:
    """Kill the referee's process group and, if asked, the referee and every process below
    it (a referee killed at once may not have made its own group yet)."""
    below: list[psutil.Process] = []
    if with_descendants and referee is not None and referee.is_running():
        try:
            below = [referee, *referee.children(recursive=True)]
        except psutil.NoSuchProcess:  # pragma: no cover - it ended between the two calls
            below = []
    # No such group: the referee ended and left nothing in it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    for process in below:
        try:
            process.kill()
        except psutil.NoSuchProcess:  # pragma: no cover - a bot that ended by itself
            continue
    psutil.wait_procs(below, timeout=10)
