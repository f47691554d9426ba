"""The fault ledger (:mod:`arena.session.faults`): counts, stored entries, latencies."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from arena.session.faults import (
    DETAIL_MAX_CHARS,
    STARTUP_DETAIL_MAX_CHARS,
    Fault,
    FaultKind,
    FaultLedger,
)
from arena.session.latency import RELATIVE_ERROR


def test_the_ledger_summarises_counts_latency_and_dropped_bytes() -> None:
    ledger = FaultLedger(player_id="p3", seat_index=3, max_entries_per_kind=2)
    assert ledger.latency_stats().to_dict() == {
        "count": 0,
        "p50_ms": 0.0,
        "p99_ms": 0.0,
        "max_ms": 0.0,
        "mean_ms": 0.0,
    }
    for index in range(3):
        ledger.record(Fault(FaultKind.UNSOLICITED_LINE, 1, "unsolicited", "x" * 1000, seq=index))
    ledger.record(Fault(FaultKind.DROPPED_OUTPUT, 2, dropped_bytes=500))
    for ms in range(1, 101):
        ledger.add_latency(float(ms))
    data = ledger.to_dict()
    assert data["counts"]["unsolicited_line"] == 3 and data["faults_not_stored"] == 1
    assert data["dropped_output_bytes"] == 500
    latency = data["latency"]
    # Count, max and mean are exact; the quantiles come from the histogram's buckets.
    assert (latency["count"], latency["max_ms"], latency["mean_ms"]) == (100, 100.0, 50.5)
    assert latency["p50_ms"] == pytest.approx(50.0, rel=RELATIVE_ERROR)
    assert latency["p99_ms"] == pytest.approx(99.0, rel=RELATIVE_ERROR)
    first = data["faults"][0]
    assert len(first["detail"]) == DETAIL_MAX_CHARS and first["detail"].endswith("...")
    assert data["faults"][-1] == {"kind": "dropped_output", "hand_number": 2, "dropped_bytes": 500}


def test_a_start_failure_keeps_its_way_out_past_a_garbage_lines_cut() -> None:
    # A start-up failure's detail is the arena's explanation, ending with what to do (the
    # directory to expose): long paths must not cut it at a garbage line's 300 characters.
    ledger = FaultLedger()
    way_out = "cannot run bot: " + "/long/path" * 60 + " Ways out: --expose /opt/tool"
    ledger.record(Fault(FaultKind.STARTUP_FAILURE, None, code="cannot_start", detail=way_out))
    ledger.record(Fault(FaultKind.STARTUP_FAILURE, None, code="x", detail="y" * 5000))
    kept, cut = ledger.to_dict()["faults"]
    assert DETAIL_MAX_CHARS < len(way_out) < STARTUP_DETAIL_MAX_CHARS
    assert kept["detail"] == way_out
    assert len(cut["detail"]) == STARTUP_DETAIL_MAX_CHARS and cut["detail"].endswith("...")


def test_the_ledger_gives_its_latency_buckets_to_add_up_over_matches() -> None:
    ledger = FaultLedger()
    for ms in (0.5, 0.5, 40.0):
        ledger.add_latency(ms)
    buckets = ledger.latency_buckets()
    assert sum(count for _bound, count in buckets) == 3 and len(buckets) == 2


def test_the_ledger_does_not_grow_with_the_latencies_it_records() -> None:
    # A long match records about ten latencies per hand: a list of them grew a seat's
    # memory by some 33 MiB per 100,000 hands. The histogram keeps the same size.
    rng = random.Random(5)
    ledger = FaultLedger(player_id="p0", seat_index=0)
    for _ in range(1000):  # every bucket these values reach is allocated here
        ledger.add_latency(rng.lognormvariate(0.0, 3.0))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(200_000):
            ledger.add_latency(rng.lognormvariate(0.0, 3.0))
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert ledger.latency_stats().count == 201_000
    assert grown < 64 * 1024  # a list of 200,000 floats would be about 6 MiB
