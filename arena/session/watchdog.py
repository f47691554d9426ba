"""The watchdog: one bot seen through one :class:`BotSession` (docs/faults.md says the same
for bot authors).

Theory of operation. A session owns one transport at a time (a process, or a function in
tests) and every conversation with it. It never raises for a bot's fault; every fault
becomes an entry of the seat's :class:`~arena.session.faults.FaultLedger` and a default action:

==================================  ==================================================
what the bot did                    what the session does
==================================  ==================================================
no ``ready`` within ``startup_s``   startup failure recorded; the bot is not running
no reply within ``decision_s``      timeout recorded with its latency; an ``error``
(+ time bank, + transport grace)    (code ``timeout``) tells the bot; the seat folds,
                                    or checks when it is free and ``check_when_free``
``hung_after_timeouts`` timeouts    hung recorded; the process tree is killed at once
in a row (no valid reply between)   (no ``error``); the seat folds as for a timeout and
                                    in the rest of the hand; the match restarts the bot
                                    before the next hand, within the restart budget
an invalid reply (bad JSON, bad     invalid reply recorded with its code; an ``error``
schema, an action or amount that    with the reason and ``attempts_left`` is sent and
the protocol or engine rejects)     the request is asked again with a new ``seq``;
                                    after ``max_invalid_attempts`` the seat folds
exits or closes its pipes           crash recorded (exit code or signal, stderr tail);
                                    the process tree is killed; the seat folds now and
                                    in every later decision until :meth:`restart`
a reply with an older ``seq``       stale reply recorded and dropped; never applied
a reply whose ``seq`` is missing    an invalid reply (code ``bad_seq``) like any other:
or not a positive integer           it cannot be a late answer to anything sent
a line when nothing was asked,      unsolicited line recorded and dropped; it uses
or one without ``seq`` that is not  no attempt (a line written for a notification can
the expected reply type             be read only after the next request was sent)
==================================  ==================================================

Without the hung rule a bot that stopped answering would cost a full timeout at every
decision for the rest of the match; with it, at most ``hung_after_timeouts`` timeouts per
process it is given. Only a valid reply resets the count (invalid replies do not: a bot
that alternates garbage and silence is as stuck), and so does a new process.

In a five-card-draw discard decision the default is to stand pat (folding is not
possible there). Chips already committed stay in the pot in every case. Starting,
restarting (within the budget) and stopping the bot is :mod:`arena.session.lifecycle`;
the lines of a reply are read by the rules of :mod:`arena.session.reading`.

The action a session returns is always one the engine accepts: a reply the protocol lets
through but the engine's ``apply`` (``Hand.act``) rejects is an invalid reply like any
other, with the engine's code. The engine validates and applies the action at once (a
rejected action changes nothing); the outcome carries its events.

While the bot thinks, ``decide`` calls its ``while_waiting`` one short step at a time
until the reply is there (see :mod:`arena.match.prefetch`). A notification sent with
``hold`` waits in the seat's :class:`~arena.session.channel.Channel` and goes out with
the next line to the bot, in one write.

Time: every wait has a deadline on the injected ``clock``. A decision gets ``decision_s`` plus
the bank left, on the wall clock or in the bot's CPU time (:mod:`arena.session.timing`), and
``grace_s`` for the pipes (not the bot's to use); time over ``decision_s`` comes from the bank.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.bots.transport import Clock, ExitInfo, Transport, TransportClosedError
from arena.session.channel import Channel
from arena.session.faults import FaultKind, FaultLedger, FaultRecorder
from arena.session.handshake import ReadyInfo
from arena.session.lifecycle import BotLifecycle
from arena.session.policy import (
    DEFAULT_HUNG_AFTER_TIMEOUTS,
    DEFAULT_RESTART_BUDGET,
    TimeLimits,
    default_action,
)
from arena.session.reading import (
    apply_reply,
    drain_stray_lines,
    expected_reply_type,
    parse_decision,
    read_reply,
)
from arena.session.stderr_file import SeatStderrLog
from arena.session.timing import DecisionTimer, decision_timer
from engine.actions import Action, LegalActions
from engine.config import DrawLimit
from engine.events import Event
from engine.view import SeatView
from protocol.codec import encode
from protocol.errors import BotFaultError, ErrorCode, StaleReplyError
from protocol.messages import error_message
from protocol.request_encoder import EventTextCache

__all__ = ["BotSession", "DecisionOutcome", "ReadyInfo"]  # ReadyInfo: from handshake

logger = logging.getLogger("arena.bots")


@dataclass(frozen=True, slots=True)
class DecisionOutcome:
    """The action to apply for one decision and how it was reached.

    ``fault`` is None when the bot's own reply gave the action, else why the default was
    applied: ``"timeout"``, ``"invalid_reply"``, ``"crash"`` or ``"not_running"`` (the bot
    was down or sitting out). ``replies`` are the decoded replies to this decision's
    requests, valid or not, for the hand history. ``events`` are what ``decide``'s
    ``apply`` returned when it applied the bot's action; None when nothing was applied
    (no ``apply``, or a default action, which the caller applies).
    """

    action: Action
    replies: list[dict[str, Any]] = field(default_factory=list)
    fault: str | None = None
    latency_ms: float | None = None
    attempt_count: int = 0
    events: list[Event] | None = None

    @property
    def is_default(self) -> bool:
        """True when the arena chose the action, not the bot."""
        return self.fault is not None


class BotSession:
    """The watchdog for one seat's bot (see the module docstring).

    ``event_texts`` is shared by the sessions of one table (each public event is then
    encoded once for all seats). ``transport_factory`` starts the bot (again, on
    restarts); for processes use
    :func:`arena.bots.process.process_factory`, for tests ``lambda: InMemoryTransport(bot)``.
    """

    def __init__(
        self,
        transport_factory: Callable[[], Transport],
        *,
        player_id: str,
        seat_index: int,
        clock: Clock = time.monotonic,
        limits: TimeLimits | None = None,
        max_invalid_attempts: int = 3,
        check_when_free: bool = False,
        restart_budget: int = DEFAULT_RESTART_BUDGET,
        hung_after_timeouts: int = DEFAULT_HUNG_AFTER_TIMEOUTS,
        ledger: FaultLedger | None = None,
        name: str | None = None,
        event_texts: EventTextCache | None = None,
    ) -> None:
        if max_invalid_attempts < 1:
            raise ValueError(f"max_invalid_attempts must be at least 1, got {max_invalid_attempts}")
        if hung_after_timeouts < 1:
            raise ValueError(f"hung_after_timeouts must be at least 1, got {hung_after_timeouts}")
        self.hung_after_timeouts = hung_after_timeouts
        #: Timeouts since the last valid reply of the running bot (see the module docstring).
        self.timeouts_in_a_row = 0
        self.player_id = player_id
        self.seat_index = seat_index
        self.clock = clock
        self.limits = limits or TimeLimits()
        self.max_invalid_attempts = max_invalid_attempts
        self.check_when_free = check_when_free
        self._faults = FaultRecorder(
            ledger or FaultLedger(player_id=player_id, seat_index=seat_index),
            player_id=player_id,
            seat_index=seat_index,
        )
        self.name = name or player_id
        self.time_bank_left_s = self.limits.time_bank_s
        self._seq = 0
        self._channel = Channel(event_texts)  # held lines and the request encoder
        self._life = BotLifecycle(
            transport_factory,
            faults=self._faults,
            channel=self._channel,
            limits=self.limits,
            clock=clock,
            restart_budget=restart_budget,
            name=self.name,
            next_seq=self._next_seq,
        )

    # -- state ---------------------------------------------------------------------------

    @property
    def transport(self) -> Transport | None:
        """The running bot's transport, if any."""
        return self._life.transport

    @property
    def transport_factory(self) -> Callable[[], Transport]:
        """What starts the bot (again, on restarts)."""
        return self._life.transport_factory

    @transport_factory.setter
    def transport_factory(self, factory: Callable[[], Transport]) -> None:
        self._life.transport_factory = factory

    @property
    def ready(self) -> ReadyInfo | None:
        """What the running bot said in its ``ready`` (None while none runs)."""
        return self._life.ready

    @property
    def restart_count(self) -> int:
        """Restarts tried so far."""
        return self._life.restart_count

    @property
    def restart_budget(self) -> int:
        """Restarts allowed in the match."""
        return self._life.restart_budget

    @property
    def exit_infos(self) -> list[ExitInfo]:
        """How each process of this seat ended, in order."""
        return self._life.exit_infos

    @property
    def ledger(self) -> FaultLedger:
        """The seat's faults and reply latencies."""
        return self._faults.ledger

    @property
    def stderr_log(self) -> SeatStderrLog | None:
        """The seat's stderr file, if kept (see :meth:`keep_stderr`)."""
        return self._life.stderr_log

    def keep_stderr(self, log: SeatStderrLog) -> None:
        """Add the stderr of each of this seat's processes to ``log`` as the process ends."""
        self._life.stderr_log = log

    @property
    def is_alive(self) -> bool:
        """True while the bot is running and answering is possible."""
        return self._life.is_alive

    @property
    def is_sitting_out(self) -> bool:
        """True when the bot is down and the restart budget is spent (fold every hand)."""
        return self._life.is_sitting_out

    @property
    def last_seq(self) -> int:
        """The seq of the last request sent (0 before any)."""
        return self._seq

    # -- lifecycle -----------------------------------------------------------------------

    def start(self, hello_fields: Mapping[str, Any]) -> ReadyInfo | None:
        """Start the bot, send ``hello`` and wait for ``ready``; None if that failed.

        ``hello_fields`` is the ``hello`` message (e.g. from ``protocol.messages.hello``);
        the session sets its ``type`` and ``seq`` and, if absent, ``time_limits``. The
        fields are kept for restarts. A failure is recorded as a startup failure.
        """
        self.timeouts_in_a_row = 0
        return self._life.start(hello_fields)

    def restart(self) -> bool:
        """Between hands: start a bot that is down again, within the restart budget.

        Returns True when the bot is running afterwards. A crash nobody noticed yet is
        recorded first. Each attempt uses one unit of the budget, successful or not.
        """
        if not self._life.is_alive:
            self.timeouts_in_a_row = 0  # a new process gets a clean slate
        return self._life.restart()

    def finish(self, standings_message: Mapping[str, Any] | None = None) -> ExitInfo | None:
        """Send ``match_end`` (if given), let the bot exit within the grace, kill its tree.

        Returns how the process ended, or None if no bot was running. A bot found dead
        here (it died after its last message) is recorded as crashed.
        """
        return self._life.finish(b"" if standings_message is None else encode(standings_message))

    def close(self) -> ExitInfo | None:
        """Kill the bot now, without a ``match_end`` (an aborted match)."""
        return self._life.close()

    # -- conversation --------------------------------------------------------------------

    def notify(
        self,
        message: Mapping[str, Any],
        *,
        data: bytes | None = None,
        hold: bool = False,
    ) -> None:
        """Send a message that expects no reply (``hand_start``, ``hand_end``, ...).

        ``data`` is ``message`` already encoded (a message for every seat is encoded once).
        With ``hold`` the line is kept and goes out with the next line sent to this bot (a
        request, a notification, ``match_end``) or at :meth:`flush`: one write and one
        wake-up of the bot instead of two, in the same order. A bot found dead is recorded
        as crashed; nothing is raised.
        """
        hand_number = message.get("hand_number")
        if isinstance(hand_number, int):
            self._faults.hand_number = hand_number
        if self._life.transport is None:
            return
        self._notify_line(encode(message) if data is None else data, hold)

    def hand_start(self, view: SeatView, *, hand_id: str, hold: bool = False) -> None:
        """Send ``hand_start`` for ``view`` (this seat's), as :meth:`notify` would; it is
        encoded by the seat's request encoder, whose text of the seats the requests reuse."""
        self._faults.hand_number = view.hand_number
        if self._life.transport is None:
            return
        self._notify_line(self._channel.hand_start(view, hand_id=hand_id), hold)

    def prepare_hand_start(self, view: SeatView, *, hand_id: str) -> None:
        """Encode the ``hand_start`` of a hand dealt ahead, and what of ``view`` its first
        request will reuse, while another bot thinks (for ``while_waiting``).

        :meth:`hand_start` sends the line made here if it is asked for the same view and
        hand id, and otherwise encodes one as usual; either way the bytes are the same.
        """
        if self._life.transport is not None:
            self._channel.prepare_hand_start(view, hand_id=hand_id)

    def _notify_line(self, line: bytes, hold: bool) -> None:
        transport = self._life.transport
        assert transport is not None
        if hold:
            self._channel.hold(line)
            return
        try:
            self._send(transport, line)
        except TransportClosedError as exc:
            self._life.crashed(exc)

    def flush(self) -> None:
        """Send the notifications held by :meth:`notify` now (a crash is recorded)."""
        transport = self._life.transport
        if transport is None or not self._channel.has_held_lines:
            return
        try:
            self._send(transport, b"")
        except TransportClosedError as exc:
            self._life.crashed(exc)

    def prepare(self, view: SeatView) -> None:
        """Encode ahead of time what of ``view`` this seat's next request will reuse (see
        :meth:`protocol.messages.RequestEncoder.prepare`); for ``while_waiting``."""
        if self._life.transport is not None:
            self._channel.prepare(view)

    def decide(
        self,
        view: SeatView,
        *,
        hand_id: str,
        apply: Callable[[Action], list[Event] | None] | None = None,
        draw_limit: DrawLimit = DrawLimit.ANY,
        while_waiting: Callable[[], bool] | None = None,
    ) -> DecisionOutcome:
        """Ask the bot for the decision ``view`` shows it; never raises for its faults.

        ``apply`` is the engine's ``Hand.act``: a reply the protocol accepts but the engine
        rejects (``IllegalActionError``) is an invalid reply with the engine's code, so the
        action returned is always one the engine took; the events it returned are in the
        outcome. The engine must change nothing when it rejects an action. ``draw_limit``
        is the game's five-card-draw rule, checked when parsing. ``while_waiting`` does one
        step of other work per call and returns whether more is left; it is called after
        the first request was sent, until the reply is there (see the module docstring).
        """
        legal = view.legal_actions
        if legal is None:
            raise ValueError(f"seat {view.seat_index} is not to act: no legal actions")
        self._faults.hand_number = view.hand_number
        if self._life.transport is None:
            return DecisionOutcome(default_action(legal), fault="not_running")
        # Draining also checks that the bot still runs: a transport's read_line raises at
        # the end of output and when the process has exited, so no separate is_alive here.
        if not self._drain():
            return DecisionOutcome(default_action(legal), fault=FaultKind.CRASH.value)
        replies: list[dict[str, Any]] = []
        for attempt in range(1, self.max_invalid_attempts + 1):
            seq = self._next_seq()
            data = self._channel.request(
                view,
                seq=seq,
                hand_id=hand_id,
                time_limit_ms=round(self.limits.decision_s * 1000),
                attempt=attempt,
                max_attempts=self.max_invalid_attempts,
            )
            outcome = self._ask(
                data, seq, view, legal, replies, attempt, apply, draw_limit, while_waiting
            )
            while_waiting = None  # the first request only: that wait leaves time to spare
            if outcome is not None:
                return outcome
        raise AssertionError("unreachable: the last attempt always returns")  # pragma: no cover

    # -- internals -------------------------------------------------------------------------

    def _ask(
        self,
        data: bytes,
        seq: int,
        view: SeatView,
        legal: LegalActions,
        replies: list[dict[str, Any]],
        attempt: int,
        apply: Callable[[Action], list[Event] | None] | None,
        draw_limit: DrawLimit,
        while_waiting: Callable[[], bool] | None,
    ) -> DecisionOutcome | None:
        """One request (the encoded ``data``) and its reply; None means "ask again"."""
        transport = self._life.transport
        assert transport is not None
        sent_at = self.clock()  # the bot's time starts when the request is on its way
        timer = decision_timer(self.limits, self.time_bank_left_s, self.clock, transport)
        try:
            self._send(transport, data)
        except TransportClosedError as exc:
            self._life.crashed(exc)
            return DecisionOutcome(default_action(legal), replies, "crash", None, attempt)
        if while_waiting is not None:
            while not transport.has_output() and while_waiting():
                pass  # one step of the caller's work per round, until the reply is there
        expected_type = expected_reply_type(legal)

        def stray(line: bytes) -> None:
            # Not a reply at all (see arena.session.reading): dropped, no attempt lost.
            self._faults.dropped(
                FaultKind.UNSOLICITED_LINE,
                "unsolicited",
                f"not a reply to request {seq}: {line[:200]!r}",
            )

        while True:
            try:
                obj = read_reply(transport, timer.deadline(), expected_type, stray)
            except TransportClosedError as exc:
                self._life.crashed(exc)
                return DecisionOutcome(default_action(legal), replies, "crash", None, attempt)
            except BotFaultError as exc:  # a line too long, or not a JSON object
                fault: BotFaultError = exc
                obj = None
            else:
                if obj is None:
                    if not timer.is_over():
                        continue  # CPU time left: the bot was waiting for a core
                    return self._timed_out(seq, sent_at, legal, replies, attempt)
                try:
                    action = parse_decision(obj, seq, legal, view.hole_cards, draw_limit=draw_limit)
                    # The bot's time ends with its reply parsed, before the engine runs.
                    latency_ms = self._latency_ms(sent_at)
                    events = None
                    if apply is not None:
                        events = apply_reply(apply, action, legal)
                except StaleReplyError as exc:
                    self._faults.dropped(FaultKind.STALE_REPLY, exc.code, str(exc), exc.seq)
                    continue
                except BotFaultError as exc:
                    fault = exc
                else:
                    replies.append(obj)
                    self.timeouts_in_a_row = 0
                    self.ledger.add_latency(latency_ms)
                    self._spend_bank(timer)
                    return DecisionOutcome(action, replies, None, latency_ms, attempt, events)
            # The reply was invalid: say why, then ask again or give up.
            latency_ms = self._latency_ms(sent_at)
            self.ledger.add_latency(latency_ms)
            self._spend_bank(timer)
            if obj is not None:
                replies.append(obj)
            attempts_left = self.max_invalid_attempts - attempt
            self._faults.invalid_reply(fault, seq, latency_ms, attempts_left)
            try:
                transport.send(
                    encode(error_message(fault, in_reply_to=seq, attempts_left=attempts_left))
                )
            except TransportClosedError as exc:
                self._life.crashed(exc)
                return DecisionOutcome(default_action(legal), replies, "crash", None, attempt)
            if attempts_left == 0:
                return DecisionOutcome(
                    default_action(legal), replies, "invalid_reply", latency_ms, attempt
                )
            return None

    def _timed_out(
        self,
        seq: int,
        sent_at: float,
        legal: LegalActions,
        replies: list[dict[str, Any]],
        attempt: int,
    ) -> DecisionOutcome:
        latency_ms = self._latency_ms(sent_at)
        self.time_bank_left_s = 0.0
        action = default_action(legal, check_when_free=self.check_when_free)
        limit_ms = round(self.limits.decision_s * 1000)
        self._faults.timeout(seq, latency_ms, limit_ms, action)
        self.timeouts_in_a_row += 1
        if self.timeouts_in_a_row >= self.hung_after_timeouts:
            # Hung: no error is sent (nobody reads it); the tree is killed now, the match
            # restarts the bot before the next hand, as after a crash, and until then its
            # seat is folded without being asked.
            count, self.timeouts_in_a_row = self.timeouts_in_a_row, 0
            self._faults.hung(count, limit_ms, self.hung_after_timeouts)
            self._life.close()
            return DecisionOutcome(action, replies, "timeout", latency_ms, attempt)
        notice = BotFaultError(
            ErrorCode.TIMEOUT,
            f"no reply to request {seq} within {limit_ms} ms; {action} was applied",
        )
        transport = self._life.transport
        assert transport is not None
        try:
            transport.send(encode(error_message(notice, in_reply_to=seq, attempts_left=0)))
        except TransportClosedError as exc:
            self._life.crashed(exc)
        return DecisionOutcome(action, replies, "timeout", latency_ms, attempt)

    def _drain(self) -> bool:
        """Drop the lines that arrived while nothing was asked; False if the bot died."""
        transport = self._life.transport
        assert transport is not None
        try:
            drain_stray_lines(transport, self.clock(), self._seq, self._faults.dropped)
        except TransportClosedError as exc:
            self._life.crashed(exc)
            return False
        return True

    def _send(self, transport: Transport, data: bytes) -> None:
        """Send ``data`` after the held notifications, in one write."""
        transport.send(self._channel.take(data))

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _latency_ms(self, since: float) -> float:
        return (self.clock() - since) * 1000.0

    def _spend_bank(self, timer: DecisionTimer) -> None:
        over = timer.used_s() - self.limits.decision_s
        if over > 0:
            self.time_bank_left_s = max(0.0, self.time_bank_left_s - over)
