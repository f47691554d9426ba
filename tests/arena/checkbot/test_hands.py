"""``arena check-bot --hands N``: quick hands against the built-in calling station, through
the real watchdog; the report counts the faults by kind (with the first) and the latency,
and any fault fails the check."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from arena import cli
from arena.bots.manifest import load_manifest
from arena.checkbot import check_bot
from arena.checkbot.hands import (
    STATION_NAME,
    FaultSummary,
    HandsReport,
    calling_station,
    play_quick_hands,
    summarize_faults,
)
from arena.checkbot.hints import NOTIFICATION_HINT
from arena.session.faults import Fault, FaultKind, FaultLedger, LatencyStats
from arena.session.policy import TimeLimits
from tests import REPO_ROOT, TEST_BOTS

LIMITS = TimeLimits(decision_s=0.5, startup_s=5.0, match_end_grace_s=0.5)
STATION = REPO_ROOT / "sample_bots" / "python_calling_station" / "bot.toml"
RANDOM = REPO_ROOT / "sample_bots" / "python_random" / "bot.toml"


def manifest_of(tmp_path: Path, name: str, *args: str) -> Path:
    """A manifest running tests/bots/<name> with ``args``."""
    script = TEST_BOTS / name / f"{name}_bot.py"
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\ncommand = {json.dumps(["{python}", str(script), *args])}\n')
    return path


def test_a_good_bot_plays_every_hand_without_a_fault() -> None:
    report = check_bot(RANDOM, limits=LIMITS, hand_count=25, seed=3)
    hands = report.hands
    assert hands is not None
    assert (hands.hands_requested, hands.hands_played, hands.faults, hands.error) == (
        25,
        25,
        (),
        "",
    )
    assert hands.is_clean and report.passed
    stats = hands.latency
    assert stats.count >= 25  # at least one reply a hand (the big blind's, or the button's)
    assert 0 <= stats.p50_ms <= stats.p99_ms <= stats.max_ms
    text = report.format()
    assert "hands: 25 of 25 played against a built-in calling station" in text
    assert "PASS  faults: none" in text and "latency: p50 " in text
    assert text.endswith("result: PASSED")
    data = report.to_dict()["hands"]
    assert data["hands_played"] == 25 and data["faults"] == []
    assert data["latency"]["count"] == stats.count


def test_the_same_seed_deals_the_same_hands() -> None:
    # The calling station against itself: every chip result is decided by the cards alone.
    first = play_quick_hands(load_manifest(STATION), 10, limits=LIMITS, seed=99)
    again = play_quick_hands(load_manifest(STATION), 10, limits=LIMITS, seed=99)
    assert first.chips_won == again.chips_won
    assert first.hands_played == again.hands_played == 10


@pytest.mark.allow_error_logs  # the match log says ERROR for each default action
def test_a_bad_call_amount_is_counted_with_its_first_example_and_fails_the_check(
    tmp_path: Path,
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(
        textwrap.dedent(
            """\
            import json, sys
            for line in sys.stdin:
                m = json.loads(line)
                if m["type"] == "hello":
                    r = {"type": "ready", "seq": m["seq"], "name": "x"}
                elif m["type"] == "act" and "CHECK" in m["legal_actions"]:
                    r = {"type": "action", "seq": m["seq"], "action": "CHECK"}
                elif m["type"] == "act":  # the mistake: to_call where current_bet belongs
                    r = {"type": "action", "seq": m["seq"], "action": "CALL"}
                    r["amount"] = m["to_call"]
                elif m["type"] == "match_end":
                    break
                else:
                    continue
                print(json.dumps(r), flush=True)
            """
        )
    )
    manifest = tmp_path / "bot.toml"
    manifest.write_text('name = "x"\ncommand = ["{python}", "bot.py"]\n')
    report = check_bot(manifest, limits=LIMITS, hand_count=6, seed=1)
    # Played even though a step failed: the hands show how often the mistake strikes.
    assert report.first_failure is not None and report.first_failure.name == "first_decision"
    hands = report.hands
    assert hands is not None and hands.hands_played == 6 and not hands.is_clean
    (summary,) = hands.faults
    assert summary.kind == "invalid_reply" and summary.count == hands.fault_count >= 3
    assert summary.first.startswith("hand 1: call_amount_mismatch: CALL amount 1 must equal")
    assert "not to_call" in summary.hint
    text = report.format()
    assert f"FAIL  faults: {hands.fault_count}" in text
    assert f"invalid_reply x{summary.count}, first in hand 1: call_amount_mismatch" in text
    assert "hint: CALL's amount" in text and text.endswith("result: FAILED")


def test_a_bot_answering_notifications_in_play_gets_the_notification_hint(tmp_path: Path) -> None:
    manifest = load_manifest(manifest_of(tmp_path, "unsolicited"))
    hands = play_quick_hands(manifest, 3, limits=LIMITS, seed=2)
    assert hands.hands_played == 3
    kinds = {summary.kind: summary for summary in hands.faults}
    assert set(kinds) == {"unsolicited_line"}
    assert kinds["unsolicited_line"].hint == NOTIFICATION_HINT
    assert "got hand_start" in kinds["unsolicited_line"].first


@pytest.mark.allow_error_logs  # the match log says ERROR for the start-up failure
def test_a_bot_that_cannot_start_for_the_hands_is_reported_not_raised(tmp_path: Path) -> None:
    manifest = load_manifest(manifest_of(tmp_path, "crasher", "startup", "exit"))
    hands = play_quick_hands(manifest, 5, limits=LIMITS, seed=4)
    assert hands.hands_played == 0 and not hands.is_clean
    assert "not ready at the start of the match" in hands.error
    assert [summary.kind for summary in hands.faults] == ["startup_failure"]
    assert hands.faults[0].first.startswith("the start-up: ")
    assert "FAIL  could not play: 1 bot not ready" in "\n".join(hands.format_lines())


def test_no_hands_are_played_for_a_bot_that_fails_the_handshake(tmp_path: Path) -> None:
    report = check_bot(manifest_of(tmp_path, "crasher", "startup", "exit"), hand_count=5)
    assert report.first_failure is not None and report.first_failure.name == "handshake"
    assert report.hands is None


def test_hands_in_five_card_draw_stand_pat_for_the_station() -> None:
    manifest = load_manifest(REPO_ROOT / "sample_bots" / "python_hand_strength" / "bot.toml")
    hands = play_quick_hands(manifest, 8, limits=LIMITS, variant="five_card_draw", seed=6)
    assert hands.is_clean and hands.hands_played == 8


def test_the_station_checks_calls_stands_pat_and_exits() -> None:
    hello = calling_station({"type": "hello", "seq": 1})
    assert hello == {"type": "ready", "seq": 1, "name": STATION_NAME}
    checking = {"type": "act", "seq": 2, "legal_actions": ["FOLD", "CHECK", "RAISE"]}
    assert calling_station(checking) == {"type": "action", "seq": 2, "action": "CHECK"}
    folding = {"type": "act", "seq": 3, "legal_actions": ["FOLD"]}
    assert calling_station(folding) == {"type": "action", "seq": 3, "action": "FOLD"}
    assert calling_station({"type": "draw", "seq": 4}) == {
        "type": "discard",
        "seq": 4,
        "cards": [],
    }
    assert calling_station({"type": "hand_start"}) is None


def test_a_ledger_that_kept_no_entry_still_counts() -> None:
    ledger = FaultLedger(max_entries_per_kind=0)
    ledger.record(Fault(FaultKind.TIMEOUT, 1, code="timeout"))
    (summary,) = summarize_faults(ledger)
    assert summary == FaultSummary("timeout", 1, "")
    assert summary.format() == "timeout x1"


def test_hand_counts_below_the_minimum_are_refused() -> None:
    with pytest.raises(ValueError, match="hand_count must be at least 1, got 0"):
        play_quick_hands(load_manifest(STATION), 0)
    with pytest.raises(ValueError, match="hand_count must not be negative, got -2"):
        check_bot(STATION, hand_count=-2)


# -- the command line --------------------------------------------------------------------------


def test_check_bot_plays_no_hands_by_default_and_says_so_in_its_help() -> None:
    parser = cli.build_parser()
    assert parser.parse_args(["check-bot", "bot.toml"]).hands == 0
    assert parser.parse_args(["check-bot", "bot.toml", "--hands", "50"]).hands == 50
    help_text = cli.command_parser(parser, "check-bot").format_help()
    assert "(default: 0, no hands)" in " ".join(help_text.split())


def test_check_bot_refuses_a_negative_hand_count(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["check-bot", str(STATION), "--hands", "-1"])
    assert info.value.code == 2
    assert "--hands: '-1' must not be negative" in capsys.readouterr().err


def test_check_bot_with_hands_exits_0_for_a_clean_bot_and_1_on_a_fault(tmp_path: Path) -> None:
    out = io.StringIO()
    argv = ["check-bot", str(STATION), "--hands", "5", "--sandbox", "none"]
    assert cli.main(argv, stdout=out) == 0
    assert "hands: 5 of 5 played" in out.getvalue() and "result: PASSED" in out.getvalue()
    out = io.StringIO()
    chatty = manifest_of(tmp_path, "unsolicited")
    argv = ["check-bot", str(chatty), "--hands", "2", "--sandbox", "none"]
    assert cli.main(argv, stdout=out) == 1
    assert "unsolicited_line x" in out.getvalue()


def test_a_report_that_could_not_play_shows_no_fault_line_of_its_own() -> None:
    report = HandsReport(5, 0, (), LatencyStats(0, 0.0, 0.0, 0.0, 0.0), error="no bot")
    lines = report.format_lines()
    assert lines[1] == "  FAIL  could not play: no bot"
    assert not any("faults" in line for line in lines) and not report.is_clean
