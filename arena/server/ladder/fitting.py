"""The ratings fitted on the running sums and stored: what every page, the API and
matchmaking read, refreshed by one worker at a time, never inside a claim's or a store's
transaction, as often as the last fit's cost allows (:data:`CADENCE`: the fit at most 2% of
the time, at least every :data:`FIT_INTERVAL_S` seconds).

Theory of operation. A worker that stored a game calls :func:`refresh_if_due`. The fit's
one row (:class:`~arena.server.ladder.models.RatingFit`) is taken by a conditional
``UPDATE`` (its last fit older than the interval, and no other worker's claim still
running; the interval is :data:`CADENCE`'s for the last fit's duration, which the row keeps:
a small ladder's fit, a few hundredths of a second, comes every few games of a worker, a
thousand versions' every :data:`FIT_INTERVAL_S`): whoever takes it fits, everyone else
goes back to playing at once. The fit reads the pairs' sums
(:func:`arena.server.ladder.sums.pair_columns`: a row per pair, whatever the games' count,
read into arrays) and writes, in one transaction and a few statements
(no object per row), the :class:`~arena.server.ladder.models.Rating` rows of the active
versions (placed among themselves, each with its covariance with the
:data:`NEIGHBOURS` versions below it: what matchmaking's :meth:`~arena.ladder.ratings.Standings.gap`
asks of neighbours), the site's ``ladder`` leaderboard rows, the fit's time and, at most
every :data:`HISTORY_INTERVAL_S` seconds, a point of each version's rating history, and
the fit as matchmaking reads it (its snapshot: the ratings and tier 5's candidate pairs,
:func:`arena.server.ladder.fit_snapshot.fit_snapshot`). A page shows the last fit with its time.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Model, Q
from django.utils import timezone

from arena.ladder.cadence import FitCadence
from arena.ladder.ratings import Rating as FittedRating
from arena.ladder.ratings import Standings, fit
from arena.server.ladder import config
from arena.server.ladder.blas import one_thread
from arena.server.ladder.fit_snapshot import fit_snapshot
from arena.server.ladder.models import (
    Rating,
    RatingFit,
    RatingPoint,
    VersionSumsRow,
)
from arena.server.ladder.state import LADDER_BOARD, active_labels
from arena.server.ladder.sums import FitTimes, count_results, pair_columns
from arena.server.site.models import LeaderboardRow, ScoreKind

__all__ = [
    "CADENCE",
    "FIT_INTERVAL_S",
    "HISTORY_INTERVAL_S",
    "NEIGHBOURS",
    "may_be_due",
    "refresh_if_due",
    "refresh_ratings",
]

#: When the ratings are fitted again: the interval follows the last fit's duration
#: (:class:`arena.ladder.cadence.FitCadence`; ``bench/bench_ladder.py`` models the same rule).
CADENCE = FitCadence()
#: The longest time between two fits: the ratings a page shows are at most this old (plus
#: the time of a game: a fit follows a stored game).
FIT_INTERVAL_S = CADENCE.max_interval_s
#: The least time between two points of the rating history (a point per active version).
HISTORY_INTERVAL_S = 300.0
#: The versions below each one whose covariance with it is kept (matchmaking's neighbours
#: are the next placed version; unplaced ones in between make it a few places down).
NEIGHBOURS = 8
#: How long a worker's claim on the fit holds before another may take it (a worker killed
#: while fitting does not stop the ratings for good).
_CLAIM_S = 60.0


def _fit_row() -> RatingFit:
    """The fit's one row (made the first time)."""
    RatingFit.objects.bulk_create([RatingFit(pk=1)], ignore_conflicts=True)
    return RatingFit.objects.get(pk=1)


def may_be_due(times: FitTimes, now: datetime, interval_s: float = CADENCE.min_interval_s) -> bool:
    """Whether :func:`refresh_if_due` may fit now, by the fit row's ``times`` as read a
    moment ago (False: it would not: the last fit is recent or another worker fits). The
    times do not carry the last fit's duration, so the interval is the cadence's shortest:
    :func:`refresh_if_due` reads the duration and decides."""
    due = times.fitted is None or times.fitted <= now - timedelta(seconds=interval_s)
    return due and (times.claimed_until is None or times.claimed_until < now)


def refresh_if_due(now: datetime | None = None, interval_s: float | None = None) -> bool:
    """Fit and store the ratings when the last fit is older than ``interval_s`` (None:
    :data:`CADENCE`'s interval for the last fit's duration) and no other worker is fitting
    (module docstring); True when this call fitted. Called outside any transaction."""
    now = now or timezone.now()
    if interval_s is None:
        last_s = RatingFit.objects.filter(pk=1).values_list("seconds", flat=True).first()
        interval_s = CADENCE.interval_s(last_s or 0.0)
    due = Q(fitted__isnull=True) | Q(fitted__lte=now - timedelta(seconds=interval_s))
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    claim = now + timedelta(seconds=_CLAIM_S)
    # The claim: one statement when the row is there (every time but the first).
    if not RatingFit.objects.filter(due & free, pk=1).update(claimed_until=claim):
        if RatingFit.objects.filter(pk=1).exists():
            return False
        _fit_row()
        if not RatingFit.objects.filter(due & free, pk=1).update(claimed_until=claim):
            return False
    try:
        refresh_ratings(now)
    finally:
        RatingFit.objects.filter(pk=1, claimed_until=claim).update(claimed_until=None)
    return True


