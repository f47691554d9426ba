"""What a person sees while a tournament runs: a live progress bar, or plain lines.

On a terminal, :class:`LiveDisplay` draws one progress bar (rich) with the matches done,
the hands per second and the time left, and prints a line for each failed match above it.
When the output is not a terminal (a log file, CI), :class:`PlainDisplay` prints one line
per finished match instead, which a log keeps readable. Bot names and error text in these
lines are shown inert (:func:`protocol.inert.inert_text`): a name cannot move the cursor,
retitle the window or read backwards.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.progress import TaskID

from arena.match.console import progress_bar
from arena.stats.match_luck import match_luck
from arena.store.outcome import MatchOutcome
from arena.tournament.plan import MatchSpec
from protocol.inert import inert_text

__all__ = ["LiveDisplay", "PlainDisplay", "QuietDisplay", "describe_outcome"]


def describe_outcome(outcome: MatchOutcome) -> str:
    """One line about a finished match: each seat's chips (and how many of them were luck,
    when the hands carry luck-adjusted results), the hands and the time.

    >>> from arena.store.outcome import HandSummary, SeatOutcome
    >>> seats = (SeatOutcome(0, "ann", 12, 1, 1), SeatOutcome(1, "bob", -12, 2, 1))
    >>> describe_outcome(MatchOutcome("m1", seats, (), "hand_count", None, 1.25))
    'm1: ann +12, bob -12 (0 hands, 1.2 s)'
    >>> hands = (HandSummary(1, 2, (12, -12), adjusted=(-3.5, 3.5)),)
    >>> describe_outcome(MatchOutcome("m1", seats, hands, "hand_count", None, 1.25))
    'm1: ann +12 (luck +15.5), bob -12 (luck -15.5) (1 hands, 1.2 s)'
    """
    if outcome.error is not None:
        # An error can quote a bot (its name, its stderr): shown inert like the names.
        return f"{outcome.match_id}: FAILED: {inert_text(outcome.error)}"
    luck = match_luck(outcome)
    lucks = [f" (luck {seat.luck_chips:+.1f})" for seat in luck.seats] if luck else None
    chips = ", ".join(
        f"{inert_text(seat.bot)} {seat.chips_won:+d}{lucks[index] if lucks else ''}"
        for index, seat in enumerate(outcome.seats)
    )
    return f"{outcome.match_id}: {chips} ({len(outcome.hands)} hands, {outcome.duration_s:.1f} s)"


class _Counter:
    """Matches and hands done, and the hands per second of this run."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.started = clock()
        self.hands = 0

    def add(self, outcome: MatchOutcome) -> None:
        self.hands += len(outcome.hands)

    @property
    def hands_per_second(self) -> float:
        elapsed = self.clock() - self.started
        return self.hands / elapsed if elapsed > 0 else 0.0


class PlainDisplay:
    """One line per finished match (for logs and pipes)."""

    def __init__(self, out: TextIO, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.out = out
        self._counter = _Counter(clock)
        self._done = 0

    def start(self, name: str, total: int, done: int) -> None:
        """Say what is to be played."""
        self._done = done
        resumed = f", {done} already finished" if done else ""
        self.out.write(f"{name}: {total} matches{resumed}\n")
        self.out.flush()

    def match_done(self, spec: MatchSpec, outcome: MatchOutcome, *, total: int) -> None:
        """A line for the match with the count and the speed so far."""
        self._done += 1
        self._counter.add(outcome)
        self.out.write(
            f"[{self._done}/{total}] {describe_outcome(outcome)}"
            f" {self._counter.hands_per_second:.0f} hands/s\n"
        )
        self.out.flush()

    def close(self) -> None:
        """Nothing to tidy."""


class QuietDisplay:
    """Shows nothing but failed matches."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def start(self, name: str, total: int, done: int) -> None:
        """Nothing to show."""

    def match_done(self, spec: MatchSpec, outcome: MatchOutcome, *, total: int) -> None:
        """Only a failure is worth a line."""
        if outcome.error is not None:
            self.out.write(describe_outcome(outcome) + "\n")

    def close(self) -> None:
        """Nothing to tidy."""


class LiveDisplay:
    """A progress bar on a terminal (see the module docstring)."""

    def __init__(self, console: Console, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console
        self._counter = _Counter(clock)
        self._progress = progress_bar(console, "matches", clock=clock, auto_refresh=True)
        self._task: TaskID | None = None

    def start(self, name: str, total: int, done: int) -> None:
        """Say that the run is resumed (``done`` matches stored already), then draw the bar:
        the person learns it now, not after the final tables."""
        if done:
            matches = "match was" if done == 1 else "matches were"
            self.console.print(f"resumed: {done} {matches} already finished", markup=False)
        self._progress.start()
        self._task = self._progress.add_task(
            inert_text(name), total=total, completed=done, speed="", note=""
        )

    def match_done(self, spec: MatchSpec, outcome: MatchOutcome, *, total: int) -> None:
        """Advance the bar; a failed match also gets a line above it."""
        self._counter.add(outcome)
        if outcome.error is not None:
            self._progress.console.print(describe_outcome(outcome), markup=False)
        if self._task is not None:
            speed = f"{self._counter.hands_per_second:,.0f} hands/s"
            self._progress.update(self._task, advance=1, total=total, speed=speed)

    def close(self) -> None:
        """Stop drawing (the bar stays on the screen as it was)."""
        self._progress.stop()
