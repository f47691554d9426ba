"""The terminal front end of a person's seat: text out on stdout, entries in from stdin.

A :class:`TerminalFrontEnd` is the :class:`~arena.human.seat.FrontEnd` of ``arena play``.
A prompt waits for one line; with a time limit it waits on the input's file descriptor
(``select``) and gives up when the time is over. The end of the input (Ctrl-D) is
``EOFError``, which the seat takes as the person leaving.

>>> import io
>>> screen = io.StringIO()
>>> terminal = TerminalFrontEnd(io.StringIO("r 40\\n"), screen)
>>> terminal.prompt("your action> ")
'r 40'
>>> screen.getvalue()
'your action> '
"""

from __future__ import annotations

import select
import sys
from typing import TextIO

__all__ = ["TerminalFrontEnd"]


class TerminalFrontEnd:
    """Shows text on ``output`` and reads entries from ``input_`` (default: the terminal)."""

    def __init__(self, input_: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input_ if input_ is not None else sys.stdin
        self.output = output if output is not None else sys.stdout

    def show(self, text: str) -> None:
        """Write ``text`` and a line end, at once (a person is waiting to read it)."""
        self.output.write(text + "\n")
        self.output.flush()

    def prompt(self, text: str, *, timeout_s: float | None = None) -> str | None:
        """Write ``text`` and read one line (without its line end).

        None when ``timeout_s`` passes with nothing entered; ``EOFError`` at the end of
        the input.
        """
        self.output.write(text)
        self.output.flush()
        if timeout_s is not None:
            ready, _, _ = select.select([self.input], [], [], max(0.0, timeout_s))
            if not ready:
                self.output.write("\n")
                self.output.flush()
                return None
        line = self.input.readline()
        if not line:
            raise EOFError("the input ended")
        return line.rstrip("\r\n")
