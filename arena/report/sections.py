"""The report's tables and charts as plain JSON-ready values (pure: no I/O).

Each function turns what the statistics and the stores give into the small documents the
page's script draws: leaderboard rows, crosstable cells, chart lines, latency histograms,
fault summaries and finishing places. Numbers are rounded here, once, so the embedded
JSON stays small.

>>> thin([(x, x % 7) for x in range(1, 11)], 4)
[(1, 1), (6, 6), (7, 0), (10, 3)]
>>> latency_bins([(0.01, 3), (0.5, 2), (0.55, 1)])
[[0.0, 0.01, 3], [0.316, 0.562, 3]]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "ADJUSTMENT_EXPLAINED",
    "BINS_PER_DECADE",
    "MAX_LUCK_MATCHES",
    "crosstable_section",
    "cumulative",
    "estimate_section",
    "latency_bins",
    "leaderboard_section",
    "luck_section",
    "thin",
]

#: Latency histograms are drawn with this many bins per factor of ten (a log axis).
BINS_PER_DECADE = 4

#: The two sentences the report puts beside the raw and adjusted numbers.
ADJUSTMENT_EXPLAINED = (
    "The adjusted result is the raw result minus the luck of the cards and of a bot's own "
    "reported dice (at each card dealt, and each action drawn from a reported strategy, "
    "what the hand became worth minus what it was worth on average over all that could "
    "have come). Every correction averages to zero, so the adjusted result is unbiased: it "
    "converges to the same value as the raw one, with a smaller interval."
)

#: The luck of at most this many matches is embedded (the rest is in standings.json).
MAX_LUCK_MATCHES = 2000


def _rounded(value: Any, digits: int = 2) -> float | None:
    """A finite number rounded, or None (JSON has no infinity)."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return round(float(value), digits) if math.isfinite(value) else None


def estimate_section(estimate: Mapping[str, Any]) -> dict[str, Any]:
    """An ``Estimate.to_dict()`` (mbb/hand) as the page shows it: mean, half width of the
    95% interval (None when unknown), bounds, bb/100, units and the sign mark."""
    return {
        "mean": _rounded(estimate.get("mean")),
        "half": _rounded(estimate.get("half_width")),
        "low": _rounded(estimate.get("low")),
        "high": _rounded(estimate.get("high")),
        "bb100": _rounded(estimate.get("bb_per_100")),
        "n": int(estimate.get("n") or 0),
        "sign": str(estimate.get("sign") or ""),
    }


def _adjusted_section(item: Mapping[str, Any]) -> dict[str, Any]:
    """The adjusted estimate (None when not known) and the luck of a row or a cell."""
    adjusted = item.get("adjusted_mbb_per_hand")
    return {
        "adjusted": None if not isinstance(adjusted, Mapping) else estimate_section(adjusted),
        "luck": _rounded(item.get("luck_mbb_per_hand")),
    }


def leaderboard_section(
    board: Mapping[str, Any], fault_totals: Mapping[str, int]
) -> dict[str, Any]:
    """A ``Leaderboard.to_dict()`` (or standings.json's ``leaderboard``) as rows for the
    page, each with the bot's fault total, its adjusted estimate and luck when known."""
    rows = []
    for row in board.get("rows", ()):
        rating = row.get("rating")
        rows.append(
            {
                "rank": row["rank"],
                "bot": row["bot"],
                "estimate": estimate_section(row.get("mbb_per_hand") or {}),
                **_adjusted_section(row),
                "deals": row.get("deals", 0),
                "hands": row.get("hands", 0),
                "chips": row.get("chips_won", 0),
                "faults": int(fault_totals.get(row["bot"], 0)),
                "rating": None
                if rating is None
                else {
                    "mu": _rounded(rating.get("mu")),
                    "sigma": _rounded(rating.get("sigma")),
                    "ordinal": _rounded(rating.get("ordinal")),
                    "games": rating.get("games", 0),
                },
                "place": _rounded(row.get("average_place")),
            }
        )
    return {
        "order_by": board.get("order_by", "mean"),
        "score": board.get("score", "raw"),
        "rows": rows,
    }


