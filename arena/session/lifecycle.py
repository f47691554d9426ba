"""Starting, restarting and stopping one seat's bot, within its restart budget.

A :class:`BotLifecycle` owns the seat's transport while a bot runs. It starts a bot
(``hello``, wait for ``ready``), records how each process ended, restarts a bot that went
down between hands (one unit of the budget per attempt, successful or not), and stops it:
``match_end`` and a grace to exit, or killed at once when a match is aborted. A bot
that is still running when the grace after ``match_end`` is over is killed and recorded
(``ignored_match_end``): a well-behaved bot exits by itself. Once the budget is spent and
the bot is down, the seat sits out for the rest of the match.

Whenever a process is closed, what it wrote to stderr goes to the seat's
:class:`~arena.session.stderr_file.SeatStderrLog` when there is one (a match with an
output folder), so the file holds every process of the seat, restarts included.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from arena.bots.transport import BotStartError, Clock, ExitInfo, Transport, TransportClosedError
from arena.session.channel import Channel
from arena.session.faults import FaultKind, FaultRecorder
from arena.session.handshake import ReadyInfo, StartupFailure, await_ready
from arena.session.policy import TimeLimits
from arena.session.stderr_file import HasStderrLog, SeatStderrLog

__all__ = ["BotLifecycle"]

logger = logging.getLogger("arena.bots")


class BotLifecycle:
    """One seat's bot processes, one at a time (see the module docstring).

    ``next_seq`` numbers the ``hello`` like every other request of the seat; ``channel``
    holds the lines to send with the next write (``match_end`` takes them along).
    """

    def __init__(
        self,
        transport_factory: Callable[[], Transport],
        *,
        faults: FaultRecorder,
        channel: Channel,
        limits: TimeLimits,
        clock: Clock,
        restart_budget: int,
        name: str,
        next_seq: Callable[[], int],
    ) -> None:
        self.transport_factory = transport_factory
        self.restart_budget = restart_budget
        self.restart_count = 0
        self.ready: ReadyInfo | None = None
        self.exit_infos: list[ExitInfo] = []  # how each process of this seat ended
        #: The running bot's transport (None while no bot runs).
        self.transport: Transport | None = None
        #: Where each closed process's stderr goes (None: nowhere).
        self.stderr_log: SeatStderrLog | None = None
        self._faults = faults
        self._channel = channel
        self._limits = limits
        self._clock = clock
        self._name = name
        self._next_seq = next_seq
        self._hello_fields: dict[str, Any] = {}

    @property
    def is_alive(self) -> bool:
        """True while the bot is running and answering is possible."""
        return self.transport is not None and self.transport.is_alive

    @property
    def is_sitting_out(self) -> bool:
        """True when the bot is down and the restart budget is spent."""
        return self.restart_count >= self.restart_budget and not self.is_alive

    def start(self, hello_fields: Mapping[str, Any]) -> ReadyInfo | None:
        """Start the bot, send ``hello`` and wait for ``ready``; None if that failed
        (recorded as a startup failure). The fields are kept for restarts."""
        self._hello_fields = dict(hello_fields)
        return self._launch()

    def restart(self) -> bool:
        """Start a bot that is down again, within the budget; True when it runs after.

        A crash nobody noticed yet is recorded first.
        """
        if self.is_alive:
            return True
        self.bury()
        if self.restart_count >= self.restart_budget:
            return False
        self.restart_count += 1
        self._faults.record(
            FaultKind.RESTART,
            code="restart",
            detail=f"restart {self.restart_count} of {self.restart_budget}",
        )
        return self._launch() is not None

    def finish(self, data: bytes) -> ExitInfo | None:
        """Send ``data`` (``match_end``, may be empty) after what is held, let the bot exit
        within the grace, then kill its tree. None if no bot was running; a bot found dead
        here (it died after its last message) is recorded as crashed, and one that had to
        be killed after ``match_end`` as ``ignored_match_end``."""
        transport = self.transport
        if transport is None:
            return None
        if not transport.is_alive:
            self.bury()
            return self.exit_infos[-1]
        if data or self._channel.has_held_lines:
            with contextlib.suppress(TransportClosedError):  # it is ending anyway
                transport.send(self._channel.take(data))
        grace_s = self._limits.match_end_grace_s
        info = self.close(grace_s)
        if data and info is not None and info.is_killed:
            self._faults.record(
                FaultKind.IGNORED_MATCH_END,
                "ignored match_end: killed after the grace",
                code=FaultKind.IGNORED_MATCH_END.value,
                detail=(
                    f"still running {round(grace_s * 1000)} ms after match_end; "
                    "its process tree was killed"
                ),
                exit_code=info.exit_code,
                signal=info.signal,
            )
        return info

    def close(self, grace_s: float = 0.0) -> ExitInfo | None:
        """Stop the bot (after ``grace_s`` to exit by itself); how it ended, or None."""
        transport = self.transport
        if transport is None:
            return None
        self.transport = None
        self._channel.clear()  # for a bot that is gone
        info = transport.close(grace_s)
        self.exit_infos.append(info)
        if self.stderr_log is not None and isinstance(transport, HasStderrLog):
            self.stderr_log.add(transport.stderr_log)
        if info.dropped_bytes:
            self._faults.dropped_output(info)
        return info

    def send(self, data: bytes, *, take_held: bool = True) -> bool:
        """Write ``data`` to the running bot, after the lines the channel holds in one
        write (unless not ``take_held``: a reply's ``error`` goes out alone). A bot found
        dead is recorded as crashed and its tree killed: False."""
        transport = self.transport
        assert transport is not None
        try:
            transport.send(self._channel.take(data) if take_held else data)
        except TransportClosedError as exc:
            self.crashed(exc)
            return False
        return True

    def crashed(self, exc: TransportClosedError) -> None:
        """Record a crash and kill what is left of the bot."""
        self._faults.crash(exc, self.close())

    def bury(self) -> None:
        """A transport whose bot died without anyone noticing: record the crash."""
        transport = self.transport
        if transport is None or transport.is_alive:
            return
        self.crashed(TransportClosedError(f"bot {self._name!r} exited between hands"))

    def _launch(self) -> ReadyInfo | None:
        """Start a transport, hello, wait for ready; on failure record it and clean up."""
        self.ready = None
        try:
            transport = self.transport_factory()
        except BotStartError as exc:
            self._faults.record(
                FaultKind.STARTUP_FAILURE,
                f"cannot start: {exc}",
                code="cannot_start",
                detail=str(exc),
            )
            return None
        self.transport = transport
        seq = self._next_seq()
        hello = dict(self._hello_fields)
        # The wire form of the limits, as a JSON object (protocol.messages.hello's way).
        hello.setdefault("time_limits", self._limits.to_wire().to_wire())
        hello.update(type="hello", seq=seq)
        outcome = await_ready(
            transport,
            hello,
            seq=seq,
            limits=self._limits,
            clock=self._clock,
            on_dropped=self._faults.dropped,
        )
        if isinstance(outcome, StartupFailure):
            self._faults.startup_failure(
                outcome.code,
                outcome.detail,
                self.close(),
                latency_ms=outcome.latency_ms,
                exit_code=outcome.exit_code,
                signal=outcome.signal,
            )
            return None
        self.ready = outcome
        logger.debug(
            "%s (seat %d): ready as %r in %.1f ms",
            self._faults.player_id,
            self._faults.seat_index,
            outcome.name,
            outcome.latency_ms,
        )
        return outcome
