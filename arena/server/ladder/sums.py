"""The ladder's running sums in the database: each finished game added once, in the
transaction that stores it, to its pairs' sums (:class:`~arena.server.ladder.models.PairSumsRow`)
and its versions' counts (:class:`~arena.server.ladder.models.VersionSumsRow`); the fit,
matchmaking and the pages read these, never the games, so the work per game stays the
same however long the ladder has run.

A game is marked ``counted`` by a conditional update before its results are added: two
workers that both meet it (a game stored while another counts) add it once. A table's
result reaches the sums as its pairs (:meth:`arena.ladder.games.TableResult.pairwise`), its
hands once per version at it. A result the fit cannot use (a score that is not a finite
number, which :class:`~arena.ladder.games.GameResult` refuses) is logged and left out: the
worker carries on. A pair's row keeps the version with the smaller number on the site as
``first``; :func:`pair_sums` reads the rows as :class:`arena.ladder.sums.PairSums` by label.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db.models import F, Value
from django.db.models.functions import Coalesce, Greatest

from arena.ladder.games import GameResult
from arena.ladder.sums import PairSums
from arena.server.ladder.models import Game, GameStatus, PairSumsRow, VersionSumsRow, version_label
from arena.server.ladder.state import game_result, table_result, with_seats
from arena.server.site.models import BotVersion

__all__ = ["FINISHED", "count_results", "pair_sums", "row_sums"]

_log = logging.getLogger(__name__)

#: The statuses of a game over (its result, if any, goes into the sums).
FINISHED = (GameStatus.DONE, GameStatus.BOT_FAULT, GameStatus.FAILED_INFRASTRUCTURE)


def count_results() -> int:
    """Add every finished game not counted yet to the sums (module docstring); how many
    were added by this call. In the store's transaction it is the game just stored."""
    games = with_seats(Game.objects.filter(counted=False, status__in=FINISHED)).order_by("pk")
    added = 0
    for game in games:
        if Game.objects.filter(pk=game.pk, counted=False).update(counted=True):
            _add(game)
            added += 1
    return added


def _add(game: Game) -> None:
    """``game``'s results into the sums (a rated game only; one the infrastructure left out
    counts for nothing)."""
    if not game.is_rated or game.status == GameStatus.FAILED_INFRASTRUCTURE:
        return
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
    for version in versions:
        VersionSumsRow.objects.bulk_create([VersionSumsRow(version=version)], ignore_conflicts=True)
        VersionSumsRow.objects.filter(version=version).update(
            game_count=F("game_count") + (1 if results else 0),
            hand_count=F("hand_count") + hands,
            last_game=Greatest(Coalesce(F("last_game"), Value(0)), Value(game.pk)),
        )
    by_label = {version_label(version): version for version in versions}
    for result in results:
        _add_pair(result, by_label[result.first], by_label[result.second])


def _add_pair(result: GameResult, one: BotVersion, other: BotVersion) -> None:
    """One comparison into its pair's row (``first`` the smaller number: its side)."""
    first, second = (one, other) if one.pk < other.pk else (other, one)
    adjusted = result.score_for(version_label(first))
    raw = result.raw_for(version_label(first))
    PairSumsRow.objects.bulk_create(
        [PairSumsRow(first=first, second=second)], ignore_conflicts=True
    )
    PairSumsRow.objects.filter(first=first, second=second).update(
        game_count=F("game_count") + 1,
        information=F("information") + result.weight,
        weighted_sum=F("weighted_sum") + result.weight * adjusted,
        adjusted_sum=F("adjusted_sum") + adjusted,
        adjusted_squares=F("adjusted_squares") + adjusted * adjusted,
        raw_sum=F("raw_sum") + raw,
        raw_squares=F("raw_squares") + raw * raw,
        hand_count=F("hand_count") + result.hand_count,
    )


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


def row_sums(row: PairSumsRow) -> PairSums:
    """One row's sums as they are stored: from its ``first``'s side, by the labels."""
    values = {name: getattr(row, name) for name in _SUMS}
    return PairSums(version_label(row.first), version_label(row.second), **values)


#: A pair's sums as :class:`arena.ladder.sums.PairSums` and the row name them.
_SUMS = ("game_count", "information", "weighted_sum", "adjusted_sum", "adjusted_squares",
         "raw_sum", "raw_squares", "hand_count")  # fmt: skip
