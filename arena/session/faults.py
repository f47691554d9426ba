"""The fault ledger: every way a bot misbehaved in a match, one ledger per seat.

A bot's crash, hang or garbage is a recorded fact of the match, never an exception that
stops it (docs/faults.md has the table). Latencies go into a
:class:`~arena.session.latency.LatencyHistogram`, so a ledger stays the same size over a
match of any length; a flooding bot could make millions of dropped lines, so only the
first ``max_entries_per_kind`` faults of each kind are stored (all are counted).

>>> ledger = FaultLedger(player_id="p1", seat_index=1)
>>> ledger.record(Fault(FaultKind.TIMEOUT, hand_number=3, code="timeout", latency_ms=5000.0))
>>> for ms in (10.0, 20.0, 30.0):
...     ledger.add_latency(ms)
>>> ledger.counts()[FaultKind.TIMEOUT], ledger.latency_stats().max_ms
(1, 30.0)"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from arena.bots.transport import STDERR_MARKER, ExitInfo, TransportClosedError
from arena.session.latency import LatencyHistogram, LatencyStats
from protocol.errors import BotFaultError

__all__ = [
    "DETAIL_MAX_CHARS",
    "STARTUP_DETAIL_MAX_CHARS",
    "Fault",
    "FaultKind",
    "FaultLedger",
    "FaultRecorder",
    "LatencyStats",  # from arena.session.latency, where it is made
]

logger = logging.getLogger("arena.bots")

#: Longest detail text kept per fault (a garbage line is cut to this).
DETAIL_MAX_CHARS = 300

#: Longest detail kept for a start-up failure: the arena's own explanation of why a bot
#: cannot start and the way out (a path to install, a directory to expose), which long
#: paths must not cut off.
STARTUP_DETAIL_MAX_CHARS = 1000


class FaultKind(StrEnum):
    """What went wrong (the ``kind`` of a :class:`Fault`)."""

    TIMEOUT = "timeout"  # no reply within the decision limit (and time bank)
    INVALID_REPLY = "invalid_reply"  # bad JSON, schema violation, illegal action or amount
    CRASH = "crash"  # the process exited or closed its pipes
    RESTART = "restart"  # the arena restarted the bot between hands
    STARTUP_FAILURE = "startup_failure"  # no valid ``ready`` (cannot run, timeout, bad reply)
    STALE_REPLY = "stale_reply"  # a reply to an earlier request (late), dropped
    UNSOLICITED_LINE = "unsolicited_line"  # a line when nothing was asked, dropped
    DROPPED_OUTPUT = "dropped_output"  # stdout/stderr bytes the arena did not keep
    HUNG = "hung"  # timed out on several decisions in a row: killed, restarted next hand
    IGNORED_MATCH_END = "ignored_match_end"  # still running after the grace that follows it


@dataclass(frozen=True, slots=True)
class Fault:
    """One recorded fault. Only the fields that apply are set.

    >>> Fault(FaultKind.CRASH, hand_number=2, code="exited", signal=9).to_dict()["signal"]
    9
    """

    kind: FaultKind
    hand_number: int | None = None
    code: str = ""
    detail: str = ""
    latency_ms: float | None = None
    exit_code: int | None = None
    signal: int | None = None
    seq: int | None = None
    dropped_bytes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form without the fields that do not apply."""
        out: dict[str, Any] = {"kind": str(self.kind), "hand_number": self.hand_number}
        if self.code:
            out["code"] = self.code
        if self.detail:
            out["detail"] = self.detail
        for key in ("latency_ms", "exit_code", "signal", "seq", "dropped_bytes"):
            value = getattr(self, key)
            if value is not None:
                out[key] = round(value, 3) if isinstance(value, float) else value
        return out


