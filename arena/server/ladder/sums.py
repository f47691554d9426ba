"""The ladder's running sums in the database: each finished game added once, in the
transaction that stores it, to its pairs' sums (:class:`~arena.server.ladder.models.PairSumsRow`)
and its versions' counts (:class:`~arena.server.ladder.models.VersionSumsRow`); the fit,
matchmaking and the pages read these, never the games, so the work per game stays the
same however long the ladder has run.

A game is marked ``counted`` by a conditional update before its results are added: two
workers that both meet it (a game stored while another counts) add it once. A store marks
its own game in the update that writes its result (:func:`add_counted` then adds it):
nobody counts a game while a worker holds it. A table's
result reaches the sums as its pairs (:meth:`arena.ladder.games.TableResult.pairwise`), its
hands once per version at it. A result the fit cannot use (a score that is not a finite
number, which :class:`~arena.ladder.games.GameResult` refuses) is logged and left out: the
worker carries on. A pair's row keeps the version with the smaller number on the site as
``first``; :func:`pair_sums` reads the rows as :class:`arena.ladder.sums.PairSums` by label.
A site whose games were played before the sums existed counts them, once, at its first
store or fit.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from django.db import connection

from arena.ladder.games import GameResult
from arena.ladder.sums import PairColumns, PairSums
from arena.server.jobs.round_trip import Answer, Statement, run_together
from arena.server.ladder.models import (
    Game,
    GameStatus,
    PairSumsRow,
    RatingFit,
    VersionSumsRow,
    label_of,
    version_label,
)
from arena.server.ladder.state import game_result, table_result, with_seats
from arena.server.site.models import BotVersion, Team

__all__ = [
    "FINISHED",
    "FitTimes",
    "add_counted",
    "count_results",
    "counted_statements",
    "counted_times",
    "pair_columns",
    "pair_sums",
    "row_sums",
]

_log = logging.getLogger(__name__)

#: The statuses of a game over (its result, if any, goes into the sums).
FINISHED = (GameStatus.DONE, GameStatus.BOT_FAULT, GameStatus.FAILED_INFRASTRUCTURE)


def count_results() -> int:
    """Add every finished game not counted yet to the sums (module docstring; a store adds
    its own game in its transaction, :func:`add_counted`: this sweeps up any other, such
    as a site's games played before the sums existed); how many were added."""
    games = with_seats(Game.objects.filter(counted=False, status__in=FINISHED)).order_by("pk")
    added = 0
    for game in games:
        if Game.objects.filter(pk=game.pk, counted=False).update(counted=True):
            add_counted(game)
            added += 1
    return added


def add_counted(game: Game) -> FitTimes | None:
    """``game``'s results into the sums (:func:`counted_statements`), in one round trip;
    the fit's times as its row holds them after a game done (None for another)."""
    return counted_times(game, run_together(counted_statements(game)))


def counted_statements(game: Game) -> list[Statement]:
    """The statements that add ``game``'s results into the sums, the game marked
    ``counted`` already by its caller (in the same transaction: the store's own update
    marks it, and sends these with it): a rated game only; one the infrastructure left
    out counts for nothing; every game done counts in the games played (on the fit's row,
    the first statement then, whose answer :func:`counted_times` reads)."""
    statements = [_COUNT_DONE] if game.status == GameStatus.DONE else []
    if not game.is_rated or game.status == GameStatus.FAILED_INFRASTRUCTURE:
        return statements
    seats = game.seats_in_order()
    versions = [seat.version for seat in seats] if seats else [game.first, game.second]
    try:
        table = table_result(game)
        results: Iterable[GameResult] = ()
        if table is not None:
            results = table.pairwise()
        elif (result := game_result(game)) is not None:
            results = (result,)
        results = tuple(results)
    except ValueError as error:
        _log.warning("game %s: a result the fit cannot use, left out: %s", game.pk, error)
        results = ()
    hands = game.hand_count if results else 0
    played = 1 if results else 0
    statements.append(
        _upsert(VersionSumsRow, ("version_id",), [(v.pk, played, hands, game.pk) for v in versions],
                adds=("game_count", "hand_count"), greatest="last_game")
    )  # fmt: skip
    by_label = {version_label(version): version for version in versions}
    rows = []
    for result in results:
        one, other = by_label[result.first], by_label[result.second]
        first, second = (one, other) if one.pk < other.pk else (other, one)
        adjusted = result.score_for(version_label(first))
        raw = result.raw_for(version_label(first))
        rows.append((first.pk, second.pk, 1, result.weight, result.weight * adjusted, adjusted,
                     adjusted * adjusted, raw, raw * raw, result.hand_count))  # fmt: skip
    if rows:
        statements.append(_upsert(PairSumsRow, ("first_id", "second_id"), rows, adds=_SUMS))
    return statements


def counted_times(game: Game, answers: Sequence[Answer]) -> FitTimes | None:
    """The fit's times after :func:`counted_statements` of ``game`` ran (``answers``: their
    answers, in order): for a game done, as the fit's row holds them after the count (the
    row made, and the game counted on it, the first time); None for another game."""
    if game.status != GameStatus.DONE:
        return None
    row = answers[0].row
    if row is None:  # no fit's row yet
        RatingFit.objects.bulk_create([RatingFit(pk=1)], ignore_conflicts=True)
        row = run_together([_COUNT_DONE])[0].row
        assert row is not None  # (the row is there now)
    fitted, claimed_until, done_count, seconds = row
    return FitTimes(_aware(fitted), _aware(claimed_until), done_count, seconds)


class FitTimes(NamedTuple):
    """The fit row's last fit and the time its fitter's claim holds until (either None),
    the games done counted on it (this game's count included) and the last fit's duration
    in seconds (either None: not read)."""

    fitted: datetime | None
    claimed_until: datetime | None
    done_count: int | None = None
    seconds: float | None = None


#: One more game done on the fit's row, its times given back: they tell the store whether
#: a fit may be due without asking again.
_COUNT_DONE = Statement(
    f"UPDATE {RatingFit._meta.db_table} SET done_count = done_count + 1 WHERE id = 1 "
    "RETURNING fitted, claimed_until, done_count, seconds"
)


def _aware(value: datetime | str | None) -> datetime | None:
    """A time as the database gave it back (SQLite: text in UTC, or a naive datetime), as
    an aware datetime."""
    if value is None:
        return None
    found = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    return found if found.tzinfo is not None else found.replace(tzinfo=UTC)


def _upsert(
    model: type[PairSumsRow] | type[VersionSumsRow],
    keys: tuple[str, ...],
    rows: Sequence[tuple[float | int, ...]],
    *,
    adds: tuple[str, ...],
    greatest: str | None = None,
) -> Statement:
    """The statement that adds ``rows`` (the ``keys``' values, then the ``adds``', then
    ``greatest``'s) onto the rows of ``model``: a missing row is made, an existing one has each
    value of ``adds`` added to its own and ``greatest`` raised to the new value. The
    addition happens in the database (``ON CONFLICT DO UPDATE``, PostgreSQL's and
    SQLite's alike), so two workers adding at once both count."""
    table = model._meta.db_table
    columns = [*keys, *adds, *([greatest] if greatest else [])]
    updates = [f"{name} = {table}.{name} + excluded.{name}" for name in adds]
    if greatest:
        updates.append(
            f"{greatest} = CASE WHEN {table}.{greatest} IS NULL OR {table}.{greatest} < "
            f"excluded.{greatest} THEN excluded.{greatest} ELSE {table}.{greatest} END"
        )
    values = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * len(rows))
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values} "
        f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {', '.join(updates)}"
    )
    return Statement(sql, [value for row in rows for value in row])


