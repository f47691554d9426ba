"""The ladder's queue: the ``game`` table is the queue, a worker claims a game with a
lease (:class:`arena.server.jobs.lease.LeaseQueue`), and a result is stored once.

Theory of operation. A worker asks :func:`claim_next` for work. A game still queued (one
put back to be played again), or claimed by a worker whose lease expired (killed, out of
memory, the machine restarted), is claimed first, by the queue's conditional ``UPDATE``; an
expired claim counts as an attempt the infrastructure lost
(:func:`arena.ladder.ends.classify_end`), and past ``max_attempts`` the game is left out
with its reason rather than tried forever. Otherwise
matchmaking (:func:`arena.ladder.matchmaking.next_game`) picks the next pairing from the
database's state and the game is created already claimed, in one transaction, one worker
at a time (:func:`arena.server.jobs.serial.one_at_a_time`) (a ring
competition's rated games are tables: ``table_size`` versions, each on its seat row).

:func:`store_played` writes what the worker brought back in one transaction, only while
the worker still holds the claim: the game's result (or its forfeit, or its re-run; a
table's every seat), each version's own faults with their reasons, hands and its own
stderr (:class:`~arena.server.ladder.models.OwnFaults`: its team's only), its matches
(two, or a table's rotations) for the site's match pages, the game added to the running
sums (:mod:`arena.server.ladder.sums`) and the promotion tests advanced; after it, the
ratings are fitted again when due (:func:`arena.server.ladder.fitting.refresh_if_due`),
and so are the luck estimator's betting weights
(:func:`arena.server.ladder.value_fits.refresh_value_if_due`). A game is made with the
newest value fit (:attr:`~arena.server.ladder.models.Game.value_fit`, read with the
claim's first reads) and keeps it when it is played again.
A worker killed before that commit leaves a claim that
expires; one killed after it leaves a finished game that no claim can touch again: a game
is never lost and never counted twice.

Round trips. Each statement of a claim or a store waits for the database, and on a
loaded machine each wait costs a time slice; statements that do not depend on each
other's answers go together (:func:`arena.server.jobs.round_trip.run_together`). A
claim's first round trip takes the lock, asks whether a game waits to be played again,
reads the roster with the fit's row (the snapshot only when the worker does not hold it
unpacked), the claim's rows (for the floor's interval of the last claim's roster) and the
newest value fit;
then, on PostgreSQL, the two versions with the new game's number, and the game written
whole, seed and all. A store's result, its sums, the fit's count and the promotions'
question go in one round trip, then its commit.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from django.conf import settings as django_settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from arena.ladder.ends import (
    EndAction,
    EndCause,
    EndDecision,
    classify_end,
    forfeit,
    forfeit_table,
)
from arena.ladder.games import GameResult, TableResult
from arena.ladder.matchmaking import GameKind, next_game
from arena.server.current import is_frozen_now
from arena.server.jobs.lease import LeaseQueue, lease_seconds
from arena.server.jobs.round_trip import Statement, run_together, update_statement
from arena.server.jobs.serial import one_at_a_time
from arena.server.ladder.config import LadderSettings
from arena.server.ladder.fitting import CADENCE, may_be_due, refresh_if_due
from arena.server.ladder.models import (
    Game,
    GameStatus,
    OwnFaults,
    TableSeat,
    UnrankedRequest,
    version_label,
)
from arena.server.ladder.own_faults import (
    BUILD_FAILED,
    STDERR_TAIL_CHARS,
    FaultDetail,
    VersionFaults,
    own_faults,
)
from arena.server.ladder.play import PlayedGame
from arena.server.ladder.promotions import advance_promotions, any_running
from arena.server.ladder.roster import (
    claim_rows_of,
    claim_rows_statement,
    roster_of,
    roster_statement,
)
from arena.server.ladder.state import (
    Prefetched,
    floor_interval_guess,
    known_fit,
    ladder_view,
)
from arena.server.ladder.sums import counted_statements, counted_times
from arena.server.ladder.value_fits import (
    JOB_COUNT,
    LATEST_FIT,
    latest_fit_of,
    refresh_value_if_due,
    value_fit_may_be_due,
)
from arena.server.site.models import BotVersion, FailureKind, Match, MatchSeat, MatchStatus
from arena.store.outcome import MatchOutcome, SeatOutcome

__all__ = ["QUEUE", "claim_next", "game_seed", "store_played"]

_WITH_TEAMS = ("first__team", "second__team")


def game_seed(game_id: int) -> int:
    """The game's seed, from the site's secret stream: HMAC-SHA256 of the game's number
    under the site's secret key (256 bits nobody without the key can guess)."""
    key = str(django_settings.SECRET_KEY).encode()
    digest = hmac.new(key, f"ladder-game-{game_id}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest, "big")


#: The games as a queue: queued ones wait; a worker holds a claimed one.
QUEUE = LeaseQueue(
    Game,
    waiting=Q(status=GameStatus.QUEUED),
    held=Q(status=GameStatus.CLAIMED),
    released={"status": GameStatus.QUEUED},
)


def claim_next(
    worker: str,
    settings: LadderSettings,
    rng: random.Random,
    *,
    now: datetime | None = None,
    table_size: int = 2,
) -> Game | None:
    """Claim a game for ``worker``: one to play again first, else the one matchmaking picks
    now (its rated games seat ``table_size`` versions); None when there is nothing to play."""
    now = now or timezone.now()

    def lost(game: Game) -> EndDecision:  # its worker stopped: not the bots' fault
        return classify_end(
            EndCause.WORKER_LOST, attempt=game.attempts, max_attempts=settings.max_attempts
        )

    def left_out(game: Game, when: datetime) -> None:
        Game.objects.filter(pk=game.pk, attempts=game.attempts).update(
            status=GameStatus.FAILED_INFRASTRUCTURE, end_reason=lost(game).reason,
            lease_expires=None, finished=when,
        )  # fmt: skip

    def claimed(game: Game) -> dict[str, Any]:
        again = game.status == GameStatus.CLAIMED
        return {"status": GameStatus.CLAIMED,
                "end_reason": lost(game).reason if again else game.end_reason}  # fmt: skip

    lease = now + timedelta(seconds=lease_seconds())
    made = _schedule(worker, settings, rng, now, lease, table_size, ask_waiting=True)
    if made is not _Waiting.FOUND:
        return made
    found = QUEUE.claim_next(
        worker, max_attempts=settings.max_attempts, give_up=left_out, claimed=claimed, now=now
    )
    if found is not None:
        return _claimed(found)
    # Taken by another worker meanwhile, or left out: matchmaking, without asking again.
    made = _schedule(worker, settings, rng, now, lease, table_size, ask_waiting=False)
    assert made is not _Waiting.FOUND  # (not asked)
    return made


class _Waiting(Enum):
    """What a claim found when it asked whether a game waits to be played again."""

    FOUND = "a game queued, or held under an expired lease"


def _any_claimable(now: datetime) -> Statement:
    """Whether a game is queued or held under an expired lease (:data:`QUEUE`'s claimable
    games), as one plain read (a row: one is): almost every claim finds none and goes on
    to matchmaking without the queue's locking transaction. It runs with matchmaking's
    first reads, in their round trip."""
    sql = (f"SELECT 1 FROM {Game._meta.db_table} WHERE status = %s "
           "OR (status = %s AND lease_expires < %s) LIMIT 1")  # fmt: skip
    return Statement(sql, [GameStatus.QUEUED.value, GameStatus.CLAIMED.value, now])


def _claimed(game_id: int) -> Game:
    return (
        Game.objects.select_related(*_WITH_TEAMS, "value_fit")
        .prefetch_related("table_seats__version__team")
        .get(pk=game_id)
    )


def _schedule(
    worker: str,
    settings: LadderSettings,
    rng: random.Random,
    now: datetime,
    lease: datetime,
    table_size: int,
    *,
    ask_waiting: bool,
) -> Game | Literal[_Waiting.FOUND] | None:
    """Make the game matchmaking picks now, claimed by ``worker``; first, with
    ``ask_waiting``, whether a game waits to be played again (then nothing is made: the
    queue's claim takes it, outside this transaction)."""
    reads = [_any_claimable(now)] if ask_waiting else []
    partial = table_size == 2  # (ladder_view's shortcut reads the roster: read it here)
    guess = floor_interval_guess() if partial else None
    if partial:
        placement = settings.matchmaking(table_size).placement_games
        reads.append(roster_statement(placement, known_fit()))
    if guess is not None:  # and the rows it reads next, for the last claim's interval
        reads.append(claim_rows_statement(guess))
    reads.append(LATEST_FIT)  # the value fit the game is played with: read last
    # One worker at a time makes a game: matchmaking reads the games in flight, and two
    # made at once from the same reading could both pass a team's cap or a pair's.
    with one_at_a_time("ladder: make a game", *reads) as answers:
        if ask_waiting and answers[0].row is not None:
            return _Waiting.FOUND
        if ask_waiting:
            answers = answers[1:]
        roster = roster_of(answers[0].row) if partial else None
        rows = None
        if guess is not None:
            rows = Prefetched(guess, claim_rows_of(answers[1].rows))
        value_fit = latest_fit_of(answers[-1])
        state, ids = ladder_view(settings, now, table_size, roster=roster, rows=rows)
        pairing = next_game(state, settings.matchmaking(table_size), rng)
        if pairing is None:
            return None
        versions, number = _versions(pairing.bots, ids)
        first, second = versions[pairing.first], versions[pairing.second]
        requested_by = None
        if pairing.kind is GameKind.TEST:
            request = (
                UnrankedRequest.objects.filter(bot=first, opponent=second, games_left__gt=0)
                .order_by("pk")
                .first()
            )
            if request is not None:
                UnrankedRequest.objects.filter(pk=request.pk).update(games_left=F("games_left") - 1)
                requested_by = request.team
        game = Game.objects.create(
            pk=number,
            seed="" if number is None else str(game_seed(number)),
            kind=str(pairing.kind),
            is_rated=pairing.is_rated,
            reason=pairing.reason[:200],
            first=first,
            second=second,
            requested_by=requested_by,
            status=GameStatus.CLAIMED,
            claimed_by=worker,
            lease_expires=lease,
            attempts=1,
            deals=settings.deals,
            seat_count=len(pairing.bots),
            value_fit=value_fit,
        )
        if number is None:  # (numbered by its insert: its seed follows)
            game.seed = str(game_seed(game.pk))
            game.save(update_fields=["seed"])
        if not game.is_table:
            return game  # its versions and teams are loaded already: no read again
        TableSeat.objects.bulk_create(
            TableSeat(game=game, seat_index=index, version=versions[label])
            for index, label in enumerate(pairing.bots)
        )
    return _claimed(game.pk)


def _versions(
    labels: Sequence[str], ids: Mapping[str, int]
) -> tuple[dict[str, BotVersion], int | None]:
    """The versions named by ``labels`` (with their teams), by label: ``ids`` numbers the
    ones matchmaking may name (the active ones, the promotion tests' and the test
    requests'), and only the named ones are loaded. On PostgreSQL, read with them, the
    number the new game takes (its table's next), so that the game is written whole, its
    seed with it, in one statement; None elsewhere."""
    missing = set(labels) - set(ids)
    if missing:
        raise LookupError(f"matchmaking named versions the site does not have: {sorted(missing)}")
    rows = BotVersion.objects.select_related("team")
    if connection.vendor == "postgresql":  # (a subquery: evaluated once, not per row)
        rows = rows.annotate(next_game=RawSQL(_NEXT_GAME, [Game._meta.db_table]))
    found = rows.in_bulk([ids[label] for label in labels])
    number = getattr(next(iter(found.values())), "next_game", None)
    return {label: found[ids[label]] for label in labels}, number


#: The ``game`` table's next number (PostgreSQL).
_NEXT_GAME = "(SELECT nextval(pg_get_serial_sequence(%s, 'id')))"


def store_played(game: Game, worker: str, played: PlayedGame, settings: LadderSettings) -> bool:
    """Store what ``worker`` brought back for ``game`` (module docstring); False, and
    nothing written, when it no longer holds the claim."""
    seats = game.seats_in_order()
    labels = [version_label(seat.version) for seat in seats] or [
        version_label(game.first),
        version_label(game.second),
    ]
    decision = classify_end(
        played.cause,
        attempt=game.attempts,
        max_attempts=settings.max_attempts,
        at_fault=played.at_fault,
        detail=played.detail,
        seats=game.seat_count,
    )
    now = timezone.now()
    held = QUEUE.holding(game, worker)
    with transaction.atomic():
        if decision.action is EndAction.RERUN:
            return bool(held.update(status=GameStatus.QUEUED, claimed_by="", lease_expires=None,
                                    end_reason=decision.reason))  # fmt: skip
        fields: dict[str, Any] = {"end_reason": decision.reason, "lease_expires": None,
                                  "finished": now, "faults": played.faults,
                                  "estimator": played.estimator}  # fmt: skip
        fields["first_at_fault"] = labels[0] in decision.at_fault
        fields["second_at_fault"] = labels[1] in decision.at_fault
        result = played.result
        if decision.action is EndAction.FORFEIT:
            hand_count = game.seat_count * game.deals
            if game.is_table:
                result = forfeit_table(labels, decision.at_fault, hand_count=hand_count)
            else:
                first, second = labels
                result = forfeit(first, second, decision.at_fault[0], hand_count=hand_count)
        if result is not None and decision.action in (EndAction.RESULT, EndAction.FORFEIT):
            fields.update(adjusted_mbb=result.score_for(labels[0]),
                          raw_mbb=result.raw_for(labels[0]), hand_count=result.hand_count,
                          units=played.units)  # fmt: skip
        else:
            result = None
        if decision.action is EndAction.RESULT:
            fields["status"] = GameStatus.DONE
        elif decision.at_fault:
            fields["status"] = GameStatus.BOT_FAULT
        else:
            fields["status"] = GameStatus.FAILED_INFRASTRUCTURE
        # Counted in the same update (sums.py's rule: marked, then added, once): nobody
        # else counts a game while it is held, so the claim's reading of the flag holds.
        counting = not game.counted
        if counting:
            fields["counted"] = True
        for name, value in fields.items():  # the row as it is written (no read again)
            setattr(game, name, value)
        _score_seats(seats, labels, result, decision.at_fault)
        # The result, the sums and the promotions' question in one round trip; nothing
        # of it kept (rolled back) when the claim was lost meanwhile.
        sums = counted_statements(game) if counting else []
        written, *counted, running, job = run_together(
            [update_statement(held, fields), *sums, any_running(), JOB_COUNT]
        )
        if not written.row_count:
            transaction.set_rollback(True)
            return False
        times = counted_times(game, counted) if counting else None
        if seats:
            TableSeat.objects.bulk_update(seats, ["adjusted_mbb", "raw_mbb", "at_fault"])
        _store_own_faults(game, played)
        matches = _store_matches(game, played.matches, decision.action is EndAction.RESULT)
        if matches:
            Game.objects.filter(pk=game.pk).update(
                match_seat=matches[0],
                match_swap=matches[1] if len(matches) > 1 and not game.is_table else None,
                rotation_matches=[match.pk for match in matches] if game.is_table else [],
            )
        advance_promotions(settings, running=running.row is not None, is_frozen=is_frozen_now(now))
    # Outside the store's transaction; at most one worker fits. The fit's row, as the
    # count of games done read it back, spares the asking when no fit can be due.
    if times is None:
        refresh_if_due()
    elif may_be_due(times, timezone.now()):  # the last fit's duration read with the count
        refresh_if_due(interval_s=CADENCE.interval_s(times.seconds or 0.0))
    # (The value fit's cadence counts games done only.)
    done_count = times.done_count if times is not None else None
    if game.status == GameStatus.DONE and value_fit_may_be_due(job, done_count, settings):
        refresh_value_if_due(settings)
    return True


def _score_seats(
    seats: Sequence[TableSeat],
    labels: Sequence[str],
    result: GameResult | TableResult | None,
    at_fault: Sequence[str],
) -> None:
    """A table's result on its seats' rows as loaded (the store writes them): each
    version's score (None without a result) and whether it did not start."""
    for seat, label in zip(seats, labels, strict=False):
        seat.adjusted_mbb = None if result is None else result.score_for(label)
        seat.raw_mbb = None if result is None else result.raw_for(label)
        seat.at_fault = label in at_fault


def _versions_at(game: Game) -> dict[str, BotVersion]:
    """The game's versions by label (heads-up its two, a table its every seat's)."""
    found = {version_label(game.first): game.first, version_label(game.second): game.second}
    found.update((version_label(seat.version), seat.version) for seat in game.seats_in_order())
    return found


def _store_own_faults(game: Game, played: PlayedGame) -> None:
    """Each version's own faults in the game, on a row of its own (its team's only: the
    opponent's stderr never lands on another version's row)."""
    versions = _versions_at(game)
    if game.attempts > 1:  # a game played again starts afresh
        OwnFaults.objects.filter(game=game).delete()
    found = own_faults(played.matches)
    for label, output in played.build_output.items():  # a build that failed here
        failed = FaultDetail(f"game-{game.pk}", BUILD_FAILED, None, "its build failed")
        found[label] = VersionFaults((failed,), f"--- build ---\n{output[-STDERR_TAIL_CHARS:]}")
    OwnFaults.objects.bulk_create(
        OwnFaults(
            game=game,
            version=versions[label],
            stderr=faults.stderr,
            faults=[detail.as_dict() for detail in faults.faults],
        )
        for label, faults in found.items()
    )


def _store_matches(
    game: Game, matches: Sequence[tuple[MatchOutcome, Path]], is_result: bool
) -> list[Match]:
    """The game's matches as the site's match rows (their pages and hand viewer), in the
    order of ``matches``. A few statements whatever the matches: one read of the rows
    already there, one insert of the new ones (every one, but for a store this one
    replaces: those are updated in place, keeping their numbers, and their seats made
    again), one insert of every seat."""
    by_label = _versions_at(game)
    now = timezone.now()
    rows = [
        Match(
            source="ladder",
            external_id=outcome.match_id,
            status=MatchStatus.FAILED if outcome.error is not None else MatchStatus.FINISHED,
            failure_kind=FailureKind.NONE if is_result else FailureKind.BOT_FAULT,
            failure_message=outcome.error or "",
            hands_file="" if outcome.hands_path is None else str(folder / outcome.hands_path),
            hands_played=len(outcome.hands),
            finished=now,
        )
        for outcome, folder in matches
    ]
    there = dict(
        Match.objects.filter(source="ladder", external_id__in=[row.external_id for row in rows])
        .values_list("external_id", "pk")
    )  # fmt: skip
    for row in rows:
        row.pk = there.get(row.external_id)
    again = [row for row in rows if row.pk is not None]
    Match.objects.bulk_create([row for row in rows if row.pk is None])
    if again:
        Match.objects.bulk_update(again, _MATCH_FIELDS)
        MatchSeat.objects.filter(match__in=again).delete()
    MatchSeat.objects.bulk_create(
        _seat_row(match, outcome, position, seat, by_label.get(seat.bot))
        for match, (outcome, _folder) in zip(rows, matches, strict=True)
        for position, seat in enumerate(outcome.seats)
    )
    return rows


#: What a stored match's row says of how it went (what a store replacing it rewrites).
_MATCH_FIELDS = ("status", "failure_kind", "failure_message", "hands_file", "hands_played",
                 "finished")  # fmt: skip


def _seat_row(
    match: Match, outcome: MatchOutcome, position: int, seat: SeatOutcome,
    version: BotVersion | None,
) -> MatchSeat:  # fmt: skip
    """The row of ``seat``, the ``position``-th of ``outcome`` (its luck-adjusted chips
    when every hand carries them)."""
    adjusted = None
    if outcome.hands and all(hand.adjusted is not None for hand in outcome.hands):
        adjusted = sum(hand.adjusted[position] for hand in outcome.hands if hand.adjusted)
    return MatchSeat(match=match, seat_index=seat.seat_index, name=seat.bot,
                     player_id=f"p{seat.seat_index}", version=version,
                     team=None if version is None else version.team,
                     chips_won=seat.chips_won, adjusted_chips=adjusted,
                     fault_count=sum(seat.fault_counts.values()))  # fmt: skip
