"""Synthetic match outcomes whose hands carry a luck-adjusted result, without processes.

Each deal has a card luck (what the cards alone would give each seat, zero-sum), each
match a luck of its own (the bots' dice: it does not repeat in the other seatings), and
each bot a skill (what it wins per hand whatever the cards); a hand's raw net is the three
added and rounded to chips, its adjusted result is the skill plus a little noise that the
estimator could not remove (zero-sum over the seats, as the estimator's is). Duplicate
blocks deal the same cards to every seating, as a tournament does.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome
from arena.store.sqlite.schema import PlannedMatch

__all__ = ["ESTIMATOR", "block_outcomes", "ring", "round_robin", "synthetic_match"]

#: The estimator name the synthetic outcomes carry.
ESTIMATOR = "synthetic/1"


def _zero_sum(values: Sequence[float]) -> list[float]:
    mean = sum(values) / len(values)
    return [value - mean for value in values]


def synthetic_match(
    match_id: str,
    bots: Sequence[str],
    *,
    deals: int,
    deal_seed: str,
    skill: Mapping[str, float],
    big_blind: int = 2,
    with_adjusted: bool = True,
) -> MatchOutcome:
    """One match of ``deals`` hands seating ``bots`` (seat order); the cards of deal ``d``
    come from ``deal_seed`` and ``d`` (the same in every seating of a block)."""
    hands = []
    totals = [0] * len(bots)
    for number in range(1, deals + 1):
        cards = random.Random(f"{deal_seed}:{number}")
        noise = random.Random(f"{match_id}:{number}")
        luck = _zero_sum([cards.gauss(0.0, 40.0) + noise.gauss(0.0, 40.0) for _ in bots])
        adjusted = _zero_sum([skill[bot] + noise.gauss(0.0, 3.0) for bot in bots])
        nets = [round(a + c) for a, c in zip(adjusted, luck, strict=True)]
        nets[0] -= sum(nets)  # rounding: what one seat wins the others lose
        for index, net in enumerate(nets):
            totals[index] += net
        hands.append(
            HandSummary(
                hand_number=number,
                big_blind=big_blind,
                nets=tuple(nets),
                pot=sum(abs(net) for net in nets),
                adjusted=tuple(adjusted) if with_adjusted else None,
            )
        )
    places = sorted(range(len(bots)), key=lambda index: -totals[index])
    seats = tuple(
        SeatOutcome(index, bot, totals[index], places.index(index) + 1, deals)
        for index, bot in enumerate(bots)
    )
    return MatchOutcome(
        match_id,
        seats,
        tuple(hands),
        "hand_count",
        None,
        1.0,
        estimator=ESTIMATOR if with_adjusted else None,
    )


def block_outcomes(
    block_id: str,
    pair: tuple[str, str],
    *,
    deals: int,
    skill: Mapping[str, float],
    with_adjusted: bool = True,
) -> list[MatchOutcome]:
    """A heads-up block: ``pair`` seated one way (``block_id``), then swapped."""
    a, b = pair
    return [
        synthetic_match(
            match_id,
            seats,
            deals=deals,
            deal_seed=block_id,
            skill=skill,
            with_adjusted=with_adjusted,
        )
        for match_id, seats in ((block_id, (a, b)), (f"{block_id}-swap", (b, a)))
    ]


def round_robin(
    bots: Sequence[str],
    *,
    blocks: int = 2,
    deals: int = 6,
    skill: Mapping[str, float] | None = None,
    with_adjusted: bool = True,
) -> tuple[list[PlannedMatch], list[MatchOutcome]]:
    """The plan and the outcomes of a round robin of ``blocks`` blocks per pair."""
    skill = skill or {bot: 10.0 * (len(bots) - index) for index, bot in enumerate(bots)}
    plan: list[PlannedMatch] = []
    outcomes: list[MatchOutcome] = []
    pairs = [(a, b) for index, a in enumerate(bots) for b in bots[index + 1 :]]
    for block in range(blocks):
        for number, pair in enumerate(pairs, start=1):
            block_id = f"rr-{number:03d}-b{block + 1:02d}"
            for outcome in block_outcomes(
                block_id, pair, deals=deals, skill=skill, with_adjusted=with_adjusted
            ):
                seats = tuple(seat.bot for seat in outcome.seats)
                plan.append(
                    PlannedMatch(
                        outcome.match_id, block_id, "heads_up", len(plan), seats, len(plan)
                    )
                )
                outcomes.append(outcome)
    return plan, outcomes


def ring(
    bots: Sequence[str], *, blocks: int = 2, deals: int = 4, with_adjusted: bool = True
) -> tuple[list[PlannedMatch], list[MatchOutcome]]:
    """The plan and the outcomes of one ring group of ``bots`` in every rotation."""
    skill = {bot: 10.0 * (len(bots) - index) for index, bot in enumerate(bots)}
    plan: list[PlannedMatch] = []
    outcomes: list[MatchOutcome] = []
    for block in range(blocks):
        block_id = f"ring-001-b{block + 1:02d}"
        for turn in range(len(bots)):
            seats = tuple(bots[turn:]) + tuple(bots[:turn])
            match_id = f"{block_id}-r{turn + 1}"
            plan.append(PlannedMatch(match_id, block_id, "ring", len(plan), seats, len(plan)))
            outcomes.append(
                synthetic_match(
                    match_id,
                    seats,
                    deals=deals,
                    deal_seed=block_id,
                    skill=skill,
                    with_adjusted=with_adjusted,
                )
            )
    return plan, outcomes
