"""Match progress on stderr: a rich bar on a terminal, a few plain lines otherwise.

On a TTY the bar (:func:`arena.match.console.progress_bar`, the same columns as a
tournament's) is redrawn in place at most ten times a second, so a fast match does not
spend its time drawing. When stderr is a file or a pipe (CI logs), a plain line is written
at every tenth of the match (or every 100 hands when the length is unknown, as in a
freezeout), because a redrawn bar makes such logs unreadable.

>>> import io
>>> out = io.StringIO()
>>> bar = Progress(4, stream=out, is_tty=False, clock=lambda: 0.0)
>>> for done in range(1, 5):
...     bar.update(done)
>>> bar.close()
>>> print(out.getvalue(), end="")
hand 1/4 (25%)
hand 2/4 (50%)
hand 3/4 (75%)
hand 4/4 (100%)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from arena.match.console import is_terminal, make_console, progress_bar

__all__ = ["Progress"]

_REDRAW_INTERVAL_S = 0.1
_UNKNOWN_TOTAL_STEP = 100


class Progress:
    """Shows how many hands of ``total`` (``None``: unknown) have been played."""

    def __init__(
        self,
        total: int | None,
        *,
        stream: TextIO | None = None,
        is_tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        label: str = "hand",
    ) -> None:
        self.total = total
        self._stream = stream if stream is not None else sys.stderr
        self.is_tty = is_terminal(self._stream) if is_tty is None else is_tty
        self._clock = clock
        self._label = label
        self._last_draw = -1.0
        self._last_step = 0
        self._done = 0
        self._note = ""
        self._console = make_console(self._stream, terminal=self.is_tty)
        self._bar = progress_bar(self._console, f"{label}s", clock=clock)
        self._task = self._bar.add_task("", total=total, speed="", note="")
        self._is_drawing = False

    def update(self, done: int, note: str = "") -> None:
        """Record that ``done`` hands are finished; ``note`` is extra text (players left)."""
        self._done = done
        self._note = note
        if self.is_tty:
            now = self._clock()
            is_last = self.total is not None and done >= self.total
            if is_last or now - self._last_draw >= _REDRAW_INTERVAL_S:
                self._last_draw = now
                self._draw_bar()
            return
        step = self._step(done)
        if step > self._last_step:
            self._last_step = step
            self._console.print(self._plain_line(), soft_wrap=True)

    def _step(self, done: int) -> int:
        if self.total:
            return done * 10 // self.total
        return done // _UNKNOWN_TOTAL_STEP

    def _plain_line(self) -> str:
        note = f" {self._note}" if self._note else ""
        if self.total:
            percent = self._done * 100 // self.total
            return f"{self._label} {self._done}/{self.total} ({percent}%){note}"
        return f"{self._label} {self._done}{note}"

    def _draw_bar(self) -> None:
        self._bar.update(self._task, completed=self._done, note=self._note)
        speed = self._bar.tasks[0].speed
        if speed is not None:
            self._bar.update(self._task, speed=f"{speed:,.0f} {self._label}s/s")
        if self._is_drawing:
            self._bar.refresh()
        else:
            self._bar.start()  # draws the first frame
            self._is_drawing = True

    def close(self) -> None:
        """Draw the final state and end the line (TTY), so later output starts clean."""
        if self.is_tty:
            self._draw_bar()
            self._bar.stop()
