"""Where :class:`MatchOutcome` used to live: it is the results database's type now
(:mod:`arena.store.outcome`). Kept so that modules not yet moved over keep importing it."""

from arena.store.outcome import (
    FaultExample,
    HandSummary,
    LatencySummary,
    MatchOutcome,
    SeatOutcome,
)

__all__ = ["FaultExample", "HandSummary", "LatencySummary", "MatchOutcome", "SeatOutcome"]
