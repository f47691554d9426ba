"""A tournament's match on a cluster worker: the task, its referee, its files, its checks.

:func:`run_in_referee` is what a Dask task runs. Dask cannot stop a running task, so the
task plays nothing in its own thread: it has a referee process play the match
(:mod:`arena.tournament.referee`), waits for its outcome with a wall-clock deadline
(:func:`match_deadline`) and, whatever happened, kills the referee's whole process group
and the processes below it. A match past its deadline comes back as a failed outcome whose
``ended_reason`` is ``"timeout"`` and whose error starts with ``timeout:``; the host stores
it as a failed match (not counted) and the next run plays it again.

The referees are forked by a *zygote*, one per worker process, started by the check before
the first match: a process that imported the arena once, so that a referee costs a fork,
not a fresh interpreter (see :mod:`arena.tournament.referee`). The zygote exits when its
worker does.

Where the host's run folder is not shared with the worker, the referee plays in a folder
of its own and sends the match's files back inside the outcome (:func:`pack_files`,
compressed, at most :data:`MAX_FILES_BYTES`); the host writes them under
``<run>/matches/<id>/`` (:func:`unpack_files`) before it stores the outcome, so
``hands_path`` and the stderr logs' paths mean the same as for a local match. Where it is
shared (:func:`sees_file` finds out), the match writes there. :func:`check_bots_here` runs
on every worker before the first match: the bots must be at the same paths there.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import select
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

import psutil

from arena.bots.launcher import DirectLauncher
from arena.bots.manifest import ManifestError, load_manifest
from arena.bots.sandbox.select import SandboxLevel, SandboxUnavailableError, choose
from arena.tournament.outcome import MatchOutcome, SeatOutcome
from arena.tournament.worker import MatchJob

__all__ = [
    "MAX_FILES_BYTES",
    "RefereeCall",
    "Zygote",
    "ZygoteError",
    "check_bots_here",
    "close_zygote",
    "failed_outcome",
    "match_deadline",
    "pack_files",
    "run_in_referee",
    "sees_file",
    "unpack_files",
]

#: The module run as the referee (``python -m``).
REFEREE_MODULE = "arena.tournament.referee"
#: The zygote's first message (then its folder), and the request for one referee.
READY = b"ready "
REQUEST = b"run"
#: The most a match's files may weigh, compressed, on their way back to the host.
MAX_FILES_BYTES = 256 * 1024 * 1024
#: Seconds the zygote may take to import the arena and say it is ready, and to end.
ZYGOTE_START_S = 120.0
ZYGOTE_STOP_S = 10.0
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
    hands = config.hand_count if config.hand_count is not None else UNCAPPED_HANDS
    starts = seats * (config.restart_budget + 1) * config.startup_timeout_s
    decisions = hands * seats * DECISIONS_PER_HAND * config.decision_timeout_s
    return DEADLINE_MARGIN_S + starts + decisions + seats * config.time_bank_s


def failed_outcome(
    job: MatchJob, error: str, *, duration_s: float, ended_reason: str = "error"
) -> MatchOutcome:
    """The outcome of a match that could not be played to its end (not counted)."""
    return MatchOutcome(
        match_id=job.match_id,
        seats=tuple(
            SeatOutcome(seat_index=index, bot=name, chips_won=0, place=0, hands_played=0)
            for index, name in enumerate(job.bots)
        ),
        hands=(),
        ended_reason=ended_reason,
        hands_path=None,
        duration_s=duration_s,
        error=error,
    )


# ------------------------------------------------------------------------ the match's files


def pack_files(folder: Path) -> tuple[tuple[str, int, bytes], ...]:
    """Every regular file under ``folder`` as ``(relative path, mode, zlib bytes)``, in path
    order; nothing when the folder does not exist. Raises ``ValueError`` when the packed
    files exceed :data:`MAX_FILES_BYTES`."""
    if not folder.is_dir():
        return ()
    packed = []
    total = 0
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue  # a link could point anywhere on the worker: only the match's own files
        # The fastest level: a match's history shrinks about tenfold all the same.
        data = zlib.compress(path.read_bytes(), 1)
        total += len(data)
        if total > MAX_FILES_BYTES:
            raise ValueError(
                f"the match's files are more than {MAX_FILES_BYTES // 2**20} MiB compressed, "
                "too much to send back from a worker: play shorter blocks (block_deals)"
            )
        mode = stat.S_IMODE(path.stat().st_mode)
        packed.append((path.relative_to(folder).as_posix(), mode, data))
    return tuple(packed)


def unpack_files(files: Sequence[tuple[str, int, bytes]], folder: Path) -> None:
    """Write packed files into ``folder`` (emptied first: a match played again replaces its
    files). A path that would leave the folder or data that does not unpack is a
    ``ValueError`` naming it, and nothing more is written."""
    checked = []
    for name, mode, data in files:
        parts = PurePosixPath(name).parts
        if not parts or PurePosixPath(name).is_absolute() or ".." in parts:
            raise ValueError(f"a match file's path must stay in the match's folder: {name!r}")
        try:
            checked.append((parts, mode & 0o777, zlib.decompress(data)))
        except zlib.error as exc:
            raise ValueError(f"the match file {name!r} does not unpack: {exc}") from None
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for parts, mode, content in checked:
        path = folder.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Created with the mode it had on the worker (0600 for the files holding the seed)
        # so that it is never readable by others, not even for a moment.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)


# ------------------------------------------------------------------------ reachable bots


def check_bots_here(
    manifests: Sequence[Path], sandbox: str, *, working_dirs: Sequence[Path | None] = ()
) -> list[str]:
    """On a worker: what keeps the bots from starting here (empty when nothing does).

    Each manifest must be at the same path as on the host and readable (its working
    folder there too), and so must the folder the matches start the bot from: its built
    copy in the run folder (``working_dirs``, as in :class:`MatchJob`: the host builds each
    bot once, under the sandbox, and keeps the build in ``<run>/builds``), else its own;
    its program must be there. The sandbox layer must work here, and the referees' zygote
    must start (it is started now, so that the first match does not wait for it).
    """
    problems = []
    try:
        _shared_zygote()
    except ZygoteError as exc:
        problems.append(str(exc))
    try:
        choose(SandboxLevel(sandbox))
    except (SandboxUnavailableError, ValueError) as exc:
        problems.append(str(exc))
    launcher = DirectLauncher()
    for seat, path in enumerate(manifests):
        try:
            manifest = load_manifest(path)
        except ManifestError as exc:  # its message names the file (and a missing folder)
            problems.append(str(exc))
            continue
        built = working_dirs[seat] if seat < len(working_dirs) else None
        if built is not None:
            if not built.is_dir():
                why = "the run folder must be at the same path on every worker"
                problems.append(f"bot {manifest.name!r}: its build {built} is not here ({why})")
                continue
            manifest = replace(manifest, working_dir=built)
        program = launcher.prepare(manifest).argv[0]
        found = shutil.which(program) if os.sep not in program else program
        if found is None or not os.access(found, os.X_OK) or not os.path.isfile(found):
            problems.append(f"bot {manifest.name!r}: its program {program!r} is not here")
    return problems


def sees_file(path: Path, token: str) -> bool:
    """On a worker: whether ``path`` holds ``token`` and its folder is writable here, that
    is, whether the host's run folder, where it wrote the file, is shared with this worker
    (at the same path)."""
    try:
        return path.read_text(encoding="utf-8") == token and os.access(path.parent, os.W_OK)
    except (OSError, UnicodeDecodeError):
        return False


# ------------------------------------------------------------------------ the zygote


class ZygoteError(RuntimeError):
    """The zygote could not be started or stopped answering."""


class Zygote:
    """The client side of a zygote process (see :mod:`arena.tournament.referee`)."""

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


def _shared_zygote() -> Zygote:
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


# ------------------------------------------------------------------------ the task


def run_in_referee(
    play: Callable[[MatchJob], MatchOutcome],
    job: MatchJob,
    deadline_s: float,
    *,
    ship_files: bool = True,
) -> MatchOutcome:
    """Have a referee play ``job`` with ``play``; its outcome, with the match's files
    packed in when ``ship_files`` (else the match wrote them into the shared run folder).

    Never raises for a match's own trouble: a referee past ``deadline_s`` seconds is a
    ``timeout`` outcome, one that dies or answers garbage an ``error`` outcome (with the
    end of its standard error). The referee's process group and its descendants are
    killed when this returns, whatever happened.
    """
    started = time.monotonic()
    try:
        zygote = _shared_zygote()
    except ZygoteError as exc:
        return failed_outcome(job, str(exc), duration_s=time.monotonic() - started)
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
        data, stderr = _exchange(stdin_w, stdout_r, stderr_r, payload, started + deadline_s)
    finally:
        os.close(stdout_r)
        os.close(stderr_r)
        # A referee that sent its outcome has ended its match and stopped its bots; any
        # other is killed with everything below it. (The zygote removes its folder.)
        _kill(pid, referee, with_descendants=not data)
    duration = time.monotonic() - started
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


def _process(pid: int) -> psutil.Process | None:
    """The referee as psutil sees it (its start time guards against a reused pid)."""
    try:
        return psutil.Process(pid)
    except psutil.NoSuchProcess:  # pragma: no cover - a referee done in microseconds
        return None  # it already finished (and the kernel reaped it)


def _exchange(
    stdin: int, stdout: int, stderr: int, payload: bytes, deadline: float
) -> tuple[bytes | None, bytes]:
    """Send ``payload`` (then close ``stdin``), read ``stdout`` to its end and keep the
    last :data:`STDERR_TAIL_BYTES` of ``stderr``; the output is None when ``deadline``
    (monotonic) passes first."""
    chunks: list[bytes] = []
    tail = bytearray()
    pending = memoryview(payload)
    os.set_blocking(stdin, False)
    os.set_blocking(stderr, False)
    readers = [stdout, stderr]
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, bytes(tail)
            writers = [stdin] if pending else []
            readable, writable, _ = select.select(readers, writers, [], left)
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
