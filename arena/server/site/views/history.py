"""A team's and a version's match history, as a page and in the API (the same rows, the
same filters: ``?opponent=``, ``?result=won|lost|even``, ``?faults=1``, ``?page=``), and a
version's every hand in one streamed download (in any of
:data:`arena.server.site.downloads.FORMATS`).

A team's history lists the matches its requester may see
(:func:`arena.server.site.scope.visible`); a version's is its team's only (another team's
version is 404). The rows are :func:`arena.server.site.history.row_data`'s.
"""

from __future__ import annotations

from typing import Any

from django.core.paginator import Page
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from arena.server.competition import Visibility
from arena.server.site.downloads import FORMATS, OwnMatch, iter_matches_exported
from arena.server.site.history import (
    RESULT_UNITS,
    RESULTS,
    HistoryFilter,
    HistoryQueryError,
    history_page,
    opponent_names,
    row_data,
    team_seats,
    version_seats,
)
from arena.server.site.models import BotVersion, Match, MatchSeat, SiteSettings, Team
from arena.server.site.scope import requesting_team, visible


def _links(request: HttpRequest, wanted: HistoryFilter, page: Page[MatchSeat]) -> dict[str, Any]:
    """The previous and next pages' URLs, the filter kept (None at either end)."""

    def url(number: int) -> str:
        return f"{request.path}?{urlencode({**wanted.as_query(), 'page': str(number)})}"

    return {
        "previous": url(page.previous_page_number()) if page.has_previous() else None,
        "next": url(page.next_page_number()) if page.has_next() else None,
    }


def _history(
    request: HttpRequest, seats: QuerySet[MatchSeat]
) -> tuple[HistoryFilter, Page[MatchSeat]]:
    wanted = HistoryFilter.from_query(request.GET)
    return wanted, history_page(seats, wanted)


def _page(
    request: HttpRequest, seats: QuerySet[MatchSeat], context: dict[str, Any]
) -> HttpResponse:
    context |= {"results": list(RESULTS), "opponents": opponent_names(seats),
                "units": RESULT_UNITS}  # fmt: skip
    try:
        wanted, page = _history(request, seats)
    except HistoryQueryError as error:
        context |= {"error": str(error), "wanted": HistoryFilter(), "rows": []}
        return render(request, "arena/history.html", context, status=400)
    context |= {"wanted": wanted, "page": page, "rows": [row_data(seat) for seat in page],
                **_links(request, wanted, page)}  # fmt: skip
    return render(request, "arena/history.html", context)


def _json(request: HttpRequest, seats: QuerySet[MatchSeat]) -> JsonResponse:
    try:
        wanted, page = _history(request, seats)
    except HistoryQueryError as error:
        return JsonResponse({"error": str(error)}, status=400)
    return JsonResponse(
        {
            "matches": [row_data(seat) for seat in page],
            "filters": wanted.as_query(),
            "page": page.number,
            "pages": page.paginator.num_pages,
            "count": page.paginator.count,
            # Each row's result is the seat's own: chips won, raw and luck-adjusted.
            "units": RESULT_UNITS,
            **_links(request, wanted, page),
        }
    )


def team_matches(request: HttpRequest, team_id: int) -> HttpResponse:
    """``/teams/<id>/matches/``: the team's match history (the matches the requester may
    see), filtered and paged."""
    mine = requesting_team(request)
    team = get_object_or_404(visible(mine, Team), pk=team_id)
    is_mine = mine is not None and mine.pk == team.pk
    context = {"title": f"{team.name}: matches", "team": team, "is_mine": is_mine}
    return _page(request, team_seats(mine, team), context)


def version_matches(request: HttpRequest, version_id: int) -> HttpResponse:
    """``/versions/<id>/matches/``: one of the team's versions' match history, with its
    hands to download in bulk."""
    mine = requesting_team(request)
    version = get_object_or_404(visible(mine, BotVersion).select_related("team"), pk=version_id)
    context = {"title": f"{version}: matches", "team": version.team, "is_mine": True,
               "version": version, "formats": list(FORMATS)}  # fmt: skip
    return _page(request, version_seats(version), context)


@require_GET
def api_team_matches(request: HttpRequest, team_id: int) -> JsonResponse:
    """``GET /api/v1/teams/<id>/matches/``: :func:`team_matches` as JSON."""
    mine = requesting_team(request)
    team = visible(mine, Team).filter(pk=team_id).first()
    if team is None:
        return JsonResponse({"error": f"no team {team_id}"}, status=404)
    return _json(request, team_seats(mine, team))


@require_GET
def api_version_matches(request: HttpRequest, version_id: int) -> JsonResponse:
    """``GET /api/v1/versions/<id>/matches/``: :func:`version_matches` as JSON (its team
    only: anyone else 404)."""
    version = visible(requesting_team(request), BotVersion).filter(pk=version_id).first()
    if version is None:
        return JsonResponse({"error": f"no version {version_id}"}, status=404)
    return _json(request, version_seats(version))


@require_GET
def version_hands(
    request: HttpRequest, version_id: int, fmt: str
) -> StreamingHttpResponse | JsonResponse:
    """``GET /api/v1/versions/<id>/hands.<fmt>``: every hand of every match the version
    played, streamed match by match, hand by hand, the other seats' cards hidden by the
    rule of the single match's download (the team's own seats in each match; its team
    only: anyone else 404)."""
    team = requesting_team(request)
    version = visible(team, BotVersion).filter(pk=version_id).first()
    if version is None or fmt not in FORMATS:
        return JsonResponse(
            {
                "error": f"no hands of version {version_id} as {fmt!r} for this team "
                f"(formats: {', '.join(FORMATS)})"
            },
            status=404,
        )
    matches = Match.objects.filter(seats__version=version).distinct()
    # Read now, not while streaming: the response's generator only reads hand files.
    own: dict[int, set[int]] = {}
    for match_id, seat in MatchSeat.objects.filter(
        Q(team=team) | Q(version__team=team), match__in=matches
    ).values_list("match_id", "seat_index"):
        own.setdefault(match_id, set()).add(seat)
    wanted = [
        OwnMatch(match.pk, match.hands_file, frozenset(own.get(match.pk, ())))
        for match in matches.order_by("pk").only("pk", "hands_file")
    ]
    visibility = Visibility(SiteSettings.current().visibility)
    response = StreamingHttpResponse(
        iter_matches_exported(wanted, fmt, visibility=visibility),
        content_type="text/plain; charset=utf-8",
    )
    name = f"{version.team.name}-v{version.number}{FORMATS[fmt]}"
    response.headers["Content-Disposition"] = f'attachment; filename="{_safe(name)}"'
    response.headers["Cache-Control"] = "private, no-store"
    return response


def _safe(name: str) -> str:
    """A file name a header can carry (a team's name may hold any character)."""
    return "".join(char if char.isalnum() or char in "._-" else "_" for char in name)
