"""The terminal results table (:mod:`arena.tools.results_table`) and its helpers."""

from __future__ import annotations

import pytest

from arena.match.results import MatchResult, PlayerResult
from arena.tools.results_table import fault_summary, format_results_table, latency_ms


def test_results_table_and_helpers() -> None:
    player = PlayerResult("p0", "x", 0, 0, 0, 0.0)
    assert player.big_blinds_per_100 == 0.0
    assert fault_summary({}) == "-" and fault_summary({"counts": {"timeout": 0}}) == "-"
    assert latency_ms({"latency": {"count": 0}}, "p50") is None
    assert latency_ms({"latency": {"count": 1, "p50_ms": "x"}}, "p50") is None
    result = MatchResult("m", 1, "freezeout", 0, (player,))
    assert result.hands_per_second == 0.0
    assert "freezeout" in format_results_table(result)
    with pytest.raises(KeyError, match="no player 'p9'"):
        result.player("p9")
    assert MatchResult.from_dict(result.to_dict()) == result
