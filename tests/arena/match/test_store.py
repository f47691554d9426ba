"""The result store seam (:mod:`arena.match.store`): a match runs with the store that keeps
nothing, and the JSON-lines store fits the protocol."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.match.config import MatchConfig
from arena.match.records import HandRecord, MatchEndRecord, MatchHeader
from arena.match.results import MatchResult
from arena.match.store import NullStore, ResultStore
from arena.store.jsonl import JsonLinesStore
from tests.arena.scripted import calling_station, folder, play


def test_the_null_store_keeps_nothing(tmp_path: Path) -> None:
    store: ResultStore = NullStore()
    assert store.history_path is None
    store.begin(MatchHeader("m", 1, {}, ()))
    store.add_hand(HandRecord(1, "m-1", (), (), {}))
    store.end(MatchEndRecord(1, ()))
    store.save_result(MatchResult("m", 1, "hands", 1, ()))
    store.close()
    assert store.history_path is None


def test_a_match_without_an_out_dir_writes_no_file_and_points_at_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = play([calling_station, folder], MatchConfig(hand_count=2, seed=1))
    assert result.history_path is None and result.hands_played == 2
    assert list(tmp_path.iterdir()) == []


def test_the_json_lines_store_is_a_result_store(tmp_path: Path) -> None:
    store: ResultStore = JsonLinesStore(tmp_path)
    assert store.history_path == tmp_path / "hands.jsonl"
