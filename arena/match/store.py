"""The seam between a match and where its records go.

A match hands its typed records to a :class:`ResultStore` as it plays: the header first,
each hand when it is recorded, the end record, and the result at the very end. Today's
store writes ``hands.jsonl`` and ``results.json`` (:class:`arena.store.jsonl.JsonLinesStore`);
a results database is another class with these methods.

The protocol lives with the match, whose records it takes; the stores below the match
(:mod:`arena.store`) fit it without importing it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from arena.match.records import HandRecord, MatchEndRecord, MatchHeader
from arena.match.results import MatchResult

__all__ = ["NullStore", "ResultStore"]


class ResultStore(Protocol):
    """Where a match's records go, in the order the match makes them."""

    @property
    def history_path(self) -> Path | None:
        """The hand history's file, for the result to point at (None: not on disk)."""
        ...

    def begin(self, header: MatchHeader) -> None:
        """The match starts: its header record."""
        ...

    def add_hand(self, record: HandRecord) -> None:
        """One finished hand."""
        ...

    def end(self, record: MatchEndRecord) -> None:
        """The match ended normally: its end record."""
        ...

    def save_result(self, result: MatchResult) -> None:
        """The match's result (after the bots were stopped)."""
        ...

    def close(self) -> None:
        """No more records (called whatever happened; what was stored stays)."""
        ...


class NullStore:
    """Keeps nothing: a match run only for its returned result."""

    history_path: Path | None = None

    def begin(self, header: MatchHeader) -> None:
        """Nothing to do."""

    def add_hand(self, record: HandRecord) -> None:
        """Nothing to do."""

    def end(self, record: MatchEndRecord) -> None:
        """Nothing to do."""

    def save_result(self, result: MatchResult) -> None:
        """Nothing to do."""

    def close(self) -> None:
        """Nothing to do."""
