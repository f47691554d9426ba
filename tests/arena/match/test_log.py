"""The match log (:mod:`arena.match.log`): its line format, levels and log file."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from arena.match.config import MatchConfig
from arena.match.log import GameLog, MatchLogFormatter, configure_logging, parse_level
from tests.arena.scripted import (
    calling_station,
    garbage,
    min_raiser,
    play,
)


def test_log_lines_follow_the_timestamp_game_id_kind_details_format() -> None:
    stream = io.StringIO()
    remove = configure_logging("debug", stream=stream, game_id="seed1")
    try:
        play([min_raiser, calling_station, garbage], MatchConfig(hand_count=2, seed=1))
    finally:
        remove()
    lines = stream.getvalue().splitlines()
    kinds = {line.split("] ", 2)[2].split(" |")[0] for line in lines}
    assert {"HAND_START", "ACTION", "ERROR", "POT_UPDATE", "HAND_COMPLETE"} <= kinds
    first = lines[0]
    assert first.startswith("[20") and "] [seed1] " in first
    assert any("ERROR | Hand: 1, Player: p2, Error: INVALID_REPLY" in line for line in lines)
    assert any("Action: RAISE, Amount: 4" in line for line in lines)
    assert any(" BOT | " in line for line in lines)  # the watchdog's details at debug


def test_log_level_filters_lines_and_log_file_receives_them(tmp_path: Path) -> None:
    log_file = tmp_path / "logs" / "match.log"
    remove = configure_logging("warning", log_file=log_file, timestamps=False)
    try:
        play([garbage, calling_station], MatchConfig(hand_count=1, seed=1))
    finally:
        remove()
    text = log_file.read_text()
    assert "ERROR | Hand: 1, Player: p0" in text
    assert "HAND_START" not in text and "BOT |" not in text


def test_log_helpers() -> None:
    assert parse_level("off") > logging.CRITICAL
    with pytest.raises(ValueError, match="log level 'loud' is not one of"):
        parse_level("loud")
    stream = io.StringIO()
    remove = configure_logging(logging.INFO, stream=stream, timestamps=False)
    try:
        log = GameLog("g")
        log.hand_complete(3, [("p0", 5), ("p1", 5)], reason="SHOWDOWN")
        log.error(None, "p1", "startup_failure", "no ready")
        log.hand_start(4, player_count=2, small_blind=1, big_blind=2, ante=1, button_seat=0)
        log.action(4, "p0", 0, "FOLD")  # below INFO: dropped
    finally:
        remove()
    assert stream.getvalue().splitlines() == [
        "[g] HAND_COMPLETE | Hand: 3, Winners: [p0 5, p1 5], Reason: SHOWDOWN",
        "[g] ERROR | Player: p1, Error: STARTUP_FAILURE, Details: no ready",
        "[g] HAND_START | Hand: 4, Players: 2, Blinds: 1/2, Ante: 1, Button: 0",
    ]
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hi", None, None)
    assert MatchLogFormatter(timestamps=False, default_game_id="m").format(record) == "[m] BOT | hi"
