"""``arena replay``: re-run a match from its hand history, without starting any bot.

The replay is the match loop itself (:class:`arena.match.loop.MatchRunner`) with a
:class:`RecordedDecider` in place of the live bots and a :class:`ReplayCheck` in place of
the result store: nothing is subclassed. The table, the decks (from the match seed), the stack
policy, the sitting-out and dead-bot policy and the history documents are all computed
again; only what the bots said is taken from the file. For every decision:

* ``by: "bot"``: the bot's last reply is parsed again by :mod:`protocol.replies` against
  the legal actions the engine computes *now*; the action must be legal and equal to the
  recorded one. A reply that reported a mixed strategy is drawn from again with the
  match's draw (:mod:`arena.session.draws`: the seed, the hand, the decision's place), so
  the action drawn and the distribution recorded must both come out the same.
* ``by: "policy"`` (timeout, invalid replies, crash): the session's default action is
  computed again from the legal actions (a check instead of a fold after a timeout when
  the match ran with ``check_on_timeout``).
* ``by: "sitting_out"`` / ``"dead"``: the loop's own default, as in the match.

Each replayed hand record (decisions and the engine's history document: deck, events,
result) must equal the recorded one exactly, else the hand is reported as a mismatch with
the first difference. A hand recorded with its luck estimate (``luck``) has it computed
again from the recorded hand (:func:`arena.luck.estimate_hand`), with the players' leans
counted on the recorded hands before it in order, as the match counted them
(:class:`arena.luck.leans.BettingLeans`): the estimator's name and every seat's adjusted
result must be the same bit for bit, else the mismatch names the seat. A mismatch never
stops the replay: the hand is played to its end with default actions, so with stacks reset
every hand the following hands are checked as usual (with carried stacks a difference
naturally carries over).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.luck import LuckError, LuckValue, estimate_hand, luck_record
from arena.luck.leans import BettingLeans
from arena.match.config import DEFAULT_MATCH_ID, MatchConfig
from arena.match.loop import MatchRunner
from arena.match.players import Decision, HelloInfo, distribution_of
from arena.match.records import (
    HandRecord,
    MatchEndRecord,
    MatchHeader,
    StandingEntry,
)
from arena.match.results import MatchResult
from arena.session.draws import StrategyDraws
from arena.session.policy import default_action
from arena.store.hand_log import HandLog, HandLogError, read_hand_log
from arena.store.run_folder import RunFolder
from engine.actions import Action, LegalActions
from engine.hand import Hand
from protocol.errors import BotFaultError
from protocol.replies import parse_action_reply, parse_discard, reply_seq
from protocol.strategy import MixedStrategy

__all__ = [
    "HandCheck",
    "RecordedDecider",
    "ReplayCheck",
    "ReplayReport",
    "RunReplay",
    "luck_difference",
    "replay_action",
    "replay_file",
    "replay_run",
]


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one hand: identical or not, and the first difference."""

    hand_number: int
    is_ok: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ReplayReport:
    """Every hand's verdict and the problems that are not about one hand."""

    path: str
    match_id: str
    checks: tuple[HandCheck, ...]
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def is_ok(self) -> bool:
        """True when every hand (and the match end) came out identical."""
        return not self.problems and all(check.is_ok for check in self.checks)

    @property
    def mismatch_count(self) -> int:
        """How many hands differ."""
        return sum(1 for check in self.checks if not check.is_ok)

    def format(self, *, verbose: bool = False) -> str:
        """The mismatched hands (every hand when ``verbose``), then a summary."""
        # A single match's id is the default "match": naming it again would read "match match".
        named = "" if self.match_id in ("", DEFAULT_MATCH_ID) else f" (match {self.match_id})"
        lines = [f"replay {self.path}{named}"]
        for check in self.checks:
            if check.is_ok and verbose:
                lines.append(f"  hand {check.hand_number}: OK")
            elif not check.is_ok:
                lines.append(f"  hand {check.hand_number}: MISMATCH {check.reason}")
        lines.extend(f"  {problem}" for problem in self.problems)
        lines.extend(f"  note: {note}" for note in self.notes)
        verdict = "identical" if self.is_ok else "NOT identical"
        lines.append(
            f"{len(self.checks)} hands replayed, {self.mismatch_count} mismatched: {verdict}",
        )
        return "\n".join(lines)


