"""The start of a session: ``hello`` out, ``ready`` back within the startup limit
(:mod:`arena.session.handshake`), and what counts as a startup failure."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots.in_memory import BotExit, BotOutput, FakeClock, InMemoryTransport
from arena.bots.transport import BotStartError
from arena.session.faults import FaultKind
from arena.session.watchdog import BotSession
from tests.arena.session.harness import HELLO, Harness, StubTransport, reply, script, stub_session

pytestmark = pytest.mark.filterwarnings("error")


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


def test_a_log_message_and_a_stale_ready_before_ready_are_dropped_and_recorded() -> None:
    def bot(message: dict[str, Any]) -> BotOutput:
        if message["seq"] == 1:
            return {"type": "ready", "seq": 1, "name": "first"}
        return [
            {"type": "log", "text": "my bot v2 starting"},
            {"type": "log", "text": "hi"},
            {"type": "ready", "seq": message["seq"] - 1, "name": "old"},
            {"type": "ready", "seq": message["seq"], "name": "good"},
        ]

    harness = Harness(bot)
    harness.start()
    harness.session.close()
    assert harness.session.restart()  # its hello is numbered 2: a stale ready can exist
    assert harness.session.ready is not None and harness.session.ready.name == "good"
    assert harness.kinds() == {
        FaultKind.RESTART: 1,
        FaultKind.UNSOLICITED_LINE: 2,
        FaultKind.STALE_REPLY: 1,
    }


@pytest.mark.parametrize(
    ("output", "code"),
    [
        ({"type": "ready", "seq": 7, "name": "x"}, "unknown_seq"),
        ({"type": "ready", "seq": 0, "name": "x"}, "bad_seq"),
        ({"type": "ready", "seq": None, "name": "x"}, "bad_seq"),
        ({"type": "ready", "name": "x"}, "bad_seq"),
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


def test_a_startup_failure_keeps_the_bots_last_words() -> None:
    session = stub_session(StubTransport([]))
    assert session.start(HELLO) is None
    (fault,) = session.ledger.faults
    assert fault.code == "startup_timeout" and "Traceback: boom" in fault.detail


@pytest.mark.parametrize(
    ("banner", "code"),
    [
        (b"my bot v2 starting", "invalid_json"),
        (b"\xff\xfe banner", "invalid_utf8"),
        (b"[1, 2]", "not_an_object"),
        (b'{"log":' + b"[" * 40 + b"]" * 40 + b"}", "too_deep"),
    ],
)
def test_a_line_that_is_not_json_before_ready_fails_the_start_at_once(
    banner: bytes, code: str
) -> None:
    # As check-bot says at once: stdout is the protocol's channel. Waiting out the startup
    # limit would report startup_timeout and hide the cause.
    harness = Harness(
        lambda message: [banner, {"type": "ready", "seq": message["seq"], "name": "late"}]
    )
    assert harness.session.start(HELLO) is None
    (fault,) = harness.session.ledger.faults
    assert (fault.kind, fault.code) == (FaultKind.STARTUP_FAILURE, code)
    assert "before ready" in fault.detail and "log to stderr" in fault.detail
    assert fault.latency_ms == 0.0  # at once, on the fake clock: not after 10 s
