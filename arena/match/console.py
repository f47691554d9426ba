"""The one way the arena writes to a person's terminal: a rich console and progress bar.

``arena match``, ``arena play`` and ``arena tournament`` all print through
:func:`make_console`, so their tables and bars look and behave alike:

- On a terminal, rich draws colours and redraws the bar in place.
- Anywhere else (a log file, CI, ``| tee``) there is no colour and no width limit: a
  table is printed at its natural width, because a cut table loses its last columns (the
  significance marks, the names) and a log has no screen edge to respect.
- Markup, emoji codes and highlighting are off: bot names and error text are shown as
  they are written (and made inert by :func:`protocol.inert.inert_text` where they are
  placed), so a bot named ``[bold]x[/]`` or ``:smile:`` cannot format anything.

:func:`progress_bar` gives the bar's columns, the same for hands and for matches.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import IO

from rich.console import Console
from rich.measure import Measurement
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

__all__ = [
    "UNBOUNDED_WIDTH",
    "is_terminal",
    "make_console",
    "print_table",
    "progress_bar",
    "show_table",
    "table_text",
]

#: The width of a console that is not a terminal: wide enough for any table the arena
#: prints (a 9-bot crosstable is under 200 columns), so nothing is ever cut.
UNBOUNDED_WIDTH = 10_000


def is_terminal(stream: IO[str]) -> bool:
    """Whether ``stream`` is a terminal (a StringIO, a pipe or a file is not)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty()) if callable(isatty) else False


def make_console(stream: IO[str], *, terminal: bool | None = None) -> Console:
    """A console writing to ``stream``; ``terminal`` overrides the detection (tests)."""
    if terminal is None:
        terminal = is_terminal(stream)
    return Console(
        file=stream,
        force_terminal=terminal,
        width=None if terminal else UNBOUNDED_WIDTH,
        color_system="auto" if terminal else None,
        markup=False,
        emoji=False,
        highlight=False,
    )


def print_table(console: Console, table: Table, *, heading_columns: int = 1) -> None:
    """Print ``table`` on ``console`` without cutting a word, however narrow the screen.

    A table that fits is printed as it is. One that fits only with its cells wrapped at
    spaces (``+25.0 ±20.5`` on two lines) is printed wrapped. One whose widest words side
    by side are still wider than the screen (an 80-column terminal and a leaderboard of
    nine columns) is printed *stacked*: a block per row, its first ``heading_columns``
    cells as a heading and every other cell under it after its column's header. A cut
    cell (``adjust…``, ``-27.8 ±7…``) would hide the very number the table is for.

    The table's columns are set to wrap (``no_wrap`` off, ``overflow="fold"``): a table is
    built to be printed once.
    """
    for column in table.columns:
        # At worst a word longer than its column breaks; never an ellipsis.
        column.no_wrap = False
        column.overflow = "fold"
    unbounded = console.options.update_width(UNBOUNDED_WIDTH)
    if Measurement.get(console, unbounded, table).minimum <= console.width:
        console.print(table)
        return
    if table.title:
        console.print(table.title)
    headers = [str(column.header) for column in table.columns]
    for cells in zip(*(list(column.cells) for column in table.columns), strict=True):
        # A cell of several lines (a crosstable's two scores) reads as one line here.
        texts = [str(cell).replace("\n", "; ") for cell in cells]
        console.print(Text(" ".join(texts[:heading_columns])))
        for header, text in zip(headers[heading_columns:], texts[heading_columns:], strict=True):
            console.print(Text(f"    {header}: {text}"))


def table_text(table: Table) -> str:
    """``table`` as plain text at its natural width (no colour, no trailing spaces)."""
    text = io.StringIO()
    make_console(text, terminal=False).print(table)
    return "\n".join(line.rstrip() for line in text.getvalue().splitlines())


def show_table(stream: IO[str], table: Table) -> None:
    """Write ``table`` to ``stream``: fitted to the screen (:func:`print_table`) on a
    terminal, else as :func:`table_text`."""
    if is_terminal(stream):
        print_table(make_console(stream, terminal=True), table)
    else:
        stream.write(table_text(table) + "\n")


def progress_bar(
    console: Console,
    unit: str,
    *,
    clock: Callable[[], float] = time.monotonic,
    auto_refresh: bool = False,
) -> Progress:
    """A bar of ``done/total unit``, the speed (the task's ``speed`` field, which is
    plain text), the time taken and the time left, and a ``note`` field after it.

    Without ``auto_refresh`` it redraws only when told to (``refresh``): a match, which
    updates it every hand, decides how often, and no thread draws behind its back. A
    tournament, whose matches take a while each, lets rich's thread keep the times ticking.
    """
    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(f"{unit}  {{task.fields[speed]}}", markup=False),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[note]}", markup=False),
        console=console,
        auto_refresh=auto_refresh,
        get_time=clock,
    )
