"""One match: the poker loop that glues the engine, the deciders and the records together.

Theory of operation. :class:`MatchRunner` seats the players at seats 0..n-1 in the order
given (``p0``, ``p1``, ...), starts its :class:`~arena.match.players.Decider` (a bot that
cannot start stops the match before its first hand unless the config allows absent bots:
:mod:`arena.match.readiness`), then plays hands until the stack format says the match is
over. Every hand is four steps: *deal* (the deck comes from the match seed and the hand
number, so a hand can be dealt again on its own), *ask* (the decider gives each action:
a bot through its session, or the default when it cannot be asked), *apply* (a session
applies a bot's action as it accepts it, so the engine validates it once) and *record*
(the hand's record goes to the store, the tallies move). With ``config.luck`` the record
step also has the hand's luck estimated (:mod:`arena.luck`), with the players' leans
counted on the match's hands before it (:class:`~arena.luck.leans.BettingLeans`, taken
in the order the hands were played whatever is put off): with work put off (the
prefetch), in the match's process a value at a time, put off with the rest of the record,
so a bot's reply never waits for a whole hand's estimate, or with the switch
``luck_process.USE_LUCK_PROCESS`` on, in a helper process beside the match
(:mod:`arena.match.luck_process`), the record stored when its estimate is back; without
the prefetch, in the match's process at the hand's end.

Policy lives in the arena, never in the engine: the format decides about stacks
(:mod:`arena.match.formats`), the decider about faults and restarts
(:mod:`arena.match.players`), and the work done while bots think is one switchable object
(:mod:`arena.match.prefetch`). An illegal action from a decider, a broken chip count or any
other exception of our own code is a bug: it stops the match loudly (:class:`MatchError`)
after the bots have been stopped, with the hands already played on disk. Nothing recorded
depends on the clock, so with deterministic bots the same seed gives a byte-identical hand
history."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

from arena import luck
from arena.luck.leans import BettingLeans
from arena.match import collector, luck_process
from arena.match.config import MatchConfig, MatchError, require_seat_count
from arena.match.fairness import DeckCommitment
from arena.match.formats import StackFormat, format_for
from arena.match.log import GameLog
from arena.match.players import Decider, HelloInfo
from arena.match.prefetch import NoPrefetch, StepByStep, WorkAhead
from arena.match.progress import Progress
from arena.match.readiness import BotsNotReadyError, SeatName, absent_bots
from arena.match.records import (
    DecisionRecord,
    HandRecord,
    MatchEndRecord,
    MatchHeader,
    PlayerEntry,
    StandingEntry,
    encode_value,
)
from arena.match.results import MatchResult, PlayerResult
from arena.match.store import NullStore, ResultStore
from arena.session.stderr_file import SeatStderrLog
from arena.store.outcome import HandSummary
from engine.errors import IllegalActionError
from engine.hand import Hand
from engine.history import hand_to_history
from engine.result import HandResult
from engine.table import Table, hand_seed

__all__ = ["MatchRunner", "MatchSeat"]


@dataclass(slots=True)
class MatchSeat:
    """A player at the table and what the match has counted for it."""

    player_id: str
    seat_index: int
    name: str
    hands_played: int = 0
    chips_won: int = 0
    big_blinds_won: float = 0.0
    adjusted_big_blinds_won: float = 0.0
    eliminated_in_hand: int | None = None


class MatchRunner:
    """Plays one match (see the module docstring); :func:`arena.match.run.run_match` wires
    it to live bots.

    ``names`` are the seats' names in seat order (empty: the name the decider reports,
    else the player id). ``store`` receives the records; ``work_ahead`` is the prefetch
    (default: none). ``stderr_logs`` are the seats' stderr files, in seat order, that the
    results name (none by default).
    """

    def __init__(
        self,
        config: MatchConfig,
        names: Sequence[str],
        decider: Decider,
        *,
        store: ResultStore | None = None,
        work_ahead: WorkAhead | None = None,
        stack_format: StackFormat | None = None,
        progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic,
        stderr_logs: Sequence[SeatStderrLog | None] = (),
    ) -> None:
        require_seat_count(len(names))
        self.config = config
        self.seats = [
            MatchSeat(player_id=f"p{index}", seat_index=index, name=name)
            for index, name in enumerate(names)
        ]
        self.decider = decider
        self.store: ResultStore = store if store is not None else NullStore()
        self.work_ahead: WorkAhead = work_ahead if work_ahead is not None else NoPrefetch()
        self.format = stack_format or format_for(
            config, [seat.player_id for seat in self.seats], clock=clock
        )
        self.progress = progress
        self.clock = clock
        self.log = GameLog(config.match_id)
        self._stderr_logs = list(stderr_logs)
        self._player_ids = [seat.player_id for seat in self.seats]
        self.decision_count = 0
        self.hands_played = 0
        # Each hand's summary, in the order played; with the estimator, the luck-adjusted
        # results by hand number (filled when the hand's record is made, later).
        self._hands: list[HandSummary] = []
        self._adjusted: dict[int, tuple[float, ...]] = {}
        # The players' betting leans over the hands estimated so far (luck on only): each
        # hand is estimated with the leans of the hands before it, which keeps every
        # correction zero-mean (arena.luck.leans).
        self._leans = BettingLeans()
        # The estimator's process (started at the first hand): only with luck on and the
        # switch on (off by default), unless nothing is put off (without a prefetch each
        # hand is recorded when it ends, which a replay's check relies on: an estimate
        # from elsewhere lags) or the match is too short to pay for the process's start
        # (luck_process.MIN_HANDS).
        self._luck_process = (
            luck_process.LuckProcess(config.match_id, config.luck_value)
            if config.luck
            and luck_process.USE_LUCK_PROCESS
            and self.work_ahead.is_enabled
            and (config.hand_count is None or config.hand_count >= luck_process.MIN_HANDS)
            else None
        )

    @property
    def table(self) -> Table:
        """The engine's table the hands are dealt at."""
        return self.format.table

    @property
    def is_over(self) -> bool:
        """True when no further hand is to be dealt."""
        return self.format.is_over(self.hands_played)

    # ------------------------------------------------------------------ the match

    def run(self) -> MatchResult:
        """Start the players, play every hand, stop them; returns the result."""
        started = self.clock()
        try:
            self.start()
            with collector.heap_frozen():  # the startup's objects: not walked again
                while not self.is_over:
                    self.play_hand()
                    if self.progress is not None:
                        self.progress.update(self.hands_played, self.format.progress_note())
                self._catch_up()
            standings = self.standings()
            self.store.end(MatchEndRecord(self.hands_played, tuple(standings)))
            self.decider.finish(standings, self.hands_played)
            result = self.result(standings, duration_s=self.clock() - started)
        except BaseException:
            # The hands already played still go to the store, for inspection and replay.
            with contextlib.suppress(Exception):
                self._catch_up()
            raise
        finally:
            if self._luck_process is not None:  # it never outlives the match either
                self._luck_process.close()
            # Whatever happened (our bug, Ctrl-C), no bot process outlives the match.
            self.decider.close()
            self.store.close()
            if self.progress is not None:
                self.progress.close()
        self.store.save_result(result)
        return result

    def _catch_up(self) -> None:
        """Do everything put off, the estimates still to come back from the estimator's
        process included (and the records they complete)."""
        self.work_ahead.catch_up()
        if self._luck_process is not None:
            self._luck_process.drain()
            self.work_ahead.catch_up()

    def start(self) -> None:
        """Start the players (``hello``/``ready``) and write the header record.

        Raises :class:`~arena.match.readiness.BotsNotReadyError` when a bot could not be
        started and the config does not allow absent bots (the caller stops the others).
        """
        hello = HelloInfo(
            game=self.config.game,
            seat_count=len(self.seats),
            starting_stack=self.config.starting_stack,
            hand_count=self.config.hand_count,
            time_limits=self.config.time_limits.to_wire(),
            max_attempts=self.config.max_invalid_attempts,
            # A fresh salt for this match: the bots get the commitment now, the seed and
            # the salt at match_end (arena.match.fairness), unless another match still
            # deals from the seed: then they are withheld.
            deck=(
                DeckCommitment.withheld(self.config.seed)
                if self.config.seed_shared
                else DeckCommitment(self.config.seed)
            ),
            draw_key=self.config.draw_key,
        )
        reported = self.decider.start(hello)
        for seat in self.seats:
            seat.name = seat.name or reported.get(seat.seat_index, "") or seat.player_id
        if not self.config.allow_absent_bots:
            seats = [SeatName(s.seat_index, s.player_id, s.name) for s in self.seats]
            absent = absent_bots(seats, reported, self.decider.seat_summary)
            if absent:
                raise BotsNotReadyError(absent)
        self.store.begin(self.header())

    def header(self) -> MatchHeader:
        """The first record of the hand history."""
        return MatchHeader(
            match_id=self.config.match_id,
            seed=self.config.seed,
            config=self.config.to_dict(),
            players=tuple(PlayerEntry(s.player_id, s.seat_index, s.name) for s in self.seats),
        )

    # ------------------------------------------------------------------ one hand

    def play_hand(self) -> None:
        """Deal, play and record one hand: the poker loop."""
        hand_number = self.table.next_hand_number
        seats_left = [s.seat_index for s in self.seats if s.eliminated_in_hand is None]
        sitting_out = self.decider.prepare_hand(hand_number, seats_left)
        hand = self.format.deal(dealt_ahead=self.work_ahead.take_hand_dealt_ahead())
        hand_id = f"{self.config.match_id}-{hand.hand_number}"
        self.log.hand_dealt(hand)
        self.decider.hand_started(hand, hand_id, sitting_out)
        decisions: list[DecisionRecord] = []
        while not hand.is_over:
            decisions.append(self._play_decision(hand, hand_id))
        self._finish_hand(hand, hand_id, sitting_out, decisions)

    def _play_decision(self, hand: Hand, hand_id: str) -> DecisionRecord:
        """Ask the seat to act, apply its action, and return the decision's record."""
        seat_index = hand.actor_index
        legal = hand.legal_actions()
        if seat_index is None or legal is None:
            raise MatchError(f"hand {hand_id} is not over but nobody is to act ({hand.phase})")
        phase = str(hand.phase)
        decision = self.decider.decide(
            hand,
            hand_id,
            seat_index,
            legal,
            self.work_ahead.while_bot_thinks(hand, seat_index),
        )
        events = decision.events
        if events is None:
            try:
                events = hand.act(decision.action)
            except IllegalActionError as exc:
                raise MatchError(
                    f"hand {hand_id}: the arena chose the illegal action {decision.action} "
                    f"for seat {seat_index}: {exc}",
                ) from exc
        self.decision_count += 1
        self.log.events(hand, events, self._player_ids)
        return DecisionRecord(
            seat_index=seat_index,
            player_id=self.seats[seat_index].player_id,
            phase=phase,
            by=decision.by,
            action=decision.action,
            replies=decision.replies,
            fault=decision.fault,
            distribution=decision.distribution,
        )

    def _finish_hand(
        self,
        hand: Hand,
        hand_id: str,
        sitting_out: Sequence[int],
        decisions: Sequence[DecisionRecord],
    ) -> None:
        """Check the chips, tell the players, settle the stacks, tally, and record."""
        result = hand.result
        if result is None:
            raise MatchError(f"hand {hand_id} is over but has no result")
        starting = sum(result.starting_stacks.values())
        final = sum(result.final_stacks.values())
        if starting != final:
            raise MatchError(
                f"hand {hand_id}: chips not conserved, {starting} at the start, {final} at the end",
            )
        self.log.hand_settled(hand.hand_number, result, self._player_ids)
        self.decider.hand_ended(hand, hand_id, sitting_out)
        for player_id in self.format.finish_hand(hand):
            self._seat_of(player_id).eliminated_in_hand = hand.hand_number
        self._tally(hand, result)
        self.hands_played += 1
        self._record(hand, hand_id, sitting_out, decisions)

    def _record(
        self,
        hand: Hand,
        hand_id: str,
        sitting_out: Sequence[int],
        decisions: Sequence[DecisionRecord],
    ) -> None:
        """Send the hand's record to the store, in steps put off one after the other (each
        short enough to end before a bot's reply is likely back): the engine's history
        document, the history's JSON text, the luck estimate (``config.luck`` only), then
        the store. With the estimator's process, the estimate's step sends the hand to it
        and the store's step is put off when its estimate is back: the record waits with
        its text made, nothing of it left to do but the ``luck`` key."""
        seed = hand_seed(self.config.seed, hand.hand_number)

        def build_history() -> None:
            history = hand_to_history(hand, seed=seed)
            record = HandRecord(
                hand_number=hand.hand_number,
                hand_id=hand_id,
                sitting_out=tuple(sitting_out),
                decisions=tuple(decisions),
                history=history,
            )
            self.work_ahead.later(lambda: encode_history(record))

        def encode_history(record: HandRecord) -> None:
            record = replace(record, history_text=encode_value(record.history))
            if self.config.luck:
                self.work_ahead.later(lambda: estimate(record))
            else:
                self.work_ahead.later(lambda: self.store.add_hand(record))

        def estimate(record: HandRecord) -> None:
            # On the record as written (its dict equals the line read back), so that the
            # estimate of a stored hand gives the stored numbers again; in short steps,
            # so that a bot's reply never waits for a whole hand's estimate. The leans
            # are taken before the hand is counted: those of the hands before it (the
            # hands come here in the order played, prefetch or not), as a replay takes
            # them again.
            leans = self._leans.take(record.history)
            if self._luck_process is not None:
                self._luck_process.submit(
                    luck_process.estimate_input(record, leans),
                    lambda hand_luck: record_luck(record, hand_luck),
                )
                return
            data = luck_process.record_input(record)
            if not self.work_ahead.is_enabled:  # no one to interleave with: all at once
                record_luck(record, luck.estimate_hand(data, self.config.luck_value, leans))
                return
            steps = luck.estimate_steps(data, self.config.luck_value, leans)
            StepByStep(steps, partial(record_luck, record), self.work_ahead)()

        def record_luck(record: HandRecord, hand_luck: luck.HandLuck) -> None:
            # The estimate is by the hand's seats (a freezeout deals the bots left only):
            # by the match's seats here, 0 for a seat not dealt in, as the nets.
            by_seat = [0.0] * len(self.seats)
            for seat, adjusted in zip(record.history["seats"], hand_luck.adjusted, strict=True):
                by_seat[seat["seat_index"]] = adjusted
                self.seats[seat["seat_index"]].adjusted_big_blinds_won += adjusted / big_blind
            self._adjusted[record.hand_number] = tuple(by_seat)
            record = replace(record, luck=luck.luck_record(hand_luck))
            self.work_ahead.later(lambda: self.store.add_hand(record))

        big_blind = _big_blind(hand)
        self.work_ahead.later(build_history)

    def _tally(self, hand: Hand, result: HandResult) -> None:
        # Each hand counts in its own big blind (a blind schedule changes it).
        big_blind = _big_blind(hand)
        nets = result.net_chips
        for seat_index, net in nets.items():
            seat = self.seats[seat_index]
            seat.hands_played += 1
            seat.chips_won += net
            seat.big_blinds_won += net / big_blind
        self._hands.append(
            HandSummary(
                hand_number=hand.hand_number,
                big_blind=hand.config.big_blind,
                nets=tuple(nets.get(seat.seat_index, 0) for seat in self.seats),
                pot=sum(award.amount for award in result.awards),
                went_to_showdown=result.ended_reason == "SHOWDOWN",
            )
        )

    def _stderr_file(self, seat_index: int) -> SeatStderrLog | None:
        """The seat's stderr file once written (its bots have stopped by now), else None."""
        logs = self._stderr_logs
        log = logs[seat_index] if seat_index < len(logs) else None
        return log if log is not None and log.is_written else None

    def _seat_of(self, player_id: str) -> MatchSeat:
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat
        raise MatchError(f"unknown player {player_id!r}")

    # -------------------------------------------------------------- results

    def standings(self) -> list[StandingEntry]:
        """The final places as the format ranks them, with names and net chips."""
        chips_won = {seat.player_id: seat.chips_won for seat in self.seats}
        return [
            StandingEntry.of(
                standing,
                name=self._seat_of(standing.player_id).name,
                net=chips_won[standing.player_id],
                is_carried=self.format.is_carried,
            )
            for standing in self.format.standings(chips_won)
        ]

    def result(self, standings: Sequence[StandingEntry], *, duration_s: float) -> MatchResult:
        """The :class:`MatchResult` of the match so far."""
        places = {entry.player_id: entry.place for entry in standings}
        is_carried = self.format.is_carried
        players = []
        for seat in self.seats:
            is_sitting_out, faults = self.decider.seat_summary(seat.seat_index)
            stderr = self._stderr_file(seat.seat_index)
            players.append(
                PlayerResult(
                    player_id=seat.player_id,
                    name=seat.name,
                    seat_index=seat.seat_index,
                    hands_played=seat.hands_played,
                    chips_won=seat.chips_won,
                    big_blinds_won=seat.big_blinds_won,
                    final_stack=(
                        self.config.starting_stack + seat.chips_won if is_carried else None
                    ),
                    place=places.get(seat.player_id),
                    eliminated_in_hand=seat.eliminated_in_hand,
                    is_sitting_out=is_sitting_out,
                    faults=faults,
                    stderr_log=None if stderr is None else stderr.relative_path,
                    stderr_bytes=None if stderr is None else stderr.total_bytes,
                    adjusted_big_blinds_won=(
                        seat.adjusted_big_blinds_won if self.config.luck else None
                    ),
                ),
            )
        history_path = self.store.history_path
        return MatchResult(
            match_id=self.config.match_id,
            seed=self.config.seed,
            mode=self.format.result_mode,
            hands_played=self.hands_played,
            players=tuple(players),
            config=self.config.to_dict(),
            duration_s=duration_s,
            decision_count=self.decision_count,
            ended_reason=self.format.ended_reason(),
            history_path=None if history_path is None else str(history_path),
            estimator=luck.estimator_name(self.config.luck_value) if self.config.luck else None,
            hands=tuple(
                replace(summary, adjusted=self._adjusted.get(summary.hand_number))
                if self._adjusted
                else summary
                for summary in self._hands
            ),
        )


def _big_blind(hand: Hand) -> int:
    """What a hand's chips are counted in: its big blind (a game of antes only, its
    smallest bet)."""
    return hand.config.big_blind or hand.config.minimum_bet
