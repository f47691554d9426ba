"""The person's seat behind the transport interface, and the terminal front end."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator

import pytest

from arena.bots.in_memory import FakeClock
from arena.bots.transport import TransportClosedError
from arena.human.seat import HumanSeat
from arena.human.terminal import TerminalFrontEnd
from arena.human.transport import HumanTransport
from protocol.codec import encode
from tests.arena.human.helpers import TIMEOUT, ScriptedFrontEnd, act, hello_message


def transport_for(
    entries: list[str | None], *, is_timed: bool = False
) -> tuple[HumanTransport, ScriptedFrontEnd, FakeClock]:
    clock = FakeClock(100.0)
    front = ScriptedFrontEnd(entries, clock=clock)
    transport = HumanTransport(HumanSeat(front, clock=clock), clock=clock, is_timed=is_timed)
    return transport, front, clock


def test_hello_is_answered_without_asking_the_person() -> None:
    transport, front, _ = transport_for([])
    assert not transport.has_output()
    transport.send(encode(hello_message()))
    assert transport.has_output()
    ready = json.loads(transport.read_line(deadline=0.0) or b"")
    assert ready == {"type": "ready", "seq": 1, "name": "human"}
    assert not front.prompts


def test_a_request_is_asked_when_the_reply_is_read_not_when_it_is_sent() -> None:
    transport, front, _ = transport_for(["r 20"])
    transport.send(encode(act()))
    assert not front.prompts and not transport.has_output()
    assert (
        transport.read_line(deadline=200.0)
        == b'{"type":"action","seq":9,"action":"RAISE","amount":20}'
    )
    # Answered once: a second read finds nothing to answer.
    assert transport.read_line(deadline=200.0) is None


def test_notifications_in_one_write_are_shown_in_order() -> None:
    transport, front, _ = transport_for([])
    data = encode({"type": "hand_end", "hand_number": 1, "reason": "VOID"}) + encode(
        {"type": "error", "code": "timeout", "message": "FOLD was applied"}
    )
    transport.send(data)
    assert front.shown == [
        "Hand 1 was called off: every chip went back.",
        "Time is up: FOLD was applied",
    ]
    transport.send(encode({"type": "match_end", "hands_played": 1, "standings": []}))
    assert transport.seat.is_finished


def test_an_untimed_seat_ignores_the_deadline() -> None:
    transport, front, _ = transport_for(["c"])
    transport.send(encode(act()))
    assert transport.read_line(deadline=0.0) is not None  # a deadline long past
    assert front.prompts[0][1] is None


def test_a_timed_seat_gives_the_person_the_time_to_the_deadline() -> None:
    transport, front, clock = transport_for([TIMEOUT], is_timed=True)
    transport.send(encode(act()))
    assert transport.read_line(deadline=130.0) is None
    assert front.prompts[0][1] == 30.0 and clock() == 130.0
    transport, front, _ = transport_for([TIMEOUT], is_timed=True)
    transport.send(encode(act()))
    assert transport.read_line(deadline=50.0) is None  # already past: no time at all
    assert front.prompts == []


def test_a_closed_seat_refuses_lines_and_exits_cleanly() -> None:
    transport, _, _ = transport_for([])
    transport.send(encode(act()))
    info = transport.close(grace_s=2.0)
    assert info.exit_code == 0 and not info.is_killed
    assert not transport.is_alive and transport.has_output()
    with pytest.raises(TransportClosedError):
        transport.send(encode(act()))
    with pytest.raises(TransportClosedError):
        transport.read_line(deadline=0.0)


# -- the terminal -------------------------------------------------------------------------------


@pytest.fixture
def pipe() -> Iterator[tuple[io.TextIOWrapper, io.TextIOWrapper]]:
    """A real file descriptor to read from (``select`` needs one) and its writing end."""
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "r")
    writer = os.fdopen(write_fd, "w")
    try:
        yield reader, writer
    finally:
        reader.close()
        if not writer.closed:
            writer.close()


def test_the_terminal_shows_text_and_reads_a_line() -> None:
    screen = io.StringIO()
    terminal = TerminalFrontEnd(io.StringIO("c\r\n"), screen)
    terminal.show("table")
    assert terminal.prompt("your action> ") == "c"
    assert screen.getvalue() == "table\nyour action> "


def test_the_end_of_the_input_is_eof() -> None:
    terminal = TerminalFrontEnd(io.StringIO(""), io.StringIO())
    with pytest.raises(EOFError):
        terminal.prompt("> ")


def test_a_timed_prompt_reads_what_was_typed_in_time(
    pipe: tuple[io.TextIOWrapper, io.TextIOWrapper],
) -> None:
    reader, writer = pipe
    writer.write("f\n")
    writer.flush()
    terminal = TerminalFrontEnd(reader, io.StringIO())
    assert terminal.prompt("> ", timeout_s=5.0) == "f"


def test_a_timed_prompt_gives_up_when_nothing_is_typed(
    pipe: tuple[io.TextIOWrapper, io.TextIOWrapper],
) -> None:
    reader, _ = pipe
    screen = io.StringIO()
    terminal = TerminalFrontEnd(reader, screen)
    assert terminal.prompt("> ", timeout_s=0.0) is None
    assert screen.getvalue() == "> \n"  # the next text starts on its own line


def test_the_terminal_defaults_to_stdin_and_stdout() -> None:
    import sys

    terminal = TerminalFrontEnd()
    assert terminal.input is sys.stdin and terminal.output is sys.stdout
