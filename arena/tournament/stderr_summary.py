"""Where each bot's standard error went in a tournament: one line per bot that wrote any.

A tournament keeps every seat's stderr in its match's folder (``matches/<match id>/stderr/
<seat>-<name>.log``): dozens of files, and a bot that warns at every decision goes unnoticed
among them. :func:`stderr_summary` counts, per bot, the bytes it wrote and in how many of
its matches, and names the file where it wrote the most, as the place to start reading.

>>> from arena.store.outcome import MatchOutcome, SeatOutcome
>>> def seat(bot, path, size):
...     return SeatOutcome(0, bot, 0, 1, 10, stderr_path=path, stderr_bytes=size)
>>> outcomes = [
...     MatchOutcome("m1", (seat("a", "m1/0-a.log", 10), seat("b", None, 0)), (), "", None, 0),
...     MatchOutcome("m2", (seat("a", "m2/1-a.log", 30), seat("b", None, 0)), (), "", None, 0),
... ]
>>> [line.text() for line in stderr_summary(outcomes)]
['a wrote 40 B to stderr in 2 of 2 matches; most in m2/1-a.log']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.store.outcome import MatchOutcome
from protocol.inert import inert_text

__all__ = ["BotStderr", "stderr_summary"]

_UNITS = (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


@dataclass(frozen=True, slots=True)
class BotStderr:
    """One bot's stderr over a tournament."""

    bot: str
    total_bytes: int
    matches_written: int
    matches_played: int
    largest_path: str

    def text(self, run_folder: Path | None = None) -> str:
        """``alice wrote 1.2 MiB to stderr in 8 of 8 matches; most in <path>`` (the name
        shown inert: it is the bot author's text), the path under ``run_folder`` if given."""
        path = self.largest_path if run_folder is None else str(run_folder / self.largest_path)
        return (
            f"{inert_text(self.bot)} wrote {_size(self.total_bytes)} to stderr in "
            f"{self.matches_written} of {self.matches_played} matches; "
            f"most in {inert_text(path)}"
        )


def _size(size_bytes: int) -> str:
    for unit, factor in _UNITS:
        if size_bytes >= factor:
            return f"{size_bytes / factor:.1f} {unit}"
    return f"{size_bytes} B"


def stderr_summary(outcomes: Iterable[MatchOutcome]) -> list[BotStderr]:
    """Per bot that wrote to stderr, in name order: its bytes, the matches it wrote in of
    those it played, and the file with the most (relative to the run folder)."""
    played: dict[str, int] = {}
    written: dict[str, list[tuple[int, str]]] = {}
    for outcome in outcomes:
        for seat in outcome.seats:
            played[seat.bot] = played.get(seat.bot, 0) + 1
            if seat.stderr_bytes > 0 and seat.stderr_path is not None:
                written.setdefault(seat.bot, []).append((seat.stderr_bytes, seat.stderr_path))
    return [
        BotStderr(
            bot=bot,
            total_bytes=sum(size for size, _path in files),
            matches_written=len(files),
            matches_played=played[bot],
            largest_path=max(files)[1],
        )
        for bot, files in sorted(written.items())
    ]
