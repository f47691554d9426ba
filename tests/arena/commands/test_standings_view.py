"""The standings as terminal tables (:mod:`arena.commands.standings_view`): inert names,
markup never read, and tables never cut when the output is not a terminal."""

from __future__ import annotations

import io
import re

from rich.console import Console

from arena.commands.standings_view import print_standings
from arena.stats.sprt import SprtResult
from arena.stats.tables import crosstable, leaderboard
from arena.tournament.standings import Standings

#: A bot name that would clear the screen, retitle the window and ring the bell.
EVIL = "evil\x1b[2J\x1b]0;pwned\x07 bot"
#: Names that would act as markup, split a row, or read backwards.
MARKUP = "[bold]x[/]"
NEWLINE = "two\nlines"
BIDI = "abc\u202edef"


def _standings(names: list[str], *, deals: int = 6) -> Standings:
    pairs = {}
    for i, row in enumerate(names):
        for j, column in enumerate(names[i + 1 :], start=i + 1):
            # Spread results so that some cells are significant (marks) and some are not.
            pairs[(row, column)] = [float(100 * (j - i) + 7 * k * (-1) ** k) for k in range(deals)]
    units = [
        {name: float(10 * (len(names) - i) + k) for i, name in enumerate(names)}
        for k in range(deals)
    ]
    board = leaderboard(
        units,
        chips={name: 100 - 10 * i for i, name in enumerate(names)},
        hands={name: 2 * deals for name in names},
    )
    sprt = ((names[0], names[1]), SprtResult("continue", 0.5, -2.9, 2.9, deals, 0.0, 50.0))
    return Standings(
        name="weekly",
        format="round_robin",
        leaderboard=board,
        crosstable=crosstable(pairs, names),
        sprt=(sprt,),
        matches_counted=30,
        matches_planned=30,
        hands=2_000,
        fault_counts={},
        is_finished=True,
        seed=None,
    )


def _control_characters(text: str) -> set[str]:
    return {
        c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0 or c == "\u202e"
    }


def test_bot_names_in_the_leaderboard_crosstable_and_sprt_lines_are_inert() -> None:
    out = io.StringIO()
    print_standings(
        Console(file=out, force_terminal=True, width=250), _standings([EVIL, MARKUP, NEWLINE, BIDI])
    )
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # the console's own colours
    assert _control_characters(text) == set()
    assert "evil\\x1b[2J\\x1b]0;pwned\\x07 bot" in text
    assert "[bold]x[/]" in text  # shown as written, never read as markup
    assert "two\\nlines" in text and "abc\\u202edef" in text
    sprt_line = next(line for line in text.splitlines() if " vs " in line)
    assert sprt_line.startswith("evil\\x1b[2J")


def test_a_six_bot_crosstable_in_a_log_is_not_cut() -> None:
    # Not a terminal (CI, | tee): the old 120-column console cut the last columns and
    # with them the significance marks and the names.
    names = [f"a_rather_long_bot_name_{i}" for i in range(6)]
    out = io.StringIO()
    print_standings(Console(file=out, width=120), _standings(names))
    lines = out.getvalue().splitlines()
    crosstable_rows = [line for line in lines if line.startswith("│ ") and "±" in line]
    assert len(crosstable_rows) == 6 + 6  # six leaderboard rows and six crosstable rows
    widest = max(len(line) for line in lines)
    assert widest > 120
    for number, name in enumerate(names, start=1):
        row = next(line for line in lines if line.startswith(f"│ {number} {name}"))
        assert row.endswith("│") and "…" not in row
        assert row.count("±") == 5  # a cell against each of the other five
    assert any(mark in out.getvalue() for mark in (" ++ ", " -- ", " + ", " - "))


def test_both_scores_are_printed_with_the_luck_the_lead_and_the_score_note() -> None:
    from arena.tournament.standings import compute_standings
    from tests.arena.stats.adjusted_outcomes import round_robin

    plan, outcomes = round_robin(("ann", "bob", "cat"))
    standings = compute_standings(
        name="t", fmt="round_robin", bots=("ann", "bob", "cat"), plan=plan, counted=outcomes
    )
    out = io.StringIO()
    print_standings(Console(file=out, width=200), standings)
    text = out.getvalue()
    assert "ranked by adjusted" in text
    head = next(line for line in text.splitlines() if "raw mbb/hand (95%)" in line)
    assert "adjusted mbb/hand (95%)" in head and "luck" in head
    ann = standings.leaderboard.row("ann")
    row = next(line for line in text.splitlines() if line.startswith("│ ") and " ann " in line)
    assert f"{ann.luck:+.0f}" in row  # the luck column (whole numbers from 100 up)
    # A crosstable cell: the adjusted rate with its mark, the raw one under it.
    assert len(re.findall(r"raw [+-]\d+ ±\d+", text)) == 6
    assert standings.lead in text
    assert "Ranked by the luck-adjusted result (synthetic/1)" in text


def test_an_80_column_terminal_gets_every_number_whole_and_named() -> None:
    # The leaderboard on an 80-column terminal was cut ("adjust…", "-27.8 ±7…"); now it is
    # stacked a bot at a time, each number after its header, and the headers name the
    # kind of every number (raw or adjusted), the title the one that orders the rows.
    from arena.tournament.standings import compute_standings
    from tests.arena.stats.adjusted_outcomes import round_robin

    bots = ("ann_the_bot", "bob", "cat")
    plan, outcomes = round_robin(bots)
    standings = compute_standings(
        name="t", fmt="round_robin", bots=bots, plan=plan, counted=outcomes
    )
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    print_standings(console, standings)
    text = out.getvalue()
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines())
    assert "ranked by adjusted" in text
    ann = standings.leaderboard.row("ann_the_bot")
    assert ann.adjusted is not None
    assert "1 ann_the_bot\n" in text
    assert f"    adjusted bb/100: {ann.adjusted.bb_per_100:+.2f}\n" in text
    assert "    raw mbb/hand (95%): " in text and "    adjusted mbb/hand (95%): " in text
    assert "bb/100: " not in text.replace("adjusted bb/100: ", "")  # never unnamed
    assert "crosstable: the row bot's adjusted mbb/hand" in text


def test_a_raw_only_leaderboard_names_its_numbers_raw() -> None:
    out = io.StringIO()
    print_standings(Console(file=out, width=250), _standings(["ann", "bob"]))
    head = next(line for line in out.getvalue().splitlines() if "mbb/hand (95%)" in line)
    assert "raw mbb/hand (95%)" in head and "raw bb/100" in head
    assert "ranked by raw" in out.getvalue()
