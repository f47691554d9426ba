"""Talking to a bot process over its pipes: :class:`ProcessTransport`, the real
:class:`~arena.bots.transport.Transport`, after python-chess's ``chess/engine.py``:

* the bot runs in its own session and its whole tree is killed at the end
  (:mod:`arena.bots.process_tree`), so a Ctrl-C meant for the arena does not reach it and
  nothing it started outlives it;
* a thread drains its stderr into a :class:`CappedLog`, so a chatty bot never blocks on a
  full pipe;
* every wait has a deadline; how the process ended becomes a readable error.

Both conversation pipes are non-blocking and served by the thread that sends and reads
(the match loop; the buffers are :mod:`arena.bots.pipes`). Liveness is asked of the kernel
(``waitid``) only when reading meets the end of output, writing meets a closed pipe, or a
read finds no line by its deadline (an exited bot whose pipes a descendant keeps open
never sends EOF): at most once per decision.
"""

from __future__ import annotations

import contextlib
import logging
import select
import subprocess
import threading
import time
from collections.abc import Callable

from arena.bots.launcher import DirectLauncher, Launcher, LaunchSpec
from arena.bots.manifest import BotManifest
from arena.bots.pipes import InputBacklog, OutputLines
from arena.bots.process_tree import (
    ProcessTree,
    peek_returncode,
    start_bot_process,
)
from arena.bots.sandbox.confinement import Confinement, abandon, cpu_seconds_of
from arena.bots.stderr_log import DEFAULT_STDERR_CAP_BYTES, CappedLog
from arena.bots.transport import (
    BotStartError,
    Clock,
    ExitInfo,
    TransportClosedError,
    split_returncode,
)
from protocol.framing import DEFAULT_MAX_LINE_BYTES

__all__ = [
    "DEFAULT_MAX_INPUT_BACKLOG_BYTES",
    "DEFAULT_MAX_PENDING_BYTES",
    "ProcessTransport",
    "process_factory",
]

logger = logging.getLogger("arena.bots")

#: Unread stdout lines held for one bot (one turn's budget); more is dropped and counted.
DEFAULT_MAX_PENDING_BYTES = 1024 * 1024

#: Messages not yet taken by a bot that has stopped reading its stdin; beyond this the bot
#: counts as gone (a sane bot reads every message as it comes).
DEFAULT_MAX_INPUT_BACKLOG_BYTES = 16 * 1024 * 1024

_EOF_EXIT_WAIT_S = 0.25  # after end of output, how long to wait for the exit status
_STDERR_DRAIN_WAIT_S = 0.5  # after an exit, how long to wait for the rest of its stderr
_SUPERVISOR_STOP_S = 1.0  # how long a sandbox's supervisor may take to kill its tree
_POLL_INTERVAL_S = 0.005
_MAX_POLL_MS = 3_600_000.0  # one poll waits at most an hour (poll takes a C int of ms)


