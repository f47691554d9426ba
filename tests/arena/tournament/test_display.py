"""What a tournament shows while it runs (:mod:`arena.tournament.display`): bot-controlled
text in the progress lines is inert, and the resume is said before the bar."""

from __future__ import annotations

import io

from arena.match.console import make_console
from arena.store.outcome import MatchOutcome, SeatOutcome
from arena.tournament.display import LiveDisplay, PlainDisplay, describe_outcome
from arena.tournament.plan import MatchSpec

EVIL = "evil\x1b[2J\x1b]0;pwned\x07 bot"
SPEC = MatchSpec("m1", "m1", "heads_up", (EVIL, "[bold]x[/]"), 1, 0, None, 0, 0, 2)


def _outcome(error: str | None = None) -> MatchOutcome:
    seats = (SeatOutcome(0, EVIL, 12, 1, 10), SeatOutcome(1, "[bold]x[/]\nrow", -12, 2, 10))
    return MatchOutcome("m1", seats, (), "hand_count", None, 1.0, error)


def test_progress_lines_show_bot_names_and_errors_inert() -> None:
    assert describe_outcome(_outcome()).startswith(
        "m1: evil\\x1b[2J\\x1b]0;pwned\\x07 bot +12, [bold]x[/]\\nrow -12"
    )
    failed = describe_outcome(_outcome(f"bot {EVIL} crashed\n"))
    assert failed == "m1: FAILED: bot evil\\x1b[2J\\x1b]0;pwned\\x07 bot crashed\\n"
    out = io.StringIO()
    display = PlainDisplay(out, clock=lambda: 1.0)
    display.start("t", 1, 0)
    display.match_done(SPEC, _outcome(), total=1)
    assert "\x1b" not in out.getvalue() and out.getvalue().count("\n") == 2


def test_the_live_bar_prints_a_failure_inert_and_without_markup() -> None:
    out = io.StringIO()
    display = LiveDisplay(make_console(out, terminal=True))
    display.start("[red]weekly\x1b[2J", 2, 0)
    display.match_done(SPEC, _outcome(f"{EVIL} [bold]x[/]"), total=2)
    display.close()
    text = out.getvalue()
    assert "\x1b[2J" not in text and "\x1b]0;" not in text and "\x07" not in text
    assert "[bold]x[/]" in text and "[red]weekly\\x1b[2J" in text


def test_a_resumed_run_is_announced_before_the_bar() -> None:
    out = io.StringIO()
    display = LiveDisplay(make_console(out, terminal=True))
    display.start("weekly", 10, 4)
    display.match_done(SPEC, _outcome(), total=10)
    display.close()
    text = out.getvalue()
    assert text.startswith("resumed: 4 matches were already finished\n")
    assert text.index("resumed") < text.index("weekly")
    fresh = io.StringIO()
    again = LiveDisplay(make_console(fresh, terminal=True))
    again.start("weekly", 10, 0)
    again.close()
    assert "resumed" not in fresh.getvalue()
