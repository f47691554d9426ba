"""The start of a conversation: ``hello`` out, ``ready`` back, within the startup limit.

Before ``ready`` a bot may print a banner or log lines; they are tolerated (and recorded
by the caller's ``on_dropped``) as long as ``ready`` comes in time. A ``ready`` that the
protocol rejects, no ``ready`` in time, or a bot that exits first is a startup failure,
returned as a value for the session to record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.bots.transport import Clock, Transport, TransportClosedError
from arena.session.faults import FaultKind
from arena.session.policy import TimeLimits
from arena.session.reading import OnDropped
from protocol.codec import decode, encode
from protocol.errors import BotFaultError, ErrorCode, StaleReplyError
from protocol.replies import parse_ready

__all__ = ["ReadyInfo", "StartupFailure", "await_ready"]


@dataclass(frozen=True, slots=True)
class ReadyInfo:
    """What the bot said in its ``ready`` and how long it took to say it."""

    name: str
    version: str | None
    protocol_version: int
    latency_ms: float


@dataclass(frozen=True, slots=True)
class StartupFailure:
    """Why a bot did not get as far as ``ready`` (a stable ``code`` and a readable detail)."""

    code: str
    detail: str
    latency_ms: float | None = None
    exit_code: int | None = None
    signal: int | None = None


def await_ready(
    transport: Transport,
    hello: Mapping[str, Any],
    *,
    seq: int,
    limits: TimeLimits,
    clock: Clock,
    on_dropped: OnDropped,
) -> ReadyInfo | StartupFailure:
    """Send ``hello`` (already numbered ``seq``) and wait for the bot's ``ready``."""
    started = clock()
    deadline = started + limits.startup_s + limits.grace_s
    try:
        transport.send(encode(hello))
        while True:
            line = transport.read_line(deadline)
            if line is None:
                return StartupFailure(
                    "startup_timeout",
                    f"no ready within {round(limits.startup_s * 1000)} ms",
                    latency_ms=(clock() - started) * 1000.0,
                )
            try:
                obj = decode(line)
                if obj.get("type") != "ready":
                    # A banner or a log line before ready: tolerated, but recorded.
                    on_dropped(
                        FaultKind.UNSOLICITED_LINE, "not_ready", f"before ready: {obj!r}", None
                    )
                    continue
                ready = parse_ready(obj, seq)
            except StaleReplyError as exc:
                on_dropped(FaultKind.STALE_REPLY, exc.code, str(exc), exc.seq)
                continue
            except BotFaultError as exc:
                if exc.code in (ErrorCode.INVALID_JSON, ErrorCode.INVALID_UTF8):
                    on_dropped(FaultKind.UNSOLICITED_LINE, exc.code, f"before ready: {exc}", None)
                    continue
                return StartupFailure(exc.code, f"bad ready: {exc.message}")
            return ReadyInfo(
                name=ready.name,
                version=ready.version,
                protocol_version=ready.protocol_version,
                latency_ms=(clock() - started) * 1000.0,
            )
    except BotFaultError as exc:  # a line too long
        return StartupFailure(exc.code, f"bad ready: {exc.message}")
    except TransportClosedError as exc:
        return StartupFailure("exited", str(exc), exit_code=exc.exit_code, signal=exc.signal)
