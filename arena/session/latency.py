"""Reply latencies kept as a fixed histogram: the same small memory after ten hands or ten
million.

A match of 100,000 hands has about a million decisions; keeping every latency would grow
a seat's memory by tens of MiB. :class:`LatencyHistogram` keeps an exact count, sum,
minimum and maximum, and counts per bucket of one fixed layout shared by every
histogram, so the histograms of many matches add up (:meth:`LatencyHistogram.merge`,
:meth:`LatencyHistogram.from_buckets`).

The layout: a bucket ``[0, 0.01]`` ms for what is below measuring, then buckets whose
upper bound is 1.1 times their lower bound from 0.01 ms up to 10 minutes (188 of them),
and one above 10 minutes: :data:`BUCKET_COUNT` in all. A bucket ``(low, high]`` holds
every latency ``low < ms <= high``.

Accuracy: a quantile is the bucket that holds the nearest-rank value, reported as the
bucket's geometric middle ``sqrt(low * high)`` and kept within the exact minimum and
maximum. The true value is in the same bucket, so the estimate is within a factor
``sqrt(1.1)`` (4.9%) of it; below 0.01 ms it is at most 0.01 ms, and above 10 minutes it
is the maximum. Count, mean and maximum are exact.

>>> histogram = LatencyHistogram()
>>> for ms in (1.0, 2.0, 3.0, 4.0, 100.0):
...     histogram.add(ms)
>>> histogram.count, histogram.max_ms, histogram.mean_ms
(5, 100.0, 22.0)
>>> abs(histogram.quantile(0.5) - 3.0) / 3.0 < RELATIVE_ERROR
True
>>> histogram.quantile(1.0)
100.0
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "BUCKET_COUNT",
    "BUCKET_RATIO",
    "HIGHEST_MS",
    "LOWEST_MS",
    "RELATIVE_ERROR",
    "LatencyHistogram",
    "LatencyStats",
]

#: The upper bound of the lowest bucket: latencies at or below it are "no time at all".
LOWEST_MS = 0.01
#: Each bucket's upper bound over its lower bound.
BUCKET_RATIO = 1.1
#: Latencies above the last bound (10 minutes, rounded up to a bucket) share one bucket.
HIGHEST_MS = 600_000.0
#: How far a quantile may be from the true value, relative to it.
RELATIVE_ERROR = math.sqrt(BUCKET_RATIO) - 1.0

_RATIO_BUCKETS = math.ceil(math.log(HIGHEST_MS / LOWEST_MS) / math.log(BUCKET_RATIO))
# The upper bound of every bucket but the top one, ascending: [LOWEST_MS, LOWEST_MS * 1.1,
# ...]. A value's bucket is the first bound at or above it (bisect_left), exact at the
# bounds themselves because every bound is computed once, here.
_UPPER_BOUNDS: tuple[float, ...] = tuple(
    LOWEST_MS * BUCKET_RATIO**power for power in range(_RATIO_BUCKETS + 1)
)
#: Buckets in the layout: below 0.01 ms, the ratio buckets, above the last bound.
BUCKET_COUNT = len(_UPPER_BOUNDS) + 1
_TOP = BUCKET_COUNT - 1  # the bucket above the last bound (upper bound: infinity)


@dataclass(frozen=True, slots=True)
class LatencyStats:
    """Reply latency summary in milliseconds (all zero when there were no replies)."""

    count: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    mean_ms: float

    def to_dict(self) -> dict[str, float | int]:
        """JSON-ready form, rounded to microseconds."""
        return {
            "count": self.count,
            "p50_ms": round(self.p50_ms, 3),
            "p99_ms": round(self.p99_ms, 3),
            "max_ms": round(self.max_ms, 3),
            "mean_ms": round(self.mean_ms, 3),
        }


def _upper_bound(index: int) -> float:
    return math.inf if index == _TOP else _UPPER_BOUNDS[index]


def _lower_bound(index: int) -> float:
    return 0.0 if index == 0 else _UPPER_BOUNDS[index - 1]


def _bucket_of_bound(bound: float) -> int:
    """The bucket whose upper bound is ``bound`` (within rounding); ValueError otherwise."""
    if bound == math.inf:
        return _TOP
    index = bisect_left(_UPPER_BOUNDS, bound)
    # Stored bounds may be rounded a little either way: the nearest bound on each side.
    for near in (index, index - 1):
        if 0 <= near < len(_UPPER_BOUNDS) and math.isclose(
            _UPPER_BOUNDS[near], bound, rel_tol=1e-6
        ):
            return near
    raise ValueError(f"{bound!r} ms is not an upper bound of the latency histogram's buckets")


class LatencyHistogram:
    """Counts of latencies in the fixed buckets, with exact count, sum, min and max (see the
    module docstring)."""

    __slots__ = ("_counts", "count", "max_ms", "min_ms", "total_ms")

    def __init__(self) -> None:
        self._counts = [0] * BUCKET_COUNT
        #: How many latencies were added.
        self.count = 0
        #: Their sum, in ms.
        self.total_ms = 0.0
        #: The smallest and the largest (0.0 while empty).
        self.min_ms = 0.0
        self.max_ms = 0.0

    def add(self, ms: float) -> None:
        """Count one latency of ``ms`` milliseconds (a negative or NaN value is a
        ``ValueError``: a clock that runs backwards is a bug)."""
        if not ms >= 0.0:
            raise ValueError(f"a latency must be a non-negative number of ms, got {ms!r}")
        self._counts[bisect_left(_UPPER_BOUNDS, ms)] += 1
        if self.count == 0:
            self.min_ms = self.max_ms = ms
        elif ms > self.max_ms:
            self.max_ms = ms
        elif ms < self.min_ms:
            self.min_ms = ms
        self.count += 1
        self.total_ms += ms

    def merge(self, other: LatencyHistogram) -> None:
        """Add ``other``'s latencies to these (the layout is the same for all)."""
        if other.count == 0:
            return
        for index, count in enumerate(other._counts):
            self._counts[index] += count
        if self.count == 0:
            self.min_ms, self.max_ms = other.min_ms, other.max_ms
        else:
            self.min_ms = min(self.min_ms, other.min_ms)
            self.max_ms = max(self.max_ms, other.max_ms)
        self.count += other.count
        self.total_ms += other.total_ms

    @property
    def mean_ms(self) -> float:
        """The exact mean (0.0 while empty)."""
        return self.total_ms / self.count if self.count else 0.0

    def quantile(self, fraction: float) -> float:
        """The nearest-rank quantile (``fraction`` in [0, 1]), within :data:`RELATIVE_ERROR`
        of the true one; 0.0 while empty.

        >>> histogram = LatencyHistogram()
        >>> histogram.add(7.0)
        >>> histogram.quantile(0.5), histogram.quantile(0.99)
        (7.0, 7.0)
        """
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"a quantile's fraction must be within [0, 1], got {fraction!r}")
        if self.count == 0:
            return 0.0
        rank = max(1, math.ceil(fraction * self.count))
        if rank == self.count:
            return self.max_ms  # the largest is known exactly (and the smallest, below)
        if rank == 1:
            return self.min_ms
        seen = 0
        for index, count in enumerate(self._counts):  # pragma: no branch - rank <= count
            seen += count
            if seen >= rank:
                return self._estimate(index)
        raise AssertionError("unreachable: the counts add up to count")  # pragma: no cover

    def _estimate(self, index: int) -> float:
        """The value reported for a quantile in bucket ``index``: the geometric middle of
        the bucket (its upper bound for the lowest one), within the exact min and max."""
        if index == 0:
            middle = LOWEST_MS
        elif index == _TOP:
            middle = self.max_ms
        else:
            middle = math.sqrt(_lower_bound(index) * _upper_bound(index))
        return min(max(middle, self.min_ms), self.max_ms)

    def summary(self) -> LatencyStats:
        """Count, p50, p99, max and mean (all zero while empty)."""
        if self.count == 0:
            return LatencyStats(0, 0.0, 0.0, 0.0, 0.0)
        return LatencyStats(
            count=self.count,
            p50_ms=self.quantile(0.50),
            p99_ms=self.quantile(0.99),
            max_ms=self.max_ms,
            mean_ms=self.mean_ms,
        )

    def buckets(self) -> tuple[tuple[float, int], ...]:
        """The non-empty buckets as ``(upper bound in ms, count)``, ascending; the top
        bucket's bound is ``math.inf``.

        >>> histogram = LatencyHistogram()
        >>> histogram.add(0.005)
        >>> histogram.add(0.005)
        >>> histogram.buckets()
        ((0.01, 2),)
        """
        return tuple(
            (_upper_bound(index), count) for index, count in enumerate(self._counts) if count
        )

    @classmethod
    def from_buckets(
        cls,
        buckets: Iterable[tuple[float, int]],
        *,
        total_ms: float | None = None,
        min_ms: float | None = None,
        max_ms: float | None = None,
    ) -> LatencyHistogram:
        """A histogram from :meth:`buckets` pairs (e.g. stored with a match's results).

        The exact sum, minimum and maximum are taken when given; otherwise they are
        estimated from the buckets (each latency at its bucket's middle; the lowest and
        highest bounds in use). A bound that is not one of the layout's, or a negative or
        fractional count, is a ``ValueError`` naming it.

        >>> original = LatencyHistogram()
        >>> for ms in (0.5, 12.0, 12.5, 900.0):
        ...     original.add(ms)
        >>> copy = LatencyHistogram.from_buckets(
        ...     original.buckets(), total_ms=original.total_ms, min_ms=0.5, max_ms=900.0)
        >>> copy == original
        True
        """
        histogram = cls()
        for bound, count in buckets:
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ValueError(f"a bucket's count must be a non-negative integer, got {count!r}")
            histogram._counts[_bucket_of_bound(bound)] += count
            histogram.count += count
        used = [index for index, count in enumerate(histogram._counts) if count]
        if not used:
            return histogram
        lowest, highest = used[0], used[-1]
        histogram.min_ms = min_ms if min_ms is not None else _lower_bound(lowest)
        if max_ms is not None:
            histogram.max_ms = max_ms
        else:  # the top bucket has no upper bound: its lower one is all that is known
            histogram.max_ms = _lower_bound(_TOP) if highest == _TOP else _upper_bound(highest)
        if total_ms is not None:
            histogram.total_ms = total_ms
        else:
            histogram.total_ms = sum(
                histogram._estimate(index) * histogram._counts[index] for index in used
            )
        return histogram

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LatencyHistogram):
            return NotImplemented
        return (
            self._counts == other._counts
            and self.count == other.count
            and self.total_ms == other.total_ms
            and self.min_ms == other.min_ms
            and self.max_ms == other.max_ms
        )

    __hash__ = None  # type: ignore[assignment]  # mutable: no hash

    def __repr__(self) -> str:
        return (
            f"LatencyHistogram(count={self.count}, mean_ms={self.mean_ms:.3f}, "
            f"max_ms={self.max_ms:.3f}, buckets={len(self.buckets())})"
        )
