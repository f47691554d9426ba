"""``hands.jsonl`` and ``results.json`` (:mod:`arena.store.jsonl`): written as the match goes, read
back for replay."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.match.config import MatchConfig
from arena.store.jsonl import HandLogError, read_hand_log
from tests.arena.scripted import (
    calling_station,
    min_raiser,
    play,
)


def test_hand_log_reader_rejects_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    with pytest.raises(HandLogError, match="cannot read"):
        read_hand_log(path)
    path.write_bytes(b"\xff\n")
    with pytest.raises(HandLogError, match="not UTF-8"):
        read_hand_log(path)
    path.write_text("{nope\n")
    with pytest.raises(HandLogError, match=r"h\.jsonl:1: not JSON"):
        read_hand_log(path)
    path.write_text('{"type": "hand"}\n')
    with pytest.raises(HandLogError, match="unexpected record type 'hand'"):
        read_hand_log(path)
    path.write_text("\n")
    with pytest.raises(HandLogError, match="empty hand history"):
        read_hand_log(path)
    path.write_text('{"type": "match", "format": 99}\n')
    with pytest.raises(HandLogError, match="format 99 is not 1"):
        read_hand_log(path)


def test_hand_log_is_flushed_hand_by_hand(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=3, seed=8)
    result = play([calling_station, min_raiser], config, tmp_path)
    log = read_hand_log(tmp_path / "hands.jsonl")
    assert [hand["hand_number"] for hand in log] == [1, 2, 3]
    assert log.footer is not None and log.footer["hands_played"] == 3
    assert log.header["players"][1]["name"] == "raiser"
    assert result.history_path == str(tmp_path / "hands.jsonl")