def pair_sums() -> dict[tuple[str, str], PairSums]:
    """Every pair's sums by their labels, each from the side of the label that sorts
    first, as :func:`arena.ladder.sums.pair_sums` keys them (one query for the rows, one
    for the versions' labels: no model per row, the fit reads thousands)."""
    labels = {
        version.pk: version_label(version) for version in BotVersion.objects.select_related("team")
    }
    found: dict[tuple[str, str], PairSums] = {}
    for first_id, second_id, *values in PairSumsRow.objects.values_list(
        "first_id", "second_id", *_SUMS
    ):
        row = dict(zip(_SUMS, values, strict=True))
        first, second = labels[first_id], labels[second_id]
        sign = 1.0 if first < second else -1.0
        for name in ("weighted_sum", "adjusted_sum", "raw_sum"):
            row[name] = sign * row[name]
        key = (first, second) if first < second else (second, first)
        found[key] = PairSums(*key, **row)
    return found


def pair_columns() -> PairColumns:
    """Every pair's sums as the fit reads them (:class:`arena.ladder.sums.PairColumns`),
    by the versions' labels: one query for the rows, read straight into arrays (on
    PostgreSQL each column comes as one binary array: a hundred thousand pairs in a few
    hundredths of a second, where a Python value per number would take a second), and one
    for the labels of the versions in them."""
    values = _aggregated() if connection.vendor == "postgresql" else _fetched()
    ids = np.unique(values[:, :2].astype(np.int64))
    labels = _paired_labels()
    return PairColumns(
        tuple(labels[int(pk)] for pk in ids),
        np.searchsorted(ids, values[:, 0].astype(np.int64)),
        np.searchsorted(ids, values[:, 1].astype(np.int64)),
        *(np.ascontiguousarray(values[:, k]) for k in range(2, len(_READ))),
    )


