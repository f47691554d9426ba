"""Zoo bots that break the rules of time and of the wire: each fault lands in the ledger
with its code, the match completes with chips conserved, nothing is left behind, and the
arena's memory stays bounded (the common checks are in :func:`harness.play`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.arena.zoo.harness import bot, play, station


def test_a_bot_that_hangs_forever_is_declared_hung_and_restarted(tmp_path: Path) -> None:
    played = play([bot("hang", "act"), station("victim")], tmp_path, hands=4, restart_budget=1)
    counts = played.counts(0)
    assert counts["hung"] >= 1
    assert "hung" in played.codes(0)
    # K timeouts per process at most: the start and one restart.
    assert counts["timeout"] <= 3 * 2
    assert counts["restart"] == 1
    assert not played.codes(1)


def test_a_bot_that_hangs_once_costs_one_timeout_and_plays_on(tmp_path: Path) -> None:
    played = play([bot("hang", "once"), station("victim")], tmp_path, hands=3)
    counts = played.counts(0)
    assert counts["timeout"] == 1
    assert counts["hung"] == 0 and counts["crash"] == 0
    assert played.result.player("p0").faults["latency"]["count"] >= 2  # it answered later


@pytest.mark.parametrize("street", ["hand_start", "PRE_FLOP", "FLOP", "TURN", "RIVER", "hand_end"])
def test_a_bot_that_crashes_on_a_street_is_a_crash(street: str, tmp_path: Path) -> None:
    played = play([bot("crasher", street, "exit"), station("victim")], tmp_path, hands=3)
    crashes = [fault for fault in played.faults(0) if fault["kind"] == "crash"]
    assert crashes and crashes[0]["code"] == "crash"
    assert crashes[0].get("exit_code") == 3
    assert not played.codes(1)


def test_a_bot_that_exits_0_mid_hand_is_a_crash(tmp_path: Path) -> None:
    played = play([bot("crasher", "FLOP", "exit0"), station("victim")], tmp_path, hands=3)
    crashes = [fault for fault in played.faults(0) if fault["kind"] == "crash"]
    assert crashes and crashes[0]["code"] == "crash"
    assert crashes[0].get("exit_code") == 0


def test_a_bot_that_closes_stdout_but_runs_on_is_a_crash(tmp_path: Path) -> None:
    played = play([bot("crasher", "PRE_FLOP", "close"), station("victim")], tmp_path, hands=3)
    assert played.counts(0)["crash"] >= 1
    assert "crash" in played.codes(0)


def test_a_bot_that_ignores_match_end_is_recorded_and_killed(tmp_path: Path) -> None:
    played = play([bot("hang", "match_end"), station("victim")], tmp_path, hands=2)
    assert played.counts(0)["ignored_match_end"] == 1
    assert "ignored_match_end" in played.codes(0)
    assert played.counts(1)["ignored_match_end"] == 0


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("text", "invalid_json"),
        ("binary", "invalid_utf8"),
        ("huge", "line_too_long"),
        ("deep", "line_too_long"),  # 100,000 deep is 200,000 bytes: over the line limit
        ("deep:30000", "too_deep"),  # under the line limit: refused before it is parsed
    ],
)
def test_a_garbage_reply_is_an_invalid_reply_with_its_code(
    mode: str, code: str, tmp_path: Path
) -> None:
    played = play([bot("garbage", mode), station("victim")], tmp_path, hands=2)
    invalid = [fault for fault in played.faults(0) if fault["kind"] == "invalid_reply"]
    assert invalid, played.faults(0)
    assert {fault["code"] for fault in invalid} == {code}
    assert not played.codes(1)


def test_a_reply_without_its_newline_times_out(tmp_path: Path) -> None:
    played = play([bot("garbage", "no_newline"), station("victim")], tmp_path, hands=2)
    assert played.counts(0)["timeout"] >= 1
    assert played.counts(0)["invalid_reply"] == 0


@pytest.mark.parametrize("amount", ["NaN", "1e309", "2**100", "true", "-5", "10.5", '"100"'])
def test_a_bad_amount_is_an_invalid_reply(amount: str, tmp_path: Path) -> None:
    played = play([bot("garbage", f"amount:{amount}"), station("victim")], tmp_path, hands=2)
    invalid = [fault for fault in played.faults(0) if fault["kind"] == "invalid_reply"]
    # Three attempts per decision, all bad: never taken for a raise, never a timeout.
    assert len(invalid) >= 3, played.faults(0)
    assert played.counts(0)["timeout"] == 0
    assert all(fault["code"] not in ("", "timeout") for fault in invalid)


@pytest.mark.parametrize("seq", ["0", "-5", "null", "1.5", '"3"'])
def test_a_seq_that_is_not_a_positive_integer_is_bad_seq_not_stale(
    seq: str, tmp_path: Path
) -> None:
    played = play([bot("garbage", f"seq:{seq}"), station("victim")], tmp_path, hands=2)
    invalid = [fault for fault in played.faults(0) if fault["kind"] == "invalid_reply"]
    assert invalid and {fault["code"] for fault in invalid} == {"bad_seq"}
    counts = played.counts(0)
    assert counts["timeout"] == 0 and counts["stale_reply"] == 0


def test_unsolicited_lines_are_dropped_and_recorded(tmp_path: Path) -> None:
    played = play([bot("unsolicited"), station("victim")], tmp_path, hands=3)
    assert played.counts(0)["unsolicited_line"] >= 1
    assert played.counts(0)["timeout"] == 0


def test_a_bot_that_replies_twice_has_its_second_reply_dropped(tmp_path: Path) -> None:
    played = play([bot("stale", "twice"), station("victim")], tmp_path, hands=3)
    counts = played.counts(0)
    assert counts["stale_reply"] >= 1
    assert "stale_seq" in played.codes(0)
    assert counts["timeout"] == 0 and counts["invalid_reply"] == 0


def test_a_stderr_flood_is_cut_and_counted(tmp_path: Path) -> None:
    played = play([bot("flood", "8", "0"), station("victim")], tmp_path, hands=2)
    assert played.result.player("p0").faults["dropped_output_bytes"] > 0
    assert "output_dropped" in played.codes(0)
    assert played.counts(0)["crash"] == 0
