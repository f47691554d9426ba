"""The check's side of ``arena check-bot``'s conversation: writing to the bot and reading
what it writes, by the watchdog's rules (:mod:`arena.session.reading`).

:class:`Conversation` numbers the requests, notes every line written while nothing was
asked (for the ``quiet`` step) and turns a missing or broken reply into
:class:`StepFailedError`, with a hint for the common mistakes
(:mod:`arena.checkbot.hints`), and a bot that went away into :class:`BotGoneError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.bots.transport import Clock, Transport, TransportClosedError
from arena.checkbot.hints import NO_REPLY_HINT, reply_hint
from arena.session.policy import TimeLimits
from arena.session.reading import read_reply
from protocol.codec import encode
from protocol.errors import BotFaultError

__all__ = ["BotGoneError", "Conversation", "StepFailedError"]


class StepFailedError(Exception):
    """The current step failed; the conversation cannot go on sensibly. ``hint`` says
    what to fix when the failure is a common mistake."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(reason)
        self.hint = hint


class BotGoneError(Exception):
    """The bot exited or closed its pipes."""


@dataclass
class Conversation:
    """One bot's pipes, seen by the check (see the module docstring)."""

    transport: Transport
    limits: TimeLimits
    clock: Clock
    stray_lines: list[str] = field(default_factory=list, init=False)
    seq: int = field(default=0, init=False)

    def next_seq(self) -> int:
        """The seq of the next request."""
        self.seq += 1
        return self.seq

    def send(self, message: dict[str, Any]) -> None:
        """Write one message to the bot."""
        try:
            self.transport.send(encode(message))
        except TransportClosedError as exc:
            raise BotGoneError(str(exc)) from exc

    def drain(self) -> None:
        """Note every line that came while nothing was asked."""
        self.stray_lines.extend(self.lines_within(0.0))

    def reply(
        self,
        timeout_s: float,
        what: str,
        reply_type: str,
        request: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], float]:
        """The reply, decoded; raise StepFailedError if none comes or it is not JSON.

        The watchdog's rules (:mod:`arena.session.reading`): a line without ``seq`` that is
        not of ``reply_type`` is no reply (a chat line written for an earlier
        notification); it is noted and skipped.
        """
        started = self.clock()
        deadline = started + timeout_s + self.limits.grace_s

        def stray(line: bytes) -> None:
            self.stray_lines.append(repr(line[:120]))

        try:
            obj = read_reply(self.transport, deadline, reply_type, stray)
        except TransportClosedError as exc:
            raise BotGoneError(str(exc)) from exc
        except BotFaultError as exc:
            hint = reply_hint(exc.code, request)
            raise StepFailedError(f"the {what} is not valid: {exc}", hint) from exc
        if obj is None:
            raise StepFailedError(f"no {what} within {round(timeout_s * 1000)} ms", NO_REPLY_HINT)
        return obj, (self.clock() - started) * 1000

    def lines_within(self, wait_s: float) -> list[str]:
        """What the bot writes within ``wait_s`` (all of it once a first line came)."""
        deadline = self.clock() + wait_s
        lines: list[str] = []
        while True:
            try:
                line = self.transport.read_line(self.clock() if lines else deadline)
            except TransportClosedError as exc:
                raise BotGoneError(str(exc)) from exc
            except BotFaultError as exc:
                lines.append(str(exc))
                continue
            if line is None:
                return lines
            lines.append(repr(line[:120]))
