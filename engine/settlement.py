"""The end of a hand, as functions over explicit state: paying the pots, closing, voiding.

Everyone else folded (:func:`pay_uncontested`) or there is a showdown
(:func:`pay_showdown`; ``engine.showdown`` decides who shows and who wins): each returns a
:class:`Payout` - the events to record, the chips each position wins, the awards - and
changes nothing; ``engine.hand`` applies it, checks the end-of-hand invariants
(``engine.invariants.check_payout``) and closes the hand (:func:`closing`). A hand whose
invariants failed is voided: every player gets back what they put in
(:func:`void_event`). Positions are indexes into the hand's seat list; events and results
name seat indexes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine import showdown as _showdown
from engine.cards import Card
from engine.config import AnteMode, GameConfig
from engine.events import (
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandVoided,
    PotAwarded,
    ShowdownResolved,
)
from engine.phases import PlayerStatus
from engine.result import HandResult, PotAward
from engine.speed.dataclass_init import fast_init

__all__ = [
    "Payout",
    "closing",
    "dead_money",
    "pay_showdown",
    "pay_uncontested",
    "void_event",
]

_ACTIVE = PlayerStatus.ACTIVE
_ALL_IN = PlayerStatus.ALL_IN


@dataclass(frozen=True, slots=True)
class Payout:
    """How the pots go: ``events`` to record in order, ``winnings`` as (position, chips),
    the ``awards`` for the result, each pot's amount, and the cards shown by seat index."""

    events: tuple[Event, ...]
    winnings: tuple[tuple[int, int], ...]
    awards: tuple[PotAward, ...]
    pot_amounts: tuple[int, ...]
    shown: dict[int, tuple[Card, ...]]


fast_init(Payout)  # one per hand, built on the hot path of every fold


def dead_money(
    config: GameConfig, starting_stacks: Sequence[int], big_blind_position: int
) -> list[int] | None:
    """The big blind ante by position, if any: dead money for the main pot (TDA's big
    blind ante; pokerkit agrees). It is posted before the blind, so it is the whole ante
    or, for a shorter stack, the whole stack.

    >>> dead_money(GameConfig(ante=2, ante_mode=AnteMode.BIG_BLIND), [50, 1, 50], 1)
    [0, 1, 0]
    """
    if not config.ante or config.ante_mode is not AnteMode.BIG_BLIND:
        return None
    dead = [0] * len(starting_stacks)
    dead[big_blind_position] = min(config.ante, starting_stacks[big_blind_position])
    return dead


def pay_uncontested(
    statuses: Sequence[PlayerStatus], seat_indexes: Sequence[int], pot_total: int
) -> Payout:
    """Everyone else folded: the last player wins every pot and shows nothing."""
    winner = next(p for p, s in enumerate(statuses) if s is _ACTIVE or s is _ALL_IN)
    seat = seat_indexes[winner]
    shares = ((seat, pot_total),)
    return Payout(
        events=(
            PotAwarded(0, pot_total, (seat,), shares, ""),
            ShowdownResolved((seat,), False),
        ),
        winnings=((winner, pot_total),),
        awards=(PotAward(0, pot_total, (seat,), shares),),
        pot_amounts=(pot_total,),
        shown={},
    )


def pay_showdown(
    *,
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card],
    committed: Sequence[int],
    statuses: Sequence[PlayerStatus],
    seat_indexes: Sequence[int],
    button_position: int,
    first_to_show: int | None,
    dead: list[int] | None,
) -> Payout:
    """The last betting round ended with two or more players: show, then pay each pot."""
    outcome = _showdown.resolve_showdown(
        holes=holes,
        board=board,
        contributions=committed,
        live=[s is _ACTIVE or s is _ALL_IN for s in statuses],
        all_in=[s is _ALL_IN for s in statuses],
        button=button_position,
        first_to_show=first_to_show,
        dead_money=dead,
    )
    events: list[Event] = []
    shown: dict[int, tuple[Card, ...]] = {}
    for position, cards, description in outcome.reveals:
        seat = seat_indexes[position]
        if cards is None:
            events.append(HandMucked(seat))
        else:
            shown[seat] = cards
            events.append(HandShown(seat, cards, description))
    awards = []
    winnings: list[tuple[int, int]] = []
    winners: list[int] = []
    for number, pot_outcome in enumerate(outcome.pots):
        shares = tuple((seat_indexes[p], chips) for p, chips in pot_outcome.shares)
        eligible = tuple(seat_indexes[p] for p in pot_outcome.pot.eligible)
        amount = pot_outcome.pot.amount
        for position, chips in pot_outcome.shares:
            winnings.append((position, chips))
            if seat_indexes[position] not in winners:
                winners.append(seat_indexes[position])
        awards.append(PotAward(number, amount, eligible, shares, pot_outcome.description))
        events.append(PotAwarded(number, amount, eligible, shares, pot_outcome.description))
    events.append(ShowdownResolved(tuple(winners), True))
    return Payout(
        events=tuple(events),
        winnings=tuple(winnings),
        awards=tuple(awards),
        pot_amounts=tuple(p.pot.amount for p in outcome.pots),
        shown=shown,
    )


def closing(
    *,
    reason: str,
    awards: tuple[PotAward, ...],
    hand_number: int,
    seat_indexes: Sequence[int],
    stacks: Sequence[int],
    starting_stacks: Sequence[int],
    board: Sequence[Card],
    shown: dict[int, tuple[Card, ...]],
) -> tuple[HandEnded, HandResult]:
    """The last event of a hand and its result (``reason``: FOLD, SHOWDOWN or VOID)."""
    final = tuple(zip(seat_indexes, stacks, strict=True))
    result = HandResult(
        hand_number=hand_number,
        ended_reason=reason,
        board=tuple(board),
        shown_cards=dict(shown),
        awards=awards,
        starting_stacks=dict(zip(seat_indexes, starting_stacks, strict=True)),
        final_stacks=dict(final),
    )
    return HandEnded(reason, final), result


def void_event(reason: str, committed: Sequence[int], seat_indexes: Sequence[int]) -> HandVoided:
    """The hand is aborted: everyone gets back what they put in (``committed``)."""
    refunds = tuple((seat_indexes[p], c) for p, c in enumerate(committed) if c > 0)
    return HandVoided(reason, refunds)
