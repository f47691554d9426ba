"""The luck estimator: a hand's history in, each seat's luck-adjusted result out.

Poker results are mostly the luck of the cards. For every chance event of a hand (the hole
cards, the flop, the turn, the river, five-card draw's deal and each replacement draw) the
estimator takes off how much the cards changed a seat's expected result - the value after
the cards minus its average over every card the dealer could have dealt - and, where a bot
reported the mixed strategy the arena drew its action from, how much that draw changed it.
Each correction averages to zero whatever the bots do, so the adjusted result has the same
expectation as the raw one and (usually much) less variance. The value function is frozen
and named by :data:`ESTIMATOR`; ``docs/luck.md`` explains what is exact and what sampled.

Pure: the engine and the standard library only (numpy too, for fitting the weights:
``arena.luck.value_fit``); no clock, no I/O, no global random (the
samples come from a stream derived from the hand itself).

Modules: ``arena.luck.timeline`` (the history walked into states), ``arena.luck.equity``
(showdown equities, exact or sampled), ``arena.luck.fast_ranks`` (seven-card ranks by
summed card keys, behind a switch), ``arena.luck.fast_boards`` (the sampler's shuffle
and sums read faster, behind a switch), ``arena.luck.parameters`` (what fixes the
value's numbers, its betting weights a :class:`LuckValue` frozen before the hands they
adjust), ``arena.luck.value`` (the value function),
``arena.luck.value_fit`` (fitting those weights on other hands),
``arena.luck.estimator`` (the terms and :func:`estimate_hand`).
"""

from __future__ import annotations

from arena.luck.estimator import (
    ESTIMATOR,
    HandLuck,
    estimate_hand,
    estimate_steps,
    estimator_name,
    luck_record,
)
from arena.luck.parameters import SHIPPED_VALUE, LuckValue
from arena.luck.timeline import LuckError

__all__ = [
    "ESTIMATOR",
    "SHIPPED_VALUE",
    "HandLuck",
    "LuckError",
    "LuckValue",
    "estimate_hand",
    "estimate_steps",
    "estimator_name",
    "luck_record",
]
