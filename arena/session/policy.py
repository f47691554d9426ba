"""The watchdog's policy values: how long a bot may take and what a seat does when its
bot gives no action (fold, or check when it is free and the match says so; stand pat in a
draw, where folding is not possible)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.actions import Action, Call, Check, Discard, Fold, LegalActions
from protocol import messages

__all__ = [
    "DEFAULT_HUNG_AFTER_TIMEOUTS",
    "DEFAULT_MAX_INVALID_ATTEMPTS",
    "DEFAULT_RESTART_BUDGET",
    "DEFAULT_WALL_BACKSTOP",
    "TimeBasis",
    "TimeLimits",
    "default_action",
]

#: Restarts of a crashed bot allowed per match before its seat sits out.
DEFAULT_RESTART_BUDGET = 3

#: Replies a bot may send per decision before its seat takes the default action: the
#: attempts ``hello`` announces when a match names none.
DEFAULT_MAX_INVALID_ATTEMPTS = messages.DEFAULT_MAX_ATTEMPTS

#: Timeouts in a row after which a bot counts as hung: its process tree is killed and it
#: is restarted before the next hand, so a hung bot costs this many timeouts per restart.
DEFAULT_HUNG_AFTER_TIMEOUTS = 3

#: On the CPU basis, the wall clock still ends a decision at this multiple of its time.
DEFAULT_WALL_BACKSTOP = 3.0


class TimeBasis(StrEnum):
    """What a decision's time is measured in (see :mod:`arena.session.timing`)."""

    WALL = "wall"  # from the request's send to the reply, whatever the machine does
    CPU = "cpu"  # the bot's own CPU time, with a wall-clock backstop

    @classmethod
    def parse(cls, text: str) -> TimeBasis:
        """``"wall"`` or ``"cpu"``; a ``ValueError`` naming the value otherwise.

        >>> TimeBasis.parse("cpu")
        <TimeBasis.CPU: 'cpu'>
        """
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f"time basis {text!r}: must be wall or cpu") from None


@dataclass(frozen=True, slots=True)
class TimeLimits:
    """How long a bot may take, in seconds: the one value a time limit is, from the
    setting to the watchdog. Its defaults are the arena's (the settings take theirs from
    here), and every field is checked when it is built.

    >>> TimeLimits(decision_s=0.5).to_wire()
    TimeLimits(startup_ms=10000, decision_ms=500, time_bank_ms=0)
    """

    decision_s: float = 5.0
    startup_s: float = 10.0
    time_bank_s: float = 0.0  # extra time for the whole match, used when a decision runs over
    match_end_grace_s: float = 2.0  # after match_end, time to exit before being killed
    grace_s: float = 0.05  # transport slack on every deadline (not told to the bot)
    time_basis: TimeBasis = TimeBasis.WALL  # what a decision's time is measured in
    wall_backstop: float = DEFAULT_WALL_BACKSTOP  # on the CPU basis: the wall clock's limit

    def __post_init__(self) -> None:
        # A decision and a start-up need some time; the others may be none at all.
        for name in ("decision_s", "startup_s"):
            value = getattr(self, name)
            if not _is_number(value) or not value > 0:  # also rejects NaN
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        for name in ("time_bank_s", "match_end_grace_s", "grace_s"):
            value = getattr(self, name)
            if not _is_number(value) or not value >= 0:  # also rejects NaN
                raise ValueError(f"{name} must be a non-negative number of seconds, got {value!r}")
        if not isinstance(self.time_basis, TimeBasis):
            raise ValueError(f"time basis {self.time_basis!r}: must be wall or cpu")
        if not _is_number(self.wall_backstop) or not self.wall_backstop >= 1:  # also NaN
            raise ValueError(f"wall_backstop must be at least 1, got {self.wall_backstop!r}")

    def to_wire(self) -> messages.TimeLimits:
        """The ``time_limits`` of ``hello`` (whole milliseconds; the grace is not told)."""
        return messages.TimeLimits(
            startup_ms=round(self.startup_s * 1000),
            decision_ms=round(self.decision_s * 1000),
            time_bank_ms=round(self.time_bank_s * 1000),
        )


def _is_number(value: object) -> bool:
    """An int or a float, not a bool (``True`` seconds is a mistake, not one second)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def default_action(legal: LegalActions, *, check_when_free: bool = False) -> Action:
    """The action a seat gets when its bot gives none .

    With ``check_when_free`` a free check is taken instead of a fold. In a discard decision
    the seat stands pat, as it cannot fold there.

    >>> legal = LegalActions(seat_index=0, stack=10, current_bet=2, committed=2,
    ...     can_fold=True, can_check=True, can_call=False, call_amount=0, can_raise=False,
    ...     min_raise_to=0, max_raise_to=0)
    >>> default_action(legal), default_action(legal, check_when_free=True)
    (Fold(), Check())
    """
    if legal.can_draw:
        return Discard(())
    if check_when_free and legal.can_check:
        return Check()
    if legal.can_fold:
        return Fold()
    return Check() if legal.can_check else Call()
