"""The progress line (:mod:`arena.match.progress`): redrawn on a terminal, plain lines otherwise."""

from __future__ import annotations

import io

from arena.bots.in_memory import FakeClock
from arena.match.config import MatchConfig
from arena.match.progress import Progress
from arena.match.run import run_match
from tests.arena.scripted import (
    calling_station,
    folder,
    sessions,
)


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
    assert "20/20 hands" in text and text.endswith("\n")
    assert "[##############################]" in text


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
    assert "7 hands" in tty.getvalue() and "2 left" in tty.getvalue()
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
