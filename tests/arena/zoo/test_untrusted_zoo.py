"""Zoo bots that send what the arena must never show or store as it came: a reply nested
deep enough to exhaust the interpreter's stack, line separators inside a reply, a banner
before ``ready``, a name made of escape sequences. Each is refused or recorded where it
enters, and what the arena wrote stays readable (the common checks are in
:func:`harness.play`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.bots.manifest import ManifestError, load_manifest
from arena.checkbot import check_bot
from arena.match.replay import replay_file
from tests import TEST_BOTS
from tests.arena.zoo.harness import bot, play, station


def test_a_reply_nested_to_the_stack_limit_is_too_deep_and_the_history_replays(
    tmp_path: Path,
) -> None:
    played = play([bot("garbage", "deep:985", "once"), station("victim")], tmp_path, hands=2)
    assert played.codes(0) == {"too_deep"}
    assert replay_file(tmp_path / "run" / "hands.jsonl").is_ok


def test_line_separators_in_a_bad_reply_leave_a_history_that_replays(tmp_path: Path) -> None:
    # The reply's text is kept in the history: U+2028, U+2029 and NEL inside a JSON string
    # must not split its line for any reader.
    played = play([bot("garbage", "separators", "once"), station("victim")], tmp_path, hands=2)
    assert played.codes(0) == {"unknown_action"}
    history = tmp_path / "run" / "hands.jsonl"
    assert "\u2028".encode() in history.read_bytes()
    for line in history.read_bytes().split(b"\n")[:-1]:
        json.loads(line)
    assert replay_file(history).is_ok


def test_a_banner_before_ready_fails_the_start_with_invalid_json_not_a_timeout(
    tmp_path: Path,
) -> None:
    played = play(
        [bot("garbage", "banner"), station("victim")],
        tmp_path,
        hands=2,
        allow_absent_bots=True,
        restart_budget=1,
    )
    failures = [fault for fault in played.faults(0) if fault["kind"] == "startup_failure"]
    assert failures and {fault["code"] for fault in failures} == {"invalid_json"}
    assert "garbage bot v2 starting" in str(failures[0]["detail"])


def test_a_name_made_of_escape_sequences_is_refused_when_the_manifest_is_read(
    tmp_path: Path,
) -> None:
    station_bot = TEST_BOTS / "zoo_station" / "station_bot.py"
    manifest = tmp_path / "bot.toml"
    manifest.write_text(
        'name = "evil\\u001b[2J\\u001b]0;pwned\\u0007 bot"\n'
        f"command = {json.dumps(['{python}', str(station_bot)])}\n"
    )
    with pytest.raises(ManifestError, match=r"holds the control character \\x1b"):
        load_manifest(manifest)
    report = check_bot(manifest)
    text = report.format()
    assert not report.passed and report.steps[0].name == "manifest"
    assert "\x1b" not in text and "\x07" not in text
