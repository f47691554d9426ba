"""A match with live bots (:mod:`arena.match.run`): sessions from manifests, and real
deterministic bots giving byte-identical histories."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.bots.manifest import load_manifest
from arena.match.config import MatchConfig, MatchConfigError
from arena.match.run import live_match, open_sessions, run_match
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
    config = MatchConfig(decision_timeout_s=0.25, restart_budget=1)
    opened = open_sessions([manifest, manifest], config)
    assert [name for name, _ in opened] == [manifest.name, manifest.name]
    session = opened[1][1]
    assert (session.player_id, session.seat_index, session.restart_budget) == ("p1", 1, 1)
    assert session.limits.decision_s == 0.25 and not session.is_alive
