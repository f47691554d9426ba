"""A version's own faults in one ladder game, for its team only: each fault's reason, the
hand it happened in and the match, and the end of the version's own stderr.

The game's end reason is read by every version at the table, so it names a fault by its
code only (:mod:`arena.server.ladder.play`). What a team needs to fix its bot (the exit
code, the hand, what the bot printed) is gathered here from the matches' outcomes, per
version, and stored where only that version's team reads it
(:class:`arena.server.ladder.models.OwnFaults`, scoped by
:func:`arena.server.site.scope.visible`). A version's details are built from its own
seats only: another version's stderr is never read into them.

Nothing here touches the database.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.store.outcome import MatchOutcome, SeatOutcome
from arena.store.run_folder import RunFolder

__all__ = [
    "BUILD_FAILED",
    "STDERR_TAIL_CHARS",
    "AbsentBot",
    "FaultDetail",
    "VersionFaults",
    "absent_bots",
    "own_faults",
]

#: The kind of a version's own fault when its build failed on the ladder's machine.
BUILD_FAILED = "build_failed"


#: How much of a version's stderr is kept per match, from its end (why it died is last).
STDERR_TAIL_CHARS = 2000

#: How the arena quotes a bot's stderr in a fault's text (:mod:`arena.session.faults`):
#: the reason keeps what comes before it; the stderr is shown whole from its file.
_STDERR_QUOTE = "; its stderr ends with: "

#: A bot's part of :class:`arena.match.readiness.BotsNotReadyError`'s message: its name,
#: its seat, its start-up failure's code and the reason after it, up to the next bot's part.
_ABSENT = re.compile(
    r"'((?:[^'\\]|\\.)*)' \(seat (\d+)\): ([a-z_]+)(?:: (.*?))?"
    r"(?=; '(?:[^'\\]|\\.)*' \(seat \d+\): |$)"  # the next bot's part, or the end
)


@dataclass(frozen=True, slots=True)
class FaultDetail:
    """One fault of a version in one match: its kind, the hand (None: before the first),
    and its reason as the arena gave it, without the quoted stderr."""

    match: str
    kind: str
    hand: int | None
    reason: str

    def as_dict(self) -> dict[str, object]:
        """The detail as stored and as the API shows it."""
        return {"match": self.match, "kind": self.kind, "hand": self.hand, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class VersionFaults:
    """A version's faults in one game and the end of its own stderr in each match it
    faulted in (``--- <match> ---`` before each)."""

    faults: tuple[FaultDetail, ...]
    stderr: str


@dataclass(frozen=True, slots=True)
class AbsentBot:
    """A bot that did not start, as a failed match's error names it."""

    name: str
    seat_index: int
    code: str
    reason: str


def absent_bots(error: str) -> list[AbsentBot]:
    """The bots a failed match's ``error`` says did not start (none for any other error).

    >>> absent_bots("1 bot not ready at the start of the match: 'b-v1' (seat 1): exited: "
    ...             "bot 'b-v1' exited (exit code 3); its stderr ends with: 'KEY'")
    [AbsentBot(name='b-v1', seat_index=1, code='exited', reason="bot 'b-v1' exited (exit code 3)")]
    """
    if "not ready" not in error:
        return []
    return [
        AbsentBot(name, int(seat), code, _without_stderr(detail or code))
        for name, seat, code, detail in _ABSENT.findall(error)
    ]


def _without_stderr(text: str) -> str:
    return text.partition(_STDERR_QUOTE)[0]


def own_faults(matches: Sequence[tuple[MatchOutcome, Path]]) -> dict[str, VersionFaults]:
    """Each version's faults over a game's matches (``(outcome, the folder its paths are
    relative to)``), by label; a version without a fault is not in it."""
    found: dict[str, tuple[list[FaultDetail], list[str]]] = {}
    for outcome, folder in matches:
        absent = {bot.seat_index: bot for bot in absent_bots(outcome.error or "")}
        for seat in outcome.seats:
            details = [
                FaultDetail(outcome.match_id, example.kind, example.hand_number,
                            _without_stderr(example.message))
                for example in seat.fault_examples
            ]  # fmt: skip
            bot = absent.get(seat.seat_index)  # the error names its seats as the outcome does
            if bot is not None:
                details.append(FaultDetail(outcome.match_id, "startup_failure", None, bot.reason))
            if not details:
                continue
            faults, stderr = found.setdefault(seat.bot, ([], []))
            faults.extend(details)
            tail = _stderr_tail(outcome, seat, folder)
            if tail:
                stderr.append(f"--- {outcome.match_id} ---\n{tail}")
    return {
        label: VersionFaults(tuple(faults), "\n".join(stderr))
        for label, (faults, stderr) in found.items()
    }


def _stderr_tail(outcome: MatchOutcome, seat: SeatOutcome, folder: Path) -> str:
    """The end of the seat's own stderr file in the match (its outcome names it; a match
    that stopped before its first hand names none, its file is where every match keeps
    it); empty when there is none."""
    if seat.stderr_path is not None:
        path = folder / seat.stderr_path
    else:
        path = RunFolder(folder).match(outcome.match_id).stderr_log(seat.seat_index, seat.bot)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-STDERR_TAIL_CHARS:]
