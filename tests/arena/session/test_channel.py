"""The lines going to one bot (:mod:`arena.session.channel`): held notifications go out in
front of the next line, and a ``hand_start`` encoded ahead is used only for its own hand."""

from __future__ import annotations

import json

import pytest

from arena.session.faults import FaultKind
from engine.actions import Call
from protocol.codec import encode
from protocol.messages import act_request, hand_start
from tests.arena.session.harness import (
    HELLO,
    READY,
    Harness,
    StubTransport,
    facing_bet_view,
    free_check_view,
    reply,
    script,
    stub_session,
)

pytestmark = pytest.mark.filterwarnings("error")


def test_held_notifications_go_out_with_the_next_request_in_one_write() -> None:
    transport = StubTransport([READY, None, b'{"type":"action","seq":2,"action":"CALL"}'])
    session = stub_session(transport)
    session.start(HELLO)
    session.notify({"type": "hand_end", "hand_number": 1}, hold=True)
    session.notify({"type": "hand_start", "hand_number": 2}, data=b'{"type":"x"}\n', hold=True)
    assert len(transport.sent) == 1  # only hello so far
    assert session.decide(facing_bet_view(), hand_id="h2").action == Call()
    lines = transport.sent[1].splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["hand_end", "x", "act"]


def test_flush_sends_what_is_held_and_nothing_when_nothing_is() -> None:
    transport = StubTransport([READY])
    session = stub_session(transport)
    session.start(HELLO)
    session.flush()
    assert len(transport.sent) == 1
    session.notify({"type": "hand_end", "hand_number": 1}, hold=True)
    session.flush()
    assert transport.sent[1] == b'{"type":"hand_end","hand_number":1}\n'
    session.flush()
    assert len(transport.sent) == 2


def test_a_flush_into_a_broken_pipe_is_a_crash() -> None:
    transport = StubTransport([READY], fail_send_at=2)
    session = stub_session(transport)
    session.start(HELLO)
    session.notify({"type": "hand_end", "hand_number": 4}, hold=True)
    session.flush()
    (crash,) = session.ledger.of_kind(FaultKind.CRASH)
    assert crash.hand_number == 4 and not session.is_alive
    session.flush()  # nobody to tell: a no-op


def test_finish_sends_held_notifications_before_match_end() -> None:
    transport = StubTransport([READY])
    session = stub_session(transport)
    session.start(HELLO)
    session.notify({"type": "hand_end", "hand_number": 1}, hold=True)
    session.finish()
    assert transport.sent[1] == b'{"type":"hand_end","hand_number":1}\n'
    transport = StubTransport([READY])
    session = stub_session(transport)
    session.start(HELLO)
    session.notify({"type": "hand_end", "hand_number": 1}, hold=True)
    session.finish({"type": "match_end"})
    assert transport.sent[1].splitlines()[1] == b'{"type":"match_end"}'


def test_hand_start_goes_out_with_the_next_request_as_the_plain_message() -> None:
    harness = Harness(script(reply))
    session = harness.start()
    view = facing_bet_view()
    session.prepare(view)  # encoded ahead: the request's bytes do not change
    session.hand_start(view, hand_id="h1", hold=True)
    assert harness.sent_of("hand_start") == []
    assert session.decide(view, hand_id="h1").fault is None
    assert harness.sent_of("hand_start") == [json.loads(encode(hand_start(view, hand_id="h1")))]
    (request,) = harness.sent_of("act")
    assert request == act_request(view, seq=request["seq"], hand_id="h1", time_limit_ms=5000)


def test_a_hand_start_encoded_ahead_is_sent_only_for_the_same_view_and_hand_id() -> None:
    # The match encodes the next hand's hand_start while a bot thinks; the line sent must
    # be the one encode() gives for the hand_start actually asked for, whatever was prepared.
    harness = Harness(script(reply))
    session = harness.start()
    lines: list[bytes] = []
    transport = harness.transports[0]
    send = transport.send

    def spy(data: bytes) -> None:
        lines.append(data)
        send(data)

    transport.send = spy  # type: ignore[method-assign]
    view, other_view = facing_bet_view(), free_check_view()
    for prepared, asked in (
        ((view, "h1"), (view, "h1")),
        ((view, "h1"), (view, "h2")),  # another hand id
        ((view, "h1"), (other_view, "h1")),  # another view (e.g. a hand dealt again)
    ):
        lines.clear()
        session.prepare_hand_start(prepared[0], hand_id=prepared[1])
        session.hand_start(asked[0], hand_id=asked[1])
        assert lines == [encode(hand_start(asked[0], hand_id=asked[1]))]
    # A prepared line is used once; the request after it is the plain act request.
    session.prepare_hand_start(view, hand_id="h3")
    session.hand_start(view, hand_id="h3", hold=True)
    session.hand_start(view, hand_id="h3", hold=True)
    assert session.decide(view, hand_id="h3").fault is None
    assert (
        harness.sent_of("hand_start")[-2:]
        == [json.loads(encode(hand_start(view, hand_id="h3")))] * 2
    )
    request = harness.sent_of("act")[-1]
    assert request == act_request(view, seq=request["seq"], hand_id="h3", time_limit_ms=5000)


def test_preparing_a_hand_start_for_a_bot_that_is_down_does_nothing() -> None:
    harness = Harness(script(reply))
    session = harness.session  # never started
    session.prepare_hand_start(facing_bet_view(), hand_id="h1")
    session.hand_start(facing_bet_view(), hand_id="h1")
    assert harness.sent == []
