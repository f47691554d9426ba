"""``arena check-bot`` on a bot that reports mixed strategies: valid distributions pass and
are counted, an invalid one fails its step (or is a fault of the hands) with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.checkbot import check_bot
from arena.session.policy import TimeLimits
from tests import TEST_BOTS

LIMITS = TimeLimits(decision_s=2.0, startup_s=5.0, match_end_grace_s=0.5)


def _manifest(tmp_path: Path, mode: str) -> Path:
    path = tmp_path / "mixed.toml"
    command = json.dumps(["{python}", str(TEST_BOTS / "mixed" / "mixed_bot.py"), mode])
    path.write_text(f'name = "mixed"\ncommand = {command}\n')
    return path


def test_a_bot_reporting_valid_distributions_passes_and_the_report_counts_them(
    tmp_path: Path,
) -> None:
    report = check_bot(_manifest(tmp_path, "valid"), limits=LIMITS, hand_count=6, seed=3)
    assert report.passed, report.format()
    assert report.distribution_count == report.decision_count >= 4
    assert report.hands is not None and report.hands.distribution_count >= 6
    text = report.format()
    assert f"{report.distribution_count} of {report.decision_count} decision(s) came as a " in text
    assert "answered with a valid distribution" in text
    first = report.step("first_decision").reason
    assert "answered request 2 with a distribution (" in first and " drawn) in " in first
    assert report.to_dict()["hands"]["distribution_count"] == report.hands.distribution_count


@pytest.mark.parametrize(
    ("mode", "code", "words"),
    [
        ("bad_sum", "probability_sum", "divide each by their sum"),
        ("duplicate", "duplicate_action", "name each move once"),
        ("illegal", "raise_below_minimum", "raise-to total"),
    ],
)
def test_an_invalid_distribution_fails_the_first_decision_with_its_reason_and_hint(
    tmp_path: Path, mode: str, code: str, words: str
) -> None:
    report = check_bot(_manifest(tmp_path, mode), limits=LIMITS, hand_count=3, seed=3)
    step = report.first_failure
    assert step is not None and step.name == "first_decision", report.format()
    assert f"rejected: {code} at /distribution" in step.reason
    assert words in step.hint
    assert report.hands is not None and not report.hands.is_clean
    [summary] = report.hands.faults
    assert summary.kind == "invalid_reply" and code in summary.first
