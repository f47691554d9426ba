"""The two pieces between a chat table and the match loop's worker thread.

A :class:`ChatFrontEnd` is a person's :class:`~arena.human.seat.FrontEnd` in a chat: what
their seat shows goes to them privately (a direct message), and a prompt waits on a queue
that the table fills with the person's entries from the channel, until their turn time is
up. A person who left answers every prompt at once: fold (a fold is always legal in a
betting round), or stand pat in a draw, so their stack is blinded away hand by hand.

A :class:`TappedTransport` passes every message of a seat's transport (a bot's process, or
a person's :class:`~arena.human.transport.HumanTransport`) on unchanged and lets the table
watch it: the requests say whose turn it is and hold the public table; ``hand_end`` and
``match_end`` tell how hands and the match ended.

>>> shown = []
>>> front = ChatFrontEnd(shown.append)
>>> front.show("Your cards: Ah Kd")
>>> front.put("c")
>>> front.prompt("your action> ", timeout_s=1.0), shown
('c', ['Your cards: Ah Kd'])
>>> front.leave()
>>> front.prompt("your action> "), front.prompt("discard> ")
('fold', 'pat')
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Any, Protocol

from arena.bots.stderr_log import CappedLog
from arena.bots.transport import Transport
from arena.human.seat import DRAW_PROMPT
from arena.session.stderr_file import HasStderrLog
from protocol.codec import decode
from protocol.framing import split_lines

__all__ = ["ChatFrontEnd", "SeatWatcher", "TappedTransport", "tapped_factory"]

_LEFT = object()  # put in a person's queue when they leave, to wake a waiting prompt
_STOP = object()  # put when the table is closed: the person can no longer answer


class ChatFrontEnd:
    """A person's seat in a chat (see the module docstring); ``deliver`` sends a text to
    them privately."""

    def __init__(self, deliver: Callable[[str], None]) -> None:
        self.deliver = deliver
        self.has_left = False
        self.is_stopped = False
        self._entries: queue.Queue[object] = queue.Queue()

    def show(self, text: str) -> None:
        """Send ``text`` to the person privately."""
        self.deliver(text)

    def prompt(self, text: str, *, timeout_s: float | None = None) -> str | None:
        """The person's next entry; None when ``timeout_s`` passes first.

        A person who left folds (or stands pat in a draw) at once; a closed table raises
        ``EOFError``, which the seat takes as the person leaving the match.
        """
        while True:
            if self.is_stopped:
                raise EOFError("the table was closed")
            if self.has_left:
                return "pat" if text == DRAW_PROMPT else "fold"
            try:
                entry = self._entries.get(timeout=timeout_s)
            except queue.Empty:
                return None
            if isinstance(entry, str):
                return entry
            # _LEFT or _STOP: loop to answer for the person who left or stop.

    def put(self, entry: str) -> None:
        """The person's entry, for the prompt waiting (or the next one)."""
        self._entries.put(entry)

    def clear(self) -> None:
        """Forget entries nobody read (typed for a turn that is over)."""
        while True:
            try:
                self._entries.get_nowait()
            except queue.Empty:
                return

    def leave(self) -> None:
        """The person left: every prompt from now on folds for them."""
        self.has_left = True
        self._entries.put(_LEFT)

    def stop(self) -> None:
        """The table is closed: the waiting prompt (and any later one) raises."""
        self.is_stopped = True
        self._entries.put(_STOP)


class SeatWatcher(Protocol):
    """What a table learns from its seats' transports."""

    def seat_message(self, seat_index: int, message: dict[str, Any]) -> None:
        """The arena sent ``message`` to seat ``seat_index``."""
        ...

    def seat_replied(self, seat_index: int) -> None:
        """Seat ``seat_index`` answered its request."""
        ...


class TappedTransport:
    """A seat's transport, unchanged, with the table watching its messages."""

    def __init__(self, inner: Transport, seat_index: int, watcher: SeatWatcher) -> None:
        self.inner = inner
        self.seat_index = seat_index
        self.watcher = watcher

    def __getattr__(self, name: str) -> Any:
        """Everything but sending and reading (``is_alive``, ``close``...) as the seat's."""
        return getattr(self.inner, name)

    def send(self, data: bytes) -> None:
        """Show each message to the table, then send ``data`` to the seat."""
        for line in split_lines(data):
            self.watcher.seat_message(self.seat_index, decode(line))
        self.inner.send(data)

    def read_line(self, deadline: float) -> bytes | None:
        """The seat's next line; the table hears when the seat answered."""
        line = self.inner.read_line(deadline)
        if line is not None:
            self.watcher.seat_replied(self.seat_index)
        return line


class _TappedProcess(TappedTransport):
    """A tapped bot process, which keeps its stderr (the match saves it to a file)."""

    @property
    def stderr_log(self) -> CappedLog:
        """The bot's stderr."""
        inner = self.inner
        assert isinstance(inner, HasStderrLog)
        return inner.stderr_log


def tapped_factory(
    factory: Callable[[], Transport], seat_index: int, watcher: SeatWatcher
) -> Callable[[], Transport]:
    """``factory`` whose transports the table watches (see :class:`TappedTransport`)."""

    def start() -> Transport:
        inner = factory()
        if isinstance(inner, HasStderrLog):
            return _TappedProcess(inner, seat_index, watcher)
        return TappedTransport(inner, seat_index, watcher)

    return start
