"""The start of a conversation: ``hello`` out, ``ready`` back, within the startup limit.

Before ``ready`` a bot may write JSON objects of other types (a log message) and late
``ready`` replies to an earlier ``hello``; they are tolerated (and recorded by the
caller's ``on_dropped``) as long as ``ready`` comes in time. A line that is not a JSON
object at all (a banner printed to stdout, a stray ``print``) fails the start at once,
with the code ``check-bot`` gives it (``invalid_json``, ``invalid_utf8``,
``not_an_object``, ``too_deep``): standard output is the protocol's channel, and waiting
out the startup limit would only hide the cause behind ``startup_timeout``. A ``ready``
that the protocol rejects, no ``ready`` in time, or a bot that exits first is a startup
failure too, returned as a value for the session to record.
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
from protocol.errors import BotFaultError, StaleReplyError
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
            except BotFaultError as exc:
                # Not JSON at all: said at once, not after the startup limit.
                return StartupFailure(
                    exc.code,
                    f"wrote a line that is not a JSON object before ready (stdout is the "
                    f"protocol's channel; log to stderr): {exc.message}",
                    latency_ms=(clock() - started) * 1000.0,
                )
            try:
                if obj.get("type") != "ready":
                    # A log message before ready: tolerated, but recorded.
                    on_dropped(
                        FaultKind.UNSOLICITED_LINE, "not_ready", f"before ready: {obj!r}", None
                    )
                    continue
                ready = parse_ready(obj, seq)
            except StaleReplyError as exc:
                on_dropped(FaultKind.STALE_REPLY, exc.code, str(exc), exc.seq)
                continue
            except BotFaultError as exc:
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
