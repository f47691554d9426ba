"""The ratings fitted on the running sums and stored: what every page, the API and
matchmaking read, refreshed at most every :data:`FIT_INTERVAL_S` seconds by one worker at
a time, never inside a claim's or a store's transaction.

Theory of operation. A worker that stored a game calls :func:`refresh_if_due`. The fit's
one row (:class:`~arena.server.ladder.models.RatingFit`) is taken by a conditional
``UPDATE`` (its last fit older than the interval, and no other worker's claim still
running): whoever takes it fits, everyone else goes back to playing at once. The fit reads
the pairs' sums (:func:`arena.server.ladder.sums.pair_sums`: a row per pair, whatever the
games' count) and writes, in one transaction, the :class:`~arena.server.ladder.models.Rating`
rows of the active versions (placed among themselves, each with its covariance with the
:data:`NEIGHBOURS` versions below it: what matchmaking's :meth:`~arena.ladder.ratings.Standings.gap`
asks of neighbours), the site's ``ladder`` leaderboard rows, the fit's time and, at most
every :data:`HISTORY_INTERVAL_S` seconds, a point of each version's rating history. A page
shows the last fit with its time.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena.ladder.ratings import Standings, fit
from arena.server.ladder.models import (
    Game,
    GameStatus,
    Rating,
    RatingFit,
    RatingPoint,
    VersionSumsRow,
    version_label,
)
from arena.server.ladder.state import LADDER_BOARD, active_versions
from arena.server.ladder.sums import count_results, pair_sums
from arena.server.site.models import LeaderboardRow, ScoreKind

__all__ = [
    "FIT_INTERVAL_S",
    "HISTORY_INTERVAL_S",
    "NEIGHBOURS",
    "refresh_if_due",
    "refresh_ratings",
]

#: The least time between two fits: the ratings a page shows are at most this old (plus
#: the time of a game: a fit follows a stored game).
FIT_INTERVAL_S = 5.0
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


def refresh_if_due(now: datetime | None = None, interval_s: float = FIT_INTERVAL_S) -> bool:
    """Fit and store the ratings when the last fit is older than ``interval_s`` and no other
    worker is fitting (module docstring); True when this call fitted. Called outside any
    transaction."""
    now = now or timezone.now()
    due = Q(fitted__isnull=True) | Q(fitted__lte=now - timedelta(seconds=interval_s))
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    claim = now + timedelta(seconds=_CLAIM_S)
    # One statement when the row is there (every time but the first).
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
    active = {version_label(version): version for version in active_versions()}
    standings = fit(pair_sums(), bots=active)
    order = [bot for bot in standings.order if bot in active]
    counts = {
        version_id: (games, hands)
        for version_id, games, hands in VersionSumsRow.objects.filter(
            version__in=active.values()
        ).values_list("version_id", "game_count", "hand_count")
    }
    ratings, rows = [], []
    kept_below = standings.covariances_below(order, NEIGHBOURS)
    for place, (bot, kept) in enumerate(zip(order, kept_below, strict=True), start=1):
        fitted, version = standings.rating(bot), active[bot]
        games, hands = counts.get(version.pk, (0, 0))
        chance = standings.chance_above(bot, order[place]) if place < len(order) else None
        ratings.append(Rating(version=version, place=place, strength=fitted.strength,
                              sd=fitted.sd, low=fitted.low, high=fitted.high,
                              game_count=games, chance_above_next=chance,
                              covariances=kept))  # fmt: skip
        rows.append(LeaderboardRow(board=LADDER_BOARD, position=place, name=bot,
                                   team=version.team, kind=ScoreKind.RATING,
                                   mbb_per_hand=fitted.strength,
                                   half_width=(fitted.high - fitted.low) / 2.0,
                                   hands=hands))  # fmt: skip
    played = Game.objects.filter(status=GameStatus.DONE).count()
    with transaction.atomic():
        Rating.objects.all().delete()
        LeaderboardRow.objects.filter(board=LADDER_BOARD).delete()
        Rating.objects.bulk_create(ratings)
        LeaderboardRow.objects.bulk_create(rows)
        row = _fit_row()
        history_due = row.history_written is None or row.history_written <= now - timedelta(
            seconds=HISTORY_INTERVAL_S
        )
        if history_due:
            RatingPoint.objects.bulk_create(
                RatingPoint(version=rating.version, at=now, strength=rating.strength,
                            low=rating.low, high=rating.high, place=rating.place,
                            game_count=rating.game_count)
                for rating in ratings
            )  # fmt: skip
        RatingFit.objects.filter(pk=1).update(
            fitted=now,
            seconds=time.perf_counter() - started,
            game_sd=standings.game_sd,
            confidence=standings.confidence,
            game_count=played,
            history_written=now if history_due else row.history_written,
        )
    return standings
