"""The referee: the process that plays one match of a cluster tournament (why a process of
its own, and how a worker's death takes its referees and bots with it: docs/cluster.md,
"How a match runs on a worker"; :mod:`arena.cluster.task` starts one).

It reads one pickled :class:`~arena.cluster.task.RefereeCall` from stdin, plays it in a
folder of its own, packs the match's files into the outcome (so a worker needs no shared
folder; where the run folder is shared, the match writes there) and writes the outcome,
pickled, to stdout; anything else printed goes to stderr, so the outcome arrives intact.

* ``python -m arena.cluster.referee [--parent PID] [--folder DIR]`` plays one job (a cold
  start that imports the whole arena first, a few hundred milliseconds);
* ``python -m arena.cluster.referee --zygote FD`` imports the arena once, then hands each
  request arriving on the Unix socket ``FD`` to a referee forked ahead of time (a few
  milliseconds, spent while the previous match plays). It stays single-threaded, so
  forking is safe, and exits when its worker does (the socket closes, or its parent
  changes).

Each referee starts a session of its own and dies with its parent (``PR_SET_PDEATHSIG``)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import os
import pickle
import select
import shutil
import signal
import socket
import struct
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO, NoReturn

from arena.bots.sandbox.select import probe
from arena.cluster.executor import die_with_parent
from arena.cluster.files import pack_files
from arena.cluster.job import failed_outcome
from arena.cluster.task import RefereeCall
from arena.cluster.zygote import READY, REQUEST
from arena.store.outcome import MatchOutcome
from engine._eval_tables import fill_tables

__all__ = ["main", "play_call"]

#: Exit codes: the job could not be read (2); anything else went wrong (1).
EXIT_BAD_JOB = 2
EXIT_FAILED = 1
#: How often a waiting zygote checks that its worker is still its parent, in seconds.
PARENT_CHECK_S = 1.0


def play_call(source: BinaryIO, sink: BinaryIO, folder: Path) -> int:
    """Read one pickled :class:`RefereeCall` from ``source``, play it with its files under
    ``folder`` (or in the job's own run folder when the call does not ship files), write
    the pickled outcome (files packed in) to ``sink``; the exit code."""
    try:
        call = pickle.load(source)
    except Exception as exc:  # anything unpickling may raise: the job is unreadable
        print(f"referee: cannot read the job: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_BAD_JOB
    if not isinstance(call, RefereeCall):
        print(f"referee: expected a RefereeCall, got {type(call).__name__}", file=sys.stderr)
        return EXIT_BAD_JOB
    job = dataclasses.replace(call.job, tournament_dir=folder) if call.ship_files else call.job
    outcome = call.play(job)
    if not isinstance(outcome, MatchOutcome):
        message = f"the match function returned {type(outcome).__name__}, not a MatchOutcome"
        outcome = failed_outcome(call.job, message, duration_s=0.0)
    try:
        if call.ship_files:
            outcome = dataclasses.replace(outcome, files=pack_files(job.match_dir))
    except ValueError as exc:  # the files would not fit in a message: say so, keep going
        outcome = failed_outcome(call.job, str(exc), duration_s=outcome.duration_s)
    pickle.dump(outcome, sink, protocol=pickle.HIGHEST_PROTOCOL)
    sink.flush()
    return 0


def _protected_stdout() -> BinaryIO:
    """The real standard output for the outcome alone; file descriptor 1 then points at
    standard error, so a stray ``print`` cannot corrupt the pickle."""
    sys.stdout.flush()
    sink = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    return sink


def _play_once(folder: Path | None) -> int:
    """Play the job on standard input (a cold start)."""
    sink = _protected_stdout()
    own = folder is None
    where = Path(tempfile.mkdtemp(prefix="arena-referee-")) if folder is None else folder
    try:
        return play_call(sys.stdin.buffer, sink, where)
    finally:
        sink.close()
        if own:
            shutil.rmtree(where, ignore_errors=True)


# ------------------------------------------------------------------------ the zygote


def serve(control: socket.socket) -> int:  # pragma: no cover - runs in the zygote process
    """Hand each request on ``control`` to a referee until the worker goes away.

    A spare referee is forked ahead of each request and waits for its streams: a request
    then costs passing three descriptors, and the fork of the next spare happens while the
    match plays.
    """
    root = Path(tempfile.mkdtemp(prefix="arena-referees-"))
    parent = os.getppid()
    # The kernel reaps the referees: nobody here waits for them (the task that asked for
    # one watches its output and kills its group).
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    referees: set[int] = set()
    spare: tuple[int, socket.socket] | None = None
    try:
        control.sendall(READY + os.fsencode(root))
        while True:
            if spare is None:
                spare = _fork_spare(control, root)
            readable, _, _ = select.select([control], [], [], PARENT_CHECK_S)
            if not readable:
                if os.getppid() != parent:
                    return 0  # the worker died and this process was adopted
                continue
            message, fds, _flags, _address = socket.recv_fds(control, 64, 3)
            if not message:
                return 0  # the worker closed the socket: it is gone
            pid, line = spare
            spare = None
            try:
                if message != REQUEST or len(fds) != 3:
                    raise OSError("not a request for a referee")
                socket.send_fds(line, [REQUEST], fds)
            except OSError:  # a bad request, or a spare that died: the task hears -1
                pid = -1
            finally:
                line.close()
                for fd in fds:
                    os.close(fd)
            control.sendall(struct.pack("!i", pid))
            if pid > 0:
                referees.add(pid)
            # While the referee plays: remove the folders of those that ended, here rather
            # than in the tasks, which are then free for their next match sooner.
            _sweep(root, referees)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _sweep(root: Path, referees: set[int]) -> None:  # pragma: no cover - in the zygote
    for pid in list(referees):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            referees.discard(pid)
            shutil.rmtree(root / str(pid), ignore_errors=True)


def _fork_spare(
    control: socket.socket, root: Path
) -> tuple[int, socket.socket]:  # pragma: no cover - in the zygote
    """A referee that waits for its streams on the returned socket."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        ours.close()
        _referee_child(control, theirs, root)
    theirs.close()
    return pid, ours


def _referee_child(
    control: socket.socket, line: socket.socket, root: Path
) -> NoReturn:  # pragma: no cover - runs in a forked referee
    code = EXIT_FAILED
    try:
        zygote = os.getppid()
        control.close()
        os.setsid()  # its own session and process group: the task kills the group
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the referee waits for its bots
        die_with_parent(zygote)
        message, fds, _flags, _address = socket.recv_fds(line, 64, 3)
        line.close()
        if message != REQUEST or len(fds) != 3:
            os._exit(0)  # the zygote ended before it needed this spare
        stdin_fd, stdout_fd, stderr_fd = fds
        os.dup2(stdin_fd, 0)
        os.dup2(stderr_fd, 2)
        os.dup2(stdout_fd, 1)
        for fd in fds:
            os.close(fd)
        sink = _protected_stdout()
        # The match creates its folder in here when it writes its first file.
        folder = root / str(os.getpid())
        with os.fdopen(0, "rb", closefd=False) as source:
            code = play_call(source, sink, folder)
        sink.close()
    except BaseException:
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m arena.cluster.referee``: see the module docstring."""
    parser = argparse.ArgumentParser(
        prog="python -m arena.cluster.referee",
        description="Play one pickled tournament job from stdin; the outcome goes to stdout.",
    )
    parser.add_argument("--parent", type=int, help="die when this process dies")
    parser.add_argument("--folder", type=Path, help="play here (default: a temporary folder)")
    parser.add_argument("--zygote", type=int, metavar="FD", help="fork referees on this socket")
    args = parser.parse_args(argv)
    if args.parent is not None:
        die_with_parent(args.parent)
    if args.zygote is not None:  # pragma: no cover - the zygote runs in its own process
        probe()  # once here (it runs bwrap), not in every referee
        fill_tables()  # the evaluator's tables, likewise: every referee ranks hands
        # Objects that exist now are never collected in a referee: its collector then
        # leaves their pages alone, and the fork's copy-on-write copies fewer of them.
        gc.freeze()
        with socket.socket(fileno=args.zygote) as control:
            return serve(control)
    return _play_once(args.folder)


if __name__ == "__main__":  # pragma: no cover - the module is run as a script
    sys.exit(main())
