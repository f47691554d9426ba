"""The watchdog's policy (seed 002's fault table) on in-memory bots and a fake clock.

No process and no sleep: :class:`InMemoryTransport` runs a function as the bot and moves a
:class:`FakeClock` when the session waits, so a 5 s timeout takes no time at all.
"""

from __future__ import annotations

import dataclasses
import json
import math
import signal
from collections.abc import Callable
from typing import Any

import pytest

from arena.bots.in_memory import BotExit, BotOutput, Delayed, FakeClock, InMemoryTransport
from arena.bots.transport import BotStartError, ExitInfo, TransportClosedError, describe_exit
from arena.session.faults import DETAIL_MAX_CHARS, Fault, FaultKind, FaultLedger, percentile
from arena.session.policy import TimeLimits, default_action
from arena.session.reading import MAX_DRAINED_LINES
from arena.session.watchdog import BotSession
from engine.actions import Call, Check, Discard, Fold, LegalActions, RaiseTo
from engine.cards import parse_cards
from engine.config import DrawLimit, GameConfig
from engine.deck import Deck
from engine.errors import IllegalActionError
from engine.hand import Hand, SeatSetup
from engine.view import SeatView
from protocol.codec import encode
from protocol.messages import act_request, hand_start

pytestmark = pytest.mark.filterwarnings("error")

HELLO: dict[str, Any] = {"player_id": "p0", "seat_index": 0, "game": {"variant": "holdem"}}
LIMITS = TimeLimits(decision_s=5.0, startup_s=10.0, grace_s=0.05)
Bot = Callable[[dict[str, Any]], BotOutput]


def new_hand() -> Hand:
    seats = [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200)]
    return Hand.start(
        GameConfig(small_blind=1, big_blind=2),
        seats,
        button_index=0,
        deck=Deck.stacked("As Kd Ah Kc"),
    )


def facing_bet_view() -> SeatView:
    """Seat 0 (button, small blind) to act pre-flop: a call is needed, no free check."""
    return new_hand().view(0)


def free_check_view() -> SeatView:
    """Seat 1 (big blind) after the button limped: checking is free."""
    hand = new_hand()
    hand.act(Call())
    return hand.view(1)


def draw_view() -> SeatView:
    """A five-card-draw discard decision (built by hand: only the fields the arena uses)."""
    view = facing_bet_view()
    legal = view.legal_actions
    assert legal is not None
    legal = dataclasses.replace(legal, can_draw=True, max_discard_count=3, can_fold=False)
    return dataclasses.replace(
        view,
        hole_cards=tuple(parse_cards("As Ad 7c 5h 2s")),
        legal_actions=legal,
        phase="DRAW",
    )


def reply(message: dict[str, Any], action: str = "CALL", **extra: Any) -> dict[str, Any]:
    return {"type": "action", "seq": message["seq"], "action": action, **extra}


def script(on_act: Callable[[dict[str, Any]], BotOutput], **others: Bot) -> Bot:
    """A bot: ready to hello, ``on_act`` for act/draw, ``others[type]`` for the rest."""

    def bot(message: dict[str, Any]) -> BotOutput:
        kind = message["type"]
        if kind == "hello":
            return {"type": "ready", "seq": message["seq"], "name": "scripted", "version": "2"}
        if kind in ("act", "draw"):
            return on_act(message)
        if kind in others:
            return others[kind](message)
        return None

    return bot


class Harness:
    """A session on a fake clock, keeping every transport it started."""

    def __init__(self, bot: Bot, **options: Any) -> None:
        self.clock = FakeClock(100.0)
        self.bot = bot
        self.transports: list[InMemoryTransport] = []
        options.setdefault("limits", LIMITS)
        self.session = BotSession(
            self.factory,
            player_id="p0",
            seat_index=0,
            clock=self.clock,
            **options,
        )

    def factory(self) -> InMemoryTransport:
        transport = InMemoryTransport(self.bot, clock=self.clock)
        self.transports.append(transport)
        return transport

    def start(self) -> BotSession:
        assert self.session.start(HELLO) is not None
        return self.session

    @property
    def sent(self) -> list[dict[str, Any]]:
        return [message for t in self.transports for message in t.sent]

    def sent_of(self, kind: str) -> list[dict[str, Any]]:
        return [message for message in self.sent if message["type"] == kind]

    def kinds(self) -> dict[FaultKind, int]:
        return {k: n for k, n in self.session.ledger.counts().items() if n}