class _Divergence(Exception):
    """The recording and the replay disagree on what happens next in this hand."""


def replay_action(
    decision: dict[str, Any],
    legal: LegalActions,
    hand: Hand,
    *,
    check_on_timeout: bool,
    draws: StrategyDraws,
) -> tuple[Action, MixedStrategy | None]:
    """The action a recorded decision gives under ``legal`` and the mixed strategy it was
    drawn from with ``draws`` (None for one action); raises ``_Divergence``."""
    by = decision.get("by")
    if by == "bot":
        replies = decision.get("replies") or []
        if not replies:
            raise _Divergence("a bot decision without any reply")
        reply = replies[-1]
        seq = reply_seq(reply)  # as the arena read it: 3.0 is 3
        if seq is None:
            raise _Divergence(f"the decisive reply has no seq: {reply!r}")
        try:
            if legal.can_draw:
                discard = parse_discard(
                    reply,
                    seq,
                    legal,
                    hand.hole_cards(legal.seat_index),
                    draw_limit=hand.config.draw_limit,
                )
                return discard, None
            parsed = parse_action_reply(reply, seq, legal)
        except BotFaultError as exc:
            raise _Divergence(f"the recorded reply is rejected now: {exc}") from exc
        if isinstance(parsed, MixedStrategy):
            return draws.action(parsed, hand), parsed
        return parsed, None
    if by == "policy":
        is_timeout = decision.get("fault") == "timeout"
        return default_action(legal, check_when_free=check_on_timeout and is_timeout), None
    raise _Divergence(f"unexpected decision kind {by!r}")


def _plain(value: Any) -> Any:
    """The value as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def _first_difference(recorded: Any, replayed: Any, path: str = "") -> str:
    """Where two JSON values first differ, as ``/decisions/3/action``: recorded vs replayed."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in [*recorded, *(k for k in replayed if k not in recorded)]:
            if recorded.get(key) != replayed.get(key):
                return _first_difference(recorded.get(key), replayed.get(key), f"{path}/{key}")
    elif isinstance(recorded, list) and isinstance(replayed, list):
        for index in range(max(len(recorded), len(replayed))):
            want = recorded[index] if index < len(recorded) else None
            got = replayed[index] if index < len(replayed) else None
            if want != got:
                return _first_difference(want, got, f"{path}/{index}")
    shown_recorded = json.dumps(recorded)[:200]
    shown_replayed = json.dumps(replayed)[:200]
    return f"at {path or '/'}: recorded {shown_recorded}, replayed {shown_replayed}"


