"""The luck estimate beside the match: a helper process on the other core, estimates back in order.

The estimate of a hand (:mod:`arena.luck`) is CPU work that nothing sent to a bot waits
for. A match estimates its hands itself by default, while the bots think; with the
switch :data:`USE_LUCK_PROCESS` on, a match with ``config.luck`` sends each hand (what
the estimate reads of its record: :func:`estimate_input`) to a process of its own
(:mod:`arena.match.luck_worker`) and goes on playing; the answers come back in the order
the hands were sent and are handed on (:meth:`LuckProcess.submit`'s ``then``) a few
hands later, when the match next sends a hand (never waiting for them) or at its end
(:meth:`LuckProcess.drain`, waiting). The numbers are the same as the match's own
estimate (the worker gets the very values the estimate reads, as :mod:`marshal` dumps
them, and its floats come back the same way), so the hand history and the results are
the same bytes with the process or without it (:data:`USE_LUCK_PROCESS`; a test checks
it).

The process is forked from the match's at the first hand sent (so it starts with the
estimator imported and the evaluator's tables filled: no interpreter to start, no
tables to fill again), is stopped by :meth:`LuckProcess.close` (which the match calls
whatever happened), and ends by itself at the end of its input, so it ends too when the
match's process is killed (the kernel closes the pipe). A process that fails (it ends,
answers nonsense, stops answering for :data:`STALL_S`) is killed and logged (a ``LUCK``
line at WARNING), and every hand sent and not answered, then every later one, is
estimated in the match's own process: the match's results are complete either way.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import marshal
import os
import select
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from arena.luck import HandLuck, LuckValue
from arena.luck.equity import prepare
from arena.luck.timeline import walk_input
from arena.match import luck_worker
from arena.match.log import LOGGER_NAME
from arena.match.records import HandRecord

__all__ = [
    "BATCH_HANDS",
    "MAX_LAG",
    "MIN_HANDS",
    "STALL_S",
    "USE_LUCK_PROCESS",
    "LuckProcess",
    "LuckProcessError",
    "estimate_input",
    "record_input",
]

#: The switch (read when a match is made): true sends a match's hands to the process,
#: false (the default) has the match estimate them in its own process, a value at a time
#: while the bots think. Chosen by measurement (docs/luck.md, "In a match"): the process
#: never showed a shorter wall time than estimating while the bots think (a quiet 2-core
#: machine: 1.036x luck off against 1.012x; loaded: 1.214x against 1.195x), and it costs
#: more instructions in all (the match's message and the answers' handling, besides the
#: estimate: 7.10 million a hand with its own against 6.89 million, luck off 5.96 million).
USE_LUCK_PROCESS = False

#: The fewest hands a match is to deal for its estimates to be made in the process: its
#: start and end (the fork, the copy-on-write faults of the match's pages, the wait for its
#: exit and for the last batch) cost a match about 20 ms of wall time on a 2-core machine
#: while the process saves about 0.1-0.2 ms a hand, so a shorter match estimates its hands
#: itself (bench_tournament: matches of 50 hands were faster without it, of 100 with it).
#: A freezeout (no hand count) is taken for long.
MIN_HANDS = 100

#: Hands sent and not answered at most; one more and the match waits for the oldest (a
#: bound on the memory held, never reached while the process keeps up).
MAX_LAG = 256

#: Hands sent together: the process wakes once for them, and its estimates then run
#: one after the other, warm (a process woken for every hand spends about half as much
#: again per hand: caches cold after each wait).
BATCH_HANDS = 16

#: Seconds without any answer, while the match waits for one, after which the process is
#: taken for hung (an estimate takes milliseconds).
STALL_S = 30.0

#: Seconds the process has to end once its input is closed, before it is killed.
CLOSE_S = 5.0

_CHUNK = 1 << 16
#: The pipes' size asked for: a batch of hands (a few kB each) in one write.
_PIPE_BYTES = 1 << 20
_LOG = logging.getLogger(LOGGER_NAME)


def record_input(record: HandRecord) -> dict[str, Any]:
    """What the luck estimate reads of ``record``, as the record's dict has it: the
    history, every decision that carries a reported distribution, and an empty object for
    each other decision (no action term: nothing of it is read; the indexes stay). Its
    estimate is the record's, bit for bit, without making the other decisions' dicts (a
    tenth of the cost of the record's whole dict: the match estimates on it in its own
    process)."""
    return {
        "decisions": [
            decision.to_dict() if decision.distribution is not None else {}
            for decision in record.decisions
        ],
        "history": record.history,
    }


def estimate_input(record: HandRecord, leans: Mapping[str, float] | None = None) -> dict[str, Any]:
    """What the estimator's process is sent of ``record``: :func:`record_input` with only
    the part of the history the walk reads (:func:`~arena.luck.timeline.walk_input`), and
    the players' ``leans`` the match estimates the hand with (those of its earlier hands)
    under ``leans`` when there are any: the process keeps no leans of its own, so that it
    needs no hand but the one it estimates. Its estimate
    (:func:`~arena.match.luck_worker.estimate`) is the record's with those leans, bit for
    bit, in a smaller message (a test checks it)."""
    data = record_input(record)
    data["history"] = walk_input(record.history)
    if leans:
        data["leans"] = dict(leans)
    return data


class LuckProcessError(Exception):
    """The estimator's process failed: it ended, answered what was not an estimate, or
    stopped answering."""


class LuckProcess:
    """Each hand line's estimate, made in a helper process (see the module docstring).

    ``game_id`` names the match in the log line of a failure; ``luck_value`` is the
    estimator's betting weights (None: the shipped ones), the match's own, used here and in
    the process alike. :attr:`cpu_s` is the process's CPU time (user and system) once it
    has been stopped.
    """

    def __init__(self, game_id: str, luck_value: LuckValue | None = None) -> None:
        self.game_id = game_id
        self.luck_value = luck_value
        self.cpu_s = 0.0
        self.failure: str | None = None
        self._pid: int | None = None
        self._to_child = -1  # our ends of the pipes while the process runs
        self._from_child = -1
        # Sent and not answered, in order: each hand's dump and what to do with its estimate.
        self._sent: deque[tuple[bytes, Callable[[HandLuck], None]]] = deque()
        self._unwritten = b""
        self._held: list[bytes] = []  # hands' frames held here until a batch is full
        self._unread = b""
        # Read back and not handed on yet, in order: one queue, so that a ``then`` that
        # sends a hand (the match's next task can) and so reads answers again hands them
        # on after the ones already read, never before.
        self._answered: deque[tuple[bytes, Callable[[HandLuck], None], HandLuck | None]] = deque()

    @property
    def pid(self) -> int | None:
        """The process's id while it runs (None before the first hand and after :meth:`close`)."""
        return self._pid

    def submit(self, hand: dict[str, Any], then: Callable[[HandLuck], None]) -> None:
        """Send one hand (what the estimate reads of its record, with the leans to estimate
        it with: :func:`estimate_input`); its estimate goes to ``then`` later, in the order
        sent. Hands whose estimates are back meanwhile are handed on when a batch is sent
        (:data:`BATCH_HANDS`); the match waits only when :data:`MAX_LAG` hands are
        unanswered. After a failure, the hand is estimated here, now."""
        if self.failure is not None:
            then(luck_worker.estimate(hand, self.luck_value))
            return
        if self._pid is None:
            self._start(hand)
        dump = marshal.dumps(hand)
        self._sent.append((dump, then))
        self._held.append(luck_worker.frame(dump))
        if len(self._held) >= BATCH_HANDS or len(self._sent) > MAX_LAG:
            self._release()
            self._exchange(wait=len(self._sent) > MAX_LAG)
        elif len(self._sent) > len(self._held):
            # A batch is out: its answers are read as soon as they are back (a read that
            # finds none costs a system call), so that its records, held until then, are
            # stored a batch sooner: fewer of them alive, fewer for the collector to walk.
            self._exchange(wait=False)

    def drain(self) -> None:
        """Hand on every estimate still to come, waiting for the process."""
        self._release()
        while self._sent:
            self._exchange(wait=True)

    def close(self) -> None:
        """Stop the process (its input closed: it ends; killed if it does not within
        :data:`CLOSE_S`). Safe to call at any time, more than once; hands not handed on
        are dropped (call :meth:`drain` first to keep them)."""
        pid, self._pid = self._pid, None
        if pid is None:
            return
        os.close(self._to_child)
        os.close(self._from_child)
        self.cpu_s = _reap(pid)

    # ------------------------------------------------------------------ the pipes

    def _start(self, first: dict[str, Any]) -> None:
        child_reads, self._to_child = os.pipe()
        self._from_child, child_writes = os.pipe()
        with contextlib.suppress(OSError):  # else the system's default size (64 kB)
            fcntl.fcntl(self._to_child, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        # Made once here for both (the match ranks its showdowns anyway), so that the
        # process starts with them: the tables, the samples' designs for the first hand's
        # players.
        prepare(_players(first))
        for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
            stream.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            luck_worker.run_child(child_reads, child_writes, self.luck_value)
        self._pid = pid
        os.close(child_reads)
        os.close(child_writes)
        # Never blocked by the process: what it has not read yet waits here, what it has
        # not answered yet is read later.
        os.set_blocking(self._to_child, False)
        os.set_blocking(self._from_child, False)

    def _exchange(self, *, wait: bool) -> None:
        """Write what waits to be written, read the answers back and hand them on; with
        ``wait``, until at least one is back. A failure hands every hand left to the
        estimate here."""
        failure: Exception | None = None
        try:
            while True:
                self._write()
                if self._read() or not wait:
                    break
                self._wait_for_pipes()
        except (OSError, ValueError, EOFError, LookupError, TypeError, LuckProcessError) as exc:
            failure = exc
        # Handed on outside the try: what ``then`` does (the store, the next task) is not
        # the process's failure. A hand the process refused is estimated here, to meet
        # the same error the match's own estimate would.
        answered = self._answered
        while answered:
            data, then, hand_luck = answered.popleft()
            then(hand_luck if hand_luck is not None else _estimate_here(data, self.luck_value))
        if failure is not None:
            self._fail(failure)

    def _release(self) -> None:
        """Let the hands held here be written (a batch is full, or the match ends)."""
        if self._held:
            self._unwritten += b"".join(self._held)
            self._held.clear()

    def _write(self) -> None:
        if self._unwritten:
            try:
                written = os.write(self._to_child, self._unwritten)
            except BlockingIOError:
                return
            self._unwritten = self._unwritten[written:]

    def _read(self) -> bool:
        """Queue the answers back since the last read, each with its hand (None:
        refused), as each is read (those read before a bad one are kept); True when
        there were any."""
        try:
            chunk = os.read(self._from_child, _CHUNK)
        except BlockingIOError:
            return False
        if not chunk:
            raise LuckProcessError("it ended")
        self._unread += chunk
        used = 0
        for dump, end in luck_worker.frames(self._unread):
            # Read before its hand leaves the queue: a hand without an answer stays in it.
            hand_luck = _hand_luck(marshal.loads(dump))
            data, then = self._sent.popleft()  # IndexError: an answer to no hand
            self._answered.append((data, then, hand_luck))
            used = end
        self._unread = self._unread[used:]
        return used > 0

    def _wait_for_pipes(self) -> None:
        writing = [self._to_child] if self._unwritten else []
        ready = select.select([self._from_child], writing, [], STALL_S)
        if not any(ready):
            raise LuckProcessError(f"no answer in {STALL_S:g} s")

    def _fail(self, failure: Exception) -> None:
        self.failure = f"{type(failure).__name__}: {failure}"
        _LOG.warning(
            "LUCK | the estimator's process failed (%s); the match estimates its %d hands "
            "waiting and every later hand itself",
            self.failure,
            len(self._sent),
            extra={"game_id": self.game_id},
        )
        if self._pid is not None:
            os.kill(self._pid, signal.SIGKILL)
        self.close()
        sent, self._sent = self._sent, deque()
        for data, then in sent:
            then(_estimate_here(data, self.luck_value))


def _reap(pid: int) -> float:
    """Wait for the process ``pid`` to end (killed after :data:`CLOSE_S`); its CPU time,
    from os.wait4 (0 when it was reaped already: children ignored with SIGCHLD)."""
    deadline = time.monotonic() + CLOSE_S
    try:
        while (ended := os.wait4(pid, os.WNOHANG))[0] == 0:
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                ended = os.wait4(pid, 0)
                break
            time.sleep(0.001)
    except ChildProcessError:
        return 0.0
    usage = ended[2]
    return usage.ru_utime + usage.ru_stime


def _players(hand: dict[str, Any]) -> int:
    """How many seats ``hand`` deals in (2 when it does not say: the estimate refuses it)."""
    history = hand.get("history")
    seats = history.get("seats") if isinstance(history, dict) else None
    if not isinstance(seats, list):
        return 2
    return sum(1 for seat in seats if isinstance(seat, dict) and not seat.get("is_sitting_out"))


def _estimate_here(dump: bytes, luck_value: LuckValue | None) -> HandLuck:
    """The estimate, made in this process, of a hand sent as ``dump``."""
    return luck_worker.estimate(marshal.loads(dump), luck_value)


def _hand_luck(answer: Any) -> HandLuck | None:
    """The estimate in one answer, None when the worker reported a refusal."""
    if isinstance(answer, str):
        return None
    if not isinstance(answer, tuple) or len(answer) != 3:
        raise LuckProcessError(f"an answer that is not an estimate: {answer!r}")
    estimator, raw, adjusted = answer
    return HandLuck(raw, adjusted, estimator)
