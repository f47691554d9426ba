"""State invariants checked after every transition of a hand.

* No negative stack, no negative commitment.
* Chips are conserved: stacks plus chips committed equal what the players brought.
* A player still in the hand with an empty stack is ALL_IN (an ACTIVE player has chips).
* At the end, the pots hold exactly what was committed and every chip was paid out.

``violations`` returns readable messages (empty when all is well); ``verify_chips`` (after
every transition), ``check_chips`` and ``check_payout`` raise ``InvariantError`` with them.
The hand voids itself when any invariant fails: the hand is called off and every player
gets back what they put in.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.errors import InvariantError
from engine.phases import PlayerStatus

__all__ = ["check_chips", "check_payout", "pot_violations", "verify_chips", "violations"]

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
    """At the end of a hand the pots must hold exactly what was committed.

    >>> pot_violations([30, 10], [20, 20])
    []
    """
    if sum(pot_amounts) != sum(committed):
        return [f"pots hold {sum(pot_amounts)} but {sum(committed)} chips were committed"]
    return []


def check_chips(
    *,
    stacks: Sequence[int],
    committed: Sequence[int],
    statuses: Sequence[PlayerStatus],
    total_chips: int,
) -> None:
    """Raise ``InvariantError`` naming every invariant that fails (the hand's fast check
    failed, so the full one says what is wrong)."""
    problems = violations(
        stacks=stacks, committed=committed, statuses=statuses, total_chips=total_chips
    )
    raise InvariantError("invariant_failed", "; ".join(problems) or "invariants failed")


def verify_chips(
    stacks: Sequence[int],
    committed: Sequence[int],
    statuses: Sequence[PlayerStatus],
    total_chips: int,
) -> None:
    """After a transition of a hand: raise ``InvariantError`` if a chip invariant fails.

    This runs after every action, so the common case is checked with fast built-ins; only
    when that fails does :func:`check_chips` work out what is wrong and name it.

    >>> verify_chips([5, 0], [3, 2], [PlayerStatus.ACTIVE, PlayerStatus.ALL_IN], 10)
    """
    if (
        sum(stacks) + sum(committed) == total_chips
        and min(stacks) >= 0
        and min(committed) >= 0
        and (0 not in stacks or _no_active_empty_stack(stacks, statuses))
    ):
        return
    check_chips(stacks=stacks, committed=committed, statuses=statuses, total_chips=total_chips)


def _no_active_empty_stack(stacks: Sequence[int], statuses: Sequence[PlayerStatus]) -> bool:
    return all(statuses[p] is not _ACTIVE for p, s in enumerate(stacks) if s == 0)


def check_payout(
    pot_amounts: Sequence[int],
    committed: Sequence[int],
    stacks: Sequence[int],
    total_chips: int,
) -> None:
    """After the pots are paid: they held exactly what was committed, and every chip is
    in a stack again. Raises ``InvariantError`` otherwise.

    >>> check_payout([30], [20, 10], [45, 5], 50)
    """
    problems = pot_violations(pot_amounts, committed)
    # The common case is checked with fast built-ins; the full check names the problem.
    if problems or sum(stacks) != total_chips or min(stacks) < 0:
        problems += violations(
            stacks=stacks,
            committed=[0] * len(stacks),
            statuses=[PlayerStatus.ALL_IN] * len(stacks),
            total_chips=total_chips,
        )
        raise InvariantError("invariant_failed", "; ".join(problems))
