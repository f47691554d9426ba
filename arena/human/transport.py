"""A person's seat behind the watchdog's :class:`~arena.bots.transport.Transport` interface.

A :class:`HumanTransport` decodes each request line for its
:class:`~arena.human.seat.HumanSeat` and encodes the person's reply: the session checks,
applies and records it as a bot's (so the match replays). The person is asked in
:meth:`HumanTransport.read_line`, so the session's deadline is the person's time limit;
untimed (``is_timed`` false), the deadline is ignored and the session should be given
:data:`NO_TIME_LIMIT_S`.

>>> from arena.human.seat import HumanSeat
>>> class Typist:
...     def show(self, text): pass
...     def prompt(self, text, *, timeout_s=None): return "c"
>>> transport = HumanTransport(HumanSeat(Typist(), name="ann"))
>>> transport.send(b'{"type":"hello","seq":1,"player_id":"p0","seat_index":0,'
...     b'"game":{"seat_count":2,"small_blind":1,"big_blind":2,"starting_stack":200,'
...     b'"hand_count":3,"variant":"holdem","structure":"no_limit"}}\\n')
>>> transport.read_line(deadline=0.0)
b'{"type":"ready","seq":1,"name":"ann"}'"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

from arena.bots.transport import ExitInfo, TransportClosedError
from arena.human.seat import HumanSeat
from protocol.codec import decode, encode
from protocol.framing import split_lines

__all__ = ["NO_TIME_LIMIT_S", "HumanTransport"]

#: The decision time given to a person's session when they have no time limit: a week,
#: a finite number (the request states it in milliseconds) that no decision reaches.
NO_TIME_LIMIT_S = 7 * 24 * 3600.0

_REQUEST_TYPES = frozenset({"act", "draw"})


class HumanTransport:
    """Lines to and from a person's seat (see the module docstring)."""

    def __init__(
        self,
        seat: HumanSeat,
        *,
        clock: Callable[[], float] = time.monotonic,
        is_timed: bool = False,
    ) -> None:
        self.seat = seat
        self.clock = clock
        self.is_timed = is_timed
        self._replies: deque[bytes] = deque()
        self._request: dict[str, Any] | None = None
        self._is_closed = False

    @property
    def is_alive(self) -> bool:
        """True until the match closes the seat."""
        return not self._is_closed

    def send(self, data: bytes) -> None:
        """Hand each message of ``data`` to the seat; a request waits for :meth:`read_line`."""
        if self._is_closed:
            raise TransportClosedError("the person's seat is closed")
        for line in split_lines(data):
            message = decode(line)  # our own message: only the arena writes here
            kind = message.get("type")
            if kind == "hello":
                self._replies.append(_line(self.seat.start(message)))
            elif kind in _REQUEST_TYPES:
                self._request = message  # the latest request is the one to answer
            else:
                self.seat.notify(message)

    def has_output(self) -> bool:
        """True when a reply is ready without asking the person (or the seat is closed)."""
        return bool(self._replies) or self._is_closed

    def read_line(self, deadline: float) -> bytes | None:
        """The next reply; asks the person for the request waiting, until ``deadline`` when
        the seat is timed. None when there is nothing to answer or the time ran out."""
        if self._replies:
            return self._replies.popleft()
        if self._is_closed:
            raise TransportClosedError("the person's seat is closed")
        request, self._request = self._request, None
        if request is None:
            return None
        timeout_s = max(0.0, deadline - self.clock()) if self.is_timed else None
        reply = self.seat.ask(request, timeout_s=timeout_s)
        return None if reply is None else _line(reply)

    def close(self, grace_s: float) -> ExitInfo:
        """Close the seat (there is no process: it always "exits" cleanly)."""
        self._is_closed = True
        self._replies.clear()
        self._request = None
        return ExitInfo(exit_code=0)


def _line(reply: dict[str, Any]) -> bytes:
    return encode(reply).removesuffix(b"\n")
