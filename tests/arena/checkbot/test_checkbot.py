"""``arena check-bot``: a good bot passes every step; each kind of broken bot fails the
step that shows its problem, with a reason a bot author can act on."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from arena.bots.launcher import DirectLauncher, LaunchSpec
from arena.bots.manifest import BotManifest
from arena.bots.transport import BotStartError
from arena.checkbot import STEP_NAMES, CheckReport, CheckStep, check_bot
from arena.checkbot.hints import NO_REPLY_HINT, NOTIFICATION_HINT
from arena.session.policy import TimeLimits
from tests import REPO_ROOT, TEST_BOTS

ROOT = REPO_ROOT
BOTS = TEST_BOTS
LIMITS = TimeLimits(decision_s=0.3, startup_s=5.0, match_end_grace_s=0.3)


def hostile_manifest(tmp_path: Path, name: str, *args: str) -> Path:
    """A manifest in ``tmp_path`` running tests/bots/<name> with other arguments."""
    script = BOTS / name / f"{name}_bot.py"
    path = tmp_path / f"{name}.toml"
    command = json.dumps(["{python}", str(script), *args])
    path.write_text(f'name = "{name}"\ncommand = {command}\n')
    return path


def failed_step(report: CheckReport) -> CheckStep:
    return next(step for step in report.steps if not step.passed)


def test_a_good_bot_passes_every_step() -> None:
    report = check_bot(ROOT / "sample_bots/python_calling_station/bot.toml", limits=LIMITS)
    assert report.passed, report.format()
    assert [step.name for step in report.steps] == list(STEP_NAMES)
    assert report.bot_name == "python calling station"
    assert "ready as 'python calling station'" in report.step("handshake").reason
    assert "results show" not in report.step("handshake").reason  # the same name in both
    assert "without an answer" in report.step("hand_start").reason
    # The opponent opens with a raise to three big blinds: the first decision faces a bet.
    assert "facing a raise to 6 (to_call 4)" in report.step("first_decision").reason
    assert "with CALL" in report.step("first_decision").reason
    assert "new request 3" in report.step("error_reprompt").reason
    assert report.hands is None and report.first_failure is None
    text = report.format()
    assert text.endswith("result: PASSED") and "PASS  quiet" in text
    data = report.to_dict()
    assert data["passed"] is True and len(data["steps"]) == len(STEP_NAMES)
    assert data["hands"] is None and all(step["hint"] == "" for step in data["steps"])


def test_a_bad_manifest_fails_the_first_step_and_runs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text('name = "x"\ncommand = "python3 bot.py"\n')
    report = check_bot(path, limits=LIMITS)
    assert not report.passed
    first = report.steps[0]
    assert (first.name, first.passed) == ("manifest", False)
    assert "'command'" in first.reason and "argument list" in first.reason
    assert all(step.reason == "not run: step 'manifest' failed" for step in report.steps[1:])
    assert [step.name for step in report.steps] == list(STEP_NAMES)
    with pytest.raises(KeyError):
        report.step("no such step")


def test_a_failing_build_is_reported_with_its_output(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text(
        'name = "x"\ncommand = ["./bot"]\n'
        'build = ["{python}", "-c", "import sys; print(\'bot.c:1: error\'); sys.exit(1)"]\n'
    )
    report = check_bot(path, limits=LIMITS)
    step = failed_step(report)
    assert step.name == "build" and "exit code 1" in step.reason and "bot.c:1" in step.reason


class _ClosedToolchainLauncher(DirectLauncher):
    """A sandbox whose bot user cannot run the build tool (a toolchain in a closed home)."""

    def prepare_build(self, manifest: BotManifest) -> LaunchSpec | None:
        raise BotStartError("cannot run 'cargo': /root/.cargo is closed to the bot's user")


def test_a_build_tool_the_sandbox_cannot_run_is_a_failed_build_step(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text('name = "x"\ncommand = ["./bot"]\nbuild = ["cargo", "build"]\n')
    step = failed_step(check_bot(path, limits=LIMITS, launcher=_ClosedToolchainLauncher()))
    assert step.name == "build" and "/root/.cargo is closed" in step.reason


def test_a_program_that_cannot_run_fails_start(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text('name = "x"\ncommand = ["./missing-bot"]\n')
    step = failed_step(check_bot(path, limits=LIMITS))
    assert step.name == "start" and "missing-bot" in step.reason


def test_a_bot_dying_at_hello_fails_the_handshake_with_its_exit(tmp_path: Path) -> None:
    report = check_bot(hostile_manifest(tmp_path, "crasher", "startup", "exit"), limits=LIMITS)
    step = failed_step(report)
    assert step.name == "handshake" and "exit code 3" in step.reason
    assert "crashing at startup" in report.stderr_tail
    assert "crashing at startup" in report.format()  # the stderr tail is shown on failure


def test_a_bad_ready_fails_the_handshake_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    code = (
        "import json, sys; seq = json.loads(sys.stdin.readline())['seq']; "
        "print(json.dumps({'type': 'ready', 'seq': seq}), flush=True)"
    )
    path.write_text(f'name = "x"\ncommand = ["{{python}}", "-c", {json.dumps(code)}]\n')
    step = failed_step(check_bot(path, limits=LIMITS))
    assert step.name == "handshake" and "schema_violation" in step.reason and "name" in step.reason


def test_a_bot_that_never_answers_fails_the_first_decision(tmp_path: Path) -> None:
    step = failed_step(check_bot(hostile_manifest(tmp_path, "hang", "act"), limits=LIMITS))
    assert step.name == "first_decision"
    assert step.reason == "no action for request 2 within 300 ms"
    assert step.hint == NO_REPLY_HINT


@pytest.mark.parametrize(
    ("mode", "reason"),
    [("text", "invalid_json"), ("illegal", "raise_below_minimum"), ("long", "line_too_long")],
)
def test_a_bot_writing_garbage_fails_the_first_decision(
    tmp_path: Path, mode: str, reason: str
) -> None:
    step = failed_step(check_bot(hostile_manifest(tmp_path, "garbage", mode), limits=LIMITS))
    assert step.name == "first_decision" and reason in step.reason


def test_a_bot_that_answers_the_rejected_request_again_fails_error_reprompt(
    tmp_path: Path,
) -> None:
    report = check_bot(hostile_manifest(tmp_path, "stale", "repeat_on_error"), limits=LIMITS)
    step = failed_step(report)
    assert step.name == "error_reprompt"
    assert step.reason == "answered the rejected request 2 again instead of the new one"
    assert "new seq" in step.hint and "(3)" in step.hint
    assert "hint: answer the request's seq (3)" in report.format()


def test_a_bot_crashing_mid_hand_fails_play_hand(tmp_path: Path) -> None:
    step = failed_step(check_bot(hostile_manifest(tmp_path, "crasher", "FLOP"), limits=LIMITS))
    assert step.name == "play_hand" and "the bot is gone" in step.reason


def test_a_bot_answering_notifications_fails_hand_start_and_the_check_goes_on(
    tmp_path: Path,
) -> None:
    # The wait ends as soon as the answer comes: a long one costs a chatty bot nothing.
    manifest = hostile_manifest(tmp_path, "unsolicited")
    report = check_bot(manifest, limits=LIMITS, notification_wait_s=30.0)
    step = failed_step(report)
    assert step.name == "hand_start" and "got hand_start" in step.reason
    assert step.hint == NOTIFICATION_HINT
    # Not fatal: the later steps ran, and quiet caught its answer to hand_end.
    assert report.step("first_decision").passed and report.step("facing_all_in").passed
    assert not report.step("quiet").passed and "got hand_end" in report.step("quiet").reason
    assert report.step("match_end_exit").passed


def test_a_bot_that_stays_after_match_end_fails_the_last_step(tmp_path: Path) -> None:
    report = check_bot(hostile_manifest(tmp_path, "hang", "match_end"), limits=LIMITS)
    step = failed_step(report)
    assert step.name == "match_end_exit"
    assert step.reason == "still running 0.3 s after match_end; killed"


def test_a_bot_exiting_with_an_error_after_match_end_fails_the_last_step(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.toml"
    script = ROOT / "sample_bots/python_calling_station/bot.py"
    # The calling station, then an exit code of 4 once it has left its loop.
    path.write_text(
        'name = "x"\ncommand = ["{python}", "-c", '
        f"\"import runpy, sys; runpy.run_path({str(script)!r}, run_name='__main__'); "
        'sys.exit(4)"]\n'
    )
    step = failed_step(check_bot(path, limits=LIMITS))
    assert step.name == "match_end_exit" and "exit code 4" in step.reason


def test_the_default_limits_are_the_match_defaults() -> None:
    report = check_bot(
        ROOT / "sample_bots/python_random/bot.toml",
        limits=replace(TimeLimits(), match_end_grace_s=1.0),
    )
    assert report.passed, report.format()


def test_a_good_bot_passes_in_five_card_draw_too() -> None:
    report = check_bot(
        ROOT / "sample_bots/python_hand_strength/bot.toml",
        limits=LIMITS,
        variant="five_card_draw",
    )
    assert report.passed, report.format()


def test_a_bot_calling_the_all_in_in_five_card_draw_still_draws() -> None:
    # All-in and called before the draw: the hand goes on with the draw, so the bot is
    # asked for its discard after answering the all-in.
    report = check_bot(
        ROOT / "sample_bots/python_calling_station/bot.toml",
        limits=LIMITS,
        variant="five_card_draw",
    )
    assert report.passed, report.format()
    assert "with CALL" in report.step("facing_all_in").reason
