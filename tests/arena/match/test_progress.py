"""The progress line (:mod:`arena.match.progress`): redrawn on a terminal, plain lines otherwise."""

from __future__ import annotations

import io
import re

from arena.bots.in_memory import FakeClock
from arena.match.config import MatchConfig
from arena.match.console import make_console
from arena.match.progress import Progress
from arena.match.run import run_match
from arena.tournament.display import LiveDisplay
from tests.arena.scripted import (
    calling_station,
    folder,
    sessions,
)


def _shown(text: str) -> str:
    """What a terminal shows of ``text``: the colour and cursor codes taken out."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_progress_bar_on_a_terminal_redraws_in_place() -> None:
    stream = io.StringIO()
    now = [0.0]
    bar = Progress(20, stream=stream, is_tty=True, clock=lambda: now[0])
    for done in range(1, 21):
        now[0] += 0.05
        bar.update(done)
    bar.close()
    text = stream.getvalue()
    assert text.count("\r") < 20  # throttled
    shown = _shown(text)
    assert "20/20 hands" in shown and text.endswith("\n\x1b[?25h")  # the cursor is back
    assert "━" * 30 in shown.rsplit("\r", 1)[-1]  # the last frame's bar is full
    assert "20 hands/s" in shown  # 20 hands in 1 s of the fake clock


def test_match_and_tournament_bars_have_the_same_columns() -> None:
    stream = io.StringIO()
    bar = Progress(4, stream=stream, is_tty=True, clock=lambda: 0.0)
    bar.update(4)
    bar.close()
    tournament = io.StringIO()
    display = LiveDisplay(make_console(tournament, terminal=True))
    display.start("", 4, 4)
    display.close()
    last_frame = _shown(stream.getvalue()).rsplit("\r", 1)[-1].split()
    tournament_frame = _shown(tournament.getvalue()).rsplit("\r", 1)[-1].split()
    assert last_frame[:2] == tournament_frame[:2] == ["━" * 40, "4/4"]
    assert last_frame[2] == "hands" and tournament_frame[2] == "matches"


def test_progress_without_a_total_counts_hands() -> None:
    stream = io.StringIO()
    bar = Progress(None, stream=stream, is_tty=False)
    for done in range(1, 201):
        bar.update(done, "3 left")
    bar.close()
    assert stream.getvalue().splitlines() == ["hand 100 3 left", "hand 200 3 left"]
    tty = io.StringIO()
    unknown = Progress(None, stream=tty, is_tty=True, clock=lambda: 1.0)
    unknown.update(7, "2 left")
    assert "7/? hands" in _shown(tty.getvalue()) and "2 left" in tty.getvalue()
    assert not Progress(5, stream=io.StringIO()).is_tty  # a StringIO is not a terminal


def test_progress_is_used_by_the_match() -> None:
    stream = io.StringIO()
    clock = FakeClock()
    config = MatchConfig(hand_count=10)
    run_match(
        config,
        sessions([calling_station, folder], config, clock),
        progress=Progress(10, stream=stream, is_tty=False),
        clock=clock,
    )
    assert stream.getvalue().splitlines()[-1] == "hand 10/10 (100%)"
