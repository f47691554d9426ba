"""Which hands a report embeds: a bounded set, chosen the same way every time.

A tournament can hold millions of hands; the page embeds at most ``max_hands`` of them for
its hand viewer (and says how to open any other). They are picked in this order, each
kind from what the kinds before it left of the budget:

1. the hands asked for by name (``--hand MATCH/N``), always, even beyond the budget;
2. hands with a fault (a timeout, a crash, an invalid reply...), at most half of the
   budget, earliest first in plan order;
3. the biggest pots, at most half of what is left, largest first, and only pots bigger
   than the run's median pot: where most pots are the blinds (4 chips, the most common
   pot), such a hand is no "big pot", and the sample has room for it;
4. an evenly spaced sample of the other hands in plan order, for the rest.

The choice depends only on the candidates, never on chance or the clock, so the same run
gives the same report.

>>> hands = [Candidate(HandRef("m", n), order=n, pot=n * 10, has_fault=n == 3)
...          for n in range(1, 11)]
>>> [(ref.hand_number, why) for ref, why in select_hands(hands, 4)]
[(1, 'sample'), (3, 'fault'), (6, 'sample'), (10, 'big pot')]
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Candidate", "HandRef", "parse_hand_ref", "select_hands"]


@dataclass(frozen=True, slots=True, order=True)
class HandRef:
    """One hand of one match: ``str(ref)`` is ``"<match_id>/<hand_number>"``.

    >>> str(HandRef("rr-001", 12))
    'rr-001/12'
    """

    match_id: str
    hand_number: int

    def __str__(self) -> str:
        return f"{self.match_id}/{self.hand_number}"


def parse_hand_ref(text: str) -> HandRef:
    """``"MATCH/N"`` as a :class:`HandRef`; anything else is a ``ValueError`` naming it.

    >>> parse_hand_ref("rr-001-b01/7")
    HandRef(match_id='rr-001-b01', hand_number=7)
    """
    match_id, slash, number = text.rpartition("/")
    if not slash or not match_id or not number.isdigit() or int(number) < 1:
        raise ValueError(
            f"{text!r} does not name a hand: write MATCH/N, a match id and a hand number"
            " from 1 (e.g. rr-001-b01/7)"
        )
    return HandRef(match_id, int(number))


@dataclass(frozen=True, slots=True)
class Candidate:
    """A hand that could be embedded: ``order`` is its place in the run (plan order, then
    hand number), ``pot`` every chip awarded in it."""

    ref: HandRef
    order: int
    pot: int
    has_fault: bool = False


def select_hands(
    candidates: Sequence[Candidate], max_hands: int, required: Sequence[HandRef] = ()
) -> list[tuple[HandRef, str]]:
    """The hands to embed with why each was chosen (``requested``, ``fault``, ``big pot``
    or ``sample``; ``every hand`` when the budget holds them all), in plan order (see the
    module docstring)."""
    if isinstance(max_hands, bool) or not isinstance(max_hands, int) or max_hands < 0:
        raise ValueError(f"max_hands must be a whole number of 0 or more, got {max_hands!r}")
    order = {candidate.ref: candidate.order for candidate in candidates}
    chosen: dict[HandRef, str] = {}
    for ref in required:
        chosen.setdefault(ref, "requested")
    budget = max(0, max_hands - len(chosen))
    if len(candidates) - sum(1 for c in candidates if c.ref in chosen) <= budget:
        for candidate in candidates:  # room for them all: nothing to choose
            chosen.setdefault(candidate.ref, "fault" if candidate.has_fault else "every hand")
        return sorted(chosen.items(), key=lambda item: (order.get(item[0], -1), item[0]))
    faults = [c for c in candidates if c.has_fault and c.ref not in chosen]
    for candidate in sorted(faults, key=lambda c: c.order)[: budget // 2]:
        chosen[candidate.ref] = "fault"
    left = max(0, max_hands - len(chosen))
    typical = statistics.median_low(c.pot for c in candidates)
    big = [c for c in candidates if c.ref not in chosen and c.pot > typical]
    for candidate in sorted(big, key=lambda c: (-c.pot, c.order))[: left // 2]:
        chosen[candidate.ref] = "big pot"
    left = max(0, max_hands - len(chosen))
    rest = sorted((c for c in candidates if c.ref not in chosen), key=lambda c: c.order)
    if left and rest:
        step = len(rest) / left
        picked = {int(index * step) for index in range(min(left, len(rest)))}
        for index in sorted(picked):
            chosen[rest[index].ref] = "sample"
    return sorted(chosen.items(), key=lambda item: (order.get(item[0], -1), item[0]))
