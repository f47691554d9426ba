"""The terminal results table (:mod:`arena.match.results_table`) and its helpers."""

from __future__ import annotations

import pytest

from arena.match.console import table_text
from arena.match.results import MatchResult, PlayerResult
from arena.match.results_table import (
    crash_stderr_lines,
    fault_summary,
    latency_ms,
    results_table,
)


def test_results_table_and_helpers() -> None:
    player = PlayerResult("p0", "x", 0, 0, 0, 0.0)
    assert player.big_blinds_per_100 == 0.0
    assert fault_summary({}) == "-" and fault_summary({"counts": {"timeout": 0}}) == "-"
    assert latency_ms({"latency": {"count": 0}}, "p50") is None
    assert latency_ms({"latency": {"count": 1, "p50_ms": "x"}}, "p50") is None
    result = MatchResult("m", 1, "freezeout", 0, (player,))
    assert result.hands_per_second == 0.0
    assert "freezeout" in table_text(results_table(result))
    with pytest.raises(KeyError, match="no player 'p9'"):
        result.player("p9")
    assert MatchResult.from_dict(result.to_dict()) == result


def test_crash_lines_name_the_stderr_file_of_seats_that_died() -> None:
    def seat(index: int, counts: dict[str, int] | None, log: str | None) -> PlayerResult:
        faults = {} if counts is None else {"counts": counts}
        return PlayerResult(
            f"p{index}", f"bot{index}", index, 1, 0, 0.0, faults=faults, stderr_log=log
        )

    result = MatchResult(
        "m",
        1,
        "hands",
        1,
        (
            seat(3, {"startup_failure": 1, "crash": 0}, "stderr/3-bot3.log"),
            seat(0, {"crash": 1, "startup_failure": 2}, "stderr/0-bot0.log"),
            seat(1, {"crash": 4}, None),  # no file: nothing to point at
            seat(2, None, "stderr/2-bot2.log"),  # no counts at all
            seat(4, {"timeout": 9}, "stderr/4-bot4.log"),  # did not die
        ),
    )
    assert crash_stderr_lines(result) == [
        "stderr of bot0 (seat 0, crash 1, startup_failure 2): stderr/0-bot0.log",
        "stderr of bot3 (seat 3, startup_failure 1): stderr/3-bot3.log",
    ]


def test_names_in_the_results_table_and_stderr_line_are_inert() -> None:
    evil = "evil\x1b[2J\x1b]0;pwned\x07 bot"
    players = (
        PlayerResult("p0", evil, 0, 2, 5, 2.5, faults={"counts": {"crash": 1}}, stderr_log="e.log"),
        PlayerResult("p1", "[bold]x[/]\nsecond row", 1, 2, -5, -2.5),
        PlayerResult("p2", "abc\u202edef\x00\x9b", 2, 2, 0, 0.0),
    )
    table = table_text(results_table(MatchResult("m", 1, "hands", 2, players)))
    assert not any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0 for c in table)
    assert "\u202e" not in table
    assert "evil\\x1b[2J\\x1b]0;pwned\\x07 bot" in table
    assert "[bold]x[/]\\nsecond row" in table  # one row, and not read as markup
    assert "abc\\u202edef\\x00\\x9b" in table
    assert len(table.splitlines()) == 1 + 3 + 3 + 1  # title, head, a row per bot, bottom
    [line] = crash_stderr_lines(MatchResult("m", 1, "hands", 2, players))
    assert line == "stderr of evil\\x1b[2J\\x1b]0;pwned\\x07 bot (seat 0, crash 1): e.log"