# -- handshake -------------------------------------------------------------------------------


def test_start_sends_hello_with_seq_and_time_limits_and_returns_ready() -> None:
    harness = Harness(script(reply))
    ready = harness.session.start(HELLO)
    assert ready is not None
    assert (ready.name, ready.version, ready.protocol_version) == ("scripted", "2", 1)
    (hello,) = harness.sent
    assert hello["type"] == "hello" and hello["seq"] == 1 and hello["player_id"] == "p0"
    assert hello["time_limits"] == {"startup_ms": 10000, "decision_ms": 5000, "time_bank_ms": 0}
    assert harness.session.is_alive and harness.session.ready == ready


def test_no_ready_within_the_startup_limit_is_a_startup_failure() -> None:
    harness = Harness(lambda message: None)
    assert harness.session.start(HELLO) is None
    (fault,) = harness.session.ledger.faults
    assert (fault.kind, fault.code) == (FaultKind.STARTUP_FAILURE, "startup_timeout")
    assert fault.latency_ms == pytest.approx(10_050.0)
    assert not harness.session.is_alive and harness.session.transport is None


def test_a_bot_that_cannot_be_started_is_a_startup_failure() -> None:
    def factory() -> InMemoryTransport:
        raise BotStartError("cannot run bot 'x': 'nope': No such file or directory")

    session = BotSession(factory, player_id="p0", seat_index=0, clock=FakeClock())
    assert session.start(HELLO) is None
    (fault,) = session.ledger.faults
    assert fault.code == "cannot_start" and "No such file" in fault.detail


def test_a_bot_that_exits_before_ready_is_a_startup_failure_with_its_exit_code() -> None:
    def bot(message: dict[str, Any]) -> BotOutput:
        raise BotExit(2)

    harness = Harness(bot)
    assert harness.session.start(HELLO) is None
    (fault,) = harness.session.ledger.faults
    assert (fault.kind, fault.code, fault.exit_code) == (FaultKind.STARTUP_FAILURE, "exited", 2)


def test_a_banner_and_a_stale_ready_before_ready_are_dropped_and_recorded() -> None:
    def bot(message: dict[str, Any]) -> BotOutput:
        return [
            b"my bot v2 starting",
            {"type": "log", "text": "hi"},
            {"type": "ready", "seq": 0, "name": "old"},
            {"type": "ready", "seq": message["seq"], "name": "good"},
        ]

    harness = Harness(bot)
    ready = harness.session.start(HELLO)
    assert ready is not None and ready.name == "good"
    assert harness.kinds() == {FaultKind.UNSOLICITED_LINE: 2, FaultKind.STALE_REPLY: 1}


@pytest.mark.parametrize(
    ("output", "code"),
    [
        ({"type": "ready", "seq": 7, "name": "x"}, "unknown_seq"),
        ({"type": "ready", "seq": 1}, "schema_violation"),
        ({"type": "ready", "seq": 1, "name": "x", "protocol_version": 9}, "unsupported_version"),
        (b"[1]", "not_an_object"),
        (b'{"type":"ready","pad":"' + b"x" * 70_000 + b'"}', "line_too_long"),
    ],
)
def test_a_bad_ready_is_a_startup_failure_naming_the_code(output: BotOutput, code: str) -> None:
    harness = Harness(lambda message: output)
    assert harness.session.start(HELLO) is None
    (fault,) = harness.session.ledger.of_kind(FaultKind.STARTUP_FAILURE)
    assert fault.code == code


# -- decisions ------------------------------------------------------------------------------


def test_a_valid_reply_is_the_action_and_its_latency_is_recorded() -> None:
    harness = Harness(script(lambda m: Delayed(0.25, reply(m, "RAISE", amount=6))))
    session = harness.start()
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault, outcome.attempt_count) == (RaiseTo(6), None, 1)
    assert outcome.replies == [reply({"seq": 2}, "RAISE", amount=6)]
    assert outcome.latency_ms == pytest.approx(250.0)
    assert not outcome.is_default
    (act,) = harness.sent_of("act")
    assert (act["seq"], act["attempt"], act["attempts_left"], act["time_limit_ms"]) == (
        2,
        1,
        3,
        5000,
    )
    assert list(session.ledger.latencies_ms) == [pytest.approx(250.0)]
    assert session.ledger.faults == ()


