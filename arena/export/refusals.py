"""What every export shares: replaying a recorded hand, refusing a hand a format cannot
express, and the summary of an export (what was written, what was refused and why).

A refused hand is not an error of the export: the other hands are still written, and the
summary groups the refusals by reason (a pot-limit match refuses every hand for the same
reason; one line says so, with the first hand as the example).

>>> summary = ExportSummary("phh")
>>> summary.refuse(Refusal("m/3", "voided_hand", "hand 3 was voided"))
>>> summary.refuse(Refusal("m/9", "voided_hand", "hand 9 was voided"))
>>> summary.refusal_lines()
['2 hands: hand 3 was voided (first: m/3)']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.export.sources import SourceHand
from engine.errors import EngineError
from engine.hand import Hand
from engine.history import replay_history

__all__ = ["ExportSummary", "HandRefused", "Refusal", "replay"]


class HandRefused(ValueError):
    """A hand the format cannot express; ``code`` is stable, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Refusal:
    """A hand left out: ``label`` is ``<match id>/<hand number>``."""

    label: str
    code: str
    message: str


@dataclass(slots=True)
class ExportSummary:
    """An export's outcome: the files written, the hands written and those refused."""

    format: str
    paths: list[Path] = field(default_factory=list)
    written: int = 0
    refusals: list[Refusal] = field(default_factory=list)

    def refuse(self, refusal: Refusal) -> None:
        """Count ``refusal``."""
        self.refusals.append(refusal)

    def refusal_lines(self) -> list[str]:
        """One line per reason: how many hands, the first one's message and label."""
        groups: dict[str, list[Refusal]] = {}
        for refusal in self.refusals:
            groups.setdefault(refusal.code, []).append(refusal)
        lines = []
        for refusals in groups.values():
            first = refusals[0]
            count = len(refusals)
            noun = "hand" if count == 1 else "hands"
            lines.append(f"{count} {noun}: {first.message} (first: {first.label})")
        return lines


def replay(source: SourceHand) -> Hand:
    """The recorded hand dealt and played again from its history (checked against the
    record); a history that does not replay, or a hand that is not over, is refused."""
    try:
        hand = replay_history(source.history)
    except EngineError as error:  # HistoryError: malformed, or not what was recorded
        raise HandRefused("bad_history", f"the hand history does not replay: {error}") from None
    if not hand.is_over:
        raise HandRefused("unfinished_hand", f"hand {source.hand_number} is not finished")
    return hand
