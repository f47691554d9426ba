"""Match progress on stderr: a redrawn bar on a terminal, a few plain lines otherwise.

On a TTY the bar is redrawn in place (``\\r``) at most ten times a second, so a fast match
does not spend its time drawing. When stderr is a file or a pipe (CI logs), a plain line is
written at every tenth of the match (or every 100 hands when the length is unknown, as in a
freezeout), because carriage returns make such logs unreadable.

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

__all__ = ["Progress"]

_BAR_WIDTH = 30
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
        if is_tty is None:
            isatty = getattr(self._stream, "isatty", None)
            is_tty = bool(isatty()) if callable(isatty) else False
        self.is_tty = is_tty
        self._clock = clock
        self._label = label
        self._started = clock()
        self._last_draw = -1.0
        self._last_step = 0
        self._done = 0
        self._note = ""

    def update(self, done: int, note: str = "") -> None:
        """Record that ``done`` hands are finished; ``note`` is extra text (players left)."""
        self._done = done
        self._note = note
        if self.is_tty:
            now = self._clock()
            is_last = self.total is not None and done >= self.total
            if is_last or now - self._last_draw >= _REDRAW_INTERVAL_S:
                self._last_draw = now
                self._draw_bar(now)
            return
        step = self._step(done)
        if step > self._last_step:
            self._last_step = step
            self._stream.write(self._plain_line() + "\n")
            self._stream.flush()

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

    def _draw_bar(self, now: float) -> None:
        elapsed = max(now - self._started, 1e-9)
        rate = self._done / elapsed
        note = f" {self._note}" if self._note else ""
        if self.total:
            filled = min(_BAR_WIDTH, self._done * _BAR_WIDTH // self.total)
            bar = "#" * filled + "." * (_BAR_WIDTH - filled)
            text = f"[{bar}] {self._done}/{self.total} hands {rate:6.1f}/s{note}"
        else:
            text = f"{self._done} hands {rate:6.1f}/s{note}"
        # Clear to the end of the line: a shorter text must not leave the old tail behind.
        self._stream.write("\r" + text + "\x1b[K")
        self._stream.flush()

    def close(self) -> None:
        """Draw the final state and end the line (TTY), so later output starts clean."""
        if self.is_tty:
            self._draw_bar(self._clock())
            self._stream.write("\n")
            self._stream.flush()
