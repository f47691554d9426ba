"""What one finished match of a tournament hands back to the host.

A match runs in a worker process (or on a cluster); the host receives a
:class:`MatchOutcome`, a plain picklable value, and stores it in the results database in one
transaction. Everything the statistics need is here: each hand's net chips per seat and its
big blind (results are measured in milli-big-blinds per hand, so a hand is weighed by its
own blind level), the places, each seat's fault counts and latency summary, and where the
match's files are (its hand history and each bot's stderr log, relative to the tournament's
folder).

It is the results database's own type (the database reads and writes nothing from the
layers above it), so it lives in the store; the tournament's worker builds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["FaultExample", "HandSummary", "LatencySummary", "MatchOutcome", "SeatOutcome"]


@dataclass(frozen=True, slots=True)
class FaultExample:
    """The first fault of one kind a seat made in a match."""

    kind: str
    hand_number: int | None
    message: str


@dataclass(frozen=True, slots=True)
class LatencySummary:
    """A seat's reply latencies in one match, in milliseconds.

    ``histogram`` holds ``(upper bound in ms, count)`` pairs of a fixed bucket layout (the
    fault ledger's), so the summaries of many matches add up.
    """

    count: int = 0
    mean_ms: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    histogram: tuple[tuple[float, int], ...] = ()


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """One seat of a finished match."""

    seat_index: int
    bot: str
    chips_won: int
    place: int
    hands_played: int
    final_stack: int | None = None
    eliminated_in_hand: int | None = None
    fault_counts: dict[str, int] = field(default_factory=dict)
    fault_examples: tuple[FaultExample, ...] = ()
    latency: LatencySummary = field(default_factory=LatencySummary)
    stderr_path: str | None = None
    stderr_bytes: int = 0


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One finished hand: its big blind and each seat's net chips (seat order).

    ``adjusted`` is each seat's luck-adjusted result in chips (seat order, the luck
    estimator's, :mod:`arena.luck`), None when the match ran without the estimator.
    """

    hand_number: int
    big_blind: int
    nets: tuple[int, ...]
    pot: int = 0
    went_to_showdown: bool = False
    adjusted: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """A finished (or failed) match.

    ``error`` is set when the match could not be played to its end (a bot that never
    started, an arena failure, a cluster match past its deadline); then ``hands`` may be
    partial and the match is not counted.

    ``files`` carries the match folder's files from a machine that cannot write the
    host's run folder (a cluster worker): ``(path in the folder, mode, zlib-compressed
    bytes)`` each. The host writes them to the match's folder and drops them before the
    outcome is stored; they take no part in comparisons.
    """

    match_id: str
    seats: tuple[SeatOutcome, ...]
    hands: tuple[HandSummary, ...]
    ended_reason: str
    hands_path: str | None
    duration_s: float
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: The luck estimator's name and version (``arena.luck``) when hands carry ``adjusted``.
    estimator: str | None = None
    files: tuple[tuple[str, int, bytes], ...] = field(default=(), compare=False, repr=False)

    @property
    def is_counted(self) -> bool:
        """True when the match ended normally and its results count."""
        return self.error is None
