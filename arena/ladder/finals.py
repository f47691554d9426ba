"""The finals: at the competition's deadline uploads freeze and each team's active version
enters a final duplicate round robin, which the tournament runner plays with the ladder's
settings.

The ladder only decides who plays and in which pairs; playing them is the tournament's job
(:mod:`arena.tournament.plan` lists the same pairs for a round robin of the same entrants in
the same order, and its blocks, seats and seeds). The entrants are listed by the ladder's
final standings, best first (unrated ones last, by name), so the finals' crosstable opens in
the ladder's order.

>>> finals_pairs(("cat-v4", "ann-v2", "bob-v1"))
[('ann-v2', 'cat-v4'), ('bob-v1', 'cat-v4'), ('ann-v2', 'bob-v1')]
>>> is_frozen(now_s=100.0, deadline_s=100.0)
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

from arena.ladder.ratings import Standings

__all__ = ["finals_entrants", "finals_pairs", "is_frozen"]


def is_frozen(*, now_s: float, deadline_s: float | None) -> bool:
    """True from the deadline on (no deadline: never): uploads and activations stop."""
    if deadline_s is None:
        return False
    if math.isnan(now_s) or math.isnan(deadline_s):
        raise ValueError(f"times must be numbers, got now {now_s!r}, deadline {deadline_s!r}")
    return now_s >= deadline_s


def finals_entrants(
    active: Mapping[str, str], standings: Standings | None = None
) -> tuple[str, ...]:
    """Each team's active version at the deadline (``active``: team -> version), best first
    by ``standings``; versions the standings do not rate come last, by name. Fewer than two
    entrants make no finals: ``ValueError``."""
    versions = sorted(set(active.values()))
    if len(versions) != len(active):
        raise ValueError(f"two teams share an active version: {dict(active)!r}")
    if len(versions) < 2:
        raise ValueError(
            f"the finals need two or more teams with an active version, got {versions!r}"
        )
    order = standings.order if standings is not None else ()
    entered = set(versions)
    rated = [bot for bot in order if bot in entered]
    ranked = set(rated)
    return (*rated, *(bot for bot in versions if bot not in ranked))


def finals_pairs(entrants: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of the round robin, names sorted within a pair, in the order the
    tournament's plan lists them for ``entrants`` in this order."""
    return [
        (first, second) if first < second else (second, first)
        for first, second in itertools.combinations(entrants, 2)
    ]
