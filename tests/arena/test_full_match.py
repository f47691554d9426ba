"""Whole matches with real bot processes: hostile bots, and every starter bot (``arena demo``).

Short limits keep these fast; the autouse fixture in ``conftest.py`` fails a test that
leaves any bot process running.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from arena.bots.manifest import BotManifest, load_manifest
from arena.cli import main
from arena.match.config import MatchConfig
from arena.match.results import MatchResult
from arena.match.run import open_sessions, run_match
from arena.tools.replay import replay_file
from tests.arena.scripted import HOSTILE_BOTS, SAMPLE_BOTS, read_records


def _bot(folder: str, *args: str) -> BotManifest:
    manifest = load_manifest(HOSTILE_BOTS / folder / "bot.toml")
    if args:
        manifest = replace(manifest, command=(*manifest.command[:2], *args))
    return manifest


def _station() -> BotManifest:
    return load_manifest(SAMPLE_BOTS / "python_calling_station" / "bot.toml")


def _play(manifests: list[BotManifest], config: MatchConfig, out_dir: Path) -> MatchResult:
    result = run_match(config, open_sessions(manifests, config), out_dir)
    assert result.hands_played == config.hand_count
    assert sum(player.chips_won for player in result.players) == 0  # chips conserved
    for record in read_records(out_dir / "hands.jsonl"):
        if record["type"] == "hand":
            history = record["history"]["result"]
            start = sum(history["starting_stacks"].values())
            assert (
                sum(history["final_stacks"].values())
                == start
                == config.starting_stack * len(history["starting_stacks"])
            )
    return result


def _counts(result: MatchResult, player_id: str) -> dict[str, int]:
    counts: dict[str, int] = result.player(player_id).faults["counts"]
    return counts


def test_crashes_on_every_street_are_faults_and_the_match_completes(tmp_path: Path) -> None:
    streets = ["hand_start", "PRE_FLOP", "FLOP", "TURN", "RIVER", "hand_end"]
    manifests = [_station(), *(_bot("crasher", street, "exit") for street in streets)]
    manifests.append(_bot("crasher", "PRE_FLOP", "signal"))
    config = MatchConfig(hand_count=6, seed=7, decision_timeout_s=1.0, restart_budget=2)
    result = _play(manifests, config, tmp_path)
    for index in range(1, len(manifests)):
        counts = _counts(result, f"p{index}")
        assert counts["crash"] >= 1, (manifests[index].command, counts)
        assert counts["restart"] <= 2
    assert _counts(result, "p0")["crash"] == 0
    # The pre-flop crasher died in every process it had: its budget is spent.
    assert result.player("p2").is_sitting_out
    assert replay_file(tmp_path / "hands.jsonl").is_ok


def test_hanging_garbage_stale_and_flooding_bots_are_recorded(tmp_path: Path) -> None:
    manifests = [
        _station(),
        _bot("hang", "act"),
        _bot("garbage", "text"),
        _bot("garbage", "illegal", "once"),
        _bot("stale", "always"),
        _bot("flood", "1", "0.1"),
        _bot("unsolicited"),
    ]
    config = MatchConfig(hand_count=5, seed=3, decision_timeout_s=0.25, startup_timeout_s=5.0)
    result = _play(manifests, config, tmp_path)
    assert _counts(result, "p1")["timeout"] >= 1
    assert _counts(result, "p2")["invalid_reply"] >= 3
    assert _counts(result, "p3")["invalid_reply"] >= 1
    stale = _counts(result, "p4")
    assert stale["stale_reply"] >= 1 and stale["timeout"] >= 1
    assert _counts(result, "p5")["stale_reply"] >= 1
    assert _counts(result, "p6")["unsolicited_line"] >= 1
    # 1 MB of stderr is over the 256 KiB log cap: the rest is counted, not kept.
    assert result.player("p5").faults["dropped_output_bytes"] > 0
    assert replay_file(tmp_path / "hands.jsonl").is_ok


def test_a_bot_that_never_starts_sits_out_and_the_match_still_runs(tmp_path: Path) -> None:
    manifests = [_station(), _bot("hang", "startup"), _station()]
    config = MatchConfig(hand_count=3, seed=1, startup_timeout_s=0.3, restart_budget=1)
    result = _play(manifests, config, tmp_path)
    assert _counts(result, "p1")["startup_failure"] == 2  # the start and one restart
    assert result.player("p1").is_sitting_out


def test_the_demo_plays_every_starter_bot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = {"python random", "python calling station", "python hand strength"}
    if shutil.which("node"):
        expected.add("js tight")
    if shutil.which("make") and shutil.which("gcc"):
        expected.add("c pairs")
    assert main(["demo", "--hands", "30", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "bb/100" in out
    results = json.loads((tmp_path / "results.json").read_text())
    names = {player["name"] for player in results["players"]}
    assert names == expected
    assert results["hands_played"] == 30
    assert sum(player["chips_won"] for player in results["players"]) == 0
    for player in results["players"]:
        counts = player["faults"]["counts"]
        assert counts["crash"] == counts["invalid_reply"] == counts["startup_failure"] == 0
    assert replay_file(tmp_path / "hands.jsonl").is_ok


def test_the_demo_is_the_same_match_every_time(tmp_path: Path) -> None:
    # Every starter bot is deterministic (the random one is seeded in its manifest), so
    # the demo's hand history is byte for byte the same from run to run.
    histories = []
    for run in ("first", "second"):
        argv = ["demo", "--hands", "20", "--out", str(tmp_path / run), "--no-progress"]
        assert main(argv) == 0
        histories.append((tmp_path / run / "hands.jsonl").read_bytes())
    assert histories[0] == histories[1]
