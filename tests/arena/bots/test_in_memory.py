"""The in-memory bot (:mod:`arena.bots.in_memory`): a function behind the transport
interface, on a clock the test moves."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots.in_memory import BotExit, BotOutput, Delayed, FakeClock, InMemoryTransport
from arena.bots.transport import TransportClosedError


def test_in_memory_transport_reports_exit_and_close() -> None:
    clock = FakeClock()
    transport = InMemoryTransport(lambda m: [{"a": 1}, b"x\ny"], clock=clock, max_line_bytes=9)
    transport.send(b'{"type":"x"}\n')
    assert transport.read_line(1.0) == b'{"a":1}'
    assert transport.read_line(1.0) == b"x"
    assert transport.read_line(1.0) == b"y"
    assert transport.read_line(1.0) is None and clock() == 1.0
    transport.close(0)
    with pytest.raises(TransportClosedError, match="closed"):
        transport.read_line(2.0)
    with pytest.raises(TransportClosedError):
        transport.send(b"{}\n")


def test_the_fake_clock_and_a_custom_sleep() -> None:
    clock = FakeClock()
    clock.sleep(1.5)
    slept: list[float] = []
    transport = InMemoryTransport(lambda m: None, clock=clock, sleep=slept.append)
    transport.send(b'{"type":"x"}\n')
    assert transport.read_line(3.0) is None and slept == [1.5]


def test_in_memory_output_is_there_once_the_clock_reaches_it_or_the_bot_exited() -> None:
    clock = FakeClock()

    def bot(message: dict[str, Any]) -> BotOutput:
        if message["type"] == "bye":
            raise BotExit(exit_code=0)
        return Delayed(1.0, {"type": "pong"})

    transport = InMemoryTransport(bot, clock=clock)
    assert not transport.has_output()  # nothing written yet
    transport.send(b'{"type":"ping"}\n')
    assert not transport.has_output()
    clock.sleep(1.0)
    assert transport.has_output()
    assert transport.read_line(clock()) == b'{"type":"pong"}'
    transport.send(b'{"type":"bye"}\n')
    assert transport.has_output()  # the end of output: read_line would not wait
    transport.close(0.0)
    assert transport.has_output()  # closed: read_line raises at once
