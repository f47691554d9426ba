"""The head-to-head grid of the ladder's versions: each row version's result against each
column version, luck-adjusted mbb/hand with its 95% interval and the raw result beside it,
as the page and the API show it.

The cells are the offline report's crosstable (:func:`arena.stats.tables.crosstable`, the
one the tournament's standings use), fed the ladder's pair records
(:func:`arena.ladder.games.pair_records`: each rated game's result, luck-adjusted and raw);
the marks are of the luck-adjusted score, the one the ladder rates by. A pure function:
the ladder view passes what it has already read.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.ladder.games import PairRecord
from arena.stats.intervals import Estimate
from arena.stats.tables import crosstable

__all__ = ["GRID_KIND", "head_to_head"]

#: What a cell's number is (the grid's heading names it).
GRID_KIND: Final = "luck-adjusted mbb/hand, row against column (raw in brackets)"


def _rounded(value: float) -> float | None:
    return round(value, 1) if math.isfinite(value) else None


def _cell(adjusted: Estimate, raw: Estimate, mark: str, games: int) -> dict[str, Any]:
    return {
        "adjusted": _rounded(adjusted.mean),
        # None with a single game: nothing is known of the spread yet.
        "plus_minus": _rounded(adjusted.half_width),
        "raw": _rounded(raw.mean),
        "mark": mark,
        "games": games,
    }


def head_to_head(
    records: Mapping[tuple[str, str], PairRecord], bots: Sequence[str]
) -> dict[str, Any]:
    """The grid of ``bots`` (rows and columns in this order: the ladder's, best first):
    ``{"kind", "bots", "played", "rows": [{"bot", "cells": [cell or None, ...]}]}``
    (``played``: whether any pair of them has a result; the page draws no empty grid), a cell
    ``{"adjusted", "plus_minus", "raw", "mark", "games"}`` of the row's results against
    the column (None: the pair has not played, or the diagonal). Pairs with a version not
    in ``bots`` are left out."""
    named = set(bots)
    kept = {pair: record for pair, record in records.items() if set(pair) <= named}
    games = {pair: record.game_count for pair, record in kept.items()}
    games |= {(second, first): count for (first, second), count in games.items()}
    table = crosstable(
        {pair: record.raw for pair, record in kept.items()},
        list(bots),
        adjusted_pair_units={pair: record.adjusted for pair, record in kept.items()},
        score="adjusted",
    )
    cells = {
        (cell.row, cell.column): _cell(cell.scored, cell.estimate, cell.mark,
                                       games[(cell.row, cell.column)])
        for cell in table.cells
    }  # fmt: skip
    return {
        "kind": GRID_KIND,
        "bots": list(bots),
        "played": bool(cells),
        "rows": [
            {"bot": row, "cells": [cells.get((row, column)) for column in bots]} for row in bots
        ],
    }
