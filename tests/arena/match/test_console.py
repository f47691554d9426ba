"""Tables on a terminal (:func:`arena.match.console.print_table`): printed whole, wrapped at
spaces, or stacked a row at a time; never a cell cut with an ellipsis."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from arena.match.console import print_table


def _table() -> Table:
    table = Table(title="weekly: ranked by adjusted")
    table.add_column("#", justify="right")
    table.add_column("bot")
    for header in ("raw mbb/hand (95%)", "adjusted mbb/hand (95%)", "adjusted bb/100"):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_row("1", "ann_the_bot", "-27.8 ±7.5 -", "+12.0 ±3.1 +", "+1.20")
    table.add_row("2", "bob", "+27.8 ±7.5 +", "-12.0 ±3.1 -\nraw +5", "-1.20")
    return table


def _printed(width: int) -> str:
    out = io.StringIO()
    print_table(Console(file=out, width=width, force_terminal=True, color_system=None), _table())
    return out.getvalue()


def test_a_table_that_fits_is_printed_as_it_is() -> None:
    text = _printed(200)
    assert "│ 1 │ ann_the_bot │" in text and "adjusted mbb/hand (95%)" in text
    assert "…" not in text


def test_a_table_wrapped_at_spaces_keeps_every_character() -> None:
    # Narrower than the table, wider than its longest words side by side: the cells
    # wrap (even the columns asked not to), and nothing is cut.
    text = _printed(60)
    assert "…" not in text and "┃" in text
    assert all(len(line) <= 60 for line in text.splitlines())
    assert "-27.8" in text and "±7.5" in text and "adjusted" in text


def test_a_table_too_wide_even_wrapped_is_stacked_a_row_at_a_time() -> None:
    # An 80-column terminal cut "adjusted" to "adjust…" and "-27.8 ±7.5" to "-27.8 ±7…".
    text = _printed(30)
    assert "…" not in text and "┃" not in text
    lines = text.splitlines()
    assert lines[:3] == ["weekly: ranked by adjusted", "1", "    bot: ann_the_bot"]
    # The console wraps a long line at a space; every word is there, whole.
    words = " ".join(text.split())
    assert "raw mbb/hand (95%): -27.8 ±7.5 - adjusted mbb/hand (95%): +12.0 ±3.1 +" in words
    assert "2 bot: bob" in words and "adjusted mbb/hand (95%): -12.0 ±3.1 -; raw +5" in words


def test_stacked_rows_can_take_their_heading_from_several_columns() -> None:
    out = io.StringIO()
    console = Console(file=out, width=30, force_terminal=True, color_system=None)
    print_table(console, _table(), heading_columns=2)
    lines = out.getvalue().splitlines()
    assert "1 ann_the_bot" in lines and "2 bob" in lines
    assert not any(line.startswith("    bot:") for line in lines)


def test_an_untitled_table_is_stacked_without_a_title_line() -> None:
    table = Table()
    for header in ("bot", "a rather long header", "another long header"):
        table.add_column(header)
    table.add_row("ann", "first-long-value", "second-long-value")
    out = io.StringIO()
    print_table(Console(file=out, width=20, force_terminal=True, color_system=None), table)
    assert out.getvalue().splitlines()[0] == "ann"
