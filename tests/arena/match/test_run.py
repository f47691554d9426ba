"""A match with live bots (:mod:`arena.match.run`): sessions from manifests, and real
deterministic bots giving byte-identical histories."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from arena.bots.manifest import load_manifest
from arena.match.config import MatchConfig, MatchConfigError
from arena.match.readiness import BotsNotReadyError
from arena.match.run import live_match, open_sessions, run_match
from arena.session.policy import TimeLimits
from tests import TEST_BOTS
from tests.arena.scripted import SAMPLE_BOTS


def test_real_deterministic_bots_give_byte_identical_histories(tmp_path: Path) -> None:
    folders = ["python_calling_station", "python_hand_strength"]
    if shutil.which("node"):
        folders.append("js_tight")
    manifests = [load_manifest(SAMPLE_BOTS / name / "bot.toml") for name in folders]
    config = MatchConfig(hand_count=12, seed=5)
    texts = []
    for run in ("a", "b"):
        out_dir = tmp_path / run
        run_match(config, open_sessions(manifests, config), out_dir)
        texts.append((out_dir / "hands.jsonl").read_bytes())
    assert texts[0] == texts[1]
    assert texts[0].count(b'"type":"hand"') == 12


@pytest.mark.parametrize("count", [1, 11])
def test_a_match_needs_two_to_ten_bots(count: int) -> None:
    config = MatchConfig()
    with pytest.raises(MatchConfigError, match=f"2 to 10 bots, got {count}"):
        live_match(config, [("", None)] * count)


def test_open_sessions_makes_one_unstarted_session_per_manifest() -> None:
    manifest = load_manifest(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
    config = MatchConfig(time_limits=TimeLimits(decision_s=0.25), restart_budget=1)
    opened = open_sessions([manifest, manifest], config)
    assert [name for name, _ in opened] == [manifest.name, manifest.name]
    session = opened[1][1]
    assert (session.player_id, session.seat_index, session.restart_budget) == ("p1", 1, 1)
    assert session.limits.decision_s == 0.25 and not session.is_alive


def test_open_sessions_passes_the_hung_rule_to_every_session() -> None:
    manifest = load_manifest(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
    config = MatchConfig(hung_after_timeouts=2)
    opened = open_sessions([manifest, manifest], config)
    assert [session.hung_after_timeouts for _, session in opened] == [2, 2]


def test_a_bot_whose_command_does_not_exist_stops_the_match_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "broken"\ncommand = ["./missing"]\n')
    hang = load_manifest(TEST_BOTS / "hang" / "bot.toml")
    manifests = [
        load_manifest(SAMPLE_BOTS / "python_calling_station" / "bot.toml"),
        load_manifest(folder / "bot.toml"),
        replace(hang, command=(*hang.command[:2], "startup")),  # never says ready
    ]
    config = MatchConfig(hand_count=2, time_limits=TimeLimits(startup_s=0.3))
    with pytest.raises(BotsNotReadyError) as info:
        run_match(config, open_sessions(manifests, config), tmp_path / "out")
    broken, mute = info.value.absent
    assert (broken.seat_index, broken.name, broken.code) == (1, "broken", "cannot_start")
    assert "missing" in broken.detail
    assert (mute.seat_index, mute.name, mute.code) == (2, "hang", "startup_timeout")
    assert "'broken' (seat 1): cannot_start" in str(info.value)
    assert not (tmp_path / "out" / "hands.jsonl").exists()
    # The autouse fixture checks that the calling station and the mute bot were stopped.


def test_with_absent_bots_allowed_a_real_match_plays_on(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "broken"\ncommand = ["./missing"]\n')
    station = load_manifest(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
    manifests = [station, load_manifest(folder / "bot.toml")]
    config = MatchConfig(hand_count=2, restart_budget=0, allow_absent_bots=True)
    result = run_match(config, open_sessions(manifests, config), tmp_path / "out")
    assert result.hands_played == 2 and result.player("p1").is_sitting_out
