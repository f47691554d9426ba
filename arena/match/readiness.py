"""Whether every bot is ready when a match begins, and the error that stops it if not.

A bot that cannot be started at all when the match begins (its command does not exist,
it exits before ``ready`` or never says it) is nearly always a mistake of whoever runs the
match: a wrong path, a missing build step, a broken manifest. Playing on would seat a bot
that folds every hand and produce results that mean nothing, so the match stops before its
first hand with :class:`BotsNotReadyError`, naming each such bot and why. With
``MatchConfig.allow_absent_bots`` the match plays on instead, and the bot is treated as
any bot that is down: restarted before a hand within its restart budget, then sitting out.

A bot that started and failed later is never a reason to stop: that is a fault of the
bot, recorded in its ledger, and the match goes on for everyone else.

>>> absent = AbsentBot(1, "p1", "bob", "startup_timeout", "no ready within 10000 ms")
>>> print(BotsNotReadyError([absent]))
1 bot not ready at the start of the match: 'bob' (seat 1): startup_timeout: no ready within 10000 ms
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from arena.session.faults import STARTUP_DETAIL_MAX_CHARS, FaultKind

__all__ = ["AbsentBot", "BotsNotReadyError", "SeatName", "absent_bots"]

#: Longest reason quoted per bot in the error's one-line message.
_REASON_MAX_CHARS = STARTUP_DETAIL_MAX_CHARS  # the start-up failure's whole way out


@dataclass(frozen=True, slots=True)
class SeatName:
    """Who sits at a seat: its index, player id and name (for the error message)."""

    seat_index: int
    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class AbsentBot:
    """A bot that was not ready at the start: its seat and its start-up failure.

    ``code`` is the start-up failure's code (``cannot_start``, ``startup_timeout``,
    ``exited``, ``unsupported_version``, ...) and ``detail`` its readable reason.
    """

    seat_index: int
    player_id: str
    name: str
    code: str
    detail: str

    def describe(self) -> str:
        """One line: ``'bob' (seat 1): startup_timeout: no ready within 10000 ms``."""
        detail = " ".join(self.detail.split())  # one line, whatever the bot printed
        if len(detail) > _REASON_MAX_CHARS:
            detail = detail[: _REASON_MAX_CHARS - 3] + "..."
        return f"{self.name!r} (seat {self.seat_index}): {self.code}: {detail}"


class BotsNotReadyError(RuntimeError):
    """The match stopped before its first hand: some bots could not be started.

    Not a bug of the arena and not a fault of a running bot: the match could not begin
    as configured. ``absent`` lists each bot and why; the message is one line.
    """

    code = "bots_not_ready"

    def __init__(self, absent: Sequence[AbsentBot]) -> None:
        self.absent = tuple(absent)
        count = len(self.absent)
        noun = "bot" if count == 1 else "bots"
        reasons = "; ".join(bot.describe() for bot in self.absent)
        super().__init__(f"{count} {noun} not ready at the start of the match: {reasons}")


def absent_bots(
    seats: Sequence[SeatName],
    ready_seats: Collection[int],
    seat_summary: Callable[[int], tuple[bool, dict[str, Any]]],
) -> list[AbsentBot]:
    """The seats whose bot did not start, as their fault ledgers say, in seat order.

    ``ready_seats`` are the seats whose bot reported a name (said ``ready``);
    ``seat_summary`` is the decider's (:meth:`arena.match.players.Decider.seat_summary`).
    A seat counts as absent only when its ledger records a start-up failure: a decider
    that starts nothing (a replay) has no absent bots.
    """
    absent = []
    for seat in seats:
        if seat.seat_index in ready_seats:
            continue
        _is_sitting_out, ledger = seat_summary(seat.seat_index)
        failures = [
            fault
            for fault in ledger.get("faults", [])
            if fault.get("kind") == FaultKind.STARTUP_FAILURE.value
        ]
        if failures:
            last = failures[-1]
            absent.append(
                AbsentBot(
                    seat.seat_index,
                    seat.player_id,
                    seat.name or seat.player_id,
                    str(last.get("code", "")),
                    str(last.get("detail", "")),
                )
            )
    return absent
