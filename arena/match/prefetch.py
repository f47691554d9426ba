"""Work done while a bot thinks: every speed trick of the match loop, in one place.

A bot's think time is time the arena would spend waiting, and the machine has another
core. So the work that nothing sent to a bot depends on waits for a request to be on its
way, and is then done one short step at a time for as long as the bot has not answered
(the session calls :meth:`Prefetch.step` through ``while_waiting``, which
:meth:`Prefetch.while_bot_thinks` hands it for each decision). In order, a step:

1. sends the lines held for the other bots (their ``hand_start`` and the last
   ``hand_end``, held so that each bot gets one write: see :class:`arena.match.players.LiveBots`);
2. encodes what the next seat likely to act will be sent, as far as it is known
   (the history so far, the seats, the pots);
3. deals the next hand when the format can (stacks reset: nothing this hand does changes
   the next one; the table checks that when the hand is due, else it deals again), then
   encodes each seat's ``hand_start`` for it, one seat per step;
4. runs one task put off with :meth:`Prefetch.later` (the records of the hand before:
   building the engine's history document, then storing it); a long task (the luck
   estimate) runs in short steps, each putting the next off first in line
   (:meth:`Prefetch.soon`).

Records go first when too many wait, so a match of short hands still writes as it goes.
:meth:`Prefetch.catch_up` does everything put off, now: before the end record, and
when the match stops. Each step stays short (tens of microseconds): a reply that comes
in during a step is timed when it is read, so a step's length is the most a bot can be
measured slower.

:class:`NoPrefetch` is the switch turned off (``arena match --no-prefetch``): tasks run
when they are put off and nothing is done ahead. What bots receive and what is recorded
are the same bytes either way (a test checks this for every format and variant).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator
from enum import Enum
from typing import Generic, Protocol, TypeVar

from arena.match.formats import StackFormat
from arena.match.players import LiveBots
from engine.hand import Hand
from engine.phases import PlayerStatus

__all__ = ["MAX_PENDING_TASKS", "NoPrefetch", "Prefetch", "StepByStep", "WorkAhead"]

#: Tasks put off at most; beyond this they run before any work ahead.
MAX_PENDING_TASKS = 30


class _Stage(Enum):
    """How far the steps of one decision have got."""

    FLUSH = 1  # the other bots' held lines
    NEXT_REQUEST = 2  # encode what the next seat to act will be sent
    AHEAD_AND_TASKS = 3  # deal the next hand and prepare it, or run a task


class WorkAhead(Protocol):
    """What the match loop asks of its prefetch (:class:`Prefetch` or :class:`NoPrefetch`)."""

    @property
    def is_enabled(self) -> bool:
        """True when work is put off and done ahead."""
        ...

    def later(self, task: Callable[[], None]) -> None:
        """Do ``task`` before the match ends, in order with the other tasks."""
        ...

    def soon(self, task: Callable[[], None]) -> None:
        """Do ``task`` before any other task put off (the next step of a long task
        split into short ones, such as the luck estimate)."""
        ...

    def while_bot_thinks(self, hand: Hand, actor_index: int) -> Callable[[], bool] | None:
        """The ``while_waiting`` for the decision of ``actor_index`` (None: nothing)."""
        ...

    def take_hand_dealt_ahead(self) -> Hand | None:
        """The next hand if it was dealt early (the format checks it is the one due)."""
        ...

    def catch_up(self) -> None:
        """Do everything put off, now."""
        ...


_Value = TypeVar("_Value")


class StepByStep(Generic[_Value]):
    """A long task's steps (a generator's), one per call, each call putting the next off
    first in line (:meth:`WorkAhead.soon`); the generator's value goes to ``done``.

    An object rather than a closure that puts itself off: such a closure refers to itself
    through its own cell, a reference cycle, so everything it holds (a hand's whole
    record, for the luck estimate) would stay alive until the garbage collector's next
    pass instead of being freed when the task ends, and set that pass off every few
    hands.
    """

    __slots__ = ("_done", "_steps", "_work_ahead")

    def __init__(
        self,
        steps: Generator[None, None, _Value],
        done: Callable[[_Value], None],
        work_ahead: WorkAhead,
    ) -> None:
        self._steps = steps
        self._done = done
        self._work_ahead = work_ahead

    def __call__(self) -> None:
        """Run the next step, then put the one after it off, or hand the value on."""
        try:
            next(self._steps)
        except StopIteration as finished:
            self._done(finished.value)
        else:
            self._work_ahead.soon(self)


class NoPrefetch:
    """Nothing done ahead: each task runs when it is put off."""

    is_enabled = False

    def later(self, task: Callable[[], None]) -> None:
        """Run ``task`` now."""
        task()

    def soon(self, task: Callable[[], None]) -> None:
        """Run ``task`` now."""
        task()

    def while_bot_thinks(self, hand: Hand, actor_index: int) -> Callable[[], bool] | None:
        """None: the session just waits for the reply."""
        return None

    def take_hand_dealt_ahead(self) -> Hand | None:
        """None: no hand is dealt early."""
        return None

    def catch_up(self) -> None:
        """Nothing was put off."""


class Prefetch:
    """Work put off until a bot thinks, done one step at a time (see the module docstring)."""

    is_enabled = True

    def __init__(self, bots: LiveBots, stack_format: StackFormat, *, match_id: str) -> None:
        self._bots = bots
        self._format = stack_format
        self._match_id = match_id
        self._tasks: deque[Callable[[], None]] = deque()
        self._ahead: Hand | None = None
        self._ahead_seats: deque[int] = deque()
        self._is_ahead_tried = False
        # The decision being asked (while_bot_thinks) and how far its steps have got.
        self._hand: Hand | None = None
        self._actor_index = 0
        self._stage = _Stage.FLUSH

    def later(self, task: Callable[[], None]) -> None:
        """Put ``task`` off until a bot thinks (run at once when too many wait)."""
        self._tasks.append(task)
        while len(self._tasks) > MAX_PENDING_TASKS:
            # Bots that answer before any step can run: write the records as we go anyway
            # (a task split into steps keeps its next step first in line: it runs through).
            self._tasks.popleft()()

    def soon(self, task: Callable[[], None]) -> None:
        """Put ``task`` off, first in line."""
        self._tasks.appendleft(task)

    def while_bot_thinks(self, hand: Hand, actor_index: int) -> Callable[[], bool]:
        """:meth:`step`, for the decision of ``actor_index`` in ``hand`` now asked."""
        self._hand = hand
        self._actor_index = actor_index
        self._stage = _Stage.FLUSH
        return self.step

    def step(self) -> bool:
        """One short piece of work (see the module docstring); False when none is left."""
        hand = self._hand
        assert hand is not None, "step() before while_bot_thinks()"
        if self._stage is _Stage.FLUSH:
            self._stage = _Stage.NEXT_REQUEST
            self._bots.flush(except_seat=self._actor_index)
        elif self._stage is _Stage.NEXT_REQUEST:
            self._stage = _Stage.AHEAD_AND_TASKS
            self._prepare_next_request(hand, self._actor_index)
        elif len(self._tasks) > MAX_PENDING_TASKS or not self._work_ahead(hand):
            # The records have no deadline but the end of the match; the next hand's
            # preparation is worth most before this hand ends.
            if not self._tasks:
                return False
            self._tasks.popleft()()
        return True

    def take_hand_dealt_ahead(self) -> Hand | None:
        """The hand dealt during the last one (or None), for the format to check and use."""
        ahead, self._ahead = self._ahead, None
        self._ahead_seats.clear()
        self._is_ahead_tried = False
        return ahead

    def catch_up(self) -> None:
        """Do every task put off, in order. (Held lines need no catching up: each goes
        out with the next line to its bot, ``match_end`` at the latest.)"""
        tasks = self._tasks
        while tasks:
            tasks.popleft()()

    def _prepare_next_request(self, hand: Hand, actor_index: int) -> None:
        """Encode ahead what the next active seat after ``actor_index`` will be sent."""
        rows = hand.seat_rows()
        setups = hand.seats
        count = len(setups)
        position = next(p for p, setup in enumerate(setups) if setup.seat_index == actor_index)
        for offset in range(1, count):
            other = (position + offset) % count
            if rows[other][1] is PlayerStatus.ACTIVE:
                session = self._bots.session(setups[other].seat_index)
                if session is not None:
                    session.prepare(hand.view(setups[other].seat_index))
                return

    def _work_ahead(self, hand: Hand) -> bool:
        """One step of preparing the next hand; False when none is left."""
        ahead = self._ahead
        if ahead is None:
            if self._is_ahead_tried:
                return False
            self._is_ahead_tried = True
            ahead = self._format.deal_ahead(after=hand)
            if ahead is None:
                return False
            self._ahead = ahead
            self._ahead_seats.extend(setup.seat_index for setup in ahead.seats)
            return True
        if not self._ahead_seats:
            return False
        seat_index = self._ahead_seats.popleft()
        session = self._bots.session(seat_index)
        if session is not None:
            hand_id = f"{self._match_id}-{ahead.hand_number}"
            session.prepare_hand_start(ahead.view(seat_index), hand_id=hand_id)
        return True
