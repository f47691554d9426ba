"""Same seed, same deterministic bots: byte-identical hand histories."""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.bots.manifest import load_manifest
from arena.match.config import MatchConfig, StackPolicy
from arena.match.run import open_sessions, run_match
from engine.deck import Deck
from engine.table import hand_rng
from tests.arena.scripted import (
    SAMPLE_BOTS,
    calling_station,
    folder,
    min_raiser,
    play,
    read_records,
)


def _in_memory_history(out_dir: Path, seed: int) -> bytes:
    config = MatchConfig(hand_count=25, seed=seed, stack_policy=StackPolicy.CARRY)
    play([min_raiser, calling_station, folder, calling_station], config, out_dir)
    return (out_dir / "hands.jsonl").read_bytes()


def test_same_seed_gives_byte_identical_histories(tmp_path: Path) -> None:
    first = _in_memory_history(tmp_path / "a", 77)
    second = _in_memory_history(tmp_path / "b", 77)
    assert first == second
    assert _in_memory_history(tmp_path / "c", 78) != first


def test_each_hand_is_dealt_from_the_match_seed_and_its_number(tmp_path: Path) -> None:
    play([calling_station, folder], MatchConfig(hand_count=4, seed=12), tmp_path)
    hands = [r for r in read_records(tmp_path / "hands.jsonl") if r["type"] == "hand"]
    for record in hands:
        number = record["hand_number"]
        expected = [str(card) for card in Deck.shuffled(hand_rng(12, number)).order]
        assert record["history"]["deck"] == expected
        assert record["history"]["seed"] == f"12:{number}"


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
