"""Main pot and side pots from what each player put in, and how a pot is split.

A pot is a layer of contributions: every player who put in at least the layer's top may
win it, so a player all-in for less cannot win more than they matched. Folded
players' chips stay in the layers they reached, but folded players win nothing.

Dead money (the TDA big blind ante) makes no layer: it goes into the main pot, which every
player still in the hand may win, also one all-in for the ante alone.

>>> build_pots([100, 200, 200], [True, True, True])
[Pot(amount=300, eligible=(0, 1, 2)), Pot(amount=200, eligible=(1, 2))]
>>> split_pot(10, [2, 0, 1])
[(2, 4), (0, 3), (1, 3)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.speed.dataclass_init import fast_init

__all__ = ["Pot", "build_pots", "split_pot"]


@dataclass(frozen=True, slots=True)
class Pot:
    """``amount`` chips that only the players in ``eligible`` (indexes) may win."""

    amount: int
    eligible: tuple[int, ...]


fast_init(Pot)  # pots are gathered for every view that follows a change


def build_pots(
    contributions: Sequence[int],
    live: Sequence[bool],
    all_in: Sequence[bool] | None = None,
    *,
    dead_money: Sequence[int] | None = None,
) -> list[Pot]:
    """Layer ``contributions`` (by player index) into the main pot and side pots.

    ``live[i]`` is false for a player who folded (or was never dealt in). The layers are the
    distinct contributions of live players; chips above the top live contribution (only
    possible before uncalled bets are returned) join the top pot. Consecutive pots never
    have the same eligible players, since each layer drops the players who stopped below it.

    During a betting round pass ``all_in``: then only all-in players make layers (a side
    pot exists because someone cannot put in more) and players who can still call stay
    eligible for every layer. At a showdown both ways give the same pots.

    ``dead_money[i]`` is the part of ``contributions[i]`` that is dead money (TDA's big
    blind ante): it is added to the main pot, open to every live player, and is not part of
    any layer; so a big blind all-in for less wins the whole ante but only as much of each
    bet as it matched.

    >>> build_pots([1, 2, 0], [True, True, True], [False, False, False])
    [Pot(amount=3, eligible=(0, 1, 2))]
    >>> build_pots([10, 10, 5], [True, True, True], dead_money=[0, 0, 3])  # ante 3 of 5
    [Pot(amount=9, eligible=(0, 1, 2)), Pot(amount=16, eligible=(0, 1))]
    """
    if dead_money is not None and any(dead_money):
        layered = [c - d for c, d in zip(contributions, dead_money, strict=True)]
        layers = build_pots(layered, live, all_in)
        dead = sum(dead_money)
        everyone = tuple(i for i, alive in enumerate(live) if alive)
        if layers and layers[0].eligible == everyone:
            layers[0] = Pot(layers[0].amount + dead, everyone)
        else:  # some live player put in nothing but dead money
            layers.insert(0, Pot(dead, everyone))
        return layers
    if all_in is None:
        levels = sorted(
            {c for c, alive in zip(contributions, live, strict=True) if alive and c > 0}
        )
    elif True not in all_in:
        # Nobody is all-in (the usual case during a round): at most the one layer below.
        top_level = max(contributions, default=0)
        levels = [top_level] if top_level > 0 else []
    else:
        levels = sorted(
            {c for c, alive, out in zip(contributions, live, all_in, strict=True) if alive and out}
        )
        top_level = max(contributions, default=0)
        if not levels or levels[-1] < top_level:
            levels.append(top_level)
        levels = [level for level in levels if level > 0]
    if len(levels) == 1:
        # One layer (the usual case): it holds every chip put in.
        level = levels[0]
        eligible = tuple(
            [
                i
                for i, c in enumerate(contributions)
                if live[i] and (c >= level or (all_in is not None and not all_in[i]))
            ]
        )
        return [Pot(sum([c for c in contributions if c > 0]), eligible)]
    pots: list[Pot] = []
    previous = 0
    count = len(levels)
    for number, level in enumerate(levels, start=1):
        top = number == count
        amount = 0
        for c in contributions:
            upper = c if top else min(c, level)
            if upper > previous:
                amount += upper - previous
        eligible = tuple(
            i
            for i, c in enumerate(contributions)
            if live[i] and (c >= level or (all_in is not None and not all_in[i]))
        )
        pots.append(Pot(amount, eligible))  # never empty: someone reached this layer
        previous = level
    return pots


def split_pot(amount: int, winners_in_order: Sequence[int]) -> list[tuple[int, int]]:
    """Share ``amount`` evenly; the odd chips go one each to the first winners in order.

    The caller orders ``winners_in_order`` clockwise from the button, so the odd chip goes to
    the first winner left of the button (the usual cardroom rule), pot by pot.
    """
    count = len(winners_in_order)
    base, odd = divmod(amount, count)
    return [(w, base + (1 if k < odd else 0)) for k, w in enumerate(winners_in_order)]
