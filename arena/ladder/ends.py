"""How a ladder game ended, and what the ladder does about it: keep the result, score a
forfeit, play it again, or leave it out.

The line is whose fault it is. A game that ran to its end is a result, whatever the bots
did inside it: a crash, a timeout or a bad reply is the bot's own play (the arena played
its default action and recorded the fault). A bot that never started (it cannot run, or
sent no ``ready`` in time) forfeits the game: it is scored as if it had folded every hand
(``forfeit_mbb``, 750 mbb/hand heads-up: half a small blind and a big blind; at a ring
table each bot that did not start loses that and the others share it, and a table none of
whose bots started has no result). Everything
else is the infrastructure's fault and never a bot's loss: a worker killed or a machine
gone (its claim expired), a game past the executor's deadline (an overloaded machine), a
sandbox that could not be set up, our own bug. Such a game is played again, up to
``max_attempts`` times; after that it is left out (void) and shown with its reason for the
admins to look at, rather than retried forever.

>>> classify_end(EndCause.WORKER_LOST, attempt=1).action
<EndAction.RERUN: 'rerun'>
>>> classify_end(EndCause.BOT_NOT_READY, attempt=1, at_fault=("bob-v2",)).reason
'bob-v2 did not start: it forfeits the game'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from arena.ladder.games import MAX_SEATS, GameResult, TableResult

__all__ = [
    "FORFEIT_MBB",
    "EndAction",
    "EndCause",
    "EndDecision",
    "classify_end",
    "forfeit",
    "forfeit_table",
]

#: A heads-up bot that folds every hand loses half a small blind and a big blind per two
#: hands: 750 mbb/hand.
FORFEIT_MBB = 750.0


class EndCause(StrEnum):
    """How a game ended, as the worker saw it."""

    PLAYED = "played"
    BOT_NOT_READY = "bot_not_ready"
    WORKER_LOST = "worker_lost"
    DEADLINE = "deadline"
    SANDBOX_UNAVAILABLE = "sandbox_unavailable"
    ARENA_ERROR = "arena_error"

    @property
    def is_infrastructure(self) -> bool:
        """True when no bot is to blame."""
        return self not in (EndCause.PLAYED, EndCause.BOT_NOT_READY)


class EndAction(StrEnum):
    """What the ladder does with the game."""

    RESULT = "result"
    FORFEIT = "forfeit"
    RERUN = "rerun"
    VOID = "void"


@dataclass(frozen=True, slots=True)
class EndDecision:
    """The action, the bots at fault (none for the infrastructure) and a reason to show on
    the versions' pages."""

    action: EndAction
    at_fault: tuple[str, ...]
    reason: str


_INFRASTRUCTURE_REASONS = {
    EndCause.WORKER_LOST: "the worker playing it stopped",
    EndCause.DEADLINE: "it ran past the executor's deadline",
    EndCause.SANDBOX_UNAVAILABLE: "the sandbox could not be set up",
    EndCause.ARENA_ERROR: "the arena failed",
}


