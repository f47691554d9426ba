"""A result store that keeps each hand's summary on the way to another store.

A tournament's worker plays a match with the usual store (``hands.jsonl`` and
``results.json``) and needs, besides, each hand's net chips per seat and its big blind for
the statistics. :class:`SummaryStore` passes every record on unchanged and keeps a
:class:`~arena.store.outcome.HandSummary` of each hand, read from the hand's history
(its starting and final stacks, its blinds and awards): a few integers per hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.match.records import HandRecord, MatchEndRecord, MatchHeader
from arena.match.results import MatchResult
from arena.match.store import ResultStore
from arena.store.outcome import HandSummary

__all__ = ["SummaryStore", "summarize_hand"]


def summarize_hand(history: Mapping[str, Any], seat_count: int) -> HandSummary:
    """The summary of one finished hand from its history document.

    Nets are by seat index of the match (a seat with no chips in the hand nets 0); the pot
    is every chip awarded. A hand that ended in a showdown says so.
    """
    result = history["result"]
    starting = result["starting_stacks"]
    final = result["final_stacks"]
    nets = tuple(
        final.get(str(seat), 0) - starting.get(str(seat), 0) if str(seat) in starting else 0
        for seat in range(seat_count)
    )
    return HandSummary(
        hand_number=int(history["hand_number"]),
        big_blind=int(history["config"]["big_blind"]),
        nets=nets,
        pot=sum(int(award["amount"]) for award in result["awards"]),
        went_to_showdown=result["ended_reason"] == "SHOWDOWN",
    )


class SummaryStore:
    """Passes every record to ``inner`` and keeps the hands' summaries (see the module
    docstring)."""

    def __init__(self, inner: ResultStore) -> None:
        self._inner = inner
        self._seat_count = 0
        self.hands: list[HandSummary] = []

    @property
    def history_path(self) -> Path | None:
        """The inner store's hand history file."""
        return self._inner.history_path

    def begin(self, header: MatchHeader) -> None:
        """Note the seat count and pass the header on."""
        self._seat_count = len(header.players)
        self._inner.begin(header)

    def add_hand(self, record: HandRecord) -> None:
        """Keep the hand's summary and pass it on."""
        self.hands.append(summarize_hand(record.history, self._seat_count))
        self._inner.add_hand(record)

    def end(self, record: MatchEndRecord) -> None:
        """Pass the end record on."""
        self._inner.end(record)

    def save_result(self, result: MatchResult) -> None:
        """Pass the result on."""
        self._inner.save_result(result)

    def close(self) -> None:
        """Close the inner store."""
        self._inner.close()