def _paired_labels() -> dict[int, str]:
    """The label of every version on the site, by number (one statement, no model: the
    site's versions are far fewer than the pairs' rows a filter by them would read)."""
    sql = (f"SELECT v.id, t.name, v.number FROM {BotVersion._meta.db_table} v "
           f"JOIN {Team._meta.db_table} t ON t.id = v.team_id")  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return {pk: label_of(team, number) for pk, team, number in cursor.fetchall()}


#: What :func:`pair_columns` reads of a row, in :class:`PairColumns`' order.
_READ = ("first_id", "second_id", "game_count", "information", "weighted_sum", "adjusted_sum",
         "adjusted_squares")  # fmt: skip


def _fetched() -> npt.NDArray[np.float64]:
    """:data:`_READ` of every row as a float array, through the ORM (any database)."""
    rows = list(PairSumsRow.objects.values_list(*_READ))
    return np.array(rows, dtype=np.float64).reshape(len(rows), len(_READ))


def _aggregated() -> npt.NDArray[np.float64]:
    """:data:`_READ` of every row as a float array, on PostgreSQL: each row's values as
    ``float8send``'s 8 big-endian bytes, joined in the database into one ``bytea`` (one
    sort, one value sent), which numpy reads as it is: no Python value per number (and no
    message per row, as ``COPY`` sends)."""
    table = PairSumsRow._meta.db_table
    values = " || ".join(f"float8send({name}::float8)" for name in _READ)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT string_agg({values}, ''::bytea ORDER BY id) FROM {table}")
        (sent,) = cursor.fetchone()
    if sent is None:  # no pair yet
        return np.zeros((0, len(_READ)))
    return np.frombuffer(bytes(sent), ">f8").reshape(-1, len(_READ)).astype(np.float64)


def row_sums(row: PairSumsRow) -> PairSums:
    """One row's sums as they are stored: from its ``first``'s side, by the labels."""
    values = {name: getattr(row, name) for name in _SUMS}
    return PairSums(version_label(row.first), version_label(row.second), **values)


#: A pair's sums as :class:`arena.ladder.sums.PairSums` and the row name them.
_SUMS = ("game_count", "information", "weighted_sum", "adjusted_sum", "adjusted_squares",
         "raw_sum", "raw_squares", "hand_count")  # fmt: skip
