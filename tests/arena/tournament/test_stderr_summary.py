"""After a tournament, one line per bot that wrote to stderr says how much, in how many of
its matches, and which file to read first (issue: 40 files and no pointer)."""

from __future__ import annotations

from pathlib import Path

from arena.store.outcome import MatchOutcome, SeatOutcome
from arena.tournament.stderr_summary import BotStderr, stderr_summary


def _seat(index: int, bot: str, size: int) -> SeatOutcome:
    path = f"matches/m/stderr/{index}-{bot}.log" if size else None
    return SeatOutcome(index, bot, 0, 1, 10, stderr_path=path, stderr_bytes=size)


def _match(match_id: str, *seats: SeatOutcome) -> MatchOutcome:
    return MatchOutcome(match_id, seats, (), "hand_count", None, 1.0)


def test_only_bots_that_wrote_are_listed_with_their_largest_file() -> None:
    outcomes = [
        _match("m1", _seat(0, "loud", 2048), _seat(1, "quiet", 0)),
        _match("m2", _seat(0, "quiet", 0), _seat(1, "loud", 5 * 1024 * 1024)),
        _match("m3", _seat(0, "loud", 0), _seat(1, "quiet", 0)),
    ]
    (line,) = stderr_summary(outcomes)
    assert line == BotStderr("loud", 2048 + 5 * 1024 * 1024, 2, 3, "matches/m/stderr/1-loud.log")
    assert line.text(Path("/runs/t")) == (
        "loud wrote 5.0 MiB to stderr in 2 of 3 matches; "
        "most in /runs/t/matches/m/stderr/1-loud.log"
    )


def test_a_bots_name_is_shown_inert() -> None:
    line = BotStderr("evil\x1b[2J", 10, 1, 1, "matches/m/stderr/0-evil_2J.log")
    assert "\x1b" not in line.text() and "evil\\x1b[2J" in line.text()


def test_sizes_read_in_their_unit() -> None:
    texts = [BotStderr("b", size, 1, 1, "p").text() for size in (999, 1536, 3 * 1024**3)]
    assert [text.split(" to ")[0] for text in texts] == [
        "b wrote 999 B",
        "b wrote 1.5 KiB",
        "b wrote 3.0 GiB",
    ]
