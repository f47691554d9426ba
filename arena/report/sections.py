"""The report's tables and charts as plain JSON-ready values (pure: no I/O).

Each function turns what the statistics and the stores give into the small documents the
page's script draws: leaderboard rows, crosstable cells, chart lines, latency histograms,
fault summaries and finishing places. Numbers are rounded here, once, so the embedded
JSON stays small. Each document's shape is a ``TypedDict`` below (a plain ``dict`` at run
time, so it goes into the page's JSON as it is), the one the page's script reads.

>>> thin([(x, x % 7) for x in range(1, 11)], 4)
[(1, 1), (6, 6), (7, 0), (10, 3)]
>>> latency_bins([(0.01, 3), (0.5, 2), (0.55, 1)])
[[0.0, 0.01, 3], [0.316, 0.562, 3]]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

__all__ = [
    "ADJUSTMENT_EXPLAINED",
    "BINS_PER_DECADE",
    "MAX_LUCK_MATCHES",
    "Chart",
    "Crosstable",
    "CrosstableCell",
    "Estimate",
    "FaultExample",
    "FaultRow",
    "LatencyRow",
    "Leaderboard",
    "LeaderboardRow",
    "LuckSeat",
    "MatchLuck",
    "MatchPlace",
    "MatchPlaces",
    "PlaceCounts",
    "Rating",
    "SprtTest",
    "TournamentPlaces",
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

#: A chart's points: (hands, chips), each running total.
Points = list[tuple[float, float]]


class Estimate(TypedDict):
    """A win rate in mbb/hand: mean, half width of the 95% interval and its bounds (None
    when unknown), bb/100, the units it is over and the significance mark."""

    mean: float | None
    half: float | None
    low: float | None
    high: float | None
    bb100: float | None
    n: int
    sign: str


class _Adjusted(TypedDict):
    """The luck-adjusted estimate (None when not known) and the luck, of a row or a cell."""

    adjusted: Estimate | None
    luck: float | None


class Rating(TypedDict):
    """A bot's multiplayer rating."""

    mu: float | None
    sigma: float | None
    ordinal: float | None
    games: int


class LeaderboardRow(_Adjusted):
    """One bot of the leaderboard."""

    rank: int
    bot: str
    estimate: Estimate
    deals: int
    hands: int
    chips: int
    faults: int
    rating: Rating | None
    place: float | None


class Leaderboard(TypedDict):
    """The leaderboard: what orders it, the score that ranks and its rows."""

    order_by: str
    score: str
    rows: list[LeaderboardRow]


class CrosstableCell(Estimate, _Adjusted):
    """The row bot's result against the column bot, with the mark of the score that ranks."""

    row: str
    column: str
    mark: str


class Crosstable(TypedDict):
    """The heat map's bots and cells."""

    bots: list[str]
    score: str
    cells: list[CrosstableCell]


class LuckSeat(TypedDict):
    """One seat of a match's luck: raw and adjusted chips and mbb/hand, and the luck."""

    bot: str
    hands: int
    raw: int
    adjusted: float | None
    luck: float | None
    raw_mbb: float | None
    adjusted_mbb: float | None
    luck_mbb: float | None


class MatchLuck(TypedDict):
    """How much of one match's result was luck, seat by seat."""

    match: str
    seats: list[LuckSeat]


class Chart(TypedDict):
    """A bot's chips over its hands: the raw line and the adjusted one (None: not drawn)."""

    bot: str
    raw: Points
    adjusted: Points | None


class FaultExample(TypedDict):
    """The first fault of a kind: its match, hand (None: between hands) and message."""

    match: str
    hand: int | None
    message: str


class FaultRow(TypedDict):
    """A bot's faults of one kind: how many, and the first."""

    bot: str
    kind: str
    count: int
    example: FaultExample | None


class LatencyRow(TypedDict):
    """A bot's reply latencies (ms): summary (None: a match's results.json did not say)
    and ``[low, high, count]`` bins."""

    bot: str
    count: int
    mean: float | None
    p50: float | None
    p99: float | None
    max: float | None
    bins: list[list[float]]


class PlaceCounts(TypedDict):
    """A bot's finishing places over a tournament's freezeouts: how often in each place
    (first place first), its average place and its rating."""

    bot: str
    counts: list[int]
    average: float | None
    rating: Rating | None


class TournamentPlaces(TypedDict):
    """A tournament's finishing places: the most places of a match, and a row per bot."""

    places: int
    rows: list[PlaceCounts]


class MatchPlace(TypedDict):
    """Where a bot finished a freezeout match."""

    bot: str
    place: int | None
    eliminated: int | None
    final_stack: int | None


class MatchPlaces(TypedDict):
    """A freezeout match's finishing places, best first."""

    match: list[MatchPlace]


class SprtTest(TypedDict, total=False):
    """A pair's sequential test as the tournament wrote it in ``standings.json`` (read back
    as it is: a key may be missing, and the page shows what is there)."""

    pair: list[str]
    status: str
    llr: float | str
    lower_bound: float
    upper_bound: float
    n: int
    mbb0: float
    mbb1: float
    text: str


def _rounded(value: Any, digits: int = 2) -> float | None:
    """A finite number rounded, or None (JSON has no infinity)."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return round(float(value), digits) if math.isfinite(value) else None


def estimate_section(estimate: Mapping[str, Any]) -> Estimate:
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


def _adjusted_section(item: Mapping[str, Any]) -> _Adjusted:
    """The adjusted estimate (None when not known) and the luck of a row or a cell."""
    adjusted = item.get("adjusted_mbb_per_hand")
    return {
        "adjusted": None if not isinstance(adjusted, Mapping) else estimate_section(adjusted),
        "luck": _rounded(item.get("luck_mbb_per_hand")),
    }


def leaderboard_section(board: Mapping[str, Any], fault_totals: Mapping[str, int]) -> Leaderboard:
    """A ``Leaderboard.to_dict()`` (or standings.json's ``leaderboard``) as rows for the
    page, each with the bot's fault total, its adjusted estimate and luck when known."""
    rows: list[LeaderboardRow] = []
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


def crosstable_section(table: Mapping[str, Any] | None) -> Crosstable | None:
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


def luck_section(matches: Sequence[Mapping[str, Any]]) -> list[MatchLuck]:
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


def cumulative(steps: Iterable[tuple[float, float]], max_points: int) -> Points:
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
