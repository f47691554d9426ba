"""The standings of a tournament as terminal tables (rich): the leaderboard with its
intervals, the crosstable with significance marks, and the sequential tests' decisions.

Numbers are mbb/hand (milli-big-blinds per hand: 10 mbb/hand is 1 bb/100) with the 95%
interval over duplicate deals. A crosstable cell is the row bot's result against the column
bot; ``+``/``-`` mark a result whose 95% interval excludes 0, ``++``/``--`` at 99%.

When the matches carry luck-adjusted results, every win rate is shown twice, raw and
adjusted, with the luck between them (raw minus adjusted); the marks, the ranking and the
sentence about #1 and #2 are of the score that ranks (the standings' ``score``), and the
notes under the tables say which it is and why.

Bot names are the bot authors' text: they are shown inert (:func:`protocol.inert.inert_text`)
and never read as markup. When the output is not a terminal (a CI log, ``| tee``) the
tables are printed at their natural width: a log has no screen edge, and a crosstable cut
at the console's width would lose its last columns (marks, names). On a terminal narrower
than a table, its cells wrap or its rows are stacked (:func:`arena.match.console.print_table`),
never cut.

Each number says its kind: the win rates and bb/100 are headed ``raw`` or ``adjusted``, the
ratings ``rating``, and the title says which of them orders the rows.
"""

from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.match.console import make_console, print_table
from arena.stats.intervals import Estimate
from arena.tournament.standings import Standings
from protocol.inert import inert_text

__all__ = ["format_estimate", "format_luck", "print_standings"]


def format_estimate(estimate: Estimate) -> str:
    """``+25.0 ±20.5`` (mbb/hand), whole numbers from 100 up; ``±∞`` when nothing is known
    about the spread.

    >>> from arena.stats.intervals import estimate
    >>> format_estimate(estimate([10.0, 30.0, 20.0, 40.0]))
    '+25.0 ±20.5'
    >>> format_estimate(estimate([1000.0, 3000.0]))
    '+2000 ±12706'
    """
    width = estimate.half_width
    digits = 0 if max(abs(estimate.mean), 0 if math.isinf(width) else width) >= 100 else 1
    spread = "∞" if math.isinf(width) else f"{width:.{digits}f}"
    return f"{estimate.mean:+.{digits}f} ±{spread}"


def format_luck(luck: float | None) -> str:
    """The luck in mbb/hand (raw minus adjusted), as the estimates show their means.

    >>> format_luck(-12.345), format_luck(1234.5), format_luck(None)
    ('-12.3', '+1234', '-')
    """
    if luck is None:
        return "-"
    return f"{luck:+.{0 if abs(luck) >= 100 else 1}f}"