def crosstable_section(table: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A ``Crosstable.to_dict()`` as the heat map's bots and cells (row bot's mbb/hand
    against the column bot, with the significance mark of the score that ranks, and the
    adjusted estimate and luck when known)."""
    if table is None:
        return None
    return {
        "bots": list(table.get("bots", ())),
        "score": table.get("score", "raw"),
        "cells": [
            {
                "row": cell["row"],
                "column": cell["column"],
                "mark": cell.get("mark", ""),
                **estimate_section(cell.get("mbb_per_hand") or {}),
                **_adjusted_section(cell),
            }
            for cell in table.get("cells", ())
        ],
    }


def luck_section(matches: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each match's luck (``MatchLuck.to_dict()``) as the page's table rows: per seat the
    bot, its raw and adjusted chips and mbb/hand, and the luck (raw minus adjusted); at most
    :data:`MAX_LUCK_MATCHES` matches."""
    return [
        {
            "match": match["match_id"],
            "seats": [
                {
                    "bot": seat["bot"],
                    "hands": seat["hands"],
                    "raw": seat["raw_chips"],
                    "adjusted": _rounded(seat["adjusted_chips"], 1),
                    "luck": _rounded(seat["luck_chips"], 1),
                    "raw_mbb": _rounded(seat["raw_mbb_per_hand"], 1),
                    "adjusted_mbb": _rounded(seat["adjusted_mbb_per_hand"], 1),
                    "luck_mbb": _rounded(seat["luck_mbb_per_hand"], 1),
                }
                for seat in match["seats"]
            ],
        }
        for match in matches[:MAX_LUCK_MATCHES]
    ]


def cumulative(steps: Iterable[tuple[float, float]], max_points: int) -> list[tuple[float, float]]:
    """The running totals of ``(x step, y step)`` pairs as points, starting at (0, 0),
    thinned to about ``max_points`` (:func:`thin`)."""
    x = 0.0
    y = 0.0
    points: list[tuple[float, float]] = [(0, 0)]
    for dx, dy in steps:
        x += dx
        y += dy
        points.append((x, y))
    return [(_number(px), _number(py)) for px, py in thin(points, max_points)]


def _number(value: float) -> float:
    """An int when whole (shorter JSON), else rounded to 2 decimals."""
    rounded = round(value, 2)
    return int(rounded) if rounded == int(rounded) else rounded


def thin(points: Sequence[tuple[float, float]], max_points: int) -> list[tuple[float, float]]:
    """At most about ``max_points`` of ``points`` for a line chart, keeping its shape.

    The points are cut into buckets; each bucket keeps its lowest and highest point (in
    their order), so a spike survives the thinning; the first and last points always stay.
    """
    if max_points < 2:
        raise ValueError(f"max_points must be at least 2, got {max_points!r}")
    if len(points) <= max_points:
        return list(points)
    size = math.ceil(2 * (len(points) - 2) / (max_points - 2))
    kept = [points[0]]
    for start in range(1, len(points) - 1, size):
        bucket = points[start : min(start + size, len(points) - 1)]
        low = min(range(len(bucket)), key=lambda i: bucket[i][1])
        high = max(range(len(bucket)), key=lambda i: bucket[i][1])
        for index in sorted({low, high}):
            kept.append(bucket[index])
    kept.append(points[-1])
    return kept


def latency_bins(histogram: Iterable[Sequence[float]]) -> list[list[float]]:
    """A latency histogram (``[upper bound in ms, count]`` pairs of the fixed layout) in
    :data:`BINS_PER_DECADE` bins per factor of ten, as ``[low, high, count]`` (ms).

    Latencies at or below 0.01 ms (below measuring) stay in their own bin from 0; a top
    bound of infinity (above 10 minutes) goes in the last bin.
    """
    bins: dict[int | None, int] = {}
    for bound, count in histogram:
        if bound <= 0.01:
            key: int | None = None
        elif math.isinf(bound):
            key = math.ceil(math.log10(600_000.0) * BINS_PER_DECADE)
        else:
            # The bucket (bound / 1.1, bound] lies in the bin of its upper bound (within
            # 1e-9: the stored bounds are rounded).
            key = math.ceil(math.log10(bound) * BINS_PER_DECADE - 1e-9)
        bins[key] = bins.get(key, 0) + int(count)
    rows = []
    if None in bins:
        rows.append([0.0, 0.01, bins.pop(None)])
    for key in sorted(k for k in bins if k is not None):
        low = round(10 ** ((key - 1) / BINS_PER_DECADE), 3)
        high = round(10 ** (key / BINS_PER_DECADE), 3)
        rows.append([low, high, bins[key]])
    return rows
