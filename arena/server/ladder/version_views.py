"""A version's ladder page and its API: its games, its faults with their reasons, the
hands and the version's own stderr (its team's only), its rating history and its promotion
tests with their chart. The version is looked up through
:func:`arena.server.site.scope.visible`: another team's version is 404."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe

from arena.server.current import is_frozen_now
from arena.server.ladder.chart import llr_chart, rating_chart
from arena.server.ladder.models import (
    Game,
    LadderTeamSettings,
    OwnFaults,
    PromotionTest,
    Rating,
    RatingPoint,
    version_label,
)
from arena.server.ladder.state import active_versions, plays_in, with_seats
from arena.server.ladder.value_fits import fit_summary
from arena.server.ladder.views import published_seed, rounded, table_seats
from arena.server.site.models import BotVersion, Team, VersionStatus
from arena.server.site.scope import requesting_team, visible


def _game_row(game: Game, version: BotVersion, own: OwnFaults | None) -> dict[str, Any]:
    seats = table_seats(game)
    if seats:  # a table: every other version at it
        label = version_label(version)
        opponent = ", ".join(seat["bot"] for seat in seats if seat["bot"] != label)
    else:
        opponent = version_label(game.second if game.first_id == version.pk else game.first)
    return {
        "game": game,
        "opponent": opponent,
        "score": rounded(game.score_for(version.pk)),
        "raw": rounded(game.raw_for(version.pk)),
        "at_fault": game.is_at_fault(version.pk),
        "faults": (game.faults or {}).get(version_label(version), {}),
        "own_faults": [] if own is None else own.faults,
        "stderr": "" if own is None else own.stderr,
        "seed": published_seed(game),
        "seats": seats,
        "matches": game.match_numbers(),
    }


def _game_rows(team: Team | None, version: BotVersion) -> list[dict[str, Any]]:
    """The version's last 200 games (heads-up or at a table), newest first, each with the
    version's own faults as ``team`` may read them (:func:`visible`: its own version's
    only; another version's at the same game never comes into the row)."""
    games = list(
        with_seats(Game.objects.filter(plays_in(version)))
        .select_related("value_fit")
        .order_by("-pk")[:200]
    )
    own = {
        row.game_id: row for row in visible(team, OwnFaults).filter(version=version, game__in=games)
    }
    return [_game_row(game, version, own.get(game.pk)) for game in games]


#: The most points of a rating history a page draws or the API lists (the newest).
HISTORY_POINTS = 500


def rating_history(version: BotVersion) -> list[dict[str, Any]]:
    """The version's rating after each recorded fit (:class:`RatingPoint`), oldest first:
    the newest :data:`HISTORY_POINTS`, and last its rating now (the last fit's
    :class:`Rating`) where it is newer than the last recorded point (points are recorded at
    most every few minutes; the rating now must not read as the one of an hour ago)."""
    points = RatingPoint.objects.filter(version=version).order_by("-at")[:HISTORY_POINTS]
    rows = [
        (point.at, point.strength, point.low, point.high, point.place, point.game_count)
        for point in reversed(points)
    ]
    now = Rating.objects.filter(version=version).first()
    if now is not None and (not rows or rows[-1][1:] != _point_of(now)[1:]):
        rows.append(_point_of(now))
    return [
        {
            "at": at.isoformat(),
            "time": at.timestamp(),
            "rating": rounded(strength),
            "low": rounded(low),
            "high": rounded(high),
            "plus_minus": rounded((high - low) / 2.0),
            "place": place,
            "games": games,
        }
        for at, strength, low, high, place, games in rows[-HISTORY_POINTS:]
    ]


def _point_of(rating: Rating) -> tuple[datetime, float, float, float, int, int]:
    return (rating.updated, rating.strength, rating.low, rating.high, rating.place,
            rating.game_count)  # fmt: skip


def version_page(request: HttpRequest, version_id: int) -> HttpResponse:
    """A version's ladder page, for its team (another team: 404)."""
    team = requesting_team(request)
    version = get_object_or_404(visible(team, BotVersion).select_related("team"), pk=version_id)
    rows = _game_rows(team, version)
    tests = [
        # No chart before the first game: its bounds are not set yet.
        {"test": test, "chart": mark_safe(
            llr_chart(test.llr_history, lower=test.lower_bound, upper=test.upper_bound)
        ) if test.game_count else ""}
        for test in PromotionTest.objects.filter(candidate=version).select_related(
            "incumbent__team").order_by("-pk")
    ]  # fmt: skip
    opponents = [v for v in active_versions() if v.pk != version.pk]
    history = rating_history(version)
    chart = rating_chart([(p["time"], p["rating"], p["low"], p["high"]) for p in history])
    context = {
        "history": history,
        "history_chart": mark_safe(chart),  # numbers only (chart module)
        "version": version,
        "label": version_label(version),
        "rows": rows,
        "faults": [row for row in rows if row["at_fault"] or row["faults"] or row["own_faults"]],
        "tests": tests,
        "opponents": opponents,
        "settings": LadderTeamSettings.of(version.team),
        "can_test": version.status == VersionStatus.ACCEPTED
        and version.team.active_version_id not in (None, version.pk),
        "is_accepted": version.status == VersionStatus.ACCEPTED,
        "is_frozen": is_frozen_now(),
    }
    return render(request, "ladder/version.html", context)


def api_version(request: HttpRequest, version_id: int) -> JsonResponse:
    """``GET /api/v1/ladder/versions/<id>/``: a version's ladder games, faults (with the
    version's own reasons, hands and stderr: ``fault_details``, ``stderr``) and promotion
    tests, for its team (a bearer token or a session; anyone else: 404)."""
    team = requesting_team(request)
    version = visible(team, BotVersion).select_related("team").filter(pk=version_id).first()
    if version is None:
        return JsonResponse({"error": "no such version"}, status=404)
    rows = _game_rows(team, version)
    return JsonResponse(
        {
            "version": version_label(version),
            "games": [
                {
                    "id": row["game"].pk,
                    "kind": row["game"].kind,
                    "status": row["game"].status,
                    "opponent": row["opponent"],
                    "adjusted_mbb": row["score"],
                    "raw_mbb": row["raw"],
                    "estimator": row["game"].estimator,
                    # The fit of the estimator's weights it was played with (None: the
                    # shipped ones), and the earlier games that fit was made on.
                    "value_fit": fit_summary(row["game"].value_fit),
                    "at_fault": row["at_fault"],
                    "faults": row["faults"],
                    # The version's own: each fault's reason and hand, its stderr.
                    "fault_details": row["own_faults"],
                    "stderr": row["stderr"],
                    "reason": row["game"].end_reason,
                    "seed": row["seed"],
                    "seats": row["seats"],
                    "matches": row["matches"],
                }
                for row in rows
            ],
            "rating_history": [
                {key: value for key, value in point.items() if key != "time"}
                for point in rating_history(version)
            ],
            "promotion_tests": [
                {
                    "incumbent": version_label(test.incumbent),
                    "status": test.status,
                    "games": test.game_count,
                    "llr": test.llr,
                    "bounds": [test.lower_bound, test.upper_bound],
                    "llr_history": test.llr_history,
                    "activated": test.activated,
                }
                for test in PromotionTest.objects.filter(candidate=version)
                .select_related("incumbent__team")
                .order_by("-pk")
            ],
        }
    )
