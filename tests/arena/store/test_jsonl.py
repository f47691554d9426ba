"""``hands.jsonl`` and ``results.json`` (:mod:`arena.store.jsonl`): written as the match
goes (flushed often enough that an interrupted match keeps its hands), read back for replay
(:mod:`arena.store.hand_log`)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from arena.bots.in_memory import FakeClock
from arena.match.config import MatchConfig
from arena.match.records import (
    HandRecord,
    MatchEndRecord,
    MatchHeader,
    PlayerEntry,
    StandingEntry,
    encode_record,
)
from arena.match.results import MatchResult, PlayerResult
from arena.store.hand_log import HandLogError, read_hand_log
from arena.store.jsonl import PRIVATE_FILE_MODE, HandLogWriter, JsonLinesStore
from arena.store.run_folder import RunFolder
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
    with pytest.raises(HandLogError, match=r"h\.jsonl:1: not a JSON record"):
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


# -- the store on its own ----------------------------------------------------------------------

PLAYERS = (PlayerEntry("p0", 0, "a"), PlayerEntry("p1", 1, "b"))
HEADER = MatchHeader("m", 3, {"hand_count": 1}, PLAYERS)
HAND = HandRecord(1, "m-1", (), (), {"deck": []})
STANDINGS = (StandingEntry("p0", "a", 201, 1, 1), StandingEntry("p1", "b", 199, -1, 2))
END = MatchEndRecord(1, STANDINGS)


def test_the_store_writes_header_hands_and_end_then_results(tmp_path: Path) -> None:
    store = JsonLinesStore(tmp_path / "run")
    assert store.history_path == tmp_path / "run" / RunFolder.HISTORY
    store.begin(HEADER)
    store.add_hand(HAND)
    store.end(END)
    store.close()
    store.close()  # idempotent
    text = store.history_path.read_text(encoding="utf-8")
    assert text == encode_record(HEADER) + encode_record(HAND) + encode_record(END)
    log = read_hand_log(store.history_path)
    assert log.header == HEADER.to_dict() and log.footer == END.to_dict()
    assert list(log) == [HAND.to_dict()] and log.path == store.history_path
    result = MatchResult("m", 3, "hands", 1, (PlayerResult("p0", "a", 0, 1, 1, 0.5),))
    store.save_result(result)
    assert MatchResult.read_json(tmp_path / "run" / RunFolder.RESULTS) == result


def test_the_match_files_are_readable_by_the_arenas_user_only(tmp_path: Path) -> None:
    # Their header holds the match seed: a sandboxed bot running as another user must not
    # read it while it plays (even when the folder and an old file were there before).
    out = tmp_path / "run"
    out.mkdir()
    (out / RunFolder.HISTORY).write_text("old", encoding="utf-8")
    (out / RunFolder.HISTORY).chmod(0o644)
    store = JsonLinesStore(out)
    store.begin(HEADER)
    store.close()
    store.save_result(MatchResult("m", 3, "hands", 1, (PlayerResult("p0", "a", 0, 1, 1, 0.5),)))
    assert stat.S_IMODE(store.history_path.stat().st_mode) == PRIVATE_FILE_MODE == 0o600
    assert stat.S_IMODE((out / RunFolder.RESULTS).stat().st_mode) == 0o600


def test_writing_to_the_store_before_begin_is_our_bug(tmp_path: Path) -> None:
    store = JsonLinesStore(tmp_path)
    with pytest.raises(RuntimeError, match=r"begin\(\) was not called"):
        store.add_hand(HAND)
    with pytest.raises(RuntimeError, match=r"begin\(\) was not called"):
        store.end(END)
    store.close()  # nothing opened: nothing to close
    assert not store.history_path.exists()


def test_an_interrupted_match_leaves_a_history_without_its_end(tmp_path: Path) -> None:
    store = JsonLinesStore(tmp_path)
    store.begin(HEADER)
    store.add_hand(HAND)
    store.close()
    log = read_hand_log(store.history_path)
    assert log.footer is None and len(log.hands) == 1


def test_the_writer_flushes_when_the_last_flush_is_old_enough(tmp_path: Path) -> None:
    clock = FakeClock()
    path = tmp_path / "deep" / "h.jsonl"
    with HandLogWriter(path, flush_interval_s=1.0, clock=clock) as writer:
        writer.write_line("one\n")
        assert path.read_text() == ""  # buffered
        clock.sleep(1.0)
        writer.write_line("two\n")
        assert path.read_text() == "one\ntwo\n"  # flushed: a crash now keeps both
        writer.write_line("three\n")
        assert path.read_text() == "one\ntwo\n"
    assert path.read_text() == "one\ntwo\nthree\n"
    writer.close()  # idempotent