def refresh_ratings(now: datetime | None = None) -> Standings:
    """Count any finished game not counted yet, fit the ratings on the sums and store them
    (module docstring), now; the fit."""
    now = now or timezone.now()
    started = time.perf_counter()
    with transaction.atomic():
        count_results()
    active = active_labels()
    by_label = {version.label: pk for pk, version in active.items()}
    columns = pair_columns()
    with one_thread():  # the fit's products on one core (arena.server.ladder.blas)
        standings = fit(columns, bots=by_label)
        order = [bot for bot in standings.order if bot in by_label]
        kept_below = standings.covariances_below(order, NEIGHBOURS)
        standings.prime_gaps(list(itertools.pairwise(order)))  # each one's chance above the next
    counts = _version_counts()
    ratings, rows, fitted_rows = [], [], []
    for place, (bot, kept) in enumerate(zip(order, kept_below, strict=True), start=1):
        fitted, version_id = standings.rating(bot), by_label[bot]
        games, hands = counts.get(version_id, (0, 0))
        chance = standings.chance_above(bot, order[place]) if place < len(order) else None
        ratings.append((version_id, place, fitted.strength, fitted.sd, fitted.low, fitted.high,
                        games, chance, kept, now))  # fmt: skip
        fitted_rows.append((version_id, FittedRating(bot, place, fitted.strength, fitted.sd,
                                                     fitted.low, fitted.high, games)))  # fmt: skip
        rows.append((LADDER_BOARD, place, bot, active[version_id].team_id, ScoreKind.RATING.value,
                     fitted.strength, (fitted.high - fitted.low) / 2.0, hands, now))  # fmt: skip
    snapshot = fit_snapshot(
        fitted_rows, kept_below, {pk: version.team for pk, version in active.items()},
        game_sd=standings.game_sd, confidence=standings.confidence,
        settings=config.current().matchmaking(),
    )  # fmt: skip
    with transaction.atomic():
        row = _fit_row()
        Rating.objects.all().delete()
        LeaderboardRow.objects.filter(board=LADDER_BOARD).delete()
        _insert(Rating, _RATING_COLUMNS, ratings)
        _insert(LeaderboardRow, _BOARD_COLUMNS, rows)
        history_due = row.history_written is None or row.history_written <= now - timedelta(
            seconds=HISTORY_INTERVAL_S
        )
        if history_due:
            _insert(RatingPoint, _POINT_COLUMNS,
                    [(rating[0], now, rating[2], rating[4], rating[5], rating[1], rating[6])
                     for rating in ratings])  # fmt: skip
        RatingFit.objects.filter(pk=1).update(
            fitted=now,
            seconds=time.perf_counter() - started,
            game_sd=standings.game_sd,
            confidence=standings.confidence,
            game_count=row.done_count,
            history_written=now if history_due else row.history_written,
            snapshot=snapshot,
        )
    return standings


def _version_counts() -> dict[int, tuple[int, int]]:
    """Each version's rated games and hands from its running sums, by number (every row,
    in one plain statement: a filter by a thousand numbers cost the ORM more)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT version_id, game_count, hand_count FROM {VersionSumsRow._meta.db_table}"
        )
        return {version_id: (games, hands) for version_id, games, hands in cursor.fetchall()}


#: The columns :func:`refresh_ratings` writes of each table, in its tuples' order.
_RATING_COLUMNS = ("version_id", "place", "strength", "sd", "low", "high", "game_count",
                   "chance_above_next", "covariances", "updated")  # fmt: skip
_BOARD_COLUMNS = ("board", "position", "name", "team_id", "kind", "mbb_per_hand", "half_width",
                  "hands", "updated")  # fmt: skip
_POINT_COLUMNS = ("version_id", "at", "strength", "low", "high", "place", "game_count")


def _insert(model: type[Model], columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """``rows`` into ``model``'s table without an object per row (the ORM's bulk insert
    prepares every value of every row in Python: most of a fit's time at a thousand
    versions): PostgreSQL's ``COPY``, else one statement run for every row. A list (the
    covariances) is stored as JSON."""
    table, names = model._meta.db_table, ", ".join(columns)
    values = [[json.dumps(value) if isinstance(value, list) else value for value in row]
              for row in rows]  # fmt: skip
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in values:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(columns))
            cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", values)
