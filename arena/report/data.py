"""What a report is made of, whatever its source: :class:`RunData`.

A tournament's results database and a single match's files are read into the same shape
(:mod:`arena.report.from_database`, :mod:`arena.report.from_match`); the hands to embed
are chosen and read afterwards, and the page is drawn from the whole
(:mod:`arena.report.build`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.report.sections import (
    Chart,
    Crosstable,
    FaultRow,
    LatencyRow,
    Leaderboard,
    MatchLuck,
    MatchPlaces,
    SprtTest,
    TournamentPlaces,
)
from arena.report.selection import Candidate

__all__ = ["MAX_CHART_POINTS", "ReportError", "RunData"]

#: Each chart line keeps at most about this many points (a line of a million hands is
#: thinned, keeping its highs and lows).
MAX_CHART_POINTS = 400


class ReportError(ValueError):
    """A report cannot be made; the message names the path or value and what is wrong."""


def _no_leaderboard() -> Leaderboard:
    return {"order_by": "mean", "score": "raw", "rows": []}


@dataclass(slots=True)
class RunData:
    """Everything a report shows except the embedded hands, as JSON-ready values.

    ``kind`` is ``tournament``, ``match`` or ``hands`` (a hand history file alone);
    ``facts`` are the summary's label and value pairs; ``unit`` names what the
    leaderboard's intervals are over (``deals`` or ``hands``). ``candidates`` are every
    hand that could be embedded and ``hand_files`` where each match's hand history is.
    ``score`` is the score that ranks (``raw`` or ``adjusted``), ``estimator`` the luck
    estimator's name and version (None: no adjusted results), ``lead`` the sentence about
    #1 and #2, and ``luck`` each match's luck per seat.
    """

    kind: str
    title: str
    source: Path
    facts: list[tuple[str, str]] = field(default_factory=list)
    unit: str = "deals"
    leaderboard: Leaderboard = field(default_factory=_no_leaderboard)
    crosstable: Crosstable | None = None
    sprt: list[SprtTest] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    faults: list[FaultRow] = field(default_factory=list)
    latency: list[LatencyRow] = field(default_factory=list)
    places: TournamentPlaces | MatchPlaces | None = None
    notes: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    hand_files: dict[str, Path] = field(default_factory=dict)
    score: str = "raw"
    estimator: str | None = None
    lead: str = ""
    luck: list[MatchLuck] = field(default_factory=list)
    # The facts show a seed that was drawn secret: the page is written for the arena's
    # user only, as the results database and the match files that hold it.
    has_secret_seed: bool = False
