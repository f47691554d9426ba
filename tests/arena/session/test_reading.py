"""Reading a bot's reply (:mod:`arena.session.reading`): stray lines are skipped and
recorded, stale and late replies are dropped by their ``seq``, draining is bounded."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from arena.bots.in_memory import BotOutput, Delayed, FakeClock, InMemoryTransport
from arena.session.faults import FaultKind
from arena.session.reading import (
    MAX_DRAINED_LINES,
    drain_stray_lines,
    expected_reply_type,
    parse_decision,
    read_reply,
)
from engine.actions import Call, Discard
from engine.cards import parse_cards
from engine.config import DrawLimit
from protocol.errors import BotFaultError, StaleReplyError
from tests.arena.session.harness import Harness, draw_view, facing_bet_view, reply, script

pytestmark = pytest.mark.filterwarnings("error")


def test_a_stale_reply_during_a_decision_is_dropped_not_applied() -> None:
    harness = Harness(script(lambda m: [reply(m, "FOLD", seq=m["seq"] - 1), reply(m, "CALL")]))
    session = harness.start()
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault) == (Call(), None)
    (stale,) = session.ledger.of_kind(FaultKind.STALE_REPLY)
    assert (stale.code, stale.seq) == ("stale_seq", 1)


def test_a_late_reply_is_dropped_by_its_seq_and_never_applied_later() -> None:
    def on_act(message: dict[str, Any]) -> BotOutput:
        if message["seq"] == 2:
            return Delayed(6.0, reply(message, "RAISE", amount=10))  # after the deadline
        return reply(message, "CALL")

    harness = Harness(script(on_act))
    session = harness.start()
    assert session.decide(facing_bet_view(), hand_id="h1").fault == "timeout"
    harness.clock.sleep(2.0)  # the late reply arrives between decisions
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault) == (Call(), None)
    (stale,) = session.ledger.of_kind(FaultKind.STALE_REPLY)
    assert stale.seq == 2


def test_a_late_reply_arriving_during_the_next_decision_is_dropped() -> None:
    def on_act(message: dict[str, Any]) -> BotOutput:
        if message["seq"] == 2:
            return Delayed(5.5, reply(message, "RAISE", amount=10))
        return Delayed(1.0, reply(message, "CALL"))

    harness = Harness(script(on_act))
    session = harness.start()
    assert session.decide(facing_bet_view(), hand_id="h1").fault == "timeout"
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert outcome.action == Call()
    assert session.ledger.count(FaultKind.STALE_REPLY) == 1


def test_lines_when_nothing_was_asked_are_dropped_before_the_next_request() -> None:
    bot = script(
        reply,
        hand_start=lambda m: [{"type": "chat", "text": "gl"}, reply({"seq": 5}, "RAISE")],
        hand_end=lambda m: b"not json",
    )
    harness = Harness(bot)
    session = harness.start()
    session.notify({"type": "hand_start", "hand_number": 1})
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault) == (Call(), None)
    session.notify({"type": "hand_end", "hand_number": 1})
    session.decide(facing_bet_view(), hand_id="h1")
    dropped = session.ledger.of_kind(FaultKind.UNSOLICITED_LINE)
    assert len(dropped) == 3  # seq 5 was never asked: not stale, unsolicited
    assert all(fault.hand_number == 1 for fault in dropped)


def test_a_line_that_is_no_reply_during_a_decision_is_dropped_without_an_attempt() -> None:
    harness = Harness(script(lambda m: [{"type": "chat", "text": "hmm"}, reply(m, "CALL")]))
    session = harness.start()
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.attempt_count) == (Call(), 1)
    assert harness.kinds() == {FaultKind.UNSOLICITED_LINE: 1}


def test_a_reply_to_an_old_request_between_decisions_counts_as_stale() -> None:
    harness = Harness(script(reply, hand_end=lambda m: reply({"seq": 1}, "FOLD")))
    session = harness.start()
    session.notify({"type": "hand_end"})
    session.decide(facing_bet_view(), hand_id="h1")
    assert harness.kinds() == {FaultKind.STALE_REPLY: 1}


def test_draining_stops_after_a_bounded_number_of_lines() -> None:
    flood: list[BotOutput] = [b"junk"] * (MAX_DRAINED_LINES + 5)
    harness = Harness(script(reply, hand_start=lambda m: flood), max_invalid_attempts=1)
    session = harness.start()
    session.notify({"type": "hand_start"})
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    # The rest of the flood is read as the reply: an invalid one.
    assert outcome.fault == "invalid_reply"
    assert session.ledger.count(FaultKind.UNSOLICITED_LINE) == MAX_DRAINED_LINES


def test_a_too_long_line_between_decisions_is_dropped_as_unsolicited() -> None:
    long_line = b'{"x":"' + b"y" * 70_000 + b'"}'
    harness = Harness(script(reply, hand_end=lambda m: long_line))
    session = harness.start()
    session.notify({"type": "hand_end"})
    assert session.decide(facing_bet_view(), hand_id="h1").action == Call()
    (fault,) = session.ledger.of_kind(FaultKind.UNSOLICITED_LINE)
    assert fault.code == "line_too_long"


# -- the reading rules on their own -------------------------------------------------------------


def _transport(output: BotOutput) -> tuple[InMemoryTransport, FakeClock]:
    """A bot that writes ``output`` when it gets its first line (which is sent here)."""
    clock = FakeClock()
    transport = InMemoryTransport(lambda message: output, clock=clock, max_line_bytes=200)
    transport.send(b'{"type":"act","seq":3}\n')
    return transport, clock


def test_read_reply_skips_and_reports_lines_that_are_no_reply() -> None:
    transport, _ = _transport(
        [
            {"type": "chat", "text": "hi"},
            {"type": "log"},
            {"type": "action", "seq": 3, "action": "CALL"},
        ]
    )
    strays: list[bytes] = []
    reply = read_reply(transport, 1.0, "action", strays.append)
    assert reply == {"type": "action", "seq": 3, "action": "CALL"}
    assert strays == [b'{"type":"chat","text":"hi"}', b'{"type":"log"}']


def test_a_line_with_a_seq_or_of_the_expected_type_is_a_reply() -> None:
    # Either mark makes it a reply (to be judged: a wrong seq or type is the bot's fault).
    transport, _ = _transport([{"type": "ready", "seq": 1}, {"type": "discard"}])
    strays: list[bytes] = []
    assert read_reply(transport, 1.0, "discard", strays.append) == {"type": "ready", "seq": 1}
    assert read_reply(transport, 1.0, "discard", strays.append) == {"type": "discard"}
    assert strays == []


def test_read_reply_gives_none_when_the_deadline_passes_first() -> None:
    transport, clock = _transport(Delayed(5.0, {"type": "action", "seq": 3, "action": "CALL"}))
    assert read_reply(transport, 2.0, "action", lambda line: None) is None
    assert clock() == 2.0


@pytest.mark.parametrize(
    ("output", "code"),
    [
        (b"not json", "invalid_json"),
        (b'{"type":"action","pad":"' + b"x" * 300 + b'"}', "line_too_long"),
        (b"[3]", "not_an_object"),
    ],
)
def test_a_line_that_is_too_long_or_not_a_json_object_raises_the_bots_fault(
    output: bytes, code: str
) -> None:
    transport, _ = _transport(output)
    with pytest.raises(BotFaultError) as info:
        read_reply(transport, 1.0, "action", lambda line: None)
    assert info.value.code == code


def _wire(cards: str) -> list[dict[str, str]]:
    return [card.to_wire() for card in parse_cards(cards)]


def test_parse_decision_reads_a_discard_in_a_draw_and_an_action_otherwise() -> None:
    draw = draw_view()
    assert draw.legal_actions is not None
    assert expected_reply_type(draw.legal_actions) == "discard"
    discard = {"type": "discard", "seq": 5, "cards": _wire("7c 5h")}
    action = parse_decision(discard, 5, draw.legal_actions, draw.hole_cards)
    assert action == Discard(tuple(parse_cards("7c 5h")))
    bet = facing_bet_view()
    assert bet.legal_actions is not None
    assert expected_reply_type(bet.legal_actions) == "action"
    call = {"type": "action", "seq": 5, "action": "CALL"}
    assert parse_decision(call, 5, bet.legal_actions, bet.hole_cards) == Call()
    # An action where a discard is due (and the reverse) is the bot's fault.
    with pytest.raises(BotFaultError):
        parse_decision(call, 5, draw.legal_actions, draw.hole_cards)
    with pytest.raises(BotFaultError):
        parse_decision(discard, 5, bet.legal_actions, bet.hole_cards)


def test_parse_decision_applies_the_draw_limit() -> None:
    draw = draw_view()
    assert draw.legal_actions is not None
    legal = dataclasses.replace(draw.legal_actions, max_discard_count=4)
    four = {"type": "discard", "seq": 5, "cards": _wire("As Ad 7c 5h")}
    expected = Discard(tuple(parse_cards("As Ad 7c 5h")))
    assert parse_decision(four, 5, legal, draw.hole_cards) == expected
    with pytest.raises(BotFaultError) as info:
        parse_decision(four, 5, legal, draw.hole_cards, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)
    assert info.value.code == "too_many_discards"


def test_a_reply_to_an_older_request_is_stale() -> None:
    bet = facing_bet_view()
    assert bet.legal_actions is not None
    with pytest.raises(StaleReplyError):
        parse_decision({"type": "action", "seq": 4, "action": "CALL"}, 5, bet.legal_actions, ())


def test_draining_sorts_late_replies_from_unsolicited_lines_and_bad_ones() -> None:
    transport, _ = _transport(
        [
            {"type": "action", "seq": 2, "action": "CALL"},  # a late reply to request 2
            {"type": "action", "seq": 3, "action": "CALL"},  # seq 3 was never asked
            b"\xff",
            b"y" * 300,
            {"type": "chat"},
        ]
    )
    dropped: list[tuple[FaultKind, str, int | None]] = []
    drain_stray_lines(
        transport, 0.0, 2, lambda kind, code, detail, seq: dropped.append((kind, code, seq))
    )
    assert dropped == [
        (FaultKind.STALE_REPLY, "stale_seq", 2),
        (FaultKind.UNSOLICITED_LINE, "unsolicited", None),
        (FaultKind.UNSOLICITED_LINE, "unsolicited", None),
        (FaultKind.UNSOLICITED_LINE, "line_too_long", None),
        (FaultKind.UNSOLICITED_LINE, "unsolicited", None),
    ]
    assert not transport.has_output()  # all read


def test_draining_a_seq_that_is_not_a_positive_integer_is_bad_seq_not_stale() -> None:
    bad_seqs: list[object] = [0, -5, None, 1.5, "1", True]
    lines = [{"type": "action", "seq": seq, "action": "CALL"} for seq in bad_seqs]
    transport, _ = _transport(lines)
    dropped: list[tuple[FaultKind, str, int | None]] = []
    drain_stray_lines(
        transport, 0.0, 2, lambda kind, code, detail, seq: dropped.append((kind, code, seq))
    )
    assert dropped == [(FaultKind.UNSOLICITED_LINE, "bad_seq", None)] * len(bad_seqs)


def test_read_reply_keeps_only_the_fields_the_arena_reads() -> None:
    # A bot's own fields are ignored, so the history does not keep them either.
    transport, _ = _transport({"type": "action", "seq": 3, "debug": {"a": [1]}, "action": "CALL"})
    reply = read_reply(transport, 1.0, "action", lambda line: None)
    assert reply == {"type": "action", "seq": 3, "action": "CALL"}
