"""The report's tables and chart lines as JSON-ready values."""

from __future__ import annotations

import math

import pytest

from arena.report.sections import (
    crosstable_section,
    cumulative,
    estimate_section,
    latency_bins,
    leaderboard_section,
    thin,
)
from arena.session.latency import LatencyHistogram
from arena.stats.intervals import estimate
from arena.stats.tables import crosstable, leaderboard


def test_thinning_keeps_the_ends_and_every_bucket_s_high_and_low() -> None:
    points = [(x, math.sin(x / 50) * 100) for x in range(10_001)]
    points[5_000] = (5_000, 10_000.0)  # a spike
    kept = thin(points, 400)
    assert len(kept) <= 402
    assert kept[0] == points[0] and kept[-1] == points[-1]
    assert (5_000, 10_000.0) in kept
    assert max(y for _x, y in kept) == 10_000.0
    assert min(y for _x, y in kept) == min(y for _x, y in points)
    assert [x for x, _y in kept] == sorted(x for x, _y in kept)


def test_a_short_line_is_not_thinned() -> None:
    assert thin([(0, 0), (1, 5)], 10) == [(0, 0), (1, 5)]
    with pytest.raises(ValueError, match="max_points must be at least 2"):
        thin([(0, 0)], 1)


def test_cumulative_starts_at_zero_and_sums_the_steps() -> None:
    assert cumulative([(1, 5), (1, -2.5), (2, 0.004)], 10) == [(0, 0), (1, 5), (2, 2.5), (4, 2.5)]


def test_latency_buckets_are_grouped_by_quarter_decades() -> None:
    histogram = LatencyHistogram()
    for ms in (0.005, 0.4, 0.45, 3.0, 3.1, 900_000.0):
        histogram.add(ms)
    bins = latency_bins(histogram.buckets())
    assert sum(count for _low, _high, count in bins) == 6
    assert bins[0] == [0.0, 0.01, 1]
    assert [0.316, 0.562, 2] in bins
    assert [1.778, 3.162, 1] in bins and [3.162, 5.623, 1] in bins
    assert bins[-1][1] >= 600_000  # above ten minutes: the last bin


def test_an_infinite_interval_has_no_half_width() -> None:
    section = estimate_section(estimate([5.0]).to_dict())
    assert section["half"] is None and section["low"] is None and section["mean"] == 5.0
    assert estimate_section({})["mean"] is None


def test_leaderboard_rows_carry_each_bot_s_faults_and_rating() -> None:
    board = leaderboard(
        [{"a": 10.0, "b": -10.0}, {"a": 30.0, "b": -30.0}], {"a": 4, "b": -4}, {"a": 2, "b": 2}
    )
    section = leaderboard_section(board.to_dict(), {"b": 3})
    assert [(r["bot"], r["faults"], r["estimate"]["mean"]) for r in section["rows"]] == [
        ("a", 0, 20.0),
        ("b", 3, -20.0),
    ]
    assert section["rows"][0]["rating"] is None


def test_crosstable_cells_keep_their_marks() -> None:
    table = crosstable({("a", "b"): [50.0, 60.0, 55.0, 58.0]}).to_dict()
    section = crosstable_section(table)
    assert section is not None
    assert [(c["row"], c["column"], c["mark"]) for c in section["cells"]] == [
        ("a", "b", "++"),
        ("b", "a", "--"),
    ]
    assert crosstable_section(None) is None