def test_timeout_folds_and_tells_the_bot() -> None:
    harness = Harness(script(lambda m: None))
    session = harness.start()
    outcome = session.decide(free_check_view(), hand_id="h1")
    assert (outcome.action, outcome.fault) == (Fold(), "timeout")
    (fault,) = session.ledger.faults
    assert fault.kind is FaultKind.TIMEOUT and fault.seq == 2
    assert fault.latency_ms == pytest.approx(5050.0)
    (error,) = harness.sent_of("error")
    assert (error["code"], error["in_reply_to"], error["attempts_left"]) == ("timeout", 2, 0)
    assert session.is_alive  # a slow bot is not a dead bot


def test_timeout_checks_when_checking_is_free_if_configured() -> None:
    harness = Harness(script(lambda m: None), check_when_free=True)
    session = harness.start()
    assert session.decide(free_check_view(), hand_id="h1").action == Check()
    # Facing a bet the free check does not exist: fold.
    assert session.decide(facing_bet_view(), hand_id="h1").action == Fold()


def test_three_invalid_replies_fold_with_errors_counting_down_attempts() -> None:
    harness = Harness(script(lambda m: reply(m, "RAISE", amount=3)))
    session = harness.start()
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault, outcome.attempt_count) == (Fold(), "invalid_reply", 3)
    assert len(outcome.replies) == 3
    acts = harness.sent_of("act")
    assert [(a["seq"], a["attempt"], a["attempts_left"]) for a in acts] == [
        (2, 1, 3),
        (3, 2, 2),
        (4, 3, 1),
    ]
    errors = harness.sent_of("error")
    assert [(e["in_reply_to"], e["attempts_left"]) for e in errors] == [(2, 2), (3, 1), (4, 0)]
    assert {e["code"] for e in errors} == {"raise_below_minimum"}
    assert "below minimum 4" in errors[0]["message"]
    faults = session.ledger.of_kind(FaultKind.INVALID_REPLY)
    assert [f.code for f in faults] == ["raise_below_minimum"] * 3
    assert [f.seq for f in faults] == [2, 3, 4]


def test_max_invalid_attempts_is_configurable() -> None:
    harness = Harness(script(lambda m: b"nonsense"), max_invalid_attempts=1)
    session = harness.start()
    assert session.decide(facing_bet_view(), hand_id="h1").fault == "invalid_reply"
    (error,) = harness.sent_of("error")
    assert (error["code"], error["attempts_left"]) == ("invalid_json", 0)


def test_an_invalid_reply_then_a_valid_one_is_accepted() -> None:
    def on_act(message: dict[str, Any]) -> BotOutput:
        return b"garbage" if message["attempt"] == 1 else reply(message, "CALL")

    harness = Harness(script(on_act))
    session = harness.start()
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault, outcome.attempt_count) == (Call(), None, 2)
    assert harness.kinds() == {FaultKind.INVALID_REPLY: 1}


@pytest.mark.parametrize(
    ("output", "code"),
    [
        (b"", "invalid_json"),
        (b"\xff\xfe", "invalid_utf8"),
        (b"[1, 2]", "not_an_object"),
        ({"type": "action", "action": "CALL"}, "schema_violation"),
        ({"type": "action", "seq": 2, "action": "BLUFF"}, "unknown_action"),
        ({"type": "action", "seq": 99, "action": "CALL"}, "unknown_seq"),
        ({"type": "action", "seq": 2, "action": "CHECK"}, "cannot_check"),
        (b'{"pad":"' + b"x" * 70_000 + b'"}', "line_too_long"),
    ],
)
def test_invalid_replies_are_recorded_with_their_code(output: BotOutput, code: str) -> None:
    harness = Harness(script(lambda m: output), max_invalid_attempts=1)
    session = harness.start()
    assert session.decide(facing_bet_view(), hand_id="h1").action == Fold()
    (fault,) = session.ledger.of_kind(FaultKind.INVALID_REPLY)
    assert fault.code == code


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


# -- draw decisions -------------------------------------------------------------------------