class FaultLedger:
    """All faults and reply latencies of one seat in one match."""

    def __init__(
        self,
        *,
        player_id: str = "",
        seat_index: int | None = None,
        max_entries_per_kind: int = 200,
    ) -> None:
        self.player_id = player_id
        self.seat_index = seat_index
        self.max_entries_per_kind = max_entries_per_kind
        self._faults: list[Fault] = []
        self._counts: Counter[FaultKind] = Counter()
        self._latency = LatencyHistogram()
        self._dropped_output_bytes = 0

    def record(self, fault: Fault) -> None:
        """Add a fault (the detail is cut to :data:`DETAIL_MAX_CHARS`, a start-up failure's to
        :data:`STARTUP_DETAIL_MAX_CHARS`)."""
        self._counts[fault.kind] += 1
        if fault.dropped_bytes:
            self._dropped_output_bytes += fault.dropped_bytes
        if self._counts[fault.kind] > self.max_entries_per_kind:
            return
        cap = (
            STARTUP_DETAIL_MAX_CHARS
            if fault.kind is FaultKind.STARTUP_FAILURE
            else DETAIL_MAX_CHARS
        )
        if len(fault.detail) > cap:
            fault = replace(fault, detail=fault.detail[: cap - 3] + "...")
        self._faults.append(fault)

    def add_latency(self, latency_ms: float) -> None:
        """Record how long one reply took."""
        self._latency.add(latency_ms)

    @property
    def faults(self) -> tuple[Fault, ...]:
        """The stored faults in the order they happened."""
        return tuple(self._faults)

    def latency_buckets(self) -> tuple[tuple[float, int], ...]:
        """The reply latencies' non-empty buckets, ``(upper bound in ms, count)``
        (:meth:`LatencyHistogram.buckets`): what adds up over many matches."""
        return self._latency.buckets()

    @property
    def dropped_output_bytes(self) -> int:
        """Bytes of stdout and stderr the arena did not keep."""
        return self._dropped_output_bytes

    def counts(self) -> dict[FaultKind, int]:
        """How many faults of each kind (every kind present, zero included)."""
        return {kind: self._counts[kind] for kind in FaultKind}

    def count(self, kind: FaultKind) -> int:
        """How many faults of ``kind``."""
        return self._counts[kind]

    def of_kind(self, kind: FaultKind) -> list[Fault]:
        """The stored faults of ``kind``."""
        return [fault for fault in self._faults if fault.kind is kind]

    def latency_stats(self) -> LatencyStats:
        """p50, p99, max and mean of the reply latencies (p50 and p99 from the histogram,
        within :data:`arena.session.latency.RELATIVE_ERROR`)."""
        return self._latency.summary()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: counts, latency summary, dropped bytes and the faults."""
        return {
            "player_id": self.player_id,
            "seat_index": self.seat_index,
            "counts": {str(kind): n for kind, n in self.counts().items()},
            "latency": self.latency_stats().to_dict(),
            "dropped_output_bytes": self._dropped_output_bytes,
            "faults": [fault.to_dict() for fault in self._faults],
            "faults_not_stored": sum(self._counts.values()) - len(self._faults),
        }


class FaultRecorder:
    """Records one seat's faults in its ledger and says so in the ``arena.bots`` log.

    ``hand_number`` is the hand the seat is in (None before the first), stamped on every
    fault. Faults are logged at WARNING, not ERROR: a misbehaving bot is an expected event
    of a match; a dropped line is logged at INFO.
    """

    def __init__(self, ledger: FaultLedger, *, player_id: str, seat_index: int) -> None:
        self.ledger = ledger
        self.player_id = player_id
        self.seat_index = seat_index
        self.hand_number: int | None = None

    def record(self, kind: FaultKind, message: str | None = None, /, **fields: Any) -> None:
        """Add a fault of ``kind`` in the current hand (``fields``: the other keywords of
        :class:`Fault`); log ``message`` when given."""
        self.ledger.record(Fault(kind, self.hand_number, **fields))
        if message is not None:
            logger.warning(
                "%s (seat %d, hand %s): %s",
                self.player_id,
                self.seat_index,
                self.hand_number,
                message,
            )

    def dropped(self, kind: FaultKind, code: str, detail: str, seq: int | None = None) -> None:
        """A line that was read and dropped (stale, unsolicited)."""
        self.ledger.record(Fault(kind, self.hand_number, code=code, detail=detail, seq=seq))
        logger.info("%s (seat %d): dropped a line: %s", self.player_id, self.seat_index, detail)

    def crash(self, exc: TransportClosedError, info: ExitInfo | None) -> None:
        """The bot exited or closed its pipes (``info``: how its process ended).

        The code is ``crash``, or the limit the sandbox stopped the bot for
        (``memory_limit``, ``cpu_limit``, ``process_limit``, ``file_size_limit``).
        """
        tail = info.stderr_tail.strip()[-300:] if info is not None else ""
        exit_code = exc.exit_code
        signal = exc.signal
        if exit_code is None and signal is None and info is not None and not info.is_killed:
            exit_code, signal = info.exit_code, info.signal
        detail = str(exc)
        limit_reason = info.limit_reason if info is not None else None
        if limit_reason is not None and info is not None and limit_reason not in detail:
            detail += f"; stopped by the sandbox: {limit_reason}: {info.limit_detail}"
        if tail and "stderr" not in detail:
            detail += f"{STDERR_MARKER}{tail!r}"
        self.record(
            FaultKind.CRASH,
            f"crashed: {detail}",
            code=limit_reason or "crash",
            detail=detail,
            exit_code=exit_code,
            signal=signal,
        )

    def startup_failure(
        self,
        code: str,
        detail: str,
        info: ExitInfo | None,
        *,
        latency_ms: float | None = None,
        exit_code: int | None = None,
        signal: int | None = None,
    ) -> None:
        """The bot did not get as far as ``ready``."""
        if info is not None and info.stderr_tail.strip() and exit_code is None and signal is None:
            detail += f"{STDERR_MARKER}{info.stderr_tail.strip()[-300:]!r}"
        self.record(
            FaultKind.STARTUP_FAILURE,
            f"startup failure: {detail}",
            code=code,
            detail=detail,
            latency_ms=latency_ms,
            exit_code=exit_code,
            signal=signal,
        )

    def dropped_output(self, info: ExitInfo) -> None:
        """Output the transport could not keep (a bot that wrote too much)."""
        self.record(
            FaultKind.DROPPED_OUTPUT,
            code="output_dropped",
            detail=(
                f"{info.stdout_dropped_bytes} stdout bytes and "
                f"{info.stderr_dropped_bytes} stderr bytes not kept"
            ),
            dropped_bytes=info.dropped_bytes,
        )

    def invalid_reply(
        self, fault: BotFaultError, seq: int, latency_ms: float, attempts_left: int
    ) -> None:
        """A reply the protocol or the engine rejected (``fault`` says why)."""
        self.record(
            FaultKind.INVALID_REPLY,
            f"invalid reply ({fault}), {attempts_left} attempts left",
            code=fault.code,
            detail=fault.message,
            latency_ms=latency_ms,
            seq=seq,
        )

    def timeout(self, seq: int, latency_ms: float, ran_out: str, action: object) -> None:
        """No reply to request ``seq`` in time (``ran_out`` says which time, on which
        basis: ``arena.session.timing``); ``action`` was applied."""
        self.record(
            FaultKind.TIMEOUT,
            f"timeout after {latency_ms:.0f} ms, {action} applied",
            code=FaultKind.TIMEOUT.value,
            detail=f"{ran_out}; {action} applied",
            latency_ms=latency_ms,
            seq=seq,
        )

    def hung(self, count: int, limit_ms: int, hung_after: int) -> None:
        """``count`` timeouts in a row: the bot is hung and its tree is killed."""
        self.record(
            FaultKind.HUNG,
            f"hung after {count} timeouts in a row; killed, to be restarted before the next hand",
            code=FaultKind.HUNG.value,
            detail=(
                f"{count} decisions in a row without a reply within {limit_ms} ms "
                f"(hung after {hung_after}): its process tree was killed"
            ),
        )
