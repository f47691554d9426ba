"""The watchdog: one bot seen through one :class:`BotSession` (docs/faults.md says the same
for bot authors).

Theory of operation. A session owns one transport at a time and every conversation with
it. It never raises for a bot's fault: each fault becomes an entry of the seat's
:class:`~arena.session.faults.FaultLedger` and the default action
(:func:`~arena.session.policy.default_action`); chips already committed stay in the pot. A
valid reply reporting a mixed strategy gives the action the match's secret draw picks
(:mod:`arena.session.draws`).

Without the hung rule a bot that stopped answering would cost a full timeout at every
decision for the rest of the match; with it, at most ``hung_after_timeouts`` timeouts per
process. Only a valid reply or a new process resets the count (a bot that alternates
garbage and silence is as stuck).

The parts: :mod:`~arena.session.lifecycle` starts, restarts and stops the bot;
:mod:`~arena.session.asking` asks for a decision; :mod:`~arena.session.reading` reads a
reply's lines; :class:`~arena.session.channel.Channel` holds notifications sent with
``hold`` until the next line, for one write.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from arena.bots.transport import Clock, ExitInfo, Transport
from arena.session.asking import DecisionAsker, DecisionOutcome, StrategyDraw
from arena.session.channel import Channel
from arena.session.faults import FaultLedger, FaultRecorder
from arena.session.handshake import ReadyInfo
from arena.session.lifecycle import BotLifecycle
from arena.session.policy import (
    DEFAULT_HUNG_AFTER_TIMEOUTS,
    DEFAULT_MAX_INVALID_ATTEMPTS,
    DEFAULT_RESTART_BUDGET,
    TimeLimits,
)
from arena.session.stderr_file import SeatStderrLog
from engine.actions import Action
from engine.config import DrawLimit
from engine.events import Event
from engine.view import SeatView
from protocol.codec import encode
from protocol.request_encoder import EventTextCache

# DecisionOutcome: from asking, ReadyInfo: from handshake (where callers import them)
__all__ = ["BotSession", "DecisionOutcome", "ReadyInfo"]

logger = logging.getLogger("arena.bots")

T = TypeVar("T")


class _Shown(Generic[T]):
    """An attribute of one of the session's parts (``part``: its lifecycle, asker or faults)
    that the session shows under the same name: the part keeps the value."""

    def __init__(self, part: str) -> None:
        self._part = part
        self._name = ""

    def __set_name__(self, owner: type[object], name: str) -> None:
        self._name = name

    def __get__(self, session: object, owner: type[object] | None = None) -> T:
        value: T = getattr(getattr(session, self._part), self._name)
        return value

    def __set__(self, session: object, value: T) -> None:
        setattr(getattr(session, self._part), self._name, value)


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
        max_invalid_attempts: int = DEFAULT_MAX_INVALID_ATTEMPTS,
        check_when_free: bool = False,
        restart_budget: int = DEFAULT_RESTART_BUDGET,
        hung_after_timeouts: int = DEFAULT_HUNG_AFTER_TIMEOUTS,
        ledger: FaultLedger | None = None,
        name: str | None = None,
        event_texts: EventTextCache | None = None,
    ) -> None:
        self.player_id = player_id
        self.seat_index = seat_index
        self.clock = clock
        self.limits = limits or TimeLimits()
        # The settings the asker (below) decides within, shown here (they never change).
        self.max_invalid_attempts = max_invalid_attempts
        self.check_when_free = check_when_free
        self.hung_after_timeouts = hung_after_timeouts
        self._faults = FaultRecorder(
            ledger or FaultLedger(player_id=player_id, seat_index=seat_index),
            player_id=player_id,
            seat_index=seat_index,
        )
        self.name = name or player_id
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
        self._asker = DecisionAsker(
            self._life,
            faults=self._faults,
            channel=self._channel,
            limits=self.limits,
            clock=clock,
            next_seq=self._next_seq,
            last_seq=lambda: self._seq,
            max_invalid_attempts=max_invalid_attempts,
            check_when_free=check_when_free,
            hung_after_timeouts=hung_after_timeouts,
        )

    # -- state ---------------------------------------------------------------------------

    #: The running bot's transport, if any.
    transport: _Shown[Transport | None] = _Shown("_life")
    #: What starts the bot (again, on restarts).
    transport_factory: _Shown[Callable[[], Transport]] = _Shown("_life")
    #: What the running bot said in its ``ready`` (None while none runs).
    ready: _Shown[ReadyInfo | None] = _Shown("_life")
    #: Restarts tried so far.
    restart_count: _Shown[int] = _Shown("_life")
    #: Restarts allowed in the match.
    restart_budget: _Shown[int] = _Shown("_life")
    #: How each process of this seat ended, in order.
    exit_infos: _Shown[list[ExitInfo]] = _Shown("_life")
    #: The seat's faults and reply latencies.
    ledger: _Shown[FaultLedger] = _Shown("_faults")
    #: The seat's stderr file, if kept (see :meth:`keep_stderr`).
    stderr_log: _Shown[SeatStderrLog | None] = _Shown("_life")

    def keep_stderr(self, log: SeatStderrLog) -> None:
        """Add the stderr of each of this seat's processes to ``log`` as the process ends."""
        self._life.stderr_log = log

    #: True while the bot is running and answering is possible.
    is_alive: _Shown[bool] = _Shown("_life")
    #: True when the bot is down and the restart budget is spent (fold every hand).
    is_sitting_out: _Shown[bool] = _Shown("_life")
    #: Timeouts since the last valid reply of the running bot (the hung rule).
    timeouts_in_a_row: _Shown[int] = _Shown("_asker")
    #: Decisions the bot answered with a valid distribution (a mixed strategy).
    distribution_count: _Shown[int] = _Shown("_asker")
    #: What is left of the time bank, in seconds.
    time_bank_left_s: _Shown[float] = _Shown("_asker")

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
        self._asker.timeouts_in_a_row = 0
        return self._life.start(hello_fields)

    def restart(self) -> bool:
        """Between hands: start a bot that is down again, within the restart budget.

        Returns True when the bot is running afterwards. A crash nobody noticed yet is
        recorded first. Each attempt uses one unit of the budget, successful or not.
        """
        if not self._life.is_alive:
            self._asker.timeouts_in_a_row = 0  # a new process gets a clean slate
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
        if hold:
            self._channel.hold(line)
        else:
            self._life.send(line)

    def flush(self) -> None:
        """Send the notifications held by :meth:`notify` now (a crash is recorded)."""
        if self._life.transport is not None and self._channel.has_held_lines:
            self._life.send(b"")

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
        draw: StrategyDraw | None = None,
    ) -> DecisionOutcome:
        """Ask the bot for the decision ``view`` shows it; never raises for its faults.

        ``apply`` is the engine's ``Hand.act``: a reply the engine rejects is an invalid
        reply with the engine's code, so the action returned is always one the engine took
        (the engine must change nothing when it rejects). ``draw_limit`` is the game's
        five-card-draw rule. ``while_waiting`` does one step of other work per call and
        says whether more is left, until the reply is there. ``draw`` picks the action of a
        mixed strategy (:mod:`arena.session.draws`).
        """
        return self._asker.decide(
            view,
            hand_id=hand_id,
            apply=apply,
            draw_limit=draw_limit,
            while_waiting=while_waiting,
            draw=draw,
        )

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq
