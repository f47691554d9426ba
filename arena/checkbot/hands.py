"""``arena check-bot --hands N``: quick hands against a built-in calling station.

The scripted check takes a bot through a few chosen spots; a short real match shows how it
does over many: every spot the cards bring, and how long it takes to answer. The bot sits
in seat 0 of a heads-up match of ``N`` hands (blinds 1/2, 200 chips, stacks reset every
hand) against :func:`calling_station`, an opponent that runs inside the arena and answers
at once (check, else call; stand pat in a draw), so every fault and nearly all the time
measured are the bot's own.

The match is played by the arena's match loop (:func:`arena.match.run.run_match`) with the
bot behind a real :class:`~arena.session.watchdog.BotSession`: the same time limits,
re-prompts, default actions, restarts and fault ledger as any match. Nothing is written to
disk. The report (:class:`HandsReport`) gives the hands played, the faults by kind with the
first of each, and the reply latencies (p50, p99, max).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from arena.bots.in_memory import BotExit, BotOutput, InMemoryTransport
from arena.bots.launcher import Launcher
from arena.bots.manifest import BotManifest
from arena.bots.process import ProcessTransport, process_factory
from arena.bots.transport import Clock
from arena.checkbot.hints import NOTIFICATION_HINT, reply_hint
from arena.match.config import MatchConfig, new_secret_seed
from arena.match.readiness import BotsNotReadyError
from arena.match.run import run_match, seat_session
from arena.session.faults import Fault, FaultKind, FaultLedger, LatencyStats
from arena.session.policy import TimeLimits
from engine.config import GameConfig, Variant

__all__ = ["STATION_NAME", "FaultSummary", "HandsReport", "calling_station", "play_quick_hands"]

#: The built-in opponent's name in the report.
STATION_NAME = "calling station"
_STACK = 200


def calling_station(message: dict[str, Any]) -> BotOutput:
    """The built-in opponent: checks when it can, else calls; stands pat; exits at
    ``match_end``.

    >>> calling_station({"type": "act", "seq": 4, "legal_actions": ["FOLD", "CALL"]})
    {'type': 'action', 'seq': 4, 'action': 'CALL'}
    """
    kind = message.get("type")
    if kind == "hello":
        return {"type": "ready", "seq": message["seq"], "name": STATION_NAME}
    if kind == "act":
        legal = message["legal_actions"]
        action = "CHECK" if "CHECK" in legal else "CALL" if "CALL" in legal else "FOLD"
        return {"type": "action", "seq": message["seq"], "action": action}
    if kind == "draw":
        return {"type": "discard", "seq": message["seq"], "cards": []}
    if kind == "match_end":
        raise BotExit(0)
    return None  # hand_start, hand_end: no reply


@dataclass(frozen=True, slots=True)
class FaultSummary:
    """The faults of one kind: how many, and the first of them, described (``""`` when
    the ledger kept none).

    >>> FaultSummary("timeout", 2, "hand 3: timeout: no reply within 5000 ms").format()
    'timeout x2, first in hand 3: timeout: no reply within 5000 ms'
    """

    kind: str
    count: int
    first: str
    hint: str = ""

    def format(self) -> str:
        """One line: the kind, the count and the first example."""
        first = f", first in {self.first}" if self.first else ""
        return f"{self.kind} x{self.count}{first}"


@dataclass(frozen=True, slots=True)
class HandsReport:
    """What the quick hands showed; ``is_clean`` when they were played without a fault.

    ``error`` says why the hands could not be played (the bot did not start); ``chips_won``
    is the bot's net result against the calling station.
    """

    hands_requested: int
    hands_played: int
    faults: tuple[FaultSummary, ...]
    latency: LatencyStats
    chips_won: int = 0
    error: str = ""
    #: Decisions the bot answered with a valid distribution (a mixed strategy).
    distribution_count: int = 0
    #: What the bot wrote to stderr during the hands (every process of it, restarts
    #: included; lines counted in what was kept), and the end of the last process's.
    stderr_bytes: int = 0
    stderr_line_count: int = 0
    stderr_tail: str = ""

    @property
    def fault_count(self) -> int:
        """Faults of every kind, together."""
        return sum(summary.count for summary in self.faults)

    @property
    def is_clean(self) -> bool:
        """True when every hand was played and the bot made no fault."""
        return not self.error and not self.faults

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "hands_requested": self.hands_requested,
            "hands_played": self.hands_played,
            "chips_won": self.chips_won,
            "error": self.error,
            "distribution_count": self.distribution_count,
            "stderr_bytes": self.stderr_bytes,
            "stderr_line_count": self.stderr_line_count,
            "faults": [asdict(summary) for summary in self.faults],
            "latency": self.latency.to_dict(),
        }

    def format_lines(self) -> list[str]:
        """Readable lines for the command line."""
        lines = [
            f"hands: {self.hands_played} of {self.hands_requested} played against a built-in "
            f"{STATION_NAME} (chips won {self.chips_won:+d})"
        ]
        if self.error:
            lines.append(f"  FAIL  could not play: {self.error}")
        if self.faults:
            lines.append(f"  FAIL  faults: {self.fault_count}")
            for summary in self.faults:
                lines.append(f"          {summary.format()}")
                if summary.hint:
                    lines.append(f"            hint: {summary.hint}")
        elif not self.error:
            lines.append("  PASS  faults: none")
        stats = self.latency
        if self.distribution_count:
            lines.append(
                f"        distributions: {self.distribution_count} decision(s) answered with a "
                "valid distribution (a mixed strategy), the action drawn by the arena"
            )
        lines.append(
            f"        latency: p50 {stats.p50_ms:.1f} ms, p99 {stats.p99_ms:.1f} ms, "
            f"max {stats.max_ms:.1f} ms ({stats.count} replies)"
        )
        return lines


def play_quick_hands(
    manifest: BotManifest,
    hand_count: int,
    *,
    limits: TimeLimits | None = None,
    launcher: Launcher | None = None,
    variant: Variant | str = Variant.HOLDEM,
    seed: int | None = None,
    clock: Clock = time.monotonic,
) -> HandsReport:
    """Play ``hand_count`` hands between the bot of ``manifest`` (built already) and the
    built-in calling station; see the module docstring.

    ``seed`` deals the decks (default: a secret one). Never raises for the bot's faults;
    a bot that cannot be started gives a report with ``error`` set.
    """
    if hand_count < 1:
        raise ValueError(f"hand_count must be at least 1, got {hand_count}")
    # The time limits go whole into the match: hello announces them, both sessions keep
    # them (the match-end grace too); attempts, restarts and the hung rule are a match's.
    config = MatchConfig(
        game=GameConfig(small_blind=1, big_blind=2, variant=Variant(variant)),
        hand_count=hand_count,
        seed=new_secret_seed() if seed is None else seed,
        starting_stack=_STACK,
        match_id="check",
        time_limits=TimeLimits() if limits is None else limits,
    )
    processes: list[ProcessTransport] = []  # each start of the bot, to count its stderr
    factory = process_factory(manifest, launcher=launcher, on_start=processes.append)
    bot = seat_session(factory, config, seat_index=0, name=manifest.name, clock=clock)
    station = seat_session(
        lambda: InMemoryTransport(calling_station, clock=clock),
        config,
        seat_index=1,
        name=STATION_NAME,
        clock=clock,
    )
    error = ""
    hands_played = chips_won = 0
    try:
        result = run_match(config, [(manifest.name, bot), (STATION_NAME, station)], clock=clock)
    except BotsNotReadyError as exc:
        error = str(exc)
    else:
        hands_played = result.hands_played
        chips_won = result.player("p0").chips_won
    return HandsReport(
        hands_requested=hand_count,
        hands_played=hands_played,
        faults=summarize_faults(bot.ledger),
        latency=bot.ledger.latency_stats(),
        chips_won=chips_won,
        error=error,
        distribution_count=bot.distribution_count,
        stderr_bytes=sum(process.stderr_log.total_bytes for process in processes),
        # Of bytes: split at \n, \r\n and \r only, as the scripted steps count theirs.
        stderr_line_count=sum(len(process.stderr_log.data().splitlines()) for process in processes),
        stderr_tail=processes[-1].stderr_log.tail_text() if processes else "",
    )


def summarize_faults(ledger: FaultLedger) -> tuple[FaultSummary, ...]:
    """The ledger's faults by kind (in the order of :class:`FaultKind`), each with its
    first example and, for a rejected reply, the hint for its code.

    >>> ledger = FaultLedger()
    >>> ledger.record(Fault(FaultKind.INVALID_REPLY, 2, code="unknown_action", detail="x"))
    >>> [s.format() for s in summarize_faults(ledger)]
    ['invalid_reply x1, first in hand 2: unknown_action: x']
    """
    summaries = []
    for kind, count in ledger.counts().items():
        if count == 0:
            continue
        stored = ledger.of_kind(kind)
        if not stored:  # a ledger that keeps no entries (max_entries_per_kind=0) counts only
            summaries.append(FaultSummary(str(kind), count, ""))
            continue
        summaries.append(FaultSummary(str(kind), count, _describe(stored[0]), _hint(stored[0])))
    return tuple(summaries)


def _hint(fault: Fault) -> str:
    if fault.kind is FaultKind.INVALID_REPLY:
        return reply_hint(fault.code)
    if fault.kind is FaultKind.UNSOLICITED_LINE:
        return NOTIFICATION_HINT
    return ""


def _describe(fault: Fault) -> str:
    where = "the start-up" if fault.hand_number is None else f"hand {fault.hand_number}"
    text = ": ".join(part for part in (fault.code, fault.detail) if part)
    return f"{where}: {text}" if text else where
