"""The lines going to one bot (:mod:`arena.session.channel`): held notifications go out in
front of the next line, and a ``hand_start`` encoded ahead is used only for its own hand."""

from __future__ import annotations

import json

import pytest

from arena.session.channel import Channel
from arena.session.faults import FaultKind
from engine.actions import Call
from engine.view import SeatView
from protocol.codec import encode
from protocol.messages import act_request, hand_start
from protocol.request_encoder import EventTextCache, RequestEncoder
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


# -- the channel on its own --------------------------------------------------------------------


def test_held_lines_go_out_in_order_in_front_of_the_next_line() -> None:
    channel = Channel()
    assert channel.take(b"a\n") == b"a\n"  # nothing held: the line alone
    channel.hold(b"h1\n")
    channel.hold(b"h2\n")
    assert channel.has_held_lines
    assert channel.take(b"req\n") == b"h1\nh2\nreq\n"
    assert not channel.has_held_lines
    assert channel.take(b"next\n") == b"next\n"
    channel.hold(b"h3\n")
    assert channel.take() == b"h3\n"  # a flush: the held lines only


def test_clear_forgets_the_held_lines() -> None:
    channel = Channel()
    channel.hold(b"old\n")
    channel.clear()
    assert not channel.has_held_lines
    assert channel.take(b"new\n") == b"new\n"


class CountingEncoder:
    """Counts how often a ``hand_start`` is encoded."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = RequestEncoder.hand_start

        def counted(encoder: RequestEncoder, view: SeatView, *, hand_id: str) -> bytes:
            self.count += 1
            return real(encoder, view, hand_id=hand_id)

        monkeypatch.setattr(RequestEncoder, "hand_start", counted)


def test_a_prepared_hand_start_is_used_for_the_same_view_and_hand_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoder = CountingEncoder(monkeypatch)
    channel = Channel()
    view = facing_bet_view()
    channel.prepare_hand_start(view, hand_id="h1")
    assert encoder.count == 1
    assert channel.hand_start(view, hand_id="h1") == encode(hand_start(view, hand_id="h1"))
    assert encoder.count == 1  # the prepared line went out
    # Used once: the next hand_start is encoded again.
    assert channel.hand_start(view, hand_id="h1") == encode(hand_start(view, hand_id="h1"))
    assert encoder.count == 2


@pytest.mark.parametrize(
    ("asked_view", "asked_id"),
    [("same", "h2"), ("other", "h1")],
    ids=["another_hand_id", "another_view"],
)
def test_a_prepared_hand_start_is_not_used_for_another_view_or_hand_id(
    monkeypatch: pytest.MonkeyPatch, asked_view: str, asked_id: str
) -> None:
    encoder = CountingEncoder(monkeypatch)
    channel = Channel()
    view = facing_bet_view()
    channel.prepare_hand_start(view, hand_id="h1")
    asked = view if asked_view == "same" else free_check_view()
    line = channel.hand_start(asked, hand_id=asked_id)
    assert line == encode(hand_start(asked, hand_id=asked_id))
    assert encoder.count == 2  # encoded again


def test_clear_forgets_a_prepared_hand_start(monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = CountingEncoder(monkeypatch)
    channel = Channel()
    view = facing_bet_view()
    channel.prepare_hand_start(view, hand_id="h1")
    channel.clear()
    assert channel.hand_start(view, hand_id="h1") == encode(hand_start(view, hand_id="h1"))
    assert encoder.count == 2


def test_a_request_is_the_act_line_whether_or_not_it_was_prepared() -> None:
    view = facing_bet_view()
    expected = encode(
        act_request(view, seq=4, hand_id="h1", time_limit_ms=900, attempt=2, max_attempts=3)
    )
    for prepare in (False, True):
        channel = Channel(EventTextCache())
        channel.hand_start(view, hand_id="h1")
        if prepare:
            channel.prepare(view)
        line = channel.request(
            view, seq=4, hand_id="h1", time_limit_ms=900, attempt=2, max_attempts=3
        )
        assert line == expected