class RecordedDecider:
    """The :class:`~arena.match.players.Decider` of a replay: the recorded replies.

    Nobody is started or restarted: the recorded sitting-out seats sit out, a seat the
    match found dead is dead here too, and every other decision is parsed again from its
    recorded reply (or its policy applied again) under the legal actions of now.
    """

    def __init__(self, log: HandLog, config: MatchConfig) -> None:
        self._config = config
        self._draws = StrategyDraws(config.seed, match_key=config.draw_key)
        self._names = {player["seat_index"]: player["name"] for player in log.header["players"]}
        self._records = {record["hand_number"]: record for record in log.hands}
        self._current: dict[str, Any] = {}
        self._index = 0
        self._sitting_out: set[int] = set()
        self._dead: set[int] = set()
        self.divergence = ""

    def start(self, hello: HelloInfo) -> dict[int, str]:
        """The recorded names."""
        return dict(self._names)

    def prepare_hand(self, hand_number: int, seats_left: Sequence[int]) -> list[int]:
        """The recorded sitting-out seats of the hand."""
        self._current = self._records.get(hand_number, {})
        self._index = 0
        self._dead.clear()
        self.divergence = "" if self._current else "the hand is not in the history"
        self._sitting_out = {int(seat) for seat in self._current.get("sitting_out", [])}
        return sorted(self._sitting_out)

    def hand_started(self, hand: Hand, hand_id: str, sitting_out: Sequence[int]) -> None:
        """Nobody to tell."""

    def decide(
        self,
        hand: Hand,
        hand_id: str,
        seat_index: int,
        legal: LegalActions,
        while_waiting: Callable[[], bool] | None,
    ) -> Decision:
        """Parse the recorded reply again (or apply the policy again) under ``legal``."""
        index = self._index
        self._index += 1
        if seat_index in self._sitting_out:
            return Decision(default_action(legal), "sitting_out")
        if seat_index in self._dead:
            return Decision(default_action(legal), "dead")
        decision = self._recorded(index, seat_index)
        if decision is None:
            return Decision(default_action(legal), "diverged")
        by = decision.get("by")
        if by == "dead":
            self._dead.add(seat_index)
            return Decision(default_action(legal), "dead")
        strategy = None
        try:
            action, strategy = replay_action(
                decision,
                legal,
                hand,
                check_on_timeout=self._config.check_on_timeout,
                draws=self._draws,
            )
        except _Divergence as exc:
            self._diverge(f"decision {index} (seat {seat_index}): {exc}")
            action = default_action(legal)
        replies = decision.get("replies", [])
        fault = decision.get("fault")
        return Decision(
            action, str(by), tuple(replies), fault, distribution=distribution_of(strategy)
        )

    def hand_ended(self, hand: Hand, hand_id: str, sitting_out: Sequence[int]) -> None:
        """Nobody to tell."""

    def finish(self, standings: Sequence[StandingEntry], hands_played: int) -> None:
        """Nobody to tell."""

    def close(self) -> None:
        """Nothing runs."""

    def seat_summary(self, seat_index: int) -> tuple[bool, dict[str, Any]]:
        """Nothing to report."""
        return False, {}

    def recorded_hand(self) -> dict[str, Any]:
        """The record of the hand being replayed (empty if it is not in the history)."""
        return self._current

    def _recorded(self, index: int, seat_index: int) -> dict[str, Any] | None:
        decisions = self._current.get("decisions", [])
        if index >= len(decisions):
            self._diverge(f"decision {index} was not recorded")
            return None
        decision = decisions[index]
        if not isinstance(decision, dict) or decision.get("seat_index") != seat_index:
            self._diverge(
                f"decision {index} is seat {seat_index}'s, the record has seat "
                f"{decision.get('seat_index') if isinstance(decision, dict) else decision}'s",
            )
            return None
        return decision

    def _diverge(self, reason: str) -> None:
        if not self.divergence:
            self.divergence = reason


