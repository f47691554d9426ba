"""A bot as an operating-system process: its own session, bounded pipes, a tree kill.

What python-chess's ``chess/engine.py`` taught about driving engines over a line protocol,
applied here:

* the bot runs in its own session (``start_new_session=True``), so a Ctrl-C meant for the
  arena does not reach it and the whole process group can be killed at once;
* its stderr is drained all the time by a thread, into a :class:`CappedLog` (head and tail
  kept, the rest counted), so a chatty bot never blocks on a full pipe;
* its stdout is read by one thread through :class:`protocol.framing.LineReader`: a line
  over ``max_line_bytes`` is the bot's fault, and at most ``max_pending_bytes`` of unread
  lines are held (the budget of one turn), further lines are dropped and counted;
* input is written by a thread, so a bot that stops reading cannot block the arena;
* every wait has a deadline, and how the process ended becomes a readable error
  (``exit code 3``, ``killed by signal 11 (SIGSEGV)``).

At the end, :meth:`ProcessTransport.close` closes the bot's stdin, waits ``grace_s`` for it
to exit, then kills its process group and every descendant psutil can see. Until that kill
the exited leader is not reaped (``waitid(WNOWAIT)``), so its pid, which is also the group
id, cannot have been reused by an unrelated process when the group is killed. A descendant
that left the group (``setsid``) and was orphaned when the bot exited is no descendant
any more; it is found by the environment variable :data:`TOKEN_VARIABLE`, which every
bot process gets with a value of its own and its children inherit.

:func:`measure_startup` times how long a bot takes from ``exec`` to its ``ready``.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import queue
import secrets
import signal
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from arena.launcher import DirectLauncher, Launcher, LaunchSpec
from arena.manifest import BotManifest
from arena.stderr_log import DEFAULT_STDERR_CAP_BYTES, CappedLog
from arena.transport import BotStartError, Clock, ExitInfo, TransportClosedError
from protocol.framing import DEFAULT_MAX_LINE_BYTES, LineReader, LineTooLongError

__all__ = [
    "DEFAULT_MAX_INPUT_BACKLOG_BYTES",
    "DEFAULT_MAX_PENDING_BYTES",
    "TOKEN_VARIABLE",
    "ProcessTransport",
    "StartupTiming",
    "kill_process_tree",
    "measure_startup",
    "process_factory",
]

logger = logging.getLogger("arena.bots")

#: Unread stdout held for one bot (one turn's budget); more is dropped and counted.
DEFAULT_MAX_PENDING_BYTES = 1024 * 1024

#: Messages not yet taken by a bot that has stopped reading its stdin; beyond this the bot
#: counts as gone (a sane bot reads every message as it comes).
DEFAULT_MAX_INPUT_BACKLOG_BYTES = 16 * 1024 * 1024

#: Set in every bot process's environment to a value of its own, to find its descendants.
TOKEN_VARIABLE = "POKER_ARENA_BOT_TOKEN"

_CHUNK = 64 * 1024
_EOF_EXIT_WAIT_S = 0.25  # after end of output, how long to wait for the exit status
_POLL_S = 0.005


class _Marker(enum.Enum):
    TOO_LONG = "too_long"
    EOF = "eof"


_Item = bytes | _Marker


class ProcessTransport:
    """One running bot process (see the module docstring); use :meth:`start`."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        *,
        name: str,
        token: str | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES,
        max_input_backlog_bytes: int = DEFAULT_MAX_INPUT_BACKLOG_BYTES,
        stderr_cap_bytes: int = DEFAULT_STDERR_CAP_BYTES,
        clock: Clock = time.monotonic,
    ) -> None:
        self.process = process
        self.pid = process.pid
        self.token = token
        try:
            self._created = psutil.Process(process.pid).create_time()
        except psutil.Error:  # pragma: no cover - gone already; the token scan needs no bound
            self._created = 0.0
        self.name = name
        self.clock = clock
        self.stderr_log = CappedLog(stderr_cap_bytes)
        self.max_pending_bytes = max_pending_bytes
        self.max_input_backlog_bytes = max_input_backlog_bytes
        self._line_reader = LineReader(max_line_bytes)
        self._lines: queue.Queue[_Item] = queue.Queue()
        self._lock = threading.Lock()
        self._pending_bytes = 0
        self._stdout_dropped_bytes = 0
        self._is_eof = False
        self._inputs: queue.Queue[bytes | None] = queue.Queue()
        self._input_backlog = 0
        self._is_stdin_broken = False
        self._exit_info: ExitInfo | None = None
        self._threads = [
            threading.Thread(target=self._read_stdout, name=f"{name}-stdout", daemon=True),
            threading.Thread(target=self._drain_stderr, name=f"{name}-stderr", daemon=True),
            threading.Thread(target=self._write_stdin, name=f"{name}-stdin", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @classmethod
    def start(
        cls,
        manifest: BotManifest,
        *,
        launcher: Launcher | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES,
        max_input_backlog_bytes: int = DEFAULT_MAX_INPUT_BACKLOG_BYTES,
        stderr_cap_bytes: int = DEFAULT_STDERR_CAP_BYTES,
        clock: Clock = time.monotonic,
    ) -> ProcessTransport:
        """Launch the bot of ``manifest``; raise :class:`BotStartError` if it cannot run."""
        spec = (launcher or DirectLauncher()).prepare(manifest)
        return cls.from_spec(
            spec,
            name=manifest.name,
            max_line_bytes=max_line_bytes,
            max_pending_bytes=max_pending_bytes,
            max_input_backlog_bytes=max_input_backlog_bytes,
            stderr_cap_bytes=stderr_cap_bytes,
            clock=clock,
        )

    @classmethod
    def from_spec(
        cls,
        spec: LaunchSpec,
        *,
        name: str,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES,
        max_input_backlog_bytes: int = DEFAULT_MAX_INPUT_BACKLOG_BYTES,
        stderr_cap_bytes: int = DEFAULT_STDERR_CAP_BYTES,
        clock: Clock = time.monotonic,
    ) -> ProcessTransport:
        """Launch exactly ``spec`` (no shell), tagged with a fresh :data:`TOKEN_VARIABLE`."""
        token = secrets.token_hex(8)
        try:
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
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise BotStartError(
                f"cannot run bot {name!r}: {spec.argv[0]!r} in {str(spec.cwd)!r}: {reason}",
            ) from exc
        logger.debug("started bot %r pid %d: %s", name, process.pid, " ".join(spec.argv))
        return cls(
            process,
            name=name,
            token=token,
            max_line_bytes=max_line_bytes,
            max_pending_bytes=max_pending_bytes,
            max_input_backlog_bytes=max_input_backlog_bytes,
            stderr_cap_bytes=stderr_cap_bytes,
            clock=clock,
        )

    # -- the Transport protocol ----------------------------------------------------------

    @property
    def is_alive(self) -> bool:
        """True while the process has not exited."""
        return self._exit_info is None and self._exit_status() is None

    def send(self, data: bytes) -> None:
        """Queue ``data`` for the writer thread; raise if the bot is known to be gone."""
        if self._exit_info is not None:
            raise TransportClosedError(f"bot {self.name!r} was closed")
        status = self._exit_status()
        if status is not None:
            raise self._closed_error("exited", status)
        if self._is_stdin_broken:
            raise self._closed_error("closed its stdin", status)
        with self._lock:
            if self._input_backlog + len(data) > self.max_input_backlog_bytes:
                raise TransportClosedError(
                    f"bot {self.name!r} stopped reading its input "
                    f"({self._input_backlog} bytes not taken)",
                )
            self._input_backlog += len(data)
        self._inputs.put(data)

    def read_line(self, deadline: float) -> bytes | None:
        """The next line before ``deadline`` (a ``clock`` value), else None."""
        timeout = deadline - self.clock()
        try:
            item = self._lines.get(timeout=timeout) if timeout > 0 else self._lines.get_nowait()
        except queue.Empty:
            # An exited bot whose pipes a descendant keeps open never sends EOF.
            status = self._exit_status()
            if status is not None:
                raise self._closed_error("exited", status) from None
            return None
        if isinstance(item, bytes):
            with self._lock:
                self._pending_bytes -= len(item)
            return item
        if item is _Marker.TOO_LONG:
            raise LineTooLongError(self._line_reader.max_line_bytes)
        self._lines.put(_Marker.EOF)  # the end of output stays the end
        status = self._wait_exit_status(_EOF_EXIT_WAIT_S)
        raise self._closed_error("closed its output" if status is None else "exited", status)

    def close(self, grace_s: float) -> ExitInfo:
        """Close stdin, wait up to ``grace_s`` for the exit, then kill the process tree."""
        if self._exit_info is not None:
            return self._exit_info
        # Who belongs to the bot, seen while it still runs: its children are orphaned
        # (and no longer its descendants) once it exits.
        descendants = _descendants(self.pid)
        self._inputs.put(None)  # the writer closes stdin: a polite bot exits on EOF
        status = self._wait_exit_status(grace_s)
        is_killed = status is None
        descendants = _unique([*descendants, *_descendants(self.pid), *self._tagged()])
        # The leader is not reaped yet, so its pid is still this group's id.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        kill_process_tree(self.pid, descendants)
        returncode = self.process.wait()
        for thread in self._threads:
            thread.join(timeout=1.0)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        exit_code, signal_number = _split_returncode(returncode)
        self._exit_info = ExitInfo(
            exit_code=exit_code,
            signal=signal_number,
            stdout_dropped_bytes=self._stdout_dropped_bytes,
            stderr_dropped_bytes=self.stderr_log.dropped_bytes,
            stderr_tail=self.stderr_log.tail_text(),
            is_killed=is_killed,
        )
        logger.debug("closed bot %r pid %d: %s", self.name, self.pid, self._exit_info.describe())
        return self._exit_info

    # -- extras ----------------------------------------------------------------------------

    @property
    def stdout_dropped_bytes(self) -> int:
        """Bytes of stdout lines dropped because too much output was unread."""
        with self._lock:
            return self._stdout_dropped_bytes

    # -- threads -------------------------------------------------------------------------

    def _read_stdout(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        fd = stream.fileno()
        data = b"x"
        while data:
            try:
                data = os.read(fd, _CHUNK)
            except OSError:
                data = b""
            self._take(data)
        self._lines.put(_Marker.EOF)

    def _take(self, data: bytes) -> None:
        while True:
            try:
                self._keep(self._line_reader.feed(data))
                return
            except LineTooLongError as exc:
                self._keep(exc.lines)
                self._lines.put(_Marker.TOO_LONG)
                # The reader kept what followed the long line: get it out before more data.
                data = b""

    def _keep(self, lines: list[bytes]) -> None:
        for line in lines:
            with self._lock:
                if self._pending_bytes + len(line) > self.max_pending_bytes:
                    self._stdout_dropped_bytes += len(line) + 1
                    continue
                self._pending_bytes += len(line)
            self._lines.put(line)

    def _drain_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        fd = stream.fileno()
        while True:
            try:
                data = os.read(fd, _CHUNK)
            except OSError:
                return
            if not data:
                return
            self.stderr_log.write(data)

    def _write_stdin(self) -> None:
        stream = self.process.stdin
        assert stream is not None
        fd = stream.fileno()
        try:
            while (data := self._inputs.get()) is not None:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                with self._lock:
                    self._input_backlog -= len(data)
        except OSError:  # EPIPE: the bot closed its stdin or died
            self._is_stdin_broken = True
        finally:
            with contextlib.suppress(OSError):
                stream.close()

    # -- exit status without reaping ----------------------------------------------------

    def _exit_status(self) -> int | None:
        """The returncode (negative for a signal) if the process exited, without reaping."""
        if self.process.returncode is not None:
            return self.process.returncode
        if not hasattr(os, "waitid"):  # pragma: no cover - macOS: reap, a tiny pid-reuse risk
            return self.process.poll()
        try:
            result = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # pragma: no cover - reaped elsewhere
            return self.process.poll()
        if result is None:
            return None
        if result.si_code == os.CLD_EXITED:
            return result.si_status
        return -result.si_status

    def _wait_exit_status(self, timeout_s: float) -> int | None:
        deadline = time.monotonic() + timeout_s
        while (status := self._exit_status()) is None and time.monotonic() < deadline:
            time.sleep(_POLL_S)
        return status

    def _closed_error(self, what: str, status: int | None) -> TransportClosedError:
        exit_code, signal_number = (None, None) if status is None else _split_returncode(status)
        info = ExitInfo(exit_code=exit_code, signal=signal_number)
        how = "" if status is None else f" ({info.describe()})"
        tail = self.stderr_log.tail_text(300).strip()
        said = f"; its stderr ends with: {tail!r}" if tail else ""
        return TransportClosedError(
            f"bot {self.name!r} {what}{how}{said}",
            exit_code=exit_code,
            signal=signal_number,
        )

    def _tagged(self) -> list[psutil.Process]:
        """Processes carrying this bot's token, started no earlier than the bot."""
        if self.token is None:
            return []
        found = []
        for proc in psutil.process_iter(["create_time"]):
            # Reading an environment is the costly part: skip what is older than the bot.
            created = proc.info.get("create_time")
            if proc.pid == self.pid or created is None or created < self._created - 1.0:
                continue
            try:
                if proc.environ().get(TOKEN_VARIABLE) == self.token:
                    found.append(proc)
            except psutil.Error:
                continue
        return found


def _unique(processes: list[psutil.Process]) -> list[psutil.Process]:
    return list({proc.pid: proc for proc in processes}.values())


def _split_returncode(returncode: int) -> tuple[int | None, int | None]:
    return (None, -returncode) if returncode < 0 else (returncode, None)


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def kill_process_tree(pid: int, descendants: list[psutil.Process] | None = None) -> None:
    """SIGKILL ``pid`` and its descendants (a snapshot taken first), then wait for them.

    Only processes the arena started are touched: the pid of a bot and what psutil lists
    as its descendants. Descendants that left the bot's process group (``setsid``) are
    caught here; those still in it are also caught by the caller's ``killpg``.
    """
    if descendants is None:
        descendants = _descendants(pid)
    targets = list(descendants)
    with contextlib.suppress(psutil.Error):
        targets.insert(0, psutil.Process(pid))
    for proc in targets:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    # Wait for the descendants only (the bot itself is reaped by its Popen). A zombie is
    # dead enough: reaping it is its new parent's job, which may never happen in a container.
    deadline = time.monotonic() + 1.0
    waiting = list(descendants)
    while waiting and time.monotonic() < deadline:
        waiting = [proc for proc in waiting if _is_running(proc)]
        if waiting:
            time.sleep(_POLL_S)


def _is_running(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def process_factory(
    manifest: BotManifest,
    *,
    launcher: Launcher | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES,
    stderr_cap_bytes: int = DEFAULT_STDERR_CAP_BYTES,
    on_start: Callable[[ProcessTransport], None] | None = None,
) -> Callable[[], ProcessTransport]:
    """A ``transport_factory`` for :class:`arena.session.BotSession`: each call starts the bot.

    ``on_start`` sees every new process (e.g. to save its stderr log at the end).
    """

    def start() -> ProcessTransport:
        transport = ProcessTransport.start(
            manifest,
            launcher=launcher,
            max_line_bytes=max_line_bytes,
            max_pending_bytes=max_pending_bytes,
            stderr_cap_bytes=stderr_cap_bytes,
        )
        if on_start is not None:
            on_start(transport)
        return transport

    return start


@dataclass(frozen=True, slots=True)
class StartupTiming:
    """How long a bot took from launch to its ``ready``, over several starts (seconds)."""

    bot_name: str
    samples_s: tuple[float, ...]

    @property
    def median_s(self) -> float:
        """The median start-up time."""
        return statistics.median(self.samples_s)

    @property
    def max_s(self) -> float:
        """The slowest start-up."""
        return max(self.samples_s)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form in milliseconds."""
        return {
            "bot": self.bot_name,
            "starts": len(self.samples_s),
            "median_ms": round(self.median_s * 1000, 3),
            "min_ms": round(min(self.samples_s) * 1000, 3),
            "max_ms": round(self.max_s * 1000, 3),
        }


def measure_startup(
    manifest: BotManifest | str | Path,
    *,
    repeats: int = 5,
    launcher: Launcher | None = None,
    timeout_s: float = 10.0,
    hello_fields: Mapping[str, Any] | None = None,
) -> StartupTiming:
    """Start the bot ``repeats`` times and time exec-to-``ready`` each time.

    Each start sends a ``hello`` and waits for a line that is a ``ready``; the process is
    closed (and killed if needed) before the next start. Raises ``RuntimeError`` when a
    start gives no ``ready`` within ``timeout_s``.
    """
    from arena.manifest import load_manifest
    from protocol.codec import decode, encode

    if not isinstance(manifest, BotManifest):
        manifest = load_manifest(manifest)
    hello: dict[str, Any] = {
        "type": "hello",
        "seq": 1,
        "protocol_version": 1,
        "supported_versions": [1],
        "player_id": "p0",
        "seat_index": 0,
        "game": {
            "variant": "holdem",
            "structure": "no_limit",
            "small_blind": 1,
            "big_blind": 2,
            "ante": 0,
            "seat_count": 2,
            "starting_stack": 200,
            "hand_count": 1,
        },
        "time_limits": {
            "startup_ms": int(timeout_s * 1000),
            "decision_ms": 5000,
            "time_bank_ms": 0,
        },
        **(hello_fields or {}),
    }
    samples: list[float] = []
    for _ in range(repeats):
        started = time.monotonic()
        transport = ProcessTransport.start(manifest, launcher=launcher)
        try:
            transport.send(encode(hello))
            deadline = started + timeout_s
            while True:
                line = transport.read_line(deadline)
                if line is None:
                    raise RuntimeError(f"bot {manifest.name!r} sent no ready in {timeout_s} s")
                with contextlib.suppress(Exception):
                    if decode(line).get("type") == "ready":
                        break
            samples.append(time.monotonic() - started)
        finally:
            transport.close(grace_s=1.0)
    return StartupTiming(manifest.name, tuple(samples))