def test_a_draw_decision_sends_draw_and_parses_the_discard() -> None:
    def on_act(message: dict[str, Any]) -> BotOutput:
        return {"type": "discard", "seq": message["seq"], "cards": message["hole_cards"][2:4]}

    harness = Harness(script(on_act))
    session = harness.start()
    outcome = session.decide(draw_view(), hand_id="h1")
    assert outcome.action == Discard(tuple(parse_cards("7c 5h")))
    (draw,) = harness.sent_of("draw")
    assert draw["max_discards"] == 3


def test_a_draw_decision_without_a_valid_reply_stands_pat() -> None:
    harness = Harness(script(lambda m: {"type": "discard", "seq": m["seq"], "cards": "all"}))
    session = harness.start()
    outcome = session.decide(draw_view(), hand_id="h1")
    assert (outcome.action, outcome.fault) == (Discard(()), "invalid_reply")


# -- crashes and restarts ---------------------------------------------------------------------


def crash_on_act(message: dict[str, Any]) -> BotOutput:
    raise BotExit(None, signal=int(signal.SIGSEGV))


def test_a_crash_mid_decision_folds_and_records_the_signal() -> None:
    harness = Harness(script(crash_on_act), check_when_free=True)
    session = harness.start()
    outcome = session.decide(free_check_view(), hand_id="h1")
    # A crashed seat folds even when checking is free and check_when_free is set.
    assert (outcome.action, outcome.fault) == (Fold(), "crash")
    (crash,) = session.ledger.of_kind(FaultKind.CRASH)
    assert (crash.signal, crash.exit_code) == (int(signal.SIGSEGV), None)
    assert "SIGSEGV" in crash.detail
    assert not session.is_alive
    # Later decisions of the hand fold at once, without asking anyone.
    later = session.decide(facing_bet_view(), hand_id="h1")
    assert (later.action, later.fault) == (Fold(), "not_running")
    assert session.ledger.count(FaultKind.CRASH) == 1


def test_a_crash_while_notifying_is_recorded_with_its_exit_code() -> None:
    def on_hand_start(message: dict[str, Any]) -> BotOutput:
        raise BotExit(3)

    harness = Harness(script(reply, hand_start=on_hand_start))
    session = harness.start()
    session.notify({"type": "hand_start", "hand_number": 7})
    # Like a pipe, the transport notices the exit at the next send.
    session.notify({"type": "hand_end", "hand_number": 7})
    (crash,) = session.ledger.of_kind(FaultKind.CRASH)
    assert (crash.exit_code, crash.hand_number) == (3, 7)
    session.notify({"type": "hand_start", "hand_number": 8})  # nobody to tell: a no-op
    session.hand_start(facing_bet_view(), hand_id="h8")  # the same
    session.prepare(facing_bet_view())
    assert session.decide(facing_bet_view(), hand_id="h1").fault == "not_running"
    assert session.ledger.count(FaultKind.CRASH) == 1


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


def test_a_crash_found_while_draining_folds() -> None:
    state = {"acts": 0}

    def on_act(message: dict[str, Any]) -> BotOutput:
        state["acts"] += 1
        return reply(message)

    def on_hand_end(message: dict[str, Any]) -> BotOutput:
        raise BotExit(1)

    harness = Harness(script(on_act, hand_end=on_hand_end))
    session = harness.start()
    transport = harness.transports[0]
    transport.send(b'{"type":"hand_end"}\n')  # behind the session's back: not yet noticed
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault) == (Fold(), "crash")
    assert state["acts"] == 0


def test_restart_brings_a_crashed_bot_back_until_the_budget_is_spent() -> None:
    harness = Harness(script(crash_on_act), restart_budget=2)
    session = harness.start()
    for expected_restarts in (1, 2):
        assert session.decide(facing_bet_view(), hand_id="h1").fault == "crash"
        assert not session.is_sitting_out
        assert session.restart() is True
        assert session.restart_count == expected_restarts and session.is_alive
    assert session.decide(facing_bet_view(), hand_id="h1").fault == "crash"
    assert session.is_sitting_out
    assert session.restart() is False
    assert session.decide(facing_bet_view(), hand_id="h1").fault == "not_running"
    assert harness.kinds() == {FaultKind.CRASH: 3, FaultKind.RESTART: 2}
    assert len(harness.transports) == 3
    # The seq keeps increasing across restarts: no late line can match a new request.
    hellos = harness.sent_of("hello")
    assert [h["seq"] for h in hellos] == sorted({h["seq"] for h in hellos})


