"""The fault ledger (:mod:`arena.session.faults`): counts, stored entries, latencies."""

from __future__ import annotations

from arena.session.faults import DETAIL_MAX_CHARS, Fault, FaultKind, FaultLedger, percentile


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
    assert data["latency"] == {
        "count": 100,
        "p50_ms": 50.0,
        "p99_ms": 99.0,
        "max_ms": 100.0,
        "mean_ms": 50.5,
    }
    first = data["faults"][0]
    assert len(first["detail"]) == DETAIL_MAX_CHARS and first["detail"].endswith("...")
    assert data["faults"][-1] == {"kind": "dropped_output", "hand_number": 2, "dropped_bytes": 500}


def test_the_percentile_of_no_latencies_is_zero() -> None:
    assert percentile([], 0.5) == 0.0