class ProcessTransport:
    """One running bot process (see the module docstring); use :meth:`start`.

    Not thread-safe: one thread sends and reads (the match loop); only the stderr drain
    runs on a thread of its own.
    """

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
        confinement: Confinement | None = None,
    ) -> None:
        stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
        assert stdin is not None and stdout is not None and stderr is not None, "pipes needed"
        self._streams = (stdin, stdout, stderr)
        self.process = process
        self.pid = process.pid
        self.token = token
        self._tree = ProcessTree(process.pid, token)
        # A sandboxed bot's watch and private directory (None for a bot run as it is).
        self._confinement = confinement
        self.name = name
        self.clock = clock
        self.stderr_log = CappedLog(stderr_cap_bytes)
        self._poller = select.poll()
        self._stdout = OutputLines(
            stdout.fileno(),
            self._poller,
            max_line_bytes=max_line_bytes,
            max_pending_bytes=max_pending_bytes,
        )
        self._stdin = InputBacklog(
            stdin.fileno(),
            self._poller,
            max_backlog_bytes=max_input_backlog_bytes,
            on_broken=lambda: self._wait_exit_status(_EOF_EXIT_WAIT_S),
        )
        self._status: int | None = None  # the exit status, once seen (it never changes)
        self._exit_info: ExitInfo | None = None
        self._stderr_thread = threading.Thread(
            target=self.stderr_log.capture,
            args=(stderr.fileno(),),
            name=f"{name}-stderr",
            daemon=True,
        )
        self._stderr_thread.start()

    @classmethod
    def start(
        cls,
        manifest: BotManifest,
        *,
        launcher: Launcher | None = None,
        clock: Clock = time.monotonic,
    ) -> ProcessTransport:
        """Launch the bot of ``manifest``; raise :class:`BotStartError` if it cannot run."""
        spec = (launcher or DirectLauncher()).prepare(manifest)
        return cls.from_spec(spec, name=manifest.name, clock=clock)

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
        """Launch exactly ``spec`` (no shell), tagged with a fresh :data:`TOKEN_VARIABLE`.

        A sandboxed spec (``resources``, ``private_dir``) has its tree watched while it runs
        and its private directory removed when it is closed.
        """
        try:
            process, token = start_bot_process(spec)
        except OSError as exc:
            abandon(spec)  # its private directory and cgroup
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
            confinement=Confinement.of_spec(process.pid, spec),
        )

    # -- the Transport protocol ----------------------------------------------------------

    @property
    def is_alive(self) -> bool:
        """True while the process has not exited."""
        return self._exit_info is None and self._exit_status() is None

    def send(self, data: bytes) -> None:
        """Write ``data`` as far as the pipe takes it now and keep the rest; never blocks.

        Raises :class:`TransportClosedError` when the bot is known to be gone, has closed
        its stdin, or has left more than ``max_input_backlog_bytes`` untaken.
        """
        if self._exit_info is not None:
            raise TransportClosedError(f"bot {self.name!r} was closed")
        stdin = self._stdin
        if stdin:
            stdin.flush()
        if stdin.failure is not None or self._status is not None or not stdin.write(data):
            raise self._input_error()

    def has_output(self) -> bool:
        """True when a line, or the end of output, can be read without waiting.

        Input still waiting for the pipe is written meanwhile, as while waiting for output;
        output the poll finds is read at once (see below).
        """
        stdout = self._stdout
        if stdout.has_line or stdout.is_eof:
            return True
        if not self._serve(self._poller.poll(0)):
            return False
        # Read what the poll found now: the reply the caller is waiting for is then there
        # for read_line without a second poll (one system call less per decision).
        stdout.read()
        return True

    def read_line(self, deadline: float) -> bytes | None:
        """The next line before ``deadline`` (a ``clock`` value), else None."""
        if self._exit_info is not None:
            raise TransportClosedError(f"bot {self.name!r} was closed")
        stdout = self._stdout
        while not stdout.has_line:
            if stdout.is_eof:
                # The end of output stays the end: every later read says so again.
                status = self._wait_exit_status(_EOF_EXIT_WAIT_S)
                what = "closed its output" if status is None else "exited"
                raise self._closed_error(what, status)
            if not self._wait_for_output(deadline):
                # An exited bot whose pipes a descendant keeps open never sends EOF.
                status = self._exit_status()
                if status is not None:
                    raise self._closed_error("exited", status)
                return None
            stdout.read()
        return stdout.take()

    def close(self, grace_s: float) -> ExitInfo:
        """Close stdin, wait up to ``grace_s`` for the exit, then kill the process tree."""
        if self._exit_info is not None:
            return self._exit_info
        # Who belongs to the bot, seen while it still runs: its children are orphaned
        # (and no longer its descendants) once it exits.
        self._tree.note_descendants()
        status = self._let_exit(time.monotonic() + grace_s)
        is_killed = status is None
        confinement = self._confinement
        if is_killed and confinement is not None and confinement.has_supervisor:
            # A supervisor takes the whole tree down, orphans included, before it exits.
            confinement.ask_to_stop()
            self._wait_exit_status(_SUPERVISOR_STOP_S)
        # The leader is not reaped yet, so its pid is still its group's id.
        self._tree.kill()
        returncode = self.process.wait()
        self._stderr_thread.join(timeout=1.0)
        for stream in self._streams:
            with contextlib.suppress(OSError):
                stream.close()
        exit_code, signal_number = split_returncode(returncode)
        limit_reason, limit_detail = (
            (None, "") if confinement is None else confinement.release(signal_number, exit_code)
        )
        self._exit_info = ExitInfo(
            exit_code=exit_code,
            signal=signal_number,
            stdout_dropped_bytes=self._stdout.dropped_bytes,
            stderr_dropped_bytes=self.stderr_log.dropped_bytes,
            stderr_tail=self.stderr_log.tail_text(),
            is_killed=is_killed,
            limit_reason=limit_reason,
            limit_detail=limit_detail,
        )
        logger.debug("closed bot %r pid %d: %s", self.name, self.pid, self._exit_info.describe())
        return self._exit_info

    # -- extras ----------------------------------------------------------------------------

    def cpu_seconds(self) -> float:
        """CPU time of the bot's whole tree so far (its cgroup's count, where it has one)."""
        return cpu_seconds_of(self.pid, self._confinement)

    @property
    def stdout_dropped_bytes(self) -> int:
        """Bytes of stdout lines dropped because too much output was unread."""
        return self._stdout.dropped_bytes

    @property
    def input_backlog_bytes(self) -> int:
        """Bytes sent that the bot has not taken from its stdin yet."""
        return self._stdin.size

    # -- stdout ----------------------------------------------------------------------------

    def _wait_for_output(self, deadline: float) -> bool:
        """Wait until stdout can be read (True) or ``deadline`` passes (False).

        Meanwhile the input backlog is written as the bot takes it.
        """
        poll = self._poller.poll
        while True:
            timeout_ms = min(max(0.0, (deadline - self.clock()) * 1000.0), _MAX_POLL_MS)
            events = poll(timeout_ms)
            if not events:
                if timeout_ms < _MAX_POLL_MS:
                    return False
                continue  # pragma: no cover - a deadline over an hour away
            if self._serve(events):
                return True

    def _serve(self, events: list[tuple[int, int]]) -> bool:
        """Write waiting input where ``events`` (a poll's) say stdin takes it; True when
        they say stdout can be read."""
        is_readable = False
        for fd, _ in events:
            if fd == self._stdout.fd:
                is_readable = True
            else:
                self._stdin.flush()
        return is_readable

    # -- stdin -----------------------------------------------------------------------------

    def _input_error(self) -> TransportClosedError:
        if self._status is not None:
            return self._closed_error("exited", self._status)
        return self._closed_error(self._stdin.failure or "closed its stdin", None)

    # -- the end -----------------------------------------------------------------------------

    def _let_exit(self, deadline: float) -> int | None:
        """Write the rest of the input, close stdin and wait for the exit until ``deadline``.

        The bot's output is read and thrown away meanwhile, so that a bot saying goodbye
        on a full pipe can still exit. Returns the exit status, None if still running.
        """
        poller = self._poller
        is_stdin_open = True
        while True:
            if is_stdin_open and not self._stdin:
                is_stdin_open = False
                with contextlib.suppress(OSError):
                    self._streams[0].close()  # a polite bot exits at the end of its input
            status = self._exit_status()
            remaining = deadline - time.monotonic()
            if status is not None or remaining <= 0:
                if is_stdin_open:
                    self._stdin.drop()
                return status
            for fd, _ in poller.poll(min(remaining, _POLL_INTERVAL_S) * 1000.0):
                if fd == self._stdout.fd:
                    self._stdout.discard()
                else:
                    self._stdin.flush()

    # -- exit status without reaping ----------------------------------------------------

    def _exit_status(self) -> int | None:
        """The returncode (negative for a signal) if the process exited, without reaping."""
        if self._status is None:
            self._status = peek_returncode(self.process)
        return self._status

    def _wait_exit_status(self, timeout_s: float) -> int | None:
        deadline = time.monotonic() + timeout_s
        while (status := self._exit_status()) is None and time.monotonic() < deadline:
            time.sleep(_POLL_INTERVAL_S)
        return status

    def _closed_error(self, what: str, status: int | None) -> TransportClosedError:
        if self._confinement is not None:  # the watch may have stopped it
            what += self._confinement.describe_breach()
        if status is not None:
            # The bot has exited: what it printed last before dying (often why) may still be
            # in the pipe, not yet drained by the stderr thread. Wait for the drain to see
            # the end of stderr (quick: the writer is gone), at most a moment, since a
            # descendant may keep the pipe open.
            self._stderr_thread.join(timeout=_STDERR_DRAIN_WAIT_S)
        return TransportClosedError.of_bot(self.name, what, status, self.stderr_log.tail_text(300))


def process_factory(
    manifest: BotManifest,
    *,
    launcher: Launcher | None = None,
    on_start: Callable[[ProcessTransport], None] | None = None,
) -> Callable[[], ProcessTransport]:
    """A ``transport_factory`` for a :class:`~arena.session.watchdog.BotSession`: each call
    starts the bot, and ``on_start`` sees it (e.g. to save its stderr log at the end)."""

    def start() -> ProcessTransport:
        transport = ProcessTransport.start(manifest, launcher=launcher)
        if on_start is not None:
            on_start(transport)
        return transport

    return start