def test_restart_of_a_running_bot_does_nothing() -> None:
    harness = Harness(script(reply))
    session = harness.start()
    assert session.restart() is True
    assert session.restart_count == 0 and len(harness.transports) == 1


def test_restart_records_a_crash_nobody_noticed_first() -> None:
    harness = Harness(script(reply, hand_end=lambda m: None))
    session = harness.start()
    harness.transports[0].close(0)  # the bot died quietly between hands
    assert session.restart() is True
    assert harness.kinds() == {FaultKind.CRASH: 1, FaultKind.RESTART: 1}


def test_a_failed_restart_uses_the_budget_and_leaves_the_bot_down() -> None:
    starts = {"count": 0}

    def bot(message: dict[str, Any]) -> BotOutput:
        if message["type"] == "hello":
            starts["count"] += 1
            if starts["count"] > 1:
                return None  # the restarted bot never says ready
            return {"type": "ready", "seq": message["seq"], "name": "x"}
        raise BotExit(1)

    harness = Harness(bot, restart_budget=1)
    session = harness.start()
    session.decide(facing_bet_view(), hand_id="h1")
    assert session.restart() is False
    assert session.is_sitting_out
    assert harness.kinds() == {
        FaultKind.CRASH: 1,
        FaultKind.RESTART: 1,
        FaultKind.STARTUP_FAILURE: 1,
    }


def test_a_bot_that_never_started_can_be_restarted() -> None:
    harness = Harness(lambda m: None)
    assert harness.session.start(HELLO) is None
    harness.bot = script(reply)
    assert harness.session.restart() is True
    assert harness.session.decide(facing_bet_view(), hand_id="h1").action == Call()


# -- time bank ------------------------------------------------------------------------------


def test_the_time_bank_covers_overruns_until_it_is_spent() -> None:
    delays = iter([1.5, 0.5, 3.0])
    harness = Harness(
        script(lambda m: Delayed(next(delays), reply(m))),
        limits=TimeLimits(decision_s=1.0, time_bank_s=2.0, grace_s=0.0),
    )
    session = harness.start()
    assert session.decide(facing_bet_view(), hand_id="h1").fault is None  # 0.5 s from the bank
    assert session.time_bank_left_s == pytest.approx(1.5)
    assert session.decide(facing_bet_view(), hand_id="h1").fault is None  # within the limit
    assert session.time_bank_left_s == pytest.approx(1.5)
    outcome = session.decide(facing_bet_view(), hand_id="h1")  # 3 s > 1 s + 1.5 s
    assert outcome.fault == "timeout"
    assert outcome.latency_ms == pytest.approx(2500.0)
    assert session.time_bank_left_s == 0.0
    hello = harness.sent_of("hello")[0]
    assert hello["time_limits"]["time_bank_ms"] == 2000


# -- finishing ------------------------------------------------------------------------------


def test_finish_sends_match_end_and_closes() -> None:
    def on_match_end(message: dict[str, Any]) -> BotOutput:
        raise BotExit(0)

    harness = Harness(script(reply, match_end=on_match_end))
    session = harness.start()
    info = session.finish({"type": "match_end", "standings": []})
    assert info is not None and (info.exit_code, info.is_killed) == (0, False)
    assert harness.sent[-1]["type"] == "match_end"
    assert not session.is_alive and session.finish({"type": "match_end"}) is None
    assert session.exit_infos == [info]


def test_a_bot_found_dead_at_the_end_is_recorded_as_crashed() -> None:
    def on_hand_end(message: dict[str, Any]) -> BotOutput:
        raise BotExit(6)

    harness = Harness(script(reply, hand_end=on_hand_end))
    session = harness.start()
    session.notify({"type": "hand_end", "hand_number": 9})
    info = session.finish({"type": "match_end", "standings": []})
    assert info is not None and info.exit_code == 6
    (crash,) = session.ledger.of_kind(FaultKind.CRASH)
    assert (crash.exit_code, crash.hand_number) == (6, 9)


def test_close_kills_without_match_end() -> None:
    harness = Harness(script(reply))
    session = harness.start()
    info = session.close()
    assert info is not None and info.signal == int(signal.SIGKILL)
    assert [m["type"] for m in harness.sent] == ["hello"]
    assert session.close() is None


def test_a_decision_for_a_seat_not_to_act_is_our_bug() -> None:
    harness = Harness(script(reply))
    session = harness.start()
    view = dataclasses.replace(facing_bet_view(), legal_actions=None)
    with pytest.raises(ValueError, match="not to act"):
        session.decide(view, hand_id="h1")


