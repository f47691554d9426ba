"""Asking one seat's bot for a decision: the requests, each reply read against its timer,
and what a timeout or an invalid reply makes of it (the table of docs/faults.md).

:class:`~arena.session.watchdog.BotSession` hands every ``decide`` to its
:class:`DecisionAsker`. A decision gets ``decision_s`` plus the bank left, on the wall clock
or in the bot's CPU time (:mod:`arena.session.timing`), and ``grace_s`` for the pipes (not
the bot's to use); time over ``decision_s`` comes from the bank. The hung rule (see
:mod:`arena.session.watchdog`) counts in ``timeouts_in_a_row``; the session's ``start`` and
``restart`` reset it for a new process."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.bots.transport import Clock, TransportClosedError
from arena.session.channel import Channel
from arena.session.faults import FaultKind, FaultRecorder
from arena.session.lifecycle import BotLifecycle
from arena.session.policy import TimeLimits, default_action
from arena.session.reading import (
    apply_reply,
    drain_stray_lines,
    expected_reply_type,
    parse_decision,
    read_reply,
)
from arena.session.timing import DecisionTimer, decision_timer
from engine.actions import Action, LegalActions
from engine.config import DrawLimit
from engine.events import Event
from engine.view import SeatView
from protocol.codec import encode
from protocol.errors import ArenaBugError, BotFaultError, ErrorCode, StaleReplyError
from protocol.messages import error_message
from protocol.strategy import MixedStrategy

__all__ = ["DecisionAsker", "DecisionOutcome", "StrategyDraw"]

#: Draws the action of a reported mixed strategy, for this decision of the match
#: (:meth:`arena.session.draws.StrategyDraws.action` with the hand).
StrategyDraw = Callable[[MixedStrategy], Action]


@dataclass(frozen=True, slots=True)
class DecisionOutcome:
    """The action to apply for one decision and how it was reached.

    ``fault`` is None when the bot's own reply gave the action, else why the default was
    applied: ``"timeout"``, ``"invalid_reply"``, ``"crash"`` or ``"not_running"`` (the bot
    was down or sitting out). ``replies`` are the decoded replies to this decision's
    requests, valid or not, for the hand history. ``events`` are what ``decide``'s
    ``apply`` returned when it applied the bot's action; None when nothing was applied
    (no ``apply``, or a default action, which the caller applies). ``strategy`` is the
    mixed strategy the bot reported and ``action`` was drawn from; None when the bot sent
    one action (or none was accepted).
    """

    action: Action
    replies: list[dict[str, Any]] = field(default_factory=list)
    fault: str | None = None
    latency_ms: float | None = None
    attempt_count: int = 0
    events: list[Event] | None = None
    strategy: MixedStrategy | None = None


class DecisionAsker:
    """One seat's decisions (see the module docstring): its time bank left, its timeouts
    in a row, and the limits it asks within.

    ``life`` is the seat's running bot, ``channel`` its held lines and request encoder;
    ``next_seq`` numbers a new request and ``last_seq`` is the newest number given.
    """

    def __init__(
        self,
        life: BotLifecycle,
        *,
        faults: FaultRecorder,
        channel: Channel,
        limits: TimeLimits,
        clock: Clock,
        next_seq: Callable[[], int],
        last_seq: Callable[[], int],
        max_invalid_attempts: int,
        check_when_free: bool,
        hung_after_timeouts: int,
    ) -> None:
        if max_invalid_attempts < 1:
            raise ValueError(f"max_invalid_attempts must be at least 1, got {max_invalid_attempts}")
        if hung_after_timeouts < 1:
            raise ValueError(f"hung_after_timeouts must be at least 1, got {hung_after_timeouts}")
        self.max_invalid_attempts = max_invalid_attempts
        self.check_when_free = check_when_free
        self.hung_after_timeouts = hung_after_timeouts
        #: Timeouts since the last valid reply of the running bot (the hung rule).
        self.timeouts_in_a_row = 0
        #: Decisions answered with a valid distribution (a mixed strategy), over the match.
        self.distribution_count = 0
        self.time_bank_left_s = limits.time_bank_s
        self._life = life
        self._faults = faults
        self._channel = channel
        self._limits = limits
        self._clock = clock
        self._next_seq = next_seq
        self._last_seq = last_seq

    def decide(
        self,
        view: SeatView,
        *,
        hand_id: str,
        apply: Callable[[Action], list[Event] | None] | None,
        draw_limit: DrawLimit,
        while_waiting: Callable[[], bool] | None,
        draw: StrategyDraw | None = None,
    ) -> DecisionOutcome:
        """``BotSession.decide``: ask until a valid reply or the attempts are spent."""
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
                time_limit_ms=round(self._limits.decision_s * 1000),
                attempt=attempt,
                max_attempts=self.max_invalid_attempts,
            )
            outcome = self._ask(
                data, seq, view, legal, replies, attempt, apply, draw_limit, while_waiting, draw
            )
            while_waiting = None  # the first request only: that wait leaves time to spare
            if outcome is not None:
                return outcome
        raise AssertionError("unreachable: the last attempt always returns")  # pragma: no cover

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
        draw: StrategyDraw | None,
    ) -> DecisionOutcome | None:
        """One request (the encoded ``data``) and its reply; None means "ask again"."""
        transport = self._life.transport
        assert transport is not None
        sent_at = self._clock()  # the bot's time starts when the request is on its way
        timer = decision_timer(self._limits, self.time_bank_left_s, self._clock, transport)
        if not self._life.send(data):
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
                    return self._timed_out(seq, sent_at, timer, legal, replies, attempt)
                try:
                    parsed = parse_decision(obj, seq, legal, view.hole_cards, draw_limit=draw_limit)
                    strategy, action = _resolved(parsed, draw)
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
                    self._faults.ledger.add_latency(latency_ms)
                    self._spend_bank(timer)
                    self.distribution_count += strategy is not None
                    return DecisionOutcome(
                        action, replies, None, latency_ms, attempt, events, strategy
                    )
            # The reply was invalid: say why, then ask again or give up.
            latency_ms = self._latency_ms(sent_at)
            self._faults.ledger.add_latency(latency_ms)
            self._spend_bank(timer)
            if obj is not None:
                replies.append(obj)
            attempts_left = self.max_invalid_attempts - attempt
            self._faults.invalid_reply(fault, seq, latency_ms, attempts_left)
            error = error_message(fault, in_reply_to=seq, attempts_left=attempts_left)
            if not self._life.send(encode(error), take_held=False):
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
        timer: DecisionTimer,
        legal: LegalActions,
        replies: list[dict[str, Any]],
        attempt: int,
    ) -> DecisionOutcome:
        latency_ms = self._latency_ms(sent_at)
        self.time_bank_left_s = 0.0
        action = default_action(legal, check_when_free=self.check_when_free)
        limit_ms = round(self._limits.decision_s * 1000)
        self._faults.timeout(seq, latency_ms, timer.ran_out(limit_ms), action)
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
            ErrorCode.TIMEOUT, f"{timer.ran_out(limit_ms, request=seq)}; {action} was applied"
        )
        self._life.send(
            encode(error_message(notice, in_reply_to=seq, attempts_left=0)), take_held=False
        )
        return DecisionOutcome(action, replies, "timeout", latency_ms, attempt)

    def _drain(self) -> bool:
        """Drop the lines that arrived while nothing was asked; False if the bot died."""
        transport = self._life.transport
        assert transport is not None
        try:
            drain_stray_lines(transport, self._clock(), self._last_seq(), self._faults.dropped)
        except TransportClosedError as exc:
            self._life.crashed(exc)
            return False
        return True

    def _latency_ms(self, since: float) -> float:
        return (self._clock() - since) * 1000.0

    def _spend_bank(self, timer: DecisionTimer) -> None:
        over = timer.used_s() - self._limits.decision_s
        if over > 0:
            self.time_bank_left_s = max(0.0, self.time_bank_left_s - over)


def _resolved(
    parsed: Action | MixedStrategy, draw: StrategyDraw | None
) -> tuple[MixedStrategy | None, Action]:
    """The reported strategy (None for one action) and the action to apply: for a strategy,
    the one the match's draw gives (:mod:`arena.session.draws`); a session asked without a
    draw cannot take a strategy, which is our bug, not the bot's."""
    if not isinstance(parsed, MixedStrategy):
        return None, parsed
    if draw is None:
        raise ArenaBugError("a bot reported a mixed strategy but the session was given no draw")
    return parsed, draw(parsed)
