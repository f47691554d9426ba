"""State invariants checked after every transition (seed 001).

* No negative stack, no negative commitment.
* Chips are conserved: stacks plus chips committed equal what the players brought.
* A player still in the hand with an empty stack is ALL_IN (an ACTIVE player has chips).
* At the end, the pots hold exactly what was committed and every chip was paid out.

``violations`` returns readable messages (empty when all is well); the hand voids itself
when there is any (seed 002: "hand void, pots returned").
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.phases import PlayerStatus

__all__ = ["pot_violations", "violations"]

_ACTIVE = PlayerStatus.ACTIVE


def violations(
    *,
    stacks: Sequence[int],
    committed: Sequence[int],
    statuses: Sequence[PlayerStatus],
    total_chips: int,
) -> list[str]:
    """Every invariant that fails, as messages naming the bad values (positions).

    ``committed`` is what each player has in the pot now (all zero once the pots are paid
    out); ``total_chips`` what the players brought to the hand.

    >>> violations(stacks=[5, -1], committed=[0, 0], statuses=[PlayerStatus.ACTIVE] * 2,
    ...            total_chips=4)
    ['negative stack -1 at position 1']
    """
    problems: list[str] = []
    chips = 0
    for position, stack in enumerate(stacks):
        put_in = committed[position]
        chips += stack + put_in
        if stack < 0:
            problems.append(f"negative stack {stack} at position {position}")
        if put_in < 0:
            problems.append(f"negative commitment {put_in} at position {position}")
        if stack == 0 and statuses[position] is _ACTIVE:
            problems.append(f"position {position} has no chips but is ACTIVE, not ALL_IN")
    if chips != total_chips:
        problems.append(f"chips not conserved: {chips} in play, {total_chips} expected")
    return problems


def pot_violations(pot_amounts: Sequence[int], committed: Sequence[int]) -> list[str]:
    """At the end of a hand the pots must hold exactly what was committed (seed 001).

    >>> pot_violations([30, 10], [20, 20])
    []
    """
    if sum(pot_amounts) != sum(committed):
        return [f"pots hold {sum(pot_amounts)} but {sum(committed)} chips were committed"]
    return []