def test_a_ledger_can_be_shared_with_the_match_result() -> None:
    ledger = FaultLedger(player_id="p0", seat_index=0)
    harness = Harness(script(lambda m: None), ledger=ledger, name="slowpoke")
    session = harness.start()
    session.decide(facing_bet_view(), hand_id="h1")
    assert session.ledger is ledger and ledger.count(FaultKind.TIMEOUT) == 1
    assert session.name == "slowpoke" and session.last_seq == 2


# -- pieces ---------------------------------------------------------------------------------


def _legal(**overrides: Any) -> LegalActions:
    base = LegalActions(
        seat_index=0,
        stack=10,
        current_bet=2,
        committed=0,
        can_fold=True,
        can_check=False,
        can_call=True,
        call_amount=2,
        can_raise=False,
        min_raise_to=0,
        max_raise_to=0,
    )
    return dataclasses.replace(base, **overrides)


def test_default_action_covers_every_case() -> None:
    assert default_action(_legal()) == Fold()
    assert default_action(_legal(), check_when_free=True) == Fold()
    assert default_action(_legal(can_draw=True)) == Discard(())
    assert default_action(_legal(can_fold=False, can_check=True)) == Check()
    assert default_action(_legal(can_fold=False)) == Call()


@pytest.mark.parametrize("name", ["decision_s", "startup_s", "time_bank_s", "grace_s"])
def test_time_limits_reject_negative_or_nan_values(name: str) -> None:
    for bad in (-1.0, math.nan):
        with pytest.raises(ValueError, match=name):
            TimeLimits(**{name: bad})


def test_session_rejects_zero_attempts() -> None:
    with pytest.raises(ValueError, match="max_invalid_attempts"):
        BotSession(
            lambda: InMemoryTransport(reply), player_id="p", seat_index=0, max_invalid_attempts=0
        )


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


# -- transports that fail at awkward moments ---------------------------------------------------


class StubTransport:
    """A transport whose lines are scripted and whose ``send`` breaks on the n-th call."""

    def __init__(
        self,
        lines: list[bytes | None],
        *,
        fail_send_at: int | None = None,
        exit_info: ExitInfo | None = None,
    ) -> None:
        self.lines = lines
        self.fail_send_at = fail_send_at
        self.exit_info = exit_info or ExitInfo(exit_code=7, stderr_tail="Traceback: boom")
        self.sent: list[bytes] = []
        self.is_alive = True

    def send(self, data: bytes) -> None:
        self.sent.append(data)
        if len(self.sent) == self.fail_send_at:
            self.is_alive = False
            raise TransportClosedError("broken pipe")

    def read_line(self, deadline: float) -> bytes | None:
        return self.lines.pop(0) if self.lines else None

    def has_output(self) -> bool:
        return bool(self.lines)

    def close(self, grace_s: float) -> ExitInfo:
        self.is_alive = False
        return self.exit_info


READY = b'{"type":"ready","seq":1,"name":"stub"}'


def stub_session(transport: StubTransport) -> BotSession:
    return BotSession(lambda: transport, player_id="p0", seat_index=0, clock=FakeClock())


@pytest.mark.parametrize(
    ("lines", "fail_send_at", "fault"),
    [
        ([READY, None], 2, "crash"),  # the act cannot be sent
        ([READY, None, b"junk"], 3, "crash"),  # the error after a bad reply cannot be sent
        ([READY, None, None], 3, "timeout"),  # the timeout notice cannot be sent
    ],
)
def test_a_pipe_that_breaks_while_sending_is_a_crash(
    lines: list[bytes | None], fail_send_at: int, fault: str
) -> None:
    transport = StubTransport(lines, fail_send_at=fail_send_at)
    session = stub_session(transport)
    assert session.start(HELLO) is not None
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault) == (Fold(), fault)
    (crash,) = session.ledger.of_kind(FaultKind.CRASH)
    # The exit code comes from the closed process; its last words are kept.
    assert crash.exit_code == 7 and "Traceback: boom" in crash.detail
    assert not session.is_alive


def test_a_startup_failure_keeps_the_bots_last_words() -> None:
    session = stub_session(StubTransport([]))
    assert session.start(HELLO) is None
    (fault,) = session.ledger.faults
    assert fault.code == "startup_timeout" and "Traceback: boom" in fault.detail


