"""Reading a bot's reply (:mod:`arena.session.reading`): stray lines are skipped and
recorded, stale and late replies are dropped by their ``seq``, draining is bounded."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots.in_memory import BotOutput, Delayed
from arena.session.faults import FaultKind
from arena.session.reading import MAX_DRAINED_LINES
from engine.actions import Call
from tests.arena.session.harness import Harness, facing_bet_view, reply, script

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
