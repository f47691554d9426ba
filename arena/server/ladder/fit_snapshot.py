"""The last fit as matchmaking reads it (``RatingFit.snapshot``): made once per fit by
:func:`fit_snapshot` (the ratings, the covariance band, tier 5's candidate pairs and the
knobs they depend on), read back by :func:`read_snapshot` and turned into standings by
:func:`standings_of`. The bytes' layout is :mod:`arena.server.ladder.snapshot_bytes`'s."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from django.db import connection

from arena.ladder.matchmaking import Entrant, MatchmakingSettings, candidate_pairs
from arena.ladder.ratings import FitSettings, Standings
from arena.ladder.ratings import Rating as FittedRating
from arena.server.ladder.models import RatingFit
from arena.server.ladder.roster import roster_digest
from arena.server.ladder.snapshot_bytes import StoredRoster, pack_snapshot, unpack_snapshot

__all__ = [
    "NEIGHBOURS_KEPT",
    "Snapshot",
    "fit_snapshot",
    "knobs",
    "read_snapshot",
    "standings_of",
]


def fit_snapshot(
    rows: Sequence[tuple[int, FittedRating]],
    band: Sequence[Sequence[float]],
    teams: Mapping[int, str],
    *,
    game_sd: float,
    confidence: float,
    settings: MatchmakingSettings,
) -> bytes:
    """The fit as matchmaking reads it (``RatingFit.snapshot``): the active versions'
    ``rows`` (number and rating) in place order, each one's covariances with the ones just
    below it (``band``), and tier 5's candidate pairs as a claim would make them while
    the same versions are active and placed (``teams``: each one's team name), with the
    knobs they depend on, as arrays in one run of numbers
    (:func:`~arena.server.ladder.snapshot_bytes.pack_snapshot`)."""
    ids = np.array([pk for pk, _rating in rows], dtype=np.int64)
    width = max([NEIGHBOURS_KEPT, *(len(values) for values in band)])
    banded = np.zeros((len(rows), width))
    for row, values in enumerate(band):
        banded[row, : len(values)] = values
    columns = {name: np.array([getattr(rating, name) for _pk, rating in rows], dtype=np.float64)
               for name in ("strength", "sd", "low", "high", "game_count")}  # fmt: skip
    arrays = {"ids": ids, "band": banded, **columns}
    active = {pk: rating.bot for pk, rating in rows}
    standings = standings_of(arrays, active, game_sd=game_sd, confidence=confidence)
    entrants = [Entrant(rating.bot, teams[pk], rating.game_count) for pk, rating in rows]
    candidates = candidate_pairs(entrants, standings, settings)
    number = {rating.bot: pk for pk, rating in rows}
    bots = np.array([number[bot] for bot in candidates.bots], dtype=np.int64)
    placed = sorted(pk for pk, rating in rows if rating.game_count >= settings.placement_games)
    stored: dict[str, npt.NDArray[Any]] = {
        **arrays, "pair_first": bots[candidates.first], "pair_second": bots[candidates.second],
        "importance": candidates.importance, "wrong": candidates.wrong,
        "variance": candidates.variance, "placed": np.array(placed, dtype=np.int64),
        "knobs": np.array(knobs(settings)),
    }  # fmt: skip
    roster = {
        "digest": roster_digest(
            (pk, rating.game_count >= settings.placement_games, rating.bot) for pk, rating in rows
        ),
        "labels": [rating.bot for _pk, rating in rows],
        "teams": [teams[pk] for pk, _rating in rows],
    }
    return pack_snapshot(stored) + json.dumps(roster).encode()


#: The band's width when no version has a neighbour below (one version, or none).
NEIGHBOURS_KEPT = 8


def knobs(settings: MatchmakingSettings) -> tuple[float, float, float]:
    """The settings tier 5's candidates depend on."""
    return (settings.placement_games, settings.focus_places, settings.place_weight)


def standings_of(
    arrays: Mapping[str, npt.NDArray[Any]],
    active: Mapping[int, str],
    *,
    game_sd: float,
    confidence: float,
) -> Standings:
    """A snapshot's ratings as standings of the ``active`` versions (their labels by
    number): one not in it at strength 0 with the prior's spread, as a fit rates a
    version with no game."""
    ratings: list[FittedRating] = []
    band_rows: list[int] = []
    columns = [arrays[name].tolist() for name in ("ids", "strength", "sd", "low", "high")]
    games = arrays["game_count"].tolist()
    for row, (pk, strength, sd, low, high) in enumerate(zip(*columns, strict=True)):
        bot = active.get(pk)
        if bot is not None:  # no longer active: not an entrant
            ratings.append(FittedRating(bot, 0, strength, sd, low, high, int(games[row])))
            band_rows.append(row)
    known = {rating.bot for rating in ratings}
    prior = FitSettings()
    z = NormalDist().inv_cdf(1.0 - (1.0 - prior.confidence) / 2.0)
    sd = prior.prior_sd_mbb
    for bot in active.values():
        if bot not in known:
            ratings.append(FittedRating(bot, 0, 0.0, sd, -z * sd, z * sd, 0))
            band_rows.append(-1)
    return Standings.from_band(ratings, band_rows, arrays["band"], game_sd=game_sd,
                               confidence=confidence)  # fmt: skip


class Snapshot(NamedTuple):
    """The last fit as a claim reads it: the snapshot's arrays, its roster, the pooled
    spread of one game and the confidence."""

    arrays: dict[str, npt.NDArray[Any]]
    roster: StoredRoster | None
    game_sd: float
    confidence: float


def read_snapshot() -> Snapshot | None:
    """The last fit's snapshot (None before a fit), in one statement."""
    sql = (f"SELECT snapshot, game_sd, confidence FROM {RatingFit._meta.db_table} "
           "WHERE id = 1 AND fitted IS NOT NULL")  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    if row is None or not row[0]:
        return None
    return Snapshot(*unpack_snapshot(bytes(row[0])), row[1], row[2])