def test_finish_without_standings_just_closes() -> None:
    transport = StubTransport([READY])
    session = stub_session(transport)
    session.start(HELLO)
    info = session.finish()
    assert info is transport.exit_info and len(transport.sent) == 1


# -- the ledger -------------------------------------------------------------------------------


def test_the_ledger_summarises_counts_latency_and_dropped_bytes() -> None:
    ledger = FaultLedger(player_id="p3", seat_index=3, max_entries_per_kind=2)
    assert ledger.latency_stats().to_dict() == {
        "count": 0,
        "p50_ms": 0.0,
        "p99_ms": 0.0,
        "max_ms": 0.0,
        "mean_ms": 0.0,
    }
    for index in range(3):
        ledger.record(Fault(FaultKind.UNSOLICITED_LINE, 1, "unsolicited", "x" * 1000, seq=index))
    ledger.record(Fault(FaultKind.DROPPED_OUTPUT, 2, dropped_bytes=500))
    for ms in range(1, 101):
        ledger.add_latency(float(ms))
    data = ledger.to_dict()
    assert data["counts"]["unsolicited_line"] == 3 and data["faults_not_stored"] == 1
    assert data["dropped_output_bytes"] == 500
    assert data["latency"] == {
        "count": 100,
        "p50_ms": 50.0,
        "p99_ms": 99.0,
        "max_ms": 100.0,
        "mean_ms": 50.5,
    }
    first = data["faults"][0]
    assert len(first["detail"]) == DETAIL_MAX_CHARS and first["detail"].endswith("...")
    assert data["faults"][-1] == {"kind": "dropped_output", "hand_number": 2, "dropped_bytes": 500}


def test_exits_are_described_plainly() -> None:
    assert describe_exit(None, None) == "exit status unknown"
    assert describe_exit(None, 200) == "killed by signal 200 (unknown)"
    assert percentile([], 0.5) == 0.0


def test_the_fake_clock_and_a_custom_sleep() -> None:
    clock = FakeClock()
    clock.advance(1.5)
    slept: list[float] = []
    transport = InMemoryTransport(lambda m: None, clock=clock, sleep=slept.append)
    transport.send(b'{"type":"x"}\n')
    assert transport.read_line(3.0) is None and slept == [1.5]


# -- the engine's word on an action, and the house draw rule --------------------------------


def test_an_action_the_engine_rejects_is_an_invalid_reply_with_the_engines_code() -> None:
    harness = Harness(script(lambda m: reply(m, "CALL" if m["attempt"] == 1 else "FOLD")))
    session = harness.start()
    checked: list[Any] = []

    def check(action: Any) -> None:
        checked.append(action)
        if action == Call():
            raise IllegalActionError("amount_above_stack", "call of 1 needs 1 chips, stack is 0")

    outcome = session.decide(facing_bet_view(), hand_id="h1", apply=check)
    assert (outcome.action, outcome.fault, outcome.attempt_count) == (Fold(), None, 2)
    assert checked == [Call(), Fold()]
    (error,) = harness.sent_of("error")
    assert error["code"] == "amount_above_stack" and error["path"] is None
    assert error["message"] == "call of 1 needs 1 chips, stack is 0"
    assert error["attempts_left"] == 2
    (fault,) = session.ledger.of_kind(FaultKind.INVALID_REPLY)
    assert fault.code == "amount_above_stack"


def test_apply_runs_the_engine_once_and_the_outcome_carries_its_events() -> None:
    # With apply (Hand.act) the engine validates and applies in one go; a rejected action
    # leaves the hand unchanged, so the retry is applied to the same hand.
    harness = Harness(script(lambda m: reply(m, "RAISE", amount=1 if m["attempt"] == 1 else 6)))
    session = harness.start()
    hand = new_hand()
    applied: list[Any] = []

    def apply(action: Any) -> Any:
        applied.append(action)
        if action == RaiseTo(1):  # the protocol's checks catch this; pretend they did not
            raise IllegalActionError("raise_below_minimum", "raise to 1 below minimum 4")
        return hand.act(action)

    outcome = session.decide(hand.view(0), hand_id="h1", apply=apply)
    assert (outcome.action, outcome.fault, outcome.attempt_count) == (RaiseTo(6), None, 2)
    assert outcome.events is not None and outcome.events[0].to_dict()["total"] == 6
    assert hand.actor_index == 1 and hand.current_bet == 6
    (error,) = harness.sent_of("error")
    assert error["code"] == "raise_below_minimum"