def print_standings(console: Console, standings: Standings) -> None:
    """Print the leaderboard, the crosstable (heads-up formats), the SPRT lines, the lead
    sentence and the notes on the score."""
    if not console.is_terminal:
        console = make_console(console.file, terminal=False)
    rated = standings.format in ("ring", "sit_and_go")
    duplicate = standings.format != "sit_and_go"
    rows = standings.leaderboard.rows
    both = duplicate and any(row.adjusted is not None for row in rows)
    # Every number names its kind, and the title names the one the rows are ordered by.
    score = standings.leaderboard.score
    by_rating = standings.leaderboard.order_by == "rating"
    ranked = ", ranked by rating (mu - 3 sigma)" if by_rating else f", ranked by {score}"
    board = Table(
        title=Text(
            f"{inert_text(standings.name)}: {standings.format}, "
            f"{standings.matches_counted} matches, {standings.hands:,} hands{ranked}"
        ),
        title_justify="left",
    )
    board.add_column("#", justify="right")
    board.add_column("bot")
    if both:
        board.add_column("raw mbb/hand (95%)", justify="right")
        board.add_column("adjusted mbb/hand (95%)", justify="right")
        board.add_column("luck", justify="right")
    elif duplicate:
        board.add_column(f"{score} mbb/hand (95%)", justify="right")
    if duplicate:
        board.add_column(f"{score} bb/100", justify="right")
        board.add_column("deals", justify="right")
    board.add_column("chips won", justify="right")
    if rated:
        board.add_column("rating (mu ± sigma)", justify="right")
        board.add_column("avg place", justify="right")
    board.add_column("faults", justify="right")
    for row in standings.leaderboard.rows:
        cells = [str(row.rank), inert_text(row.bot)]
        if both:
            cells += [
                _marked(row.estimate, row.score == "raw"),
                "-" if row.adjusted is None else _marked(row.adjusted, row.score == "adjusted"),
                format_luck(row.luck),
            ]
        elif duplicate:
            cells.append(_marked(row.estimate, is_scored=True))
        if duplicate:
            cells += [f"{row.scored.bb_per_100:+.2f}", str(row.estimate.n)]
        cells.append(f"{row.chips_won:+,}")
        if rated:
            rating = row.rating
            cells.append("-" if rating is None else f"{rating.mu:.1f} ± {rating.sigma:.1f}")
            place = row.average_place
            cells.append("-" if place is None else f"{place:.2f}")
        faults = standings.fault_counts.get(row.bot, {})
        cells.append(", ".join(f"{kind} {n}" for kind, n in sorted(faults.items())) or "0")
        board.add_row(*(Text(cell) for cell in cells))
    print_table(console, board, heading_columns=2)
    if standings.crosstable is not None and len(standings.crosstable.bots) > 1:
        print_table(console, _crosstable(standings))
        console.print("marks: + / - the 95% interval excludes 0, ++ / -- the 99% interval")
        table = standings.crosstable
        if any(cell.adjusted is not None for cell in table.cells):
            other = "raw" if table.score == "adjusted" else "adjusted"
            console.print(
                f"cells: the {table.score} result with its mark, the {other} one under it"
            )
    for pair, result in standings.sprt:
        console.print(
            f"{inert_text(pair[0])} vs {inert_text(pair[1])}: {result.text}", markup=False
        )
    for line in (standings.lead, *standings.notes):
        if line:
            console.print(inert_text(line), markup=False)
    if standings.seed is not None:
        console.print(f"tournament seed: {standings.seed}", markup=False)


def _marked(estimate: Estimate, is_scored: bool) -> str:
    """The estimate, with its sign mark when it is of the score that ranks."""
    return f"{format_estimate(estimate)} {estimate.sign if is_scored else ''}".rstrip()


def _crosstable(standings: Standings) -> Table:
    """Rows and columns in leaderboard order; columns headed by the rank's number so that
    the table stays narrow with many bots."""
    crosstable = standings.crosstable
    assert crosstable is not None
    order = [row.bot for row in standings.leaderboard.rows if row.bot in crosstable.bots]
    table = Table(
        title=f"crosstable: the row bot's {crosstable.score} mbb/hand against the column bot (95%)",
        title_justify="left",
    )
    table.add_column("", no_wrap=True)
    for number, _bot in enumerate(order, start=1):
        table.add_column(str(number), justify="right", no_wrap=True)
    for number, row_bot in enumerate(order, start=1):
        cells = [f"{number} {inert_text(row_bot)}"]
        for column_bot in order:
            cell = crosstable.cell(row_bot, column_bot)
            if row_bot == column_bot or cell is None:
                cells.append("")
            elif cell.adjusted is None:
                cells.append(f"{format_estimate(cell.estimate)} {cell.mark}".rstrip())
            else:
                # The score that ranks first, with its mark; the other score under it.
                other = cell.estimate if cell.score == "adjusted" else cell.adjusted
                label = "raw" if cell.score == "adjusted" else "adjusted"
                first = f"{format_estimate(cell.scored)} {cell.mark}".rstrip()
                cells.append(f"{first}\n{label} {format_estimate(other)}")
        table.add_row(*(Text(cell) for cell in cells))
    return table
