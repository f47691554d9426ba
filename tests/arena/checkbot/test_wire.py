"""The check's side of the pipes (:mod:`arena.checkbot.wire`), on in-memory bots: a
bot that is gone is :class:`BotGoneError`, a line too long is noted, never raised."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots.in_memory import BotExit, BotOutput, FakeClock, InMemoryTransport
from arena.checkbot.script import Checker, match_end_step
from arena.checkbot.wire import BotGoneError, Conversation, StepFailedError
from arena.session.policy import TimeLimits
from engine.config import GameConfig

LIMITS = TimeLimits(decision_s=0.5, startup_s=1.0, match_end_grace_s=0.3)


def conversation(bot: Any, *, max_line_bytes: int = 100) -> Conversation:
    clock = FakeClock()
    transport = InMemoryTransport(bot, clock=clock, max_line_bytes=max_line_bytes)
    return Conversation(transport, LIMITS, clock)


def exits(message: dict[str, Any]) -> BotOutput:
    raise BotExit(1)


def long_lines(message: dict[str, Any]) -> BotOutput:
    return [b"x" * 200, {"type": "chat"}]


def test_writing_to_a_bot_that_exited_is_bot_gone() -> None:
    talk = conversation(exits)
    talk.send({"type": "hand_start"})  # it reads this one, and exits
    with pytest.raises(BotGoneError, match="exit code 1"):
        talk.send({"type": "hand_end"})


def test_draining_a_bot_that_exited_is_bot_gone() -> None:
    talk = conversation(exits)
    talk.send({"type": "hand_start"})
    with pytest.raises(BotGoneError):
        talk.drain()


def test_a_line_too_long_is_noted_as_a_stray_line_and_reading_goes_on() -> None:
    talk = conversation(long_lines)
    talk.send({"type": "hand_end"})
    talk.drain()
    assert talk.stray_lines == [
        "line_too_long: line longer than the limit of 100 bytes",
        repr(b'{"type":"chat"}'),
    ]


def test_what_comes_after_a_notification_is_collected_whole() -> None:
    talk = conversation(long_lines)
    talk.send({"type": "hand_start"})
    assert talk.lines_within(1.0) == [
        "line_too_long: line longer than the limit of 100 bytes",
        repr(b'{"type":"chat"}'),
    ]
    assert talk.stray_lines == []  # the caller decides what they mean


def test_a_bot_that_exits_at_a_notification_is_bot_gone_while_waiting() -> None:
    talk = conversation(exits)
    talk.send({"type": "hand_start"})
    with pytest.raises(BotGoneError):
        talk.lines_within(1.0)


def test_a_missing_reply_fails_the_step_with_the_flush_hint() -> None:
    talk = conversation(lambda message: None)
    talk.send({"type": "hello", "seq": 1})
    with pytest.raises(StepFailedError, match="no ready for hello 1 within 1000 ms") as info:
        talk.reply(LIMITS.startup_s, "ready for hello 1", "ready")
    assert "flush standard output" in info.value.hint


def test_a_bot_gone_before_match_end_fails_the_last_step() -> None:
    clock = FakeClock()
    transport = InMemoryTransport(exits, clock=clock)
    checker = Checker(transport, LIMITS, clock, GameConfig())
    transport.send(b'{"type": "hand_end"}\n')  # the bot exits here
    match_end_step(checker)
    (step,) = checker.steps
    assert step.name == "match_end_exit" and not step.passed
    assert step.reason.startswith("the bot was gone before match_end: the bot exited")


def test_a_chat_line_before_the_reply_is_noted_and_skipped() -> None:
    def chatty(message: dict[str, Any]) -> BotOutput:
        return [{"type": "chat"}, {"type": "ready", "seq": message["seq"], "name": "x"}]

    talk = conversation(chatty)
    talk.send({"type": "hello", "seq": 1})
    reply, _latency_ms = talk.reply(LIMITS.startup_s, "ready for hello 1", "ready")
    assert reply["type"] == "ready" and talk.stray_lines == [repr(b'{"type":"chat"}')]
