"""One match: the loop that glues the engine, the protocol and the bot sessions together.

Theory of operation. :func:`run_match` seats the bots at seats 0..n-1 in the order given
(``player_id`` ``p0``, ``p1``, ...), starts every session (``hello``/``ready``), then deals
hand after hand on an :class:`engine.table.Table` until the match is over. Each hand's deck
comes from :func:`engine.table.hand_rng` (match seed, hand number), so a hand can be dealt
again on its own and the same seed gives the same cards. For every decision the engine
says who acts and what is legal; the seat's session asks the bot (``act`` or, when
``legal.can_draw``, ``draw``), applies the watchdog's policy on a fault and returns an
action the engine then applies. The loop itself knows nothing of the variant.

Seats follow the order the bots are given; the first button is seat 0 and then moves as
the engine's table moves it. Hand ids are ``<match_id>-<hand_number>`` (``match_id``
defaults to ``seed<seed>``). Nothing in the hand history depends on the clock, so with
deterministic bots the same seed gives a byte-identical file; only a timeout (and a blind
schedule counted in seconds) makes a match depend on time.

Stack policy (:class:`StackPolicy`):

* ``reset`` (default): every hand starts from ``starting_stack``, like the benchmark and
  most bot competitions, so results measure play, not the variance of busting.
* ``carry`` (``--no-reset``): stacks carry from hand to hand; a bot that loses every chip
  is eliminated; the match ends after ``hand_count`` hands or when one bot is left.
* ``freezeout``: stacks carry until one bot holds every chip (``hand_count``, if given,
  caps the number of hands); finishing places follow the engine's freezeout rules.

Policy lives here, never in the engine:

* A bot that times out, crashes or keeps replying garbage is folded (or checked when
  checking is free, with ``check_on_timeout``) by its session; the fault is recorded in
  its ledger and the match goes on.
* A dead bot is restarted between hands (``session.restart()``); until then, and for the
  rest of the hand it died in, the loop folds it without asking.
* A bot whose restart budget is spent sits out: it is still dealt in and posts its blinds
  (the table does not change because of a bot's fault) and the loop folds it whenever it
  must act.
* An illegal action coming out of a session, a broken chip count or any other exception
  from our own code is a bug and stops the match loudly (:class:`MatchError`), after the
  bot processes have been stopped.

Speed: a bot's think time is time this process would spend waiting, and the machine has
another core. So what nothing sent to a bot depends on waits for the next request to be
on its way (the session's ``while_waiting``, one short step at a time for as long as the
bot has not answered): the hand-history record of the hand before
(``hand_to_history`` and the write) and the ``hand_start`` of the seats that do not act
first (each bot still gets its lines in the same order). Whatever was put off is done
before any other request goes out, before the ``match_end`` record, and before
:meth:`MatchRunner.play_hand` returns unless :meth:`MatchRunner.run` asked it to defer.
When stacks reset, the next hand does not depend on this one: it is dealt in a wait too,
and each seat's ``hand_start`` for it encoded, so that between two hands only the end of
the last one (its ``hand_end``) stands between a bot's last reply and the next request.
The session applies the bot's action with ``Hand.act`` as it accepts it (one validation,
not a dry run and then the real one).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.bots.launcher import Launcher
from arena.bots.manifest import BotManifest
from arena.bots.process import process_factory
from arena.match.log import GameLog
from arena.match.progress import Progress
from arena.match.results import MatchResult, PlayerResult
from arena.session.watchdog import BotSession, TimeLimits, default_action
from arena.store.jsonl import HISTORY_FILE_NAME, HISTORY_FORMAT, HandLogWriter, dumps_value
from engine.actions import Action, Discard, LegalActions, RaiseTo
from engine.config import GameConfig
from engine.errors import IllegalActionError
from engine.events import ActionTaken, BettingRoundComplete, Event
from engine.hand import Hand
from engine.history import hand_to_history
from engine.phases import PlayerStatus
from engine.schedule import BlindSchedule
from engine.table import Table, hand_rng, hand_seed
from engine.tournament import Freezeout, Standing
from protocol import messages
from protocol.codec import encode

__all__ = [
    "RESULTS_FILE_NAME",
    "MatchConfig",
    "MatchConfigError",
    "MatchError",
    "MatchRunner",
    "MatchSeat",
    "SeatDecision",
    "StackPolicy",
    "action_to_dict",
    "open_sessions",
    "run_match",
]

#: The results file inside a match's output directory.
RESULTS_FILE_NAME = "results.json"

#: Record tasks (hand histories) put off at most; beyond this they go before the next
#: hand's preparation in the waits on bots.
_MAX_PENDING_TASKS = 30


class MatchError(RuntimeError):
    """Our own bug stopped the match (never a bot's fault): the message says what broke."""


class MatchConfigError(ValueError):
    """A match configuration that cannot be played; the message names the bad value."""

    code = "bad_match_config"


class StackPolicy(StrEnum):
    """What happens to the stacks between hands (see the module docstring)."""

    RESET = "reset"
    CARRY = "carry"
    FREEZEOUT = "freezeout"


_RESULT_MODE = {
    StackPolicy.RESET: "hands",
    StackPolicy.CARRY: "carry",
    StackPolicy.FREEZEOUT: "freezeout",
}


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Everything that decides how a match is played (bots and processes aside).

    ``hand_count`` is the number of hands (``reset``, ``carry``) or the cap on hands
    (``freezeout``, where ``None`` means play until one bot has every chip). The time limits
    are what the sessions enforce and what the ``hello`` message announces.
    """

    game: GameConfig = field(default_factory=GameConfig)
    hand_count: int | None = 100
    seed: int = 0
    starting_stack: int = 200
    stack_policy: StackPolicy = StackPolicy.RESET
    schedule: BlindSchedule | None = None
    match_id: str = ""
    decision_timeout_s: float = 5.0
    startup_timeout_s: float = 10.0
    time_bank_s: float = 0.0
    check_on_timeout: bool = False
    max_invalid_attempts: int = 3
    restart_budget: int = 3

    def __post_init__(self) -> None:
        def is_int(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        if self.hand_count is None:
            if self.stack_policy is not StackPolicy.FREEZEOUT:
                raise MatchConfigError(
                    f"hand_count is required with stack policy {self.stack_policy.value!r}",
                )
        elif not is_int(self.hand_count) or self.hand_count < 1:
            raise MatchConfigError(
                f"hand_count must be a positive integer, got {self.hand_count!r}"
            )
        if not is_int(self.seed):
            raise MatchConfigError(f"seed must be an integer, got {self.seed!r}")
        if not is_int(self.starting_stack) or self.starting_stack < 1:
            raise MatchConfigError(
                f"starting_stack must be a positive integer, got {self.starting_stack!r}",
            )
        for name in ("decision_timeout_s", "startup_timeout_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not value > 0:
                raise MatchConfigError(f"{name} must be a positive number, got {value!r}")
        if not isinstance(self.time_bank_s, int | float) or not self.time_bank_s >= 0:
            raise MatchConfigError(
                f"time_bank_s must be a non-negative number, got {self.time_bank_s!r}",
            )
        if not is_int(self.max_invalid_attempts) or self.max_invalid_attempts < 1:
            raise MatchConfigError(
                f"max_invalid_attempts must be at least 1, got {self.max_invalid_attempts!r}",
            )
        if not is_int(self.restart_budget) or self.restart_budget < 0:
            raise MatchConfigError(
                f"restart_budget must be a non-negative integer, got {self.restart_budget!r}",
            )
        if not self.match_id:
            object.__setattr__(self, "match_id", f"seed{self.seed}")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (written in the hand history header and results)."""
        return {
            "match_id": self.match_id,
            "seed": self.seed,
            "game": self.game.to_dict(),
            "hand_count": self.hand_count,
            "starting_stack": self.starting_stack,
            "stack_policy": self.stack_policy.value,
            "schedule": None if self.schedule is None else self.schedule.to_dict(),
            "decision_timeout_s": self.decision_timeout_s,
            "startup_timeout_s": self.startup_timeout_s,
            "time_bank_s": self.time_bank_s,
            "check_on_timeout": self.check_on_timeout,
            "max_invalid_attempts": self.max_invalid_attempts,
            "restart_budget": self.restart_budget,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchConfig:
        """Inverse of :meth:`to_dict`."""
        schedule = data.get("schedule")
        return cls(
            game=GameConfig.from_dict(dict(data["game"])),
            hand_count=data["hand_count"],
            seed=data["seed"],
            starting_stack=data["starting_stack"],
            stack_policy=StackPolicy(data["stack_policy"]),
            schedule=None if schedule is None else BlindSchedule.from_dict(schedule),
            match_id=data.get("match_id", ""),
            decision_timeout_s=data["decision_timeout_s"],
            startup_timeout_s=data["startup_timeout_s"],
            time_bank_s=data["time_bank_s"],
            check_on_timeout=data["check_on_timeout"],
            max_invalid_attempts=data["max_invalid_attempts"],
            restart_budget=data["restart_budget"],
        )

    def time_limits(self) -> TimeLimits:
        """The sessions' time limits for this match."""
        return TimeLimits(
            decision_s=self.decision_timeout_s,
            startup_s=self.startup_timeout_s,
            time_bank_s=self.time_bank_s,
        )


def action_to_dict(action: Action) -> dict[str, Any]:
    """The action as recorded in the hand history (wire names, raise-to amounts).

    >>> from engine.actions import Fold
    >>> action_to_dict(RaiseTo(40)), action_to_dict(Fold())
    ({'action': 'RAISE', 'amount': 40}, {'action': 'FOLD'})
    """
    if isinstance(action, RaiseTo):
        return {"action": action.kind.value, "amount": action.amount}
    if isinstance(action, Discard):
        return {"action": action.kind.value, "cards": [str(card) for card in action.cards]}
    return {"action": action.kind.value}


@dataclass(slots=True)
class MatchSeat:
    """A bot at the table and what the match has counted for it."""

    player_id: str
    seat_index: int
    name: str
    session: BotSession | None
    hands_played: int = 0
    chips_won: int = 0
    big_blinds_won: float = 0.0
    eliminated_in_hand: int | None = None


@dataclass(frozen=True, slots=True)
class SeatDecision:
    """One decision: the action for the engine and its hand-history record.

    ``events`` are the engine's events when the action was already applied (the session
    applies a bot's action as it accepts it); None: the loop applies ``action``.
    """

    action: Action
    record: dict[str, Any]
    events: list[Event] | None = None


class MatchRunner:
    """Plays one match; :func:`run_match` is the usual entry point.

    ``seats`` are ``(name, session)`` pairs in seat order. :meth:`decide`,
    :meth:`prepare_hand` and :meth:`is_seat_alive` are the seams :mod:`arena.tools.replay`
    overrides to re-run a match from recorded replies instead of live bots; everything else
    (table, decks, stacks, policy, history, results) is this same code.
    """

    def __init__(
        self,
        config: MatchConfig,
        seats: Sequence[tuple[str, BotSession | None]],
        *,
        out_dir: Path | None = None,
        progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 2 <= len(seats) <= 10:
            raise MatchConfigError(f"a match needs 2 to 10 bots, got {len(seats)}")
        self.config = config
        self.seats = [
            MatchSeat(player_id=f"p{index}", seat_index=index, name=name, session=session)
            for index, (name, session) in enumerate(seats)
        ]
        self.out_dir = out_dir
        self.progress = progress
        self.clock = clock
        self.log = GameLog(config.match_id)
        self.total_chips = config.starting_stack * len(seats)
        self.decision_count = 0
        self.hands_played = 0
        self._writer: HandLogWriter | None = None
        self._freezeout: Freezeout | None = None
        # Put off until a bot is thinking (see the module docstring): the notifications
        # of the other seats at the start of a hand, and our own records, in order.
        self._notice: Callable[[], None] | None = None
        self._pending: deque[Callable[[], None]] = deque()
        # Stacks reset: the next hand, dealt while a bot thinks, and the seats whose
        # hand_start for it is still to be prepared (see _while_thinking).
        self._ahead: Hand | None = None
        self._ahead_seats: deque[int] = deque()
        if config.stack_policy is StackPolicy.RESET:
            self.table = Table(
                config.game,
                seat_count=len(seats),
                schedule=config.schedule,
                clock=clock,
            )
            for seat in self.seats:
                self.table.join(seat.player_id, config.starting_stack, seat_index=seat.seat_index)
        else:
            # A carried-stack match is a freezeout that may be cut short after hand_count
            # hands: the engine's Freezeout already places busted players and survivors.
            self._freezeout = Freezeout(
                config.game,
                [seat.player_id for seat in self.seats],
                starting_stack=config.starting_stack,
                seed=config.seed,
                schedule=config.schedule,
                clock=clock,
                max_hands=config.hand_count,
            )
            self.table = self._freezeout.table

    # ------------------------------------------------------------------ the match

    @property
    def is_over(self) -> bool:
        """True when no further hand is to be dealt."""
        if self._freezeout is not None:
            return self._freezeout.is_over
        assert self.config.hand_count is not None  # MatchConfig requires it with RESET
        return self.hands_played >= self.config.hand_count

    def run(self) -> MatchResult:
        """Start the bots, play every hand, stop the bots; returns the result."""
        started = self.clock()
        try:
            if self.out_dir is not None:
                self._writer = HandLogWriter(self.out_dir / HISTORY_FILE_NAME)
            self.start_sessions()
            self._write(self.header())
            while not self.is_over:
                self.play_hand(defer=True)
                if self.progress is not None:
                    self.progress.update(self.hands_played, self._progress_note())
            self.catch_up()
            standings = self.standings()
            self._write(
                {
                    "type": "match_end",
                    "hands_played": self.hands_played,
                    "standings": [self.standing_dict(s) for s in standings],
                },
            )
            self.finish_sessions(standings)
            result = self.result(standings, duration_s=self.clock() - started)
        except BaseException:
            # The hands already played still go on disk, for inspection and replay.
            with contextlib.suppress(Exception):
                self.catch_up()
            raise
        finally:
            # Whatever happened (our bug, Ctrl-C), no bot process outlives the match.
            self.close_sessions()
            if self._writer is not None:
                self._writer.close()
            if self.progress is not None:
                self.progress.close()
        if self.out_dir is not None:
            result.write_json(self.out_dir / RESULTS_FILE_NAME)
        return result

    def header(self) -> dict[str, Any]:
        """The first record of the hand history."""
        return {
            "type": "match",
            "format": HISTORY_FORMAT,
            "match_id": self.config.match_id,
            "seed": self.config.seed,
            "config": self.config.to_dict(),
            "players": [
                {"player_id": s.player_id, "seat_index": s.seat_index, "name": s.name}
                for s in self.seats
            ],
        }

    def _write(self, record: dict[str, Any]) -> None:
        if self._writer is not None:
            self._writer.write(record)

    def catch_up(self) -> None:
        """Do the bookkeeping put off until a bot was thinking, now, in order."""
        self._send_notice()
        pending = self._pending
        while pending:
            pending.popleft()()

    def _send_notice(self) -> None:
        notice = self._notice
        if notice is not None:
            self._notice = None
            notice()

    def _while_thinking(self, hand: Hand, actor_index: int) -> Callable[[], bool]:
        """The work to do while seat ``actor_index``'s bot thinks, one step per call (the
        session's ``while_waiting``; a step returns False when nothing is left).

        In order: the notifications put off (they must go out before the next request);
        the request of the next seat likely to act, encoded as far as it is known already
        (the history so far, the seats, the pots); one step of preparing the next hand
        (:meth:`_work_ahead`); one record task. Records go first when too many wait.
        """
        is_next_prepared = False

        def step() -> bool:
            nonlocal is_next_prepared
            if self._notice is not None:
                self._send_notice()
            elif not is_next_prepared:
                is_next_prepared = True
                self._prepare_next_request(hand, actor_index)
            elif len(self._pending) > _MAX_PENDING_TASKS or not self._work_ahead():
                # The records have no deadline but the end of the match; the next hand's
                # preparation is worth most before this hand ends. (Bounded: a match of
                # short hands still writes its records as it goes.)
                if not self._pending:
                    return False
                self._pending.popleft()()
            return True

        return step

    def _prepare_next_request(self, hand: Hand, actor_index: int) -> None:
        """Encode ahead what the next active seat after ``actor_index`` will be sent."""
        rows = hand.seat_rows()
        setups = hand.seats
        count = len(setups)
        position = next(p for p, setup in enumerate(setups) if setup.seat_index == actor_index)
        for step in range(1, count):
            other = (position + step) % count
            if rows[other][1] is PlayerStatus.ACTIVE:
                session = self.seats[setups[other].seat_index].session
                if session is not None and session.transport is not None:
                    session.prepare(hand.view(setups[other].seat_index))
                return

    def _work_ahead(self) -> bool:
        """One step of preparing the next hand (stacks reset); False if none is left.

        First the hand itself (nothing this hand does changes the next deal, and the table
        checks that when the hand is due: ``Table.is_next_hand``, else it deals again),
        then one seat per step: its ``hand_start`` line and its first request's parts
        (used only if the ``hand_start`` asked for is the same).
        """
        ahead = self._ahead
        if ahead is None:
            if not self._can_deal_ahead():
                return False
            number = self.table.next_hand_number
            self._ahead = self.table.deal_ahead(hand_rng(self.config.seed, number))
            self._ahead_seats.extend(setup.seat_index for setup in self._ahead.seats)
            return True
        if not self._ahead_seats:
            return False
        seat_index = self._ahead_seats.popleft()
        session = self.seats[seat_index].session
        if session is not None and session.transport is not None:
            hand_id = f"{self.config.match_id}-{ahead.hand_number}"
            session.prepare_hand_start(ahead.view(seat_index), hand_id=hand_id)
        return True

    def _can_deal_ahead(self) -> bool:
        """True when the hand after this one can be dealt now: stacks reset, another hand
        is to come, and no timed blind schedule (its level is read when a hand starts)."""
        if self._freezeout is not None or self.config.hand_count is None:
            return False
        schedule = self.config.schedule
        if schedule is not None and schedule.is_timed:
            return False
        return self.hands_played + 1 < self.config.hand_count

    def _progress_note(self) -> str:
        if self._freezeout is None:
            return ""
        return f"{len(self.table.seats)} left"

    # --------------------------------------------------------------- sessions

    def start_sessions(self) -> None:
        """Send ``hello`` to every bot and wait for its ``ready`` (failures are faults)."""
        limits = self.config.time_limits()
        for seat in self.seats:
            session = seat.session
            if session is None:
                continue
            hello = messages.hello(
                seq=0,  # the session numbers its requests
                player_id=seat.player_id,
                seat_index=seat.seat_index,
                config=self.config.game,
                seat_count=len(self.seats),
                starting_stack=self.config.starting_stack,
                hand_count=self.config.hand_count,
                time_limits=messages.TimeLimits(**limits.to_wire()),
                max_attempts=self.config.max_invalid_attempts,
            )
            ready = session.start(hello)
            if ready is None:
                self.log.error(None, seat.player_id, "startup_failure", _last_fault(session))
            elif not seat.name:
                seat.name = ready.name
            if not seat.name:
                seat.name = seat.player_id

    def prepare_hand(self, hand_number: int) -> list[int]:
        """Between hands: restart dead bots; returns the seats sitting out this hand."""
        sitting_out: list[int] = []
        for seat in self.seats:
            session = seat.session
            if session is None or seat.eliminated_in_hand is not None:
                continue
            if not session.is_sitting_out and not session.is_alive:
                is_restarted = session.restart()
                detail = "restarted" if is_restarted else f"restart failed: {_last_fault(session)}"
                self.log.error(hand_number, seat.player_id, "restart", detail)
            if session.is_sitting_out:
                sitting_out.append(seat.seat_index)
        return sitting_out

    def finish_sessions(self, standings: Sequence[Standing]) -> None:
        """Send ``match_end`` with the standings to every bot and let it exit."""
        message = messages.match_end(
            [
                messages.Standing(
                    player_id=s.player_id,
                    name=self._seat_of(s.player_id).name,
                    chips=s.chips,
                    net=self._seat_of(s.player_id).chips_won,
                    place=s.place,
                )
                for s in standings
            ],
            hands_played=self.hands_played,
        )
        for seat in self.seats:
            if seat.session is not None:
                seat.session.finish(message)

    def close_sessions(self) -> None:
        """Kill every bot that is still running (idempotent; after finish, a no-op)."""
        for seat in self.seats:
            if seat.session is not None:
                seat.session.close()

    # ------------------------------------------------------------------ hands

    def _deal(self) -> Hand:
        if self._freezeout is not None:
            return self._freezeout.next_hand()
        # Stacks reset: every seat starts the hand with the starting stack again. Rejoining
        # at the same seat keeps the button moving as before (the table tracks seat indexes).
        self.table.reset_stacks(
            [(seat.seat_index, seat.player_id) for seat in self.seats], self.config.starting_stack
        )
        ahead, self._ahead = self._ahead, None
        self._ahead_seats.clear()
        if ahead is not None and self.table.is_next_hand(ahead):
            return self.table.start_hand(dealt=ahead)
        return self.table.start_hand(hand_rng(self.config.seed, self.table.next_hand_number))

    def play_hand(self, *, defer: bool = False) -> dict[str, Any]:
        """Deal, play and record one hand; returns its hand-history record.

        With ``defer`` (:meth:`run`), the record's ``history`` and its write are left for
        the next hand's first wait on a bot (see :meth:`catch_up`).
        """
        if len(self._pending) > _MAX_PENDING_TASKS:
            # Bots that answer before any step can run: write the records as we go anyway.
            self.catch_up()
        hand_number = self.table.next_hand_number
        sitting_out = self.prepare_hand(hand_number)
        hand = self._deal()
        hand_id = f"{self.config.match_id}-{hand_number}"
        in_hand = [self.seats[seat.seat_index] for seat in hand.seats]
        if self.log.is_enabled(logging.INFO):
            self.log.hand_start(
                hand_number,
                player_count=len(in_hand),
                small_blind=hand.config.small_blind,
                big_blind=hand.config.big_blind,
                ante=hand.config.ante,
                button_seat=hand.button_index,
            )
        # The first to act gets its hand_start with its first request (one write and one
        # wake-up of the bot instead of two); everyone else gets theirs, after what was
        # held (the last hand's hand_end), once that request is on its way.
        first_actor = hand.actor_index
        first = [seat for seat in in_hand if seat.seat_index == first_actor]
        others = [seat for seat in in_hand if seat.seat_index != first_actor]
        self._notify_start(first, sitting_out, hand, hand_id, hold=True)

        def tell_the_others() -> None:
            self._notify_start(others, sitting_out, hand, hand_id)
            for seat in self.seats:
                if seat.session is not None and seat.seat_index != first_actor:
                    seat.session.flush()

        # Put off only when a request is about to go out (to a running bot of this match).
        first_session = None if first_actor is None else self.seats[first_actor].session
        if (
            first_session is not None
            and first_session.transport is not None
            and first_actor not in sitting_out
        ):
            self._notice = tell_the_others
        else:
            tell_the_others()  # no request is sure to go out first
        decisions: list[dict[str, Any]] = []
        dead: set[int] = set()
        while not hand.is_over:
            decision = self._decision(hand, hand_id, sitting_out, dead)
            decisions.append(decision.record)
            self.decision_count += 1
            events = decision.events
            if events is None:
                try:
                    events = hand.act(decision.action)
                except IllegalActionError as exc:
                    raise MatchError(
                        f"hand {hand_id}: the arena chose the illegal action {decision.action} "
                        f"for seat {decision.record['seat_index']}: {exc}",
                    ) from exc
            self._log_events(hand, events)
        record = self._finish_hand(hand, hand_id, in_hand, sitting_out, decisions)
        if not defer:
            self.catch_up()
        return record

    def _decision(
        self, hand: Hand, hand_id: str, sitting_out: Sequence[int], dead: set[int]
    ) -> SeatDecision:
        seat_index = hand.actor_index
        legal = hand.legal_actions()
        if seat_index is None or legal is None:
            raise MatchError(f"hand {hand_id} is not over but nobody is to act ({hand.phase})")
        seat = self.seats[seat_index]
        base: dict[str, Any] = {
            "seat_index": seat_index,
            "player_id": seat.player_id,
            "phase": str(hand.phase),
        }
        if seat_index not in sitting_out and seat_index not in dead:
            if self.is_seat_alive(seat):
                return self.decide(seat, hand, hand_id, legal, base)
            # It died since the hand began (or never started): the rest of this hand is
            # played for it without asking; it is restarted before the next hand.
            dead.add(seat_index)
        by = "sitting_out" if seat_index in sitting_out else "dead"
        action = default_action(legal)
        return SeatDecision(action, {**base, "by": by, "action": action_to_dict(action)})

    def is_seat_alive(self, seat: MatchSeat) -> bool:
        """True when the seat's bot can be asked now.

        A session drops its transport when it records a crash; a bot that died unnoticed
        is found by the session itself when asked (recorded as a crash). Looking at the
        transport rather than ``is_alive`` saves a ``waitid`` system call per decision.
        """
        return seat.session is not None and seat.session.transport is not None

    def decide(
        self,
        seat: MatchSeat,
        hand: Hand,
        hand_id: str,
        legal: LegalActions,
        base: dict[str, Any],
    ) -> SeatDecision:
        """Ask the seat's bot (through its session) and record what came back."""
        session = seat.session
        assert session is not None  # is_seat_alive checked it
        outcome = session.decide(
            hand.view(seat.seat_index),
            hand_id=hand_id,
            apply=hand.act,
            draw_limit=hand.config.draw_limit,
            while_waiting=self._while_thinking(hand, seat.seat_index),
        )
        # No notification may wait past this point: the next request could go to a bot
        # whose hand_start is still held (this bot died before it was asked).
        self._send_notice()
        record: dict[str, Any] = {
            **base,
            "by": "bot" if outcome.fault is None else "policy",
            "action": action_to_dict(outcome.action),
            "replies": outcome.replies,
        }
        if outcome.fault is not None:
            record["fault"] = outcome.fault
            self.log.error(hand.hand_number, seat.player_id, outcome.fault, _last_fault(session))
        return SeatDecision(outcome.action, record, outcome.events)

    def _log_events(self, hand: Hand, events: Iterable[Event]) -> None:
        if not self.log.is_enabled(logging.DEBUG):
            return  # both kinds of line are DEBUG: usually nothing to build
        for event in events:
            if isinstance(event, ActionTaken):
                name = "ALL_IN" if event.is_all_in else str(event.kind)
                amount = event.total if event.kind == "RAISE" else event.amount or None
                self.log.action(
                    hand.hand_number,
                    self.seats[event.seat_index].player_id,
                    event.seat_index,
                    name,
                    amount,
                )
            elif isinstance(event, BettingRoundComplete):
                pots = [pot.amount for pot in hand.gathered_pots()] or [event.pot_total]
                self.log.pot_update(hand.hand_number, pots)

    def _finish_hand(
        self,
        hand: Hand,
        hand_id: str,
        in_hand: Sequence[MatchSeat],
        sitting_out: Sequence[int],
        decisions: list[dict[str, Any]],
    ) -> dict[str, Any]:
        result = hand.result
        if result is None:
            raise MatchError(f"hand {hand_id} is over but has no result")
        hand_number = hand.hand_number
        starting = sum(result.starting_stacks.values())
        final = sum(result.final_stacks.values())
        if starting != final:
            raise MatchError(
                f"hand {hand_id}: chips not conserved, {starting} at the start, {final} at the end",
            )
        if self.log.is_enabled(logging.INFO):
            winnings: dict[int, int] = {}
            for award in result.awards:
                for seat_index, amount in award.shares:
                    winnings[seat_index] = winnings.get(seat_index, 0) + amount
            self.log.hand_complete(
                hand_number,
                [(self.seats[s].player_id, amount) for s, amount in sorted(winnings.items())],
                reason=result.ended_reason,
            )
        player_ids = {seat.seat_index: seat.player_id for seat in in_hand}
        end_message = messages.hand_end(result, hand_id=hand_id, player_ids=player_ids)
        # Held: it goes out with the next hand's hand_start (or match_end), in one write.
        self._notify(in_hand, sitting_out, lambda seat: end_message, is_shared=True, hold=True)
        if self._freezeout is not None:
            for standing in self._freezeout.finish_hand(hand):
                self._seat_of(standing.player_id).eliminated_in_hand = hand_number
            table_total = sum(self.table.stacks.values())
            if table_total != self.total_chips:
                raise MatchError(
                    f"after hand {hand_id} the table holds {table_total} chips, "
                    f"expected {self.total_chips}",
                )
        else:
            self.table.finish_hand(hand)
        # Each hand counts in its own big blind (a blind schedule changes it).
        big_blind = hand.config.big_blind or hand.config.minimum_bet
        for seat_index, net in result.net_chips.items():
            seat = self.seats[seat_index]
            seat.hands_played += 1
            seat.chips_won += net
            seat.big_blinds_won += net / big_blind
        self.hands_played += 1
        record: dict[str, Any] = {
            "type": "hand",
            "hand_number": hand_number,
            "hand_id": hand_id,
            "sitting_out": list(sitting_out),
            "decisions": decisions,
        }

        history_text: list[str] = []

        def add_history() -> None:
            # "history" is the record's last key either way: the same bytes.
            record["history"] = hand_to_history(hand, seed=hand_seed(self.config.seed, hand_number))

        def encode_history() -> None:
            history_text.append(dumps_value(record["history"]))

        def write() -> None:
            if self._writer is not None:
                self._writer.write(record, last_text=history_text[0] if history_text else None)

        # Three steps, one per wait on a bot: each must end before the bot answers.
        self._pending.extend((add_history, encode_history, write))
        return record

    def _notify(
        self,
        in_hand: Sequence[MatchSeat],
        sitting_out: Sequence[int],
        build: Callable[[MatchSeat], dict[str, Any]],
        *,
        is_shared: bool = False,
        hold: bool = False,
    ) -> None:
        """Tell every running bot of the hand; ``is_shared``: one message for all, encoded once."""
        data: bytes | None = None
        for seat, session in _running(in_hand, sitting_out):
            message = build(seat)
            if is_shared and data is None:
                data = encode(message)
            session.notify(message, data=data, hold=hold)

    def _notify_start(
        self,
        in_hand: Sequence[MatchSeat],
        sitting_out: Sequence[int],
        hand: Hand,
        hand_id: str,
        *,
        hold: bool = False,
    ) -> None:
        """Send ``hand_start`` to every running bot of the hand (as :meth:`_notify`)."""
        for seat, session in _running(in_hand, sitting_out):
            session.hand_start(hand.view(seat.seat_index), hand_id=hand_id, hold=hold)

    def _seat_of(self, player_id: str) -> MatchSeat:
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat
        raise MatchError(f"unknown player {player_id!r}")

    # -------------------------------------------------------------- results

    def standings(self) -> list[Standing]:
        """Final places: the engine's freezeout places, or by chips won when stacks reset."""
        if self._freezeout is not None:
            return list(self._freezeout.standings())
        ordered = sorted(self.seats, key=lambda s: (-s.chips_won, s.seat_index))
        won = [seat.chips_won for seat in ordered]
        return [
            Standing(
                place=1 + won.index(seat.chips_won),
                player_id=seat.player_id,
                chips=self.config.starting_stack + seat.chips_won,
                busted_hand_number=None,
                is_shared=won.count(seat.chips_won) > 1,
            )
            for seat in ordered
        ]

    def standing_dict(self, standing: Standing) -> dict[str, Any]:
        """A ``match_end`` standings entry (as in the hand history's end record)."""
        seat = self._seat_of(standing.player_id)
        return {
            "player_id": seat.player_id,
            "name": seat.name,
            "chips": standing.chips,
            "net": seat.chips_won,
            "place": standing.place,
        }

    def result(self, standings: Sequence[Standing], *, duration_s: float) -> MatchResult:
        """The :class:`MatchResult` of the match so far."""
        places = {standing.player_id: standing.place for standing in standings}
        carried = self._freezeout is not None
        players = tuple(
            PlayerResult(
                player_id=seat.player_id,
                name=seat.name,
                seat_index=seat.seat_index,
                hands_played=seat.hands_played,
                chips_won=seat.chips_won,
                big_blinds_won=seat.big_blinds_won,
                final_stack=self.config.starting_stack + seat.chips_won if carried else None,
                place=places.get(seat.player_id),
                eliminated_in_hand=seat.eliminated_in_hand,
                is_sitting_out=seat.session is not None and seat.session.is_sitting_out,
                faults={} if seat.session is None else seat.session.ledger.to_dict(),
            )
            for seat in self.seats
        )
        if carried and len(self.table.seats) <= 1:
            ended = "one_player_left"
        elif self.config.stack_policy is StackPolicy.FREEZEOUT:
            ended = "max_hands"  # a freezeout cut short: survivors placed by chips
        else:
            ended = "hand_count"
        return MatchResult(
            match_id=self.config.match_id,
            seed=self.config.seed,
            mode=_RESULT_MODE[self.config.stack_policy],
            hands_played=self.hands_played,
            players=players,
            config=self.config.to_dict(),
            duration_s=duration_s,
            decision_count=self.decision_count,
            ended_reason=ended,
            history_path=None if self.out_dir is None else str(self.out_dir / HISTORY_FILE_NAME),
        )


def _last_fault(session: BotSession) -> str:
    """The detail of the seat's latest recorded fault, for the log line."""
    faults = session.ledger.faults
    if not faults:
        return ""
    last = faults[-1]
    return last.detail or last.code


def open_sessions(
    manifests: Sequence[BotManifest],
    config: MatchConfig,
    *,
    launcher: Launcher | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> list[tuple[str, BotSession]]:
    """One :class:`BotSession` per manifest (seat order), not started yet."""
    limits = config.time_limits()
    return [
        (
            manifest.name,
            BotSession(
                process_factory(manifest, launcher=launcher),
                player_id=f"p{index}",
                seat_index=index,
                clock=clock,
                limits=limits,
                max_invalid_attempts=config.max_invalid_attempts,
                check_when_free=config.check_on_timeout,
                restart_budget=config.restart_budget,
                name=manifest.name,
            ),
        )
        for index, manifest in enumerate(manifests)
    ]


def run_match(
    config: MatchConfig,
    sessions: Sequence[tuple[str, BotSession]],
    out_dir: Path | None = None,
    *,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> MatchResult:
    """Play a match between ``sessions`` (``(name, session)`` in seat order).

    Writes ``hands.jsonl`` and ``results.json`` into ``out_dir`` when given. The sessions
    are finished (``match_end``, processes stopped) when this returns or raises.
    """
    runner = MatchRunner(config, list(sessions), out_dir=out_dir, progress=progress, clock=clock)
    return runner.run()


def _running(
    in_hand: Sequence[MatchSeat], sitting_out: Sequence[int]
) -> Iterator[tuple[MatchSeat, BotSession]]:
    """The seats of the hand whose bot runs and plays (sitting-out seats are told nothing)."""
    for seat in in_hand:
        session = seat.session
        if (
            session is not None
            and seat.seat_index not in sitting_out
            and session.transport is not None
        ):
            yield seat, session
