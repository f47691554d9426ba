"""The head-to-head grid of the ladder's versions: each row version's result against each
column version, luck-adjusted mbb/hand with its 95% interval and the raw result beside it,
as the page and the API show it.

The cells are read from the ladder's running sums of each pair
(:class:`arena.ladder.sums.PairSums`: count, sum and sum of squares of the luck-adjusted
and raw results), so drawing the grid never reads a game; the interval is Student's t over
the pair's games and the marks are the offline report's crosstable marks
(:func:`arena.stats.tables.significance_mark`: ``++``/``--`` at 99%, ``+``/``-`` at 95%) of
the luck-adjusted score, the one the ladder rates by. A pure function: the ladder view passes
what it has already read.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.ladder.sums import PairSums
from arena.stats.intervals import Estimate

__all__ = ["GRID_KIND", "head_to_head"]

#: What a cell's number is (the grid's heading names it).
GRID_KIND: Final = "luck-adjusted mbb/hand, row against column (raw in brackets)"


def _rounded(value: float) -> float | None:
    return round(value, 1) if math.isfinite(value) else None


def _mark(sums: PairSums) -> str:
    # The report's significance mark of the adjusted mean, from ``first``'s side.
    strict = sums.adjusted_estimate(0.99).sign
    return 2 * strict if strict else sums.adjusted_estimate(0.95).sign


def _cell(adjusted: Estimate, raw: Estimate, mark: str, games: int) -> dict[str, Any]:
    return {
        "adjusted": _rounded(adjusted.mean),
        # None with a single game: nothing is known of the spread yet.
        "plus_minus": _rounded(adjusted.half_width),
        "raw": _rounded(raw.mean),
        "mark": mark,
        "games": games,
    }


def _seen_from(sums: PairSums, row: str) -> dict[str, Any]:
    """The pair's cell from ``row``'s side: heads-up, what one wins the other loses."""
    adjusted, raw, mark = sums.adjusted_estimate(), sums.raw_estimate(), _mark(sums)
    if row != sums.first:
        adjusted, raw = _negated(adjusted), _negated(raw)
        mark = mark.translate(str.maketrans("+-", "-+"))
    return _cell(adjusted, raw, mark, sums.game_count)


def _negated(value: Estimate) -> Estimate:
    return Estimate(
        0.0 - value.mean, 0.0 - value.high, 0.0 - value.low, value.stdev, value.n,
        value.confidence,
    )  # fmt: skip


def head_to_head(
    records: Mapping[tuple[str, str], PairSums], bots: Sequence[str]
) -> dict[str, Any]:
    """The grid of ``bots`` (rows and columns in this order: the ladder's, best first):
    ``{"kind", "bots", "played", "rows": [{"bot", "cells": [cell or None, ...]}]}``
    (``played``: whether any pair of them has a result; the page draws no empty grid), a cell
    ``{"adjusted", "plus_minus", "raw", "mark", "games"}`` of the row's results against
    the column (None: the pair has not played, or the diagonal). Pairs with a version not
    in ``bots`` are left out."""
    named = set(bots)
    cells = {
        (row, column): _seen_from(sums, row)
        for (first, second), sums in records.items()
        if {first, second} <= named and sums.game_count
        for row, column in ((first, second), (second, first))
    }
    return {
        "kind": GRID_KIND,
        "bots": list(bots),
        "played": bool(cells),
        "rows": [
            {"bot": row, "cells": [cells.get((row, column)) for column in bots]} for row in bots
        ],
    }
