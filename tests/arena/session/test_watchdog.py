"""The watchdog (:mod:`arena.session.watchdog`): one decision asked of a bot, with retries,
the default action, the time limits and the time bank, on in-memory bots and a fake clock.

The start, restarts and stop of a bot are in ``test_lifecycle.py``, reading replies in
``test_reading.py``, the lines held for a bot in ``test_channel.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from arena.bots.in_memory import BotOutput, Delayed, InMemoryTransport
from arena.bots.manifest import load_manifest
from arena.bots.process import ProcessTransport, process_factory
from arena.session.faults import FaultKind, FaultLedger
from arena.session.policy import TimeLimits
from arena.session.watchdog import BotSession
from engine.actions import Call, Check, Discard, Fold, RaiseTo
from engine.cards import parse_cards
from engine.config import DrawLimit
from engine.errors import IllegalActionError
from tests import TEST_BOTS
from tests.arena.session.harness import (
    HELLO,
    Harness,
    draw_view,
    facing_bet_view,
    free_check_view,
    new_hand,
    reply,
    script,
)

pytestmark = pytest.mark.filterwarnings("error")


# -- decisions ------------------------------------------------------------------------------


def test_a_valid_reply_is_the_action_and_its_latency_is_recorded() -> None:
    harness = Harness(script(lambda m: Delayed(0.25, reply(m, "RAISE", amount=6))))
    session = harness.start()
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault, outcome.attempt_count) == (RaiseTo(6), None, 1)
    assert outcome.replies == [reply({"seq": 2}, "RAISE", amount=6)]
    assert outcome.latency_ms == pytest.approx(250.0)
    (act,) = harness.sent_of("act")
    assert (act["seq"], act["attempt"], act["attempts_left"], act["time_limit_ms"]) == (
        2,
        1,
        3,
        5000,
    )
    latency = session.ledger.latency_stats()
    assert latency.count == 1 and latency.max_ms == pytest.approx(250.0)
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
        ({"type": "action", "action": "CALL"}, "bad_seq"),
        ({"type": "action", "seq": 0, "action": "CALL"}, "bad_seq"),
        ({"type": "action", "seq": -5, "action": "CALL"}, "bad_seq"),
        ({"type": "action", "seq": None, "action": "CALL"}, "bad_seq"),
        ({"type": "action", "seq": 1.5, "action": "CALL"}, "bad_seq"),
        ({"type": "action", "seq": "2", "action": "CALL"}, "bad_seq"),
        ({"type": "action", "seq": True, "action": "CALL"}, "bad_seq"),
        ({"type": "action", "seq": 2, "action": "RAISE"}, "schema_violation"),
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


def test_session_rejects_zero_attempts() -> None:
    with pytest.raises(ValueError, match="max_invalid_attempts"):
        BotSession(
            lambda: InMemoryTransport(reply), player_id="p", seat_index=0, max_invalid_attempts=0
        )


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


# -- a hung bot -----------------------------------------------------------------------------


def test_three_timeouts_in_a_row_mean_hung_and_the_process_tree_is_killed() -> None:
    harness = Harness(script(lambda m: None))
    session = harness.start()
    for count in (1, 2):
        assert session.decide(facing_bet_view(), hand_id="h1").fault == "timeout"
        assert session.is_alive and session.timeouts_in_a_row == count
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault) == (Fold(), "timeout")
    assert not session.is_alive and session.transport is None
    assert harness.kinds() == {FaultKind.TIMEOUT: 3, FaultKind.HUNG: 1}
    (hung,) = session.ledger.of_kind(FaultKind.HUNG)
    assert hung.code == "hung"
    assert "3 decisions in a row" in hung.detail and "5000 ms" in hung.detail
    # The first two timeouts were told to the bot; the third one kills it instead.
    assert [e["in_reply_to"] for e in harness.sent_of("error")] == [2, 3]
    assert session.exit_infos[-1].is_killed
    # Until the match restarts it, the seat is folded without being asked.
    assert session.decide(facing_bet_view(), hand_id="h1").fault == "not_running"
    assert len(harness.sent_of("act")) == 3


def test_a_hung_bot_is_restarted_with_a_fresh_count_within_the_budget() -> None:
    harness = Harness(script(lambda m: None), restart_budget=1)
    session = harness.start()
    for _ in range(3):
        session.decide(facing_bet_view(), hand_id="h1")
    assert session.restart() is True and session.restart_count == 1
    assert session.timeouts_in_a_row == 0
    for _ in range(2):
        session.decide(facing_bet_view(), hand_id="h2")
    assert session.is_alive  # two timeouts of the new process: not hung yet
    session.decide(facing_bet_view(), hand_id="h2")
    assert not session.is_alive and session.restart() is False
    assert session.is_sitting_out
    assert harness.kinds() == {FaultKind.TIMEOUT: 6, FaultKind.HUNG: 2, FaultKind.RESTART: 1}


def test_a_valid_reply_resets_the_count_of_timeouts_in_a_row() -> None:
    answers = iter([False, False, True] * 3)
    harness = Harness(script(lambda m: reply(m) if next(answers) else None))
    session = harness.start()
    for _ in range(9):
        session.decide(facing_bet_view(), hand_id="h1")
    assert session.is_alive
    assert harness.kinds() == {FaultKind.TIMEOUT: 6}


def test_invalid_replies_do_not_reset_the_count_of_timeouts_in_a_row() -> None:
    # Silence, garbage (a whole decision of it), silence, silence: stuck all the same.
    outputs = iter([None, b"garbage", None, None])
    harness = Harness(script(lambda m: next(outputs)), max_invalid_attempts=1)
    session = harness.start()
    faults = [session.decide(facing_bet_view(), hand_id="h1").fault for _ in range(4)]
    assert faults == ["timeout", "invalid_reply", "timeout", "timeout"]
    assert not session.is_alive
    assert session.ledger.count(FaultKind.HUNG) == 1


def test_hung_after_timeouts_is_configurable() -> None:
    harness = Harness(script(lambda m: None), hung_after_timeouts=1)
    session = harness.start()
    assert session.decide(facing_bet_view(), hand_id="h1").fault == "timeout"
    assert not session.is_alive and harness.kinds() == {FaultKind.TIMEOUT: 1, FaultKind.HUNG: 1}
    (hung,) = session.ledger.of_kind(FaultKind.HUNG)
    assert "1 decisions in a row" in hung.detail
    with pytest.raises(ValueError, match="hung_after_timeouts must be at least 1, got 0"):
        BotSession(
            lambda: InMemoryTransport(reply), player_id="p", seat_index=0, hung_after_timeouts=0
        )


def test_the_session_shows_the_settings_it_asks_within() -> None:
    session = Harness(
        script(lambda m: None), max_invalid_attempts=2, check_when_free=True, hung_after_timeouts=4
    ).start()
    assert (session.max_invalid_attempts, session.check_when_free) == (2, True)
    assert (session.hung_after_timeouts, session.timeouts_in_a_row) == (4, 0)


# -- seq numbers that are no seq numbers ----------------------------------------------------


@pytest.mark.parametrize("seq", [0, -5, None, 1.5, "2", True], ids=repr)
def test_a_seq_that_is_not_a_positive_integer_is_a_strike_not_a_wait(seq: object) -> None:
    def on_act(message: dict[str, Any]) -> BotOutput:
        if message["attempt"] == 1:
            return {"type": "action", "seq": seq, "action": "CALL"}
        return reply(message)

    harness = Harness(script(on_act))
    session = harness.start()
    started = harness.clock()
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert (outcome.action, outcome.fault, outcome.attempt_count) == (Call(), None, 2)
    assert harness.clock() == started  # answered at once: no timeout was waited for
    (fault,) = session.ledger.faults
    assert (fault.kind, fault.code, fault.seq) == (FaultKind.INVALID_REPLY, "bad_seq", 2)
    (error,) = harness.sent_of("error")
    assert (error["code"], error["in_reply_to"], error["path"]) == ("bad_seq", 2, "/seq")


def test_a_real_hung_process_is_killed_after_three_timeouts_and_restarted() -> None:
    # Never answers and never reads after ready, so it cannot leave by itself when its
    # input is closed: the kill is what ends it (a bot that reads could see the end of its
    # input and exit 0 first, under load).
    manifest = load_manifest(TEST_BOTS / "hang" / "bot.toml")
    manifest = dataclasses.replace(manifest, command=(*manifest.command[:2], "deaf"))
    started: list[ProcessTransport] = []
    session = BotSession(
        process_factory(manifest, on_start=started.append),
        player_id="p0",
        seat_index=0,
        limits=TimeLimits(decision_s=0.1, startup_s=5.0),
    )
    try:
        assert session.start(HELLO) is not None
        faults = [session.decide(facing_bet_view(), hand_id="h1").fault for _ in range(3)]
        assert faults == ["timeout"] * 3
        assert not session.is_alive and session.ledger.count(FaultKind.HUNG) == 1
        assert not started[0].is_alive and session.exit_infos[-1].is_killed
        assert session.restart() is True and len(started) == 2 and session.is_alive
    finally:
        session.close()
