"""The sessions of a table where a person sits among bots, ready for
:func:`arena.match.run.run_match`.

Every seat, the person's included, is a :class:`~arena.session.watchdog.BotSession`: the
match loop, the hand history and the results treat the person's seat as any other. The
person's session differs only in its limits: no time limit unless one is given (then the
default action when it runs out, as for a bot) and no time bank.

A bot learns no more of a hand than its requests and ``hand_end`` tell it, so nothing
after its last decision but the result. A person wants to see the rest (their own last
action, the bots' replies, the streets dealt, an uncalled bet returned):
:class:`PersonDecider`, put around the match's decider (``run_match(...,
wrap_decider=...)``), gives the person's seat the hand's whole public history, as that
seat may see it, just before its ``hand_end`` (:meth:`~arena.human.seat.HumanSeat.hand_over`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from arena.bots.transport import Transport
from arena.human.seat import HumanSeat
from arena.human.transport import NO_TIME_LIMIT_S, HumanTransport
from arena.match.config import MatchConfig, MatchConfigError, require_seat_count
from arena.match.players import Decider
from arena.match.run import seat_session
from arena.session.watchdog import BotSession
from engine.hand import Hand
from protocol.layout import wire_event
from protocol.request_encoder import EventTextCache

__all__ = [
    "PersonDecider",
    "human_session",
    "player_names",
    "table_sessions",
]


def player_names(bot_names: Sequence[str], *, seat_index: int) -> dict[str, str]:
    """The bots' player ids and names, as :func:`table_sessions` seats them.

    >>> player_names(["station", "raiser"], seat_index=1)
    {'p0': 'station', 'p2': 'raiser'}
    """
    indexes = [index for index in range(len(bot_names) + 1) if index != seat_index]
    return {f"p{index}": name for index, name in zip(indexes, bot_names, strict=True)}


def human_session(
    seat: HumanSeat,
    config: MatchConfig,
    *,
    seat_index: int,
    timeout_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    event_texts: EventTextCache | None = None,
) -> BotSession:
    """The session of the person's seat: ``timeout_s`` per decision, or no limit."""
    if timeout_s is not None and not timeout_s > 0:
        raise MatchConfigError(f"the person's time limit must be positive, got {timeout_s!r}")
    limits = replace(
        config.time_limits,
        decision_s=NO_TIME_LIMIT_S if timeout_s is None else timeout_s,
        time_bank_s=0.0,
    )
    return seat_session(
        lambda: HumanTransport(seat, clock=clock, is_timed=timeout_s is not None),
        config,
        seat_index=seat_index,
        name=seat.name,
        clock=clock,
        event_texts=event_texts,
        limits=limits,
    )


def table_sessions(
    bots: Sequence[tuple[str, Callable[[], Transport]]],
    config: MatchConfig,
    seat: HumanSeat,
    *,
    seat_index: int = 0,
    timeout_s: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> list[tuple[str, BotSession]]:
    """``(name, session)`` per seat: the ``bots`` (``(name, transport factory)``, e.g.
    :func:`arena.bots.process.process_factory` of a manifest) in order, with the person at
    ``seat_index`` (0 to the number of bots). The sessions share one cache of event texts,
    as a match's sessions do."""
    count = len(bots) + 1
    require_seat_count(count)
    if not 0 <= seat_index < count:
        raise MatchConfigError(f"seat {seat_index} is not at a table of {count} (0..{count - 1})")
    event_texts = EventTextCache()
    others = iter(bots)
    sessions: list[tuple[str, BotSession]] = []
    for index in range(count):
        if index == seat_index:
            session = human_session(
                seat,
                config,
                seat_index=index,
                timeout_s=timeout_s,
                clock=clock,
                event_texts=event_texts,
            )
            sessions.append((seat.name, session))
            continue
        name, factory = next(others)
        session = seat_session(
            factory, config, seat_index=index, name=name, clock=clock, event_texts=event_texts
        )
        sessions.append((name, session))
    return sessions


class PersonDecider:
    """The match's decider, unchanged, but for one thing: when a hand ends, the person's
    seat is first told the hand's public history (see the module docstring)."""

    def __init__(self, inner: Decider, seat: HumanSeat, *, seat_index: int) -> None:
        self.inner = inner
        self.seat = seat
        self.seat_index = seat_index

    def hand_ended(self, hand: Hand, hand_id: str, sitting_out: Sequence[int]) -> None:
        """Tell the person the rest of the hand, then let every seat hear ``hand_end``."""
        is_dealt_in = any(setup.seat_index == self.seat_index for setup in hand.seats)
        if is_dealt_in and self.seat_index not in sitting_out:
            # What a request would carry as its history: the seat's view, in wire form.
            history = [wire_event(event) for event in hand.view(self.seat_index).history]
            self.seat.hand_over(hand_id, history)
        self.inner.hand_ended(hand, hand_id, sitting_out)

    def __getattr__(self, name: str) -> Any:
        """Every other call as the match's decider."""
        return getattr(self.inner, name)
