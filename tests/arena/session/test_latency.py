"""The latency histogram (:mod:`arena.session.latency`): a fixed layout, exact count, mean
and max, quantiles within the bucket ratio, merging and rebuilding from buckets."""

from __future__ import annotations

import math
import random
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.session.latency import (
    BUCKET_COUNT,
    BUCKET_RATIO,
    HIGHEST_MS,
    LOWEST_MS,
    RELATIVE_ERROR,
    LatencyHistogram,
)

#: The lower bound of the top bucket (the last bound of the layout).
TOP_BUCKET_FROM_MS = LOWEST_MS * BUCKET_RATIO ** (BUCKET_COUNT - 2)

latencies = st.lists(
    st.floats(min_value=0.0, max_value=2 * HIGHEST_MS, allow_nan=False), min_size=1
)


def nearest_rank(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1]


def histogram_of(values: list[float]) -> LatencyHistogram:
    histogram = LatencyHistogram()
    for value in values:
        histogram.add(value)
    return histogram


def test_the_layout_is_about_two_hundred_buckets_from_ten_microseconds_to_ten_minutes() -> None:
    assert 180 <= BUCKET_COUNT <= 200
    assert math.isclose(RELATIVE_ERROR, math.sqrt(BUCKET_RATIO) - 1)
    histogram = histogram_of([0.0, LOWEST_MS, HIGHEST_MS, HIGHEST_MS * 2])
    bounds = [bound for bound, _count in histogram.buckets()]
    # Zero and the lowest bound share the lowest bucket; 20 minutes is in the top one.
    assert bounds[0] == LOWEST_MS and bounds[-1] == math.inf and len(bounds) == 3
    assert HIGHEST_MS <= bounds[1] < HIGHEST_MS * BUCKET_RATIO


def test_an_empty_histogram_summarises_to_zeros() -> None:
    histogram = LatencyHistogram()
    assert histogram.summary().to_dict() == {
        "count": 0,
        "p50_ms": 0.0,
        "p99_ms": 0.0,
        "max_ms": 0.0,
        "mean_ms": 0.0,
    }
    assert (histogram.quantile(0.5), histogram.mean_ms, histogram.buckets()) == (0.0, 0.0, ())


@given(latencies)
def test_quantiles_are_within_the_bucket_ratio_and_count_mean_max_are_exact(
    values: list[float],
) -> None:
    histogram = histogram_of(values)
    stats = histogram.summary()
    assert stats.count == len(values)
    assert stats.max_ms == max(values) and histogram.min_ms == min(values)
    assert stats.mean_ms == pytest.approx(sum(values) / len(values))
    for fraction in (0.0, 0.5, 0.99, 1.0):
        true = nearest_rank(values, fraction)
        estimate = histogram.quantile(fraction)
        assert min(values) <= estimate <= max(values)
        if true <= LOWEST_MS:
            assert estimate <= LOWEST_MS  # below measuring: at most the lowest bound
        elif true > TOP_BUCKET_FROM_MS:
            assert true <= estimate <= max(values)  # the top bucket: at most the maximum
        else:
            assert estimate == pytest.approx(true, rel=RELATIVE_ERROR + 1e-9)


def test_a_single_latency_is_every_quantile_exactly() -> None:
    histogram = histogram_of([12.345])
    assert histogram.quantile(0.0) == histogram.quantile(1.0) == 12.345


@given(latencies, latencies)
def test_merging_is_the_same_as_adding_everything_to_one(
    first: list[float], second: list[float]
) -> None:
    merged = histogram_of(first)
    merged.merge(histogram_of(second))
    whole = histogram_of(first + second)
    assert merged.buckets() == whole.buckets()
    assert (merged.count, merged.min_ms, merged.max_ms) == (whole.count, whole.min_ms, whole.max_ms)
    assert merged.total_ms == pytest.approx(whole.total_ms)


def test_merging_into_or_from_an_empty_histogram() -> None:
    empty = LatencyHistogram()
    full = histogram_of([3.0, 4.0])
    empty.merge(full)
    assert empty == full
    full.merge(LatencyHistogram())
    assert full == histogram_of([3.0, 4.0])


@given(latencies)
def test_buckets_rebuild_the_same_histogram(values: list[float]) -> None:
    original = histogram_of(values)
    copy = LatencyHistogram.from_buckets(
        original.buckets(),
        total_ms=original.total_ms,
        min_ms=original.min_ms,
        max_ms=original.max_ms,
    )
    assert copy == original
    assert copy.summary() == original.summary()


def test_buckets_alone_estimate_sum_min_and_max_from_the_bounds() -> None:
    original = histogram_of([1.0, 1.0, 50.0])
    copy = LatencyHistogram.from_buckets(original.buckets())
    assert copy.count == 3
    assert copy.min_ms <= 1.0 <= copy.min_ms * BUCKET_RATIO
    assert copy.max_ms / BUCKET_RATIO <= 50.0 <= copy.max_ms
    assert copy.total_ms == pytest.approx(52.0, rel=RELATIVE_ERROR)
    top = LatencyHistogram.from_buckets([(math.inf, 2)])
    assert top.max_ms >= HIGHEST_MS and top.quantile(0.5) == top.max_ms
    assert LatencyHistogram.from_buckets([]) == LatencyHistogram()


def test_bounds_survive_rounding_in_storage() -> None:
    original = histogram_of([2.5, 700.0])
    rounded = [(float(f"{bound:.9g}"), count) for bound, count in original.buckets()]
    assert LatencyHistogram.from_buckets(rounded).buckets() == original.buckets()


@pytest.mark.parametrize(
    ("buckets", "named"),
    [
        ([(3.0, 1)], "3.0 ms is not an upper bound"),
        ([(LOWEST_MS, -1)], "non-negative integer, got -1"),
        ([(LOWEST_MS, 1.5)], "non-negative integer, got 1.5"),
        ([(LOWEST_MS, True)], "non-negative integer, got True"),
    ],
)
def test_bad_buckets_are_refused_naming_the_bad_value(
    buckets: list[tuple[float, int]], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        LatencyHistogram.from_buckets(buckets)


@pytest.mark.parametrize("bad", [-0.001, math.nan])
def test_a_negative_or_nan_latency_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="non-negative number of ms"):
        LatencyHistogram().add(bad)


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_a_quantile_outside_zero_to_one_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match=f"got {bad}"):
        histogram_of([1.0]).quantile(bad)


def test_a_million_latencies_keep_the_bucket_count_and_size_bounded() -> None:
    rng = random.Random(7)
    histogram = LatencyHistogram()
    size_before = sys.getsizeof(histogram._counts)
    for _ in range(1_000_000):
        histogram.add(rng.lognormvariate(0.0, 6.0))  # from far below 0.01 ms to hours
    buckets = histogram.buckets()
    assert len(buckets) <= BUCKET_COUNT and buckets[0][0] == LOWEST_MS
    assert sum(count for _bound, count in buckets) == histogram.count == 1_000_000
    assert sys.getsizeof(histogram._counts) == size_before


def test_equality_and_repr() -> None:
    histogram = histogram_of([1.0])
    assert histogram != histogram_of([2.0])
    assert histogram.__eq__(object()) is NotImplemented
    assert "count=1" in repr(histogram)