class ReplayCheck:
    """The :class:`~arena.match.store.ResultStore` of a replay: it compares each replayed
    record with the recorded one instead of keeping it. The hands come in the order
    played: the players' leans are counted on the recorded hands as they come, as the
    match counted them."""

    history_path: Path | None = None

    def __init__(
        self, log: HandLog, decider: RecordedDecider, luck_value: LuckValue | None = None
    ) -> None:
        self._footer = log.footer
        self._luck_value = luck_value
        self._decider = decider
        self._leans = BettingLeans()
        self.checks: list[HandCheck] = []
        self.problems: list[str] = []

    def begin(self, header: MatchHeader) -> None:
        """Nothing to compare: the header gave the replay its config."""

    def add_hand(self, record: HandRecord) -> None:
        """Compare the replayed hand with the recorded one, and the recorded luck estimate
        with the one computed again from the recorded hand."""
        # The luck estimate is checked on its own (below), whether or not the replay's
        # loop estimated it again.
        replayed = _without_luck(_plain(record.to_dict()))
        recorded = self._decider.recorded_hand()
        leans = self._count_leans(recorded)
        if self._decider.divergence:
            self.checks.append(HandCheck(record.hand_number, False, self._decider.divergence))
        elif replayed != _without_luck(recorded):
            reason = _first_difference(_without_luck(recorded), replayed)
            self.checks.append(HandCheck(record.hand_number, False, reason))
        elif "luck" in recorded and (reason := luck_difference(recorded, self._luck_value, leans)):
            self.checks.append(HandCheck(record.hand_number, False, reason))
        else:
            self.checks.append(HandCheck(record.hand_number, True))

    def _count_leans(self, recorded: dict[str, Any]) -> dict[str, float]:
        """The players' leans before the recorded hand, then the hand counted for the
        next ones. The match counted the hand it recorded, so the recorded history is
        counted, whether or not the replay dealt the same hand; a hand that is not in the
        history, or cannot be counted (its own estimate fails then too), counts nothing.
        """
        history = recorded.get("history")
        if not isinstance(history, dict):
            return {}
        try:
            return self._leans.take(history)
        except LuckError:
            return {}

    def end(self, record: MatchEndRecord) -> None:
        """Compare the replayed standings with the recorded ones."""
        if self._footer is None:
            return
        standings = _plain(record.to_dict()["standings"])
        recorded = self._footer.get("standings")
        if isinstance(recorded, list) and all("chips" not in entry for entry in standings):
            # Histories written before reset matches left out the final stack carry it.
            recorded = [
                {key: value for key, value in entry.items() if key != "chips"}
                if isinstance(entry, dict)
                else entry
                for entry in recorded
            ]
        if standings != recorded:
            self.problems.append(
                "match_end standings differ: " + _first_difference(recorded, standings),
            )

    def save_result(self, result: MatchResult) -> None:
        """Nothing to keep."""

    def close(self) -> None:
        """Nothing to close."""


def luck_difference(
    recorded: dict[str, Any],
    luck_value: LuckValue | None = None,
    leans: Mapping[str, float] | None = None,
) -> str:
    """How the hand's stored luck estimate differs from the one computed again from the
    hand with ``luck_value``'s weights (the match's; None: the shipped ones) and the
    players' ``leans`` (those of the match's hands before it; None: no leans) (``""``:
    identical, bit for bit): the estimator, or the first seat that differs."""
    stored = recorded.get("luck")
    try:
        again = luck_record(estimate_hand(recorded, luck_value, leans))
    except LuckError as exc:
        return f"the luck estimate cannot be computed again: {exc}"
    if not isinstance(stored, dict) or stored.get("estimator") != again["estimator"]:
        shown = stored.get("estimator") if isinstance(stored, dict) else stored
        return f"luck estimated by {shown!r}, this arena's estimator is {again['estimator']!r}"
    adjusted = stored.get("adjusted")
    if not isinstance(adjusted, list) or len(adjusted) != len(again["adjusted"]):
        return f"luck: recorded adjusted {adjusted!r}, recomputed {again['adjusted']!r}"
    seats = recorded["history"]["seats"]  # estimate_hand read them: the adjusted order
    for position, (want, got) in enumerate(zip(adjusted, again["adjusted"], strict=True)):
        if not _is_number(want) or float(want).hex() != float(got).hex():
            seat = seats[position]["seat_index"]
            return f"luck of seat {seat}: recorded adjusted {want!r}, recomputed {got!r}"
    return ""


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _without_luck(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key != "luck"}


