"""What a decision's time is: the wall clock, or the bot's own CPU time with a wall-clock
backstop (:class:`~arena.session.policy.TimeBasis`; docs/faults.md, "Time limits").

On a loaded host (more busy processes than cores, another bot spinning a thread) an
honest bot's reply can arrive late on the wall clock through no fault of its own; charged
in CPU time it pays only for what it computed (its tree's user and system time: its
cgroup's count where it has one, else ``/proc``). A bot that waits without computing
would never run out of CPU time, so the wall clock still ends every decision at
``wall_backstop`` times the budget. :func:`decision_timer` makes the timer of one request;
the session reads the reply in slices until the timer says the time is up, and the timer
then says which time ran out (:meth:`DecisionTimer.ran_out`).

>>> clock = iter([0.0, 0.2]).__next__
>>> timer = WallTimer(clock, budget_s=0.5, grace_s=0.05)
>>> timer.deadline(), timer.is_over(), timer.used_s()
(0.55, True, 0.2)
>>> timer.ran_out(500, request=7)
'no reply to request 7 within 500 ms'"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from arena.bots.transport import Clock, Transport
from arena.session.policy import TimeBasis, TimeLimits

__all__ = ["CpuTimer", "DecisionTimer", "WallTimer", "cpu_meter", "decision_timer"]

#: A bot's CPU seconds so far (its whole process tree).
CpuMeter = Callable[[], float]


class DecisionTimer(Protocol):
    """The time of one request, from its send."""

    def deadline(self) -> float:
        """The clock value to read the reply until (the end of the next slice)."""
        ...

    def is_over(self) -> bool:
        """Whether the time is up (asked when a slice ended without a reply)."""
        ...

    def used_s(self) -> float:
        """The time charged so far, in seconds."""
        ...

    def ran_out(self, limit_ms: int, *, request: int | None = None) -> str:
        """Which time ran out, in words (``limit_ms``: the decision's limit, without the
        bank; ``request``: the seq to name, for the bot's ``error``)."""
        ...


def _no_reply(request: int | None) -> str:
    return "no reply" if request is None else f"no reply to request {request}"


class WallTimer:
    """The wall clock: one slice, from the send to the budget plus the grace."""

    def __init__(self, clock: Clock, *, budget_s: float, grace_s: float) -> None:
        self._clock = clock
        self._sent_at = clock()
        self._deadline = self._sent_at + budget_s + grace_s

    def deadline(self) -> float:
        """The send time plus the budget and the grace."""
        return self._deadline

    def is_over(self) -> bool:
        """True: the one slice ended without a reply."""
        return True

    def used_s(self) -> float:
        """Wall time since the send."""
        return self._clock() - self._sent_at

    def ran_out(self, limit_ms: int, *, request: int | None = None) -> str:
        """``no reply within <limit_ms> ms``."""
        return f"{_no_reply(request)} within {limit_ms} ms"


class CpuTimer:
    """The bot's CPU time, in slices no longer than the CPU time left (a bot computes at
    most one CPU second per second on the core it is held to), ended by the backstop."""

    def __init__(
        self,
        clock: Clock,
        meter: CpuMeter,
        *,
        budget_s: float,
        grace_s: float,
        wall_backstop: float,
    ) -> None:
        self._clock = clock
        self._meter = meter
        self._budget_s = budget_s
        self._grace_s = grace_s
        self._start_cpu = meter()
        self._wall_backstop = wall_backstop
        self._backstop = clock() + budget_s * wall_backstop + grace_s

    def deadline(self) -> float:
        """The sooner of the backstop and the time the CPU time left would last."""
        left = max(0.0, self._budget_s - self.used_s())
        return min(self._backstop, self._clock() + left + self._grace_s)

    def is_over(self) -> bool:
        """The CPU time is used up, or the wall clock reached the backstop."""
        return self.used_s() >= self._budget_s or self._clock() >= self._backstop

    def used_s(self) -> float:
        """CPU time used since the send."""
        return max(0.0, self._meter() - self._start_cpu)

    def ran_out(self, limit_ms: int, *, request: int | None = None) -> str:
        """The CPU time used and its limit (the bank named apart), or, when the bot used
        less, the wall-clock backstop that ended the wait."""
        used_s = self.used_s()
        if used_s < self._budget_s:
            backstop_ms = round(self._budget_s * self._wall_backstop * 1000)
            return (
                f"{_no_reply(request)} within {backstop_ms} ms"
                " (wall-clock backstop of the CPU basis)"
            )
        budget_ms = round(self._budget_s * 1000)
        bank = f" and {budget_ms - limit_ms} ms of time bank" if budget_ms > limit_ms else ""
        who = "used" if request is None else f"request {request} used"
        return f"{who} {round(used_s * 1000)} ms of CPU time, limit {limit_ms} ms{bank}"


def cpu_meter(transport: Transport) -> CpuMeter | None:
    """The transport's CPU meter (``cpu_seconds``), None for one that has none (a bot in
    memory, whose time is the arena's own)."""
    meter = getattr(transport, "cpu_seconds", None)
    return meter if callable(meter) else None


def decision_timer(
    limits: TimeLimits, bank_s: float, clock: Clock, transport: Transport
) -> DecisionTimer:
    """The timer of a request just sent: ``limits.decision_s`` plus ``bank_s`` on the
    basis ``limits.time_basis`` (the wall clock for a transport without a CPU meter)."""
    budget = limits.decision_s + bank_s
    meter = cpu_meter(transport) if limits.time_basis is TimeBasis.CPU else None
    if meter is None:
        return WallTimer(clock, budget_s=budget, grace_s=limits.grace_s)
    return CpuTimer(
        clock, meter, budget_s=budget, grace_s=limits.grace_s, wall_backstop=limits.wall_backstop
    )
