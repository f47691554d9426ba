"""``arena report``: one self-contained HTML page of a tournament or a match.

The page shows the leaderboard with confidence intervals (raw and luck-adjusted side by
side, with the luck between them and what the adjustment removes), the crosstable as a heat
map, each bot's chips over its hands (raw and duplicate-adjusted), each match's luck,
faults, decision latency, finishing places, and a hand viewer that steps through any
embedded hand action by action.
See ``docs/report.md``.
"""

from __future__ import annotations

from arena.report.build import DEFAULT_MAX_HANDS, ReportSummary, load_source, write_report
from arena.report.data import ReportError
from arena.report.selection import HandRef, parse_hand_ref

__all__ = [
    "DEFAULT_MAX_HANDS",
    "HandRef",
    "ReportError",
    "ReportSummary",
    "load_source",
    "parse_hand_ref",
    "write_report",
]