def classify_end(
    cause: EndCause,
    *,
    attempt: int,
    max_attempts: int = 3,
    at_fault: Sequence[str] = (),
    detail: str = "",
    seats: int = 2,
) -> EndDecision:
    """What to do with a game of ``seats`` bots (2 heads-up, up to 10 at a ring table) that
    ended by ``cause`` on its ``attempt``-th try (from 1). ``at_fault`` names the bots that
    did not start (BOT_NOT_READY needs 1 to ``seats``): some of them forfeit, all of them
    leave no result (void). ``detail`` is appended to the reason. A bad argument raises
    ``ValueError`` naming it."""
    if not isinstance(seats, int) or isinstance(seats, bool) or not 2 <= seats <= MAX_SEATS:
        raise ValueError(f"seats must be an integer from 2 to {MAX_SEATS}, got {seats!r}")
    if not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 1:
        raise ValueError(f"attempt must be an integer of 1 or more, got {attempt!r}")
    if not isinstance(max_attempts, int) or isinstance(max_attempts, bool) or max_attempts < 1:
        raise ValueError(f"max_attempts must be an integer of 1 or more, got {max_attempts!r}")
    cause = EndCause(cause)
    suffix = f" ({detail})" if detail else ""
    if cause is EndCause.PLAYED:
        return EndDecision(EndAction.RESULT, (), "played to its end" + suffix)
    if cause is EndCause.BOT_NOT_READY:
        bots = tuple(at_fault)
        if len(set(bots)) != len(bots) or not 1 <= len(bots) <= seats:
            raise ValueError(
                f"the bots that did not start must be named (1 to {seats}, each once), "
                f"got {at_fault!r}"
            )
        if len(bots) == 1:
            return EndDecision(
                EndAction.FORFEIT, bots, f"{bots[0]} did not start: it forfeits the game{suffix}"
            )
        if len(bots) == 2 and seats == 2:
            # Neither played: no result to give either, but both faults show.
            reason = f"neither {bots[0]} nor {bots[1]} started: no result{suffix}"
            return EndDecision(EndAction.VOID, bots, reason)
        names = ", ".join(bots[:-1]) + f" and {bots[-1]}"
        if len(bots) < seats:
            reason = f"{names} did not start: they forfeit the game{suffix}"
            return EndDecision(EndAction.FORFEIT, bots, reason)
        # No bot of the table played: no result to give any, but every fault shows.
        return EndDecision(EndAction.VOID, bots, f"none of {names} started: no result{suffix}")
    what = _INFRASTRUCTURE_REASONS[cause]
    if attempt < max_attempts:
        return EndDecision(EndAction.RERUN, (), f"{what}: played again{suffix}")
    reason = f"{what} on each of {attempt} attempts: left out{suffix}"
    return EndDecision(EndAction.VOID, (), reason)


def forfeit(
    first: str, second: str, at_fault: str, *, hand_count: int, forfeit_mbb: float = FORFEIT_MBB
) -> GameResult:
    """The rated result of a game ``at_fault`` forfeited: it loses ``forfeit_mbb`` per hand,
    luck-adjusted and raw alike.

    >>> forfeit("ann", "bob", "bob", hand_count=200).adjusted_mbb
    750.0
    """
    if at_fault not in (first, second):
        raise ValueError(f"bot {at_fault!r} did not play this game ({first} vs {second})")
    score = forfeit_mbb if at_fault == second else -forfeit_mbb
    return GameResult(first, second, score, score, hand_count)


def forfeit_table(
    bots: Sequence[str],
    at_fault: Sequence[str],
    *,
    hand_count: int,
    forfeit_mbb: float = FORFEIT_MBB,
) -> TableResult:
    """The rated result of a table some of whose bots did not start: each of ``at_fault``
    loses ``forfeit_mbb`` per hand, luck-adjusted and raw alike, and the others share what
    they lose equally (zero-sum, as a table is). For two bots it is :func:`forfeit`'s game.
    ``at_fault`` must name 1 to ``len(bots) - 1`` of the bots (all at fault is void, not a
    result); anything else raises ``ValueError`` naming it.

    >>> forfeit_table(("ann", "bob", "cat"), ("cat",), hand_count=300).adjusted
    (375.0, 375.0, -750.0)
    """
    names = tuple(bots)
    faults = set(at_fault)
    if not faults or len(faults) != len(tuple(at_fault)) or not faults < set(names):
        raise ValueError(
            f"at_fault must name 1 to {len(names) - 1} of the bots {names!r} once each, "
            f"got {tuple(at_fault)!r}"
        )
    if not (isinstance(forfeit_mbb, int | float) and 0.0 < forfeit_mbb < math.inf):
        raise ValueError(f"forfeit_mbb must be a positive number, got {forfeit_mbb!r}")
    share = forfeit_mbb * len(faults) / (len(names) - len(faults))
    scores = tuple(-forfeit_mbb if bot in faults else share for bot in names)
    return TableResult(names, scores, scores, hand_count)