def test_a_default_action_is_left_for_the_caller_to_apply() -> None:
    harness = Harness(script(lambda m: None))
    session = harness.start()
    hand = new_hand()
    outcome = session.decide(hand.view(0), hand_id="h1", apply=hand.act)
    assert (outcome.action, outcome.fault, outcome.events) == (Fold(), "timeout", None)
    assert hand.actor_index == 0  # nothing was applied


def test_while_waiting_steps_run_after_the_first_request_until_the_reply_is_there() -> None:
    # The bot answers 1 s after each request (fake clock); each step takes 0.3 s.
    clock_steps: list[float] = []
    harness = Harness(
        script(lambda m: Delayed(1.0, reply(m, "CALL" if m["attempt"] == 1 else "FOLD")))
    )
    session = harness.start()

    def check(action: Any) -> None:
        if action == Call():
            raise IllegalActionError("amount_above_stack", "no chips")

    def step() -> bool:
        assert [message["type"] for message in harness.transports[-1].sent] == ["hello", "act"]
        clock_steps.append(harness.clock())
        harness.clock.sleep(0.3)
        return True  # always more to do: only the reply stops the steps

    outcome = session.decide(facing_bet_view(), hand_id="h1", apply=check, while_waiting=step)
    assert outcome.attempt_count == 2  # the re-ask ran no step
    assert len(clock_steps) == 4  # at 0, 0.3, 0.6, 0.9 s after the request; then the reply


def test_while_waiting_stops_when_no_work_is_left() -> None:
    harness = Harness(script(lambda m: Delayed(1.0, reply(m))))
    session = harness.start()
    calls: list[int] = []

    def step() -> bool:
        calls.append(1)
        return len(calls) < 2

    outcome = session.decide(facing_bet_view(), hand_id="h1", while_waiting=step)
    assert outcome.fault is None and calls == [1, 1]


def test_a_discard_the_engine_rejects_names_the_cards() -> None:
    harness = Harness(
        script(lambda m: {"type": "discard", "seq": m["seq"], "cards": m["hole_cards"][:1]}),
        max_invalid_attempts=1,
    )
    session = harness.start()

    def check(action: Any) -> None:
        raise IllegalActionError("bad_discard", "no")

    outcome = session.decide(draw_view(), hand_id="h1", apply=check)
    assert (outcome.action, outcome.fault) == (Discard(()), "invalid_reply")
    (error,) = harness.sent_of("error")
    assert (error["code"], error["path"]) == ("bad_discard", "/cards")


def test_four_discards_keeping_no_ace_break_the_house_rule() -> None:
    # As Ad 7c 5h 2s: four may go only when the card kept is an ace; here 2s is kept.
    four = [card for card in draw_view().hole_cards if str(card) != "2s"]
    assert len(four) == 4

    def on_draw(message: dict[str, Any]) -> BotOutput:
        cards = [c.to_wire() for c in four] if message["attempt"] == 1 else []
        return {"type": "discard", "seq": message["seq"], "cards": cards}

    view = draw_view()
    assert view.legal_actions is not None
    legal = dataclasses.replace(view.legal_actions, max_discard_count=4)
    view = dataclasses.replace(view, legal_actions=legal)
    harness = Harness(script(on_draw))
    session = harness.start()
    outcome = session.decide(view, hand_id="h1", draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)
    assert (outcome.action, outcome.fault) == (Discard(()), None)
    (error,) = harness.sent_of("error")
    assert (error["code"], error["path"]) == ("too_many_discards", "/cards")
    assert "not an ace" in error["message"]


# -- notifications held for the next line ------------------------------------------------------


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


def test_a_bot_that_is_gone_loses_what_was_held_for_it() -> None:
    transport = StubTransport([READY])
    session = stub_session(transport)
    session.start(HELLO)
    session.notify({"type": "hand_end", "hand_number": 1}, hold=True)
    session.close()
    second = StubTransport([b'{"type":"ready","seq":2,"name":"stub"}'])
    session.transport_factory = lambda: second
    assert session.restart()
    session.flush()
    assert len(second.sent) == 1  # hello only: the old hand_end went with the old bot


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