@dataclass(frozen=True, slots=True)
class RunReplay:
    """The replays of a run: one match's, or every match of a tournament's folder."""

    reports: tuple[ReplayReport, ...]

    @property
    def is_ok(self) -> bool:
        """True when every match came out identical."""
        return all(report.is_ok for report in self.reports)

    def format(self, *, verbose: bool = False) -> str:
        """Each match's report (:meth:`ReplayReport.format`), then, for several, a total."""
        lines = [report.format(verbose=verbose) for report in self.reports]
        if len(self.reports) > 1:
            differ = sum(1 for report in self.reports if not report.is_ok)
            verdict = "identical" if differ == 0 else f"{differ} NOT identical"
            lines.append(f"{len(self.reports)} matches replayed: {verdict}")
        return "\n".join(lines)


def replay_run(path: Path) -> RunReplay:
    """Replay what ``path`` holds: a ``hands.jsonl``, a match's run folder (its
    ``hands.jsonl``) or a tournament's run folder (every ``matches/*/hands.jsonl``, in
    name order), as ``arena report`` and ``arena export`` take them. A path that is none of
    these, or a file that cannot be replayed, is a ``HandLogError`` naming it."""
    path = Path(path)
    if not path.is_dir():
        return RunReplay((replay_file(path),))
    folder = RunFolder(path)
    if folder.is_match():
        return RunReplay((replay_file(folder.history),))
    histories = folder.match_histories()
    if not histories:
        raise HandLogError(
            f"{path}: not a run folder: it has neither {RunFolder.HISTORY} (a match) nor"
            f" {RunFolder.MATCHES}/*/{RunFolder.HISTORY} (a tournament's played matches)"
        )
    return RunReplay(tuple(replay_file(history) for history in histories))


#: What a file that is JSON but not a history this arena wrote can make the replay raise:
#: a missing key, a value of the wrong type or range, a value nested too deep to compare.
_NOT_OUR_HISTORY = (
    KeyError,
    TypeError,
    ValueError,
    AttributeError,
    IndexError,
    OverflowError,
    RecursionError,
    MemoryError,
)


def replay_file(path: Path) -> ReplayReport:
    """Replay the hand history at ``path``: a file that cannot be read, or that is not a
    history this arena can replay (whatever it holds), is a ``HandLogError`` naming it."""
    log = read_hand_log(path)
    try:
        return _replay(path, log)
    except HandLogError:
        raise
    except _NOT_OUR_HISTORY as error:
        detail = str(error) if not isinstance(error, RecursionError) else "nested too deep"
        shown = detail if len(detail) <= 200 else detail[:197] + "..."
        raise HandLogError(
            f"{path}: not a hand history this arena can replay"
            f" ({type(error).__name__}: {shown or 'no detail'})"
        ) from None


def _replay(path: Path, log: HandLog) -> ReplayReport:
    config = MatchConfig.from_dict(log.header["config"])
    names = [player["name"] for player in log.header["players"]]
    decider = RecordedDecider(log, config)
    check = ReplayCheck(log, decider, config.luck_value)
    runner = MatchRunner(config, names, decider, store=check)
    notes: list[str] = []
    recorded_numbers = [record["hand_number"] for record in log.hands]
    if log.cut_tail_bytes:
        notes.append(
            f"the last line ({log.cut_tail_bytes} bytes) was cut short, as when a run is "
            "killed while writing; it is left out"
        )
    if log.footer is not None:
        runner.run()
    else:
        # An interrupted match: replay the hands that were written.
        notes.append(f"the match did not finish; its {len(recorded_numbers)} hands are checked")
        while len(check.checks) < len(recorded_numbers) and not runner.is_over:
            runner.play_hand()
    replayed_numbers = [hand_check.hand_number for hand_check in check.checks]
    extra = [number for number in recorded_numbers if number not in replayed_numbers]
    problems: list[str] = []
    if extra:
        problems.append(
            f"the history has {len(extra)} hand(s) the replay did not deal: "
            f"{', '.join(map(str, extra[:10]))}",
        )
    problems.extend(check.problems)
    return ReplayReport(
        path=str(path),
        match_id=str(log.header.get("match_id", "")),
        checks=tuple(check.checks),
        problems=tuple(problems),
        notes=tuple(notes),
    )
