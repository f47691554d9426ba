"""A seat's bot processes (:mod:`arena.session.lifecycle`): crashes, restarts within the
budget, sitting out once it is spent, and stopping (``match_end`` and a grace, or a kill)."""

from __future__ import annotations

import dataclasses
import signal
from typing import Any

import pytest

from arena.bots.in_memory import BotExit, BotOutput
from arena.bots.manifest import load_manifest
from arena.bots.process import process_factory
from arena.session.faults import FaultKind
from arena.session.policy import TimeLimits
from arena.session.watchdog import BotSession
from engine.actions import Call, Fold
from tests import REPO_ROOT, TEST_BOTS
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

SAMPLE_BOTS = REPO_ROOT / "sample_bots"


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


def test_finish_without_standings_just_closes() -> None:
    transport = StubTransport([READY])
    session = stub_session(transport)
    session.start(HELLO)
    info = session.finish()
    assert info is transport.exit_info and len(transport.sent) == 1


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


# -- match_end ignored ----------------------------------------------------------------------


def test_a_bot_still_running_after_the_grace_that_follows_match_end_is_a_fault() -> None:
    harness = Harness(script(reply, match_end=lambda m: None))  # reads it, keeps running
    session = harness.start()
    session.notify({"type": "hand_end", "hand_number": 7})
    info = session.finish({"type": "match_end", "standings": []})
    assert info is not None and info.is_killed and info.signal == int(signal.SIGKILL)
    (fault,) = session.ledger.faults
    assert (fault.kind, fault.code, fault.hand_number) == (
        FaultKind.IGNORED_MATCH_END,
        "ignored_match_end",
        7,
    )
    assert "2000 ms after match_end" in fault.detail and fault.signal == int(signal.SIGKILL)
    assert session.ledger.to_dict()["counts"]["ignored_match_end"] == 1


def test_a_bot_that_exits_after_match_end_leaves_no_fault() -> None:
    harness = Harness(script(reply))  # the harness's bots exit at match_end
    session = harness.start()
    info = session.finish({"type": "match_end", "standings": []})
    assert info is not None and not info.is_killed and session.ledger.faults == ()


def test_a_bot_killed_without_being_sent_match_end_ignored_nothing() -> None:
    for stop in ("finish", "close"):
        harness = Harness(script(reply, match_end=lambda m: None))
        session = harness.start()
        info = session.finish() if stop == "finish" else session.close()
        assert info is not None and info.is_killed
        assert session.ledger.faults == (), stop


def test_a_real_process_that_ignores_match_end_is_killed_and_recorded() -> None:
    manifest = load_manifest(TEST_BOTS / "hang" / "bot.toml")
    manifest = dataclasses.replace(manifest, command=(*manifest.command[:2], "match_end"))
    limits = TimeLimits(startup_s=5.0, match_end_grace_s=0.2)
    session = BotSession(process_factory(manifest), player_id="p0", seat_index=0, limits=limits)
    try:
        assert session.start(HELLO) is not None
        info = session.finish({"type": "match_end", "standings": []})
        assert info is not None and info.is_killed
        (fault,) = session.ledger.of_kind(FaultKind.IGNORED_MATCH_END)
        assert fault.code == "ignored_match_end" and "200 ms" in fault.detail
    finally:
        session.close()


def test_a_real_process_that_exits_at_match_end_is_no_fault() -> None:
    manifest = load_manifest(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
    session = BotSession(process_factory(manifest), player_id="p0", seat_index=0)
    try:
        assert session.start(HELLO) is not None
        info = session.finish({"type": "match_end", "standings": []})
        assert info is not None and not info.is_killed
        assert session.ledger.count(FaultKind.IGNORED_MATCH_END) == 0
    finally:
        session.close()
