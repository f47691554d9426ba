"""``arena replay``: re-run a match from its hand history, without starting any bot.

The replay is the match loop itself (:class:`arena.match.MatchRunner`) with the bots
replaced by their recorded replies. The table, the decks (from the match seed), the stack
policy, the sitting-out and dead-bot policy and the history documents are all computed
again; only what the bots said is taken from the file. For every decision:

* ``by: "bot"``: the bot's last reply is parsed again by :mod:`protocol.replies` against
  the legal actions the engine computes *now*; the action must be legal and equal to the
  recorded one.
* ``by: "policy"`` (timeout, invalid replies, crash): the session's default action is
  computed again from the legal actions (a check instead of a fold after a timeout when
  the match ran with ``check_on_timeout``).
* ``by: "sitting_out"`` / ``"dead"``: the loop's own default, as in the match.

Each replayed hand record (decisions and the engine's history document: deck, events,
result) must equal the recorded one exactly, else the hand is reported as a mismatch with
the first difference. A mismatch never stops the replay: the hand is played to its end
with default actions, so with stacks reset every hand the following hands are checked as
usual (with carried stacks a difference naturally carries over).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.match.loop import MatchConfig, MatchRunner, MatchSeat, SeatDecision, action_to_dict
from arena.session.watchdog import default_action
from arena.store.jsonl import HandLog, read_hand_log
from engine.actions import Action, LegalActions
from engine.hand import Hand
from protocol.errors import BotFaultError
from protocol.replies import parse_action, parse_discard

__all__ = ["HandCheck", "ReplayReport", "ReplayRunner", "replay_action", "replay_file"]


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

    def format(self, *, verbose: bool = True) -> str:
        """One line per hand (only mismatches unless ``verbose``), then a summary."""
        lines = [f"replay {self.path} (match {self.match_id})"]
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
) -> Action:
    """The action a recorded decision gives under ``legal`` (raises ``_Divergence``)."""
    by = decision.get("by")
    if by == "bot":
        replies = decision.get("replies") or []
        if not replies:
            raise _Divergence("a bot decision without any reply")
        reply = replies[-1]
        seq = reply.get("seq") if isinstance(reply, dict) else None
        if not isinstance(seq, int):
            raise _Divergence(f"the decisive reply has no seq: {reply!r}")
        try:
            if legal.can_draw:
                return parse_discard(
                    reply,
                    seq,
                    legal,
                    hand.hole_cards(legal.seat_index),
                    draw_limit=hand.config.draw_limit,
                )
            return parse_action(reply, seq, legal)
        except BotFaultError as exc:
            raise _Divergence(f"the recorded reply is rejected now: {exc}") from exc
    if by == "policy":
        is_timeout = decision.get("fault") == "timeout"
        return default_action(legal, check_when_free=check_on_timeout and is_timeout)
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


class ReplayRunner(MatchRunner):
    """The match loop fed from a hand history instead of live bots."""

    def __init__(self, log: HandLog) -> None:
        header = log.header
        config = MatchConfig.from_dict(header["config"])
        seats: list[tuple[str, Any]] = [(player["name"], None) for player in header["players"]]
        super().__init__(config, seats)
        self.history = log
        self._records = {record["hand_number"]: record for record in log.hands}
        self._current: dict[str, Any] = {}
        self._first_decision = 0
        self._divergence = ""
        self.checks: list[HandCheck] = []

    # -- the seams of MatchRunner ---------------------------------------------------------

    def prepare_hand(self, hand_number: int) -> list[int]:
        """The recorded sitting-out seats (nobody is restarted: there are no bots)."""
        self._current = self._records.get(hand_number, {})
        self._first_decision = self.decision_count
        self._divergence = "" if self._current else "the hand is not in the history"
        sitting_out = self._current.get("sitting_out", [])
        return [int(seat) for seat in sitting_out]

    def _recorded(self, seat_index: int) -> dict[str, Any] | None:
        decisions = self._current.get("decisions", [])
        index = self.decision_count - self._first_decision
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
        if not self._divergence:
            self._divergence = reason

    def is_seat_alive(self, seat: MatchSeat) -> bool:
        """As recorded: a seat the match found dead is dead here too."""
        decision = self._recorded(seat.seat_index)
        return decision is None or decision.get("by") != "dead"

    def decide(
        self,
        seat: MatchSeat,
        hand: Hand,
        hand_id: str,
        legal: LegalActions,
        base: dict[str, Any],
    ) -> SeatDecision:
        """Re-parse the recorded reply (or re-apply the policy) under today's legal actions."""
        decision = self._recorded(seat.seat_index)
        if decision is None:
            action = default_action(legal)
            return SeatDecision(
                action, {**base, "by": "diverged", "action": action_to_dict(action)}
            )
        try:
            action = replay_action(
                decision, legal, hand, check_on_timeout=self.config.check_on_timeout
            )
        except _Divergence as exc:
            index = self.decision_count - self._first_decision
            self._diverge(f"decision {index} (seat {seat.seat_index}): {exc}")
            action = default_action(legal)
        record: dict[str, Any] = {
            **base,
            "by": decision.get("by"),
            "action": action_to_dict(action),
            "replies": decision.get("replies", []),
        }
        if "fault" in decision:
            record["fault"] = decision["fault"]
        return SeatDecision(action, record)

    def play_hand(self, *, defer: bool = False) -> dict[str, Any]:
        """Replay one hand and compare it with the record (never deferred: the comparison
        needs the whole record)."""
        replayed = super().play_hand()
        hand_number = replayed["hand_number"]
        if self._divergence:
            self.checks.append(HandCheck(hand_number, False, self._divergence))
        elif _plain(replayed) != self._current:
            reason = _first_difference(self._current, _plain(replayed))
            self.checks.append(HandCheck(hand_number, False, reason))
        else:
            self.checks.append(HandCheck(hand_number, True))
        return replayed


def replay_file(path: Path) -> ReplayReport:
    """Replay the hand history at ``path`` (``HandLogError`` if it cannot be read)."""
    log = read_hand_log(path)
    runner = ReplayRunner(log)
    problems: list[str] = []
    notes: list[str] = []
    recorded_numbers = [record["hand_number"] for record in log.hands]
    is_complete = log.footer is not None
    if is_complete:
        runner.run()
    else:
        # An interrupted match: replay the hands that were written.
        notes.append(f"the match did not finish; its {len(recorded_numbers)} hands are checked")
        while len(runner.checks) < len(recorded_numbers) and not runner.is_over:
            runner.play_hand()
    replayed_numbers = [check.hand_number for check in runner.checks]
    extra = [number for number in recorded_numbers if number not in replayed_numbers]
    if extra:
        problems.append(
            f"the history has {len(extra)} hand(s) the replay did not deal: "
            f"{', '.join(map(str, extra[:10]))}",
        )
    if is_complete and log.footer is not None:
        standings = [runner.standing_dict(s) for s in runner.standings()]
        if _plain(standings) != log.footer.get("standings"):
            problems.append(
                "match_end standings differ: "
                + _first_difference(log.footer.get("standings"), _plain(standings)),
            )
    return ReplayReport(
        path=str(path),
        match_id=str(log.header.get("match_id", "")),
        checks=tuple(runner.checks),
        problems=tuple(problems),
        notes=tuple(notes),
    )
