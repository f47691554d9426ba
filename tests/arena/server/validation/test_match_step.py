"""The validation match's verdict from the match's result, without playing it: faults over
the allowance reject with the count by kind, the first fault and its hint; within it the
step passes and says so; a match that cannot start rejects with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.bots.manifest import load_manifest
from arena.match.readiness import AbsentBot, BotsNotReadyError
from arena.match.results import MatchResult, PlayerResult
from arena.server.validation import match_step
from arena.server.validation.report import StepFailed
from arena.server.validation.rules import ValidationRules
from tests import REPO_ROOT

HOUSE = REPO_ROOT / "sample_bots" / "python_calling_station" / "bot.toml"


def result(faults: dict[str, Any], stderr_log: str | None = None) -> MatchResult:
    players = (
        PlayerResult("a", "upload", 0, 10, 5, 2.5, faults=faults, stderr_log=stderr_log),
        PlayerResult("b", "house", 1, 10, -5, -2.5),
    )
    return MatchResult("validation", 0, "hands", 10, players)


def play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, outcome: object, allowed: int = 0
) -> tuple[str, list[tuple[str, str]]]:
    def host_match(*args: object, **kwargs: object) -> MatchResult:
        if isinstance(outcome, Exception):
            raise outcome
        assert isinstance(outcome, MatchResult)
        return outcome

    monkeypatch.setattr(match_step, "host_match", host_match)
    logged: list[tuple[str, str]] = []
    manifest = load_manifest(HOUSE)
    rules = ValidationRules(house_bot=HOUSE, allowed_faults=allowed)
    message = match_step.play_validation_match(
        manifest,
        manifest,
        rules,
        tmp_path,
        None,  # type: ignore[arg-type]  # host_match is replaced: no launcher is used
        lambda title, text: logged.append((title, text)),
    )
    return message, logged


TIMEOUTS = {
    "counts": {"timeout": 2, "crash": 1},
    "faults": [{"kind": "timeout", "hand_number": 4, "code": "timeout", "detail": "no reply"}],
}


def test_faults_over_the_allowance_reject_naming_the_first_and_its_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(StepFailed) as caught:
        play(monkeypatch, tmp_path, result(TIMEOUTS))
    assert caught.value.message == (
        "3 faults in 10 hands against 'python calling station' (1 crash, 2 timeout; "
        "0 allowed); the first in hand 4: timeout: no reply"
    )
    assert "decision time limit" in caught.value.hint


def test_faults_within_the_allowance_pass_and_the_stderr_goes_to_the_team_log(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "stderr").mkdir()
    (tmp_path / "stderr" / "0-upload.log").write_text("thinking hard\n")
    outcome = result(TIMEOUTS, stderr_log="stderr/0-upload.log")
    message, logged = play(monkeypatch, tmp_path, outcome, allowed=3)
    assert message == (
        "10 hands against 'python calling station': 3 faults (allowed 3), +2.5 big blinds"
    )
    assert logged == [("stderr during the validation match", "thinking hard\n")]


def test_counts_without_stored_faults_still_name_a_kind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(StepFailed) as caught:
        play(monkeypatch, tmp_path, result({"counts": {"invalid_reply": 1}}))
    assert "legal_actions" in caught.value.hint
    assert caught.value.message.endswith("(1 invalid_reply; 0 allowed)")


def test_a_match_that_cannot_start_rejects_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    absent = AbsentBot(0, "a", "upload", "startup_timeout", "no ready within 10000 ms")
    with pytest.raises(StepFailed) as caught:
        play(monkeypatch, tmp_path, BotsNotReadyError([absent]))
    assert caught.value.message.startswith("the match could not start: 1 bot not ready")
    assert "ready" in caught.value.hint
