"""Whether the leader is significantly ahead of the second: one sentence, for every view.

The judgement uses the win rate of the leaderboard's score (raw or luck-adjusted): the
head-to-head cell of #1 against #2 when they met (its 95% interval excludes 0 or not), else
whether their own 95% intervals overlap; freezeouts ranked by rating say so.

>>> from arena.stats.tables import crosstable, leaderboard
>>> board = leaderboard([{"ann": 50.0, "bob": -50.0}, {"ann": 60.0, "bob": -60.0},
...                      {"ann": 55.0, "bob": -55.0}], chips={}, hands={})
>>> table = crosstable({("ann", "bob"): [50.0, 60.0, 55.0]})
>>> lead_sentence(board, table, "deals")  # doctest: +NORMALIZE_WHITESPACE
'#1 ann against #2 bob: significantly ahead, head to head +55.0 ±12.4 mbb/hand over 3
deals (raw; the 95% interval excludes 0).'
"""

from __future__ import annotations

import math

from arena.stats.intervals import Estimate
from arena.stats.tables import Crosstable, Leaderboard

__all__ = ["lead_sentence"]


def lead_sentence(board: Leaderboard, table: Crosstable | None, unit: str) -> str:
    """The sentence about #1 and #2 (``""`` when there is nothing to judge); ``unit`` names
    what the intervals are over (``deals`` or ``hands``)."""
    rows = board.rows
    leaders = [row for row in rows if row.rank == 1]
    if len(leaders) > 1:
        # Bots without any result tie too, on nothing: there is nothing to say of them.
        known = any(row.deals > 0 or row.rating is not None for row in leaders)
        return "The first place is shared: the leaders' results are equal." if known else ""
    first = next((row for row in rows if row.rank == 1), None)
    second = next((row for row in rows if row.rank == 2), None)
    if first is None or second is None:
        return ""
    names = f"#1 {first.bot} against #2 {second.bot}"
    cell = None if table is None else table.cell(first.bot, second.bot)
    if cell is not None and cell.scored.n > 0:
        head = f"head to head {_text(cell.scored)} mbb/hand over {cell.scored.n} {unit}"
        if cell.scored.low > 0:
            why = "the 95% interval excludes 0"
            return f"{names}: significantly ahead, {head} ({board.score}; {why})."
        why = "the 95% interval includes 0"
        return f"{names}: not significantly ahead, {head} ({board.score}; {why})."
    a, b = first.scored, second.scored
    if board.order_by == "mean" and a.n > 1 and b.n > 1:
        if a.low > b.high:
            why = "their 95% intervals do not overlap"
            return f"{names}: significantly ahead ({board.score}: {why})."
        return f"{names}: not shown to be ahead ({board.score}: their 95% intervals overlap)."
    if first.rating is not None and second.rating is not None:
        return f"{names}: ranked by rating; no interval tells them apart here."
    return ""


def _text(estimate: Estimate) -> str:
    half = "?" if math.isinf(estimate.half_width) else f"{estimate.half_width:.1f}"
    return f"{estimate.mean:+.1f} ±{half}"
