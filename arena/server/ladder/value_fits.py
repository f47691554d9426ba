"""The luck estimator's betting weights fitted on the ladder's own earlier games: a value
fitted on games already finished adjusts the games claimed after it.

Theory of operation. A worker that stored a game calls :func:`refresh_value_if_due`. The
job's one row (:class:`~arena.server.ladder.models.ValueFitJob`) is taken by a conditional
``UPDATE``: at least ``value_fit_games`` games done (the ratings fit's count of games done)
since a fit was last tried, and no other worker's claim still running. Whoever takes it
reads the hand logs of the newest ``value_fit_games`` heads-up games done (every one
finished before the fit began), each deal's two hands a duplicate unit of the game's first
version, and fits the weights by :func:`arena.luck.value_fit.fit_value` (each game its own
group: its mean is the versions' skill, not luck), the same fit as the shipped weights'
(``bench/fit_luck_value.py``). Fewer than ``value_fit_min_hands`` hands: no fit (tried
again ``value_fit_games`` games later).

The fit is written whole, in one transaction with the job's count, as a new
:class:`~arena.server.ladder.models.ValueFit` row that nothing changes afterwards; a
worker killed while fitting writes nothing (its claim expires after :data:`CLAIM_S`
seconds and another worker fits), so a half-made fit is never used. Every game made after
the row is committed records it (:attr:`~arena.server.ladder.models.Game.value_fit`, read
with the claim's first round trip: :data:`LATEST_FIT`) and its matches estimate with its
weights (the estimator's name carries their hash); a game played again after a crash
keeps the fit it was made with. So the weights are fixed before any hand they adjust is
dealt, and every correction keeps its expectation of zero (``docs/luck.md``).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import IntegerField, Q, Subquery
from django.utils import timezone

from arena.luck import LuckError, LuckValue, estimator_name
from arena.luck.leans import match_leans
from arena.luck.value_fit import UnitRow, fit_value, unit_row
from arena.server.jobs.round_trip import Answer, Statement
from arena.server.ladder.config import LadderSettings
from arena.server.ladder.models import Game, GameStatus, RatingFit, ValueFit, ValueFitJob
from arena.store.hand_log import HandLogError, iter_hands

__all__ = [
    "CLAIM_S",
    "LATEST_FIT",
    "fit_summary",
    "game_units",
    "latest_fit_of",
    "refresh_value_if_due",
    "value_of",
]

_log = logging.getLogger(__name__)

#: How long a worker's claim on the value fit holds before another may take it (a fit of
#: the default 200 games reads 40,000 hands, each estimated once per weight and once
#: without: minutes).
CLAIM_S = 1800.0

#: The newest value fit's number and weights, as a claim reads it with its other first
#: reads (one round trip): the fit a game made now is played with.
LATEST_FIT = Statement(
    f"SELECT id, weights FROM {ValueFit._meta.db_table} ORDER BY id DESC LIMIT 1"
)


def latest_fit_of(answer: Answer) -> ValueFit | None:
    """The fit :data:`LATEST_FIT` read (its number and weights: all a game needs of it);
    None before the first fit."""
    row = answer.row
    if row is None:
        return None
    fit_id, weights = row
    return ValueFit(pk=fit_id, weights=json.loads(weights) if isinstance(weights, str) else weights)


#: The value fit's job count, read with a store's result in its one round trip: with the
#: games done that the store counted, it tells whether a fit may be due without asking
#: again (two statements saved on every store: :func:`value_fit_may_be_due`).
JOB_COUNT = Statement(f"SELECT tried_at_count FROM {ValueFitJob._meta.db_table} WHERE id = 1")


def value_fit_may_be_due(job: Answer, done_count: int | None, settings: LadderSettings) -> bool:
    """Whether :func:`refresh_value_if_due` may fit now, by the job's count as
    :data:`JOB_COUNT` read it and the games done (None: not known, so it may); False: it
    would not (the job's count only grows, so a count read a moment ago cannot make a fit
    look not due when it is)."""
    row = job.row
    return row is None or done_count is None or done_count >= row[0] + settings.value_fit_games


def refresh_value_if_due(settings: LadderSettings, now: datetime | None = None) -> ValueFit | None:
    """Fit the weights on the newest games done when due and no other worker is fitting
    (module docstring); the new fit, or None (not due, taken, or too few hands). Called
    outside any transaction."""
    now = now or timezone.now()
    done = Subquery(
        RatingFit.objects.filter(pk=1).values("done_count"), output_field=IntegerField()
    )
    due = Q(tried_at_count__lte=done - settings.value_fit_games)
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    claim = now + timedelta(seconds=CLAIM_S)
    if not ValueFitJob.objects.filter(due & free, pk=1).update(claimed_until=claim):
        if ValueFitJob.objects.filter(pk=1).exists():
            return None
        ValueFitJob.objects.bulk_create([ValueFitJob(pk=1)], ignore_conflicts=True)
        if not ValueFitJob.objects.filter(due & free, pk=1).update(claimed_until=claim):
            return None
    try:
        return _fit(settings, now, claim)
    finally:  # (a no-op after the fit's own release)
        ValueFitJob.objects.filter(pk=1, claimed_until=claim).update(claimed_until=None)


def _fit(settings: LadderSettings, now: datetime, claim: datetime) -> ValueFit | None:
    """The fit itself, under the job's claim ``claim``: the fit row and the job's count
    written in one transaction, and only while the claim holds."""
    tried_at = RatingFit.objects.filter(pk=1).values_list("done_count", flat=True).first() or 0
    games = list(
        Game.objects.filter(
            status=GameStatus.DONE,
            seat_count=2,
            finished__lte=now,
            match_seat__isnull=False,
            match_swap__isnull=False,
        )
        .exclude(estimator="")
        .order_by("-pk")
        .values_list("pk", "match_seat__hands_file", "match_swap__hands_file")[
            : settings.value_fit_games
        ]
    )
    groups: dict[int, list[UnitRow]] = {}
    for number, seat_file, swap_file in games:
        try:
            groups[number] = game_units(Path(seat_file), Path(swap_file))
        except (HandLogError, LuckError, OSError, ValueError, KeyError) as exc:  # left out
            _log.warning("value fit: game %s's hands cannot be read: %s", number, exc)
    hand_count = 2 * sum(len(rows) for rows in groups.values())
    value = _fit_of(groups) if hand_count >= settings.value_fit_min_hands else None
    fit = None
    with transaction.atomic():
        job = ValueFitJob.objects.filter(pk=1, claimed_until=claim)
        if value is not None:
            fit = ValueFit.objects.create(
                weights=value.to_dict(),
                digest=value.digest,
                estimator=estimator_name(value),
                last_game=max(groups),
                game_count=len(groups),
                hand_count=hand_count,
                games_digest=_games_digest(groups),
                created=now,
            )
        if not job.update(claimed_until=None, tried_at_count=tried_at):
            transaction.set_rollback(True)  # the claim expired and another fits: theirs
            return None
    return fit


def _fit_of(groups: Mapping[int, list[UnitRow]]) -> LuckValue | None:
    """The weights fitted on the games' units; None, said why, when nothing can be fitted
    (no game with two deals or more)."""
    try:
        return fit_value(list(groups.values()))
    except ValueError as exc:
        _log.warning("value fit: nothing to fit on %d games: %s", len(groups), exc)
        return None


def _games_digest(games: Mapping[int, Any]) -> str:
    """A hash of the numbers of the games fitted on (which games, in a few characters)."""
    text = ",".join(str(number) for number in sorted(games))
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def game_units(seat_file: Path, swap_file: Path) -> list[UnitRow]:
    """A heads-up game's duplicate units of its first version (seat 0 in the first match,
    seat 1 in the swap), in chips per hand, by deal (a deal only one match reached is left
    out, as the game's own units leave it), each hand with the players' leans its match
    had at it (:func:`~arena.luck.leans.match_leans`: every hand of each match counts in
    them, a deal the other match never reached too)."""
    swapped = {
        record["hand_number"]: (record, leans)
        for record, leans in match_leans(iter_hands(swap_file))
    }
    rows = []
    for record, leans in match_leans(iter_hands(seat_file)):
        other = swapped.get(record["hand_number"])
        if other is not None:
            twin, twin_leans = other
            halves = ((record, _position(record, 0), leans), (twin, _position(twin, 1), twin_leans))
            rows.append(unit_row(halves, 0.5))
    return rows


def _position(record: Mapping[str, Any], seat_index: int) -> int:
    """Where the seat numbered ``seat_index`` is among the hand's seats (the order of the
    estimator's results)."""
    seats: Sequence[Any] = record["history"].get("seats", [])
    for position, seat in enumerate(seats):
        if isinstance(seat, dict) and seat.get("seat_index") == seat_index:
            return position
    raise ValueError(f"hand {record.get('hand_number')!r} has no seat {seat_index}")


def value_of(fit: ValueFit | None) -> LuckValue | None:
    """The weights a game made with ``fit`` is played with (None: the shipped ones)."""
    return None if fit is None else LuckValue.from_dict(fit.weights)


def fit_summary(fit: ValueFit | None) -> dict[str, Any] | None:
    """What a game's API row shows of the value fit it was played with (None: the shipped
    weights): its number, its weights' hash (the one in the estimator's name), the games
    it was fitted on (how many, their hands, the newest's number and a hash of their
    numbers)."""
    if fit is None:
        return None
    return {"id": fit.pk, "weights": fit.digest, "games": fit.game_count,
            "hands": fit.hand_count, "last_game": fit.last_game,
            "games_hash": fit.games_digest}  # fmt: skip
