"""The ladder's pages and API: the ladder (ratings with their intervals, the chance each
version is above the next, every pair's result raw and luck-adjusted, the last ring tables
with each version's score) and the finals (a version's ladder page is
:mod:`arena.server.ladder.version_views`) (the forms a team posts are
:mod:`arena.server.ladder.actions`). Every version is looked up through
:func:`arena.server.site.scope.visible`: another team's version is 404."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db.models import Func, QuerySet, Subquery
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from arena.report.page import CONTENT_SECURITY_POLICY as REPORT_POLICY
from arena.server.competition import Visibility
from arena.server.ladder.finals import public_report
from arena.server.ladder.models import (
    FinalsRun,
    FinalsStatus,
    Game,
    GameStatus,
    PairSumsRow,
    Rating,
    RatingFit,
    TableSeat,
    label_of,
    version_label,
)
from arena.server.ladder.state import with_seats
from arena.server.ladder.sums import row_sums
from arena.server.site.context_processors import current_title
from arena.server.site.drawn_pages import DrawnPages, answer, is_storable
from arena.server.site.head_to_head import head_to_head
from arena.server.site.models import SiteSettings, Team
from arena.server.site.scope import requesting_team
from arena.server.site.statements import Statement, as_datetime


def rounded(value: float | None, digits: int = 1) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)


@dataclass(frozen=True, slots=True)
class LadderStamp:
    """What an answer of the ladder is drawn from, read for every request (three small
    queries, no game read): the last fit's time (None before the first) and the games
    it counted, whether the site's visibility hides the games, and the games in flight."""

    fitted: datetime | None
    games_played: int
    hides_games: bool
    in_flight: int


def _stamp_query() -> QuerySet[SiteSettings]:
    """:func:`ladder_stamp`'s one query: the site's settings row with the fit's time and
    games and the games in flight."""
    fit = RatingFit.objects.filter(pk=1).exclude(fitted=None)
    in_flight = (
        Game.objects.filter(status__in=(GameStatus.QUEUED, GameStatus.CLAIMED))
        .order_by()
        .values(n=Func("pk", function="COUNT"))
    )
    return SiteSettings.objects.filter(pk=1).values_list(
        "visibility",
        Subquery(fit.values("fitted")),
        Subquery(fit.values("game_count")),
        Subquery(in_flight),
    )


_STAMP = Statement(_stamp_query)


def ladder_stamp() -> LadderStamp:
    """The ladder's :class:`LadderStamp` now: one query, compiled once (most of a kept
    page's cost is its query)."""
    rows = _STAMP.rows()
    if not rows:  # no settings row yet: made with the defaults, then read again
        SiteSettings.current()
        rows = _STAMP.rows()
    visibility, fitted, games, count = rows[0]
    return LadderStamp(as_datetime(fitted), games or 0,
                       Visibility(visibility) is Visibility.NOTHING, count)  # fmt: skip


def read_fit(stamp: LadderStamp) -> dict[str, Any]:
    """What the fit the ``stamp`` names wrote, as the pages show it (:func:`_as_fitted`,
    with the fit's time as ``fitted`` and its games as ``games_played``): read once per
    fit, visibility and process. While one thread reads a new fit, the others get the last
    one read under the same visibility (its own ``fitted`` says which: a page is kept by
    the fit it shows), rather than wait for the read; under another visibility they wait."""
    hides_games, when = stamp.hides_games, stamp.fitted
    key = None if when is None else (when, hides_games)
    cached = _LAST_READ.get("fit")
    if key is not None and cached is not None and cached[0] == key:
        return cached[1]
    if key is not None and cached is not None and cached[0][1] == hides_games:
        if not _READING.acquire(blocking=False):
            return cached[1]  # another thread reads the new fit: the last one meanwhile
    else:
        _READING.acquire()  # one thread reads a new fit; the others wait, not read it too
    try:
        cached = _LAST_READ.get("fit")
        if key is not None and cached is not None and cached[0] == key:
            return cached[1]
        data = _as_fitted(hides_games)
        data["fitted"] = None if when is None else when.isoformat()
        data["games_played"] = stamp.games_played
        if key is not None:
            _LAST_READ["fit"] = (key, data)  # one assignment: safe between threads
        return data
    finally:
        _READING.release()


def ladder_data(
    team: Team | None = None,
    page: int = 1,
    stamp: LadderStamp | None = None,
    fit: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ladder as the page and the API show it (public: ratings and pair results), read
    from the last stored fit and the running sums: no request fits or reads every game.
    The ratings come :data:`RATINGS_PER_PAGE` to a ``page`` (``pages`` of them; ``team``'s
    own rows are marked ``is_mine``, and ``my_pages`` says on which pages they are); the
    pairs shown are the :data:`PAIRS_SHOWN` most played (``pair_count`` says how many
    there are). With the site's visibility ``nothing`` no game is anyone else's
    business: the ratings stay, each pair's games and hands and the tables' results go.
    The ``stamp`` (:func:`ladder_stamp`, read now when not given) says which fit and
    visibility, the ``fit`` is what it wrote (:func:`read_fit` of the stamp when not
    given). A page past the last raises :class:`PageNotFound` naming it."""
    stamp = stamp or ladder_stamp()
    data = fit or read_fit(stamp)
    hides_games = stamp.hides_games
    rated = data["ratings"]
    pages = max(1, math.ceil(len(rated) / RATINGS_PER_PAGE))
    if not 1 <= page <= pages:
        raise PageNotFound(f"page {page} does not exist: the ladder has pages 1 to {pages}")
    mine = None if team is None else team.pk
    shown = rated[(page - 1) * RATINGS_PER_PAGE : page * RATINGS_PER_PAGE]
    ratings = [{**row, "is_mine": row["team_id"] == mine} for row in shown]
    my_pages = sorted({1 + (place - 1) // RATINGS_PER_PAGE
                       for place in data["places_of_team"].get(mine, ())})  # fmt: skip
    extra = {"in_flight": stamp.in_flight, "ratings": ratings, "page": page, "pages": pages,
             "per_page": RATINGS_PER_PAGE, "rated": len(rated), "my_pages": my_pages,
             "hides_games": hides_games}  # fmt: skip
    return {key: value for key, value in data.items() if key != "places_of_team"} | extra


#: The ratings a page of the ladder (and of its API) lists: a thousand versions' rows are
#: a thousand table rows to draw for every reader, and nobody reads them at once.
RATINGS_PER_PAGE = 50


class PageNotFound(ValueError):
    """A page of the ladder that does not exist (its message names it and the range)."""


def _page(request: HttpRequest) -> int:
    """The ``page`` the request asks for (1 without one); not a whole number: ValueError
    naming it."""
    text = request.GET.get("page", "1")
    try:
        return int(text)
    except ValueError:
        raise PageNotFound(f"page must be a whole number, got {text!r}") from None


#: The last fit's rows as :func:`_as_fitted` read them, by the fit's time and visibility.
_LAST_READ: dict[str, tuple[tuple[datetime, bool], dict[str, Any]]] = {}
_READING = threading.Lock()


def _as_fitted(hides_games: bool) -> dict[str, Any]:
    """The ratings, the most played pairs and the last tables, as the last fit left them."""
    # Plain values, not a model per row (nor each row's covariances): a thousand rows are
    # read at every fit, while the pages wait for them.
    columns = ("place", "version_id", "version__number", "version__team__name",
               "version__team_id", "strength", "low", "high", "game_count",
               "chance_above_next")  # fmt: skip
    ratings = [
        {
            "place": place,
            "bot": label_of(team, number),
            "version_id": version_id,
            "team": team,
            "team_id": team_id,
            "rating": rounded(strength),
            "plus_minus": rounded((high - low) / 2.0),
            "low": rounded(low),
            "high": rounded(high),
            "games": games,
            "chance_above_next": rounded(chance, 3),
        }
        for place, version_id, number, team, team_id, strength, low, high, games, chance in (
            Rating.objects.values_list(*columns)
        )
    ]
    rows = PairSumsRow.objects.select_related("first__team", "second__team")
    pairs = []
    # The most played pairs' ids first, then those rows with their teams: sorting the pairs
    # joined to their teams would join every pair (a hundred thousand) to sort them.
    most_played = PairSumsRow.objects.order_by("-game_count", "pk").values_list("pk", flat=True)
    shown = [] if hides_games else rows.filter(pk__in=list(most_played[:PAIRS_SHOWN]))
    for row in shown:
        sums = row_sums(row)
        adjusted, raw = sums.adjusted_estimate(), sums.raw_estimate()
        pairs.append(
            {
                "first": sums.first,
                "second": sums.second,
                "games": row.game_count,
                "hands": row.hand_count,
                "adjusted": rounded(adjusted.mean),
                "adjusted_plus_minus": rounded(adjusted.half_width),
                "raw": rounded(raw.mean),
                "raw_plus_minus": rounded(raw.half_width),
                "luck": rounded(raw.mean - adjusted.mean),
            }
        )
    pairs.sort(key=lambda pair: (pair["first"], pair["second"]))
    top = ratings[:GRID_SIZE]
    ids = [row["version_id"] for row in top]
    grid_sums = map(row_sums, [] if hides_games else rows.filter(first__in=ids, second__in=ids))
    names = [str(row["bot"]) for row in top]
    grid = head_to_head({(s.first, s.second): s for s in grid_sums}, names)
    tables = [] if hides_games else _recent_tables()
    places: dict[int, list[int]] = {}
    for rating in ratings:
        places.setdefault(int(str(rating["team_id"])), []).append(int(str(rating["place"])))
    return {"ratings": ratings, "pairs": pairs, "grid": grid, "places_of_team": places,
            "pair_count": 0 if hides_games else rows.count(),
            "tables": [{"id": game.pk, "kind": game.kind, "status": game.status,
                        "seats": table_seats(game)} for game in tables]}  # fmt: skip


def _recent_tables() -> list[Game]:
    """The last :data:`_RECENT_TABLES` ring tables over, newest first, found from their
    seats (only a table has :class:`TableSeat` rows): a filter on the games' seat count
    would read every game there is, a million of them, at every fit."""
    over = (GameStatus.DONE, GameStatus.BOT_FAULT)
    ids = list(
        TableSeat.objects.filter(game__status__in=over)
        .order_by("-game_id")
        .values_list("game_id", flat=True)
        .distinct()[:_RECENT_TABLES]
    )
    return list(with_seats(Game.objects.filter(pk__in=ids)).order_by("-pk"))


#: The head-to-head grid's versions: the best rated (a grid of a thousand would fit no page).
GRID_SIZE = 12


#: The pairs the ladder page and its API list, the most played first.
PAIRS_SHOWN = 50


#: The ring tables the ladder page lists (the last ones over).
_RECENT_TABLES = 20


def _visibility() -> Visibility:
    return Visibility(SiteSettings.current().visibility)


def published_seed(game: Game) -> str | None:
    """The game's deck seed as its versions' teams may read it: only once the game is
    over and only where the site's visibility is ``everything``. Under any other
    visibility the seed would deal every card again (``arena match --seed`` replays the
    same deals), the ones the hand histories hide included (a duplicate game shows each
    team every seat's hole cards in one half or another; the seed adds the rest of each
    deck: the boards a fold left undealt), so it is never published; the organiser
    keeps it (the admin)."""
    if not game.is_over or _visibility() is not Visibility.EVERYTHING:
        return None
    return game.seed


def table_seats(game: Game) -> list[dict[str, Any]]:
    """A table's versions in seat order, each with its score (luck-adjusted and raw
    mbb/hand; None without a result) and whether it did not start; heads-up: none."""
    return [
        {
            "bot": version_label(seat.version),
            "adjusted_mbb": rounded(seat.adjusted_mbb),
            "raw_mbb": rounded(seat.raw_mbb),
            "at_fault": seat.at_fault,
        }
        for seat in game.seats_in_order()
    ]


def ladder_page(request: HttpRequest) -> HttpResponse:
    """The ladder: ratings (``?page=``), chances, pairs; a page that does not exist: 404
    naming it. A reader without a logged-in user gets the page as kept
    (:mod:`arena.server.site.drawn_pages`: drawn once per fit, games in flight,
    visibility, page and team, and the competition's title in its heading); a logged-in
    user's page (their name, their log-out form) is drawn for them around the tables,
    which are drawn once per fit, page and team (:func:`_ladder_tables`)."""
    team = requesting_team(request)
    try:
        page = _page(request)
    except PageNotFound as error:
        return _not_found(error)
    stamp = ladder_stamp()
    fit = read_fit(stamp)
    if stamp.fitted is None or not is_storable(request):
        return _draw_ladder_page(request, team, page, stamp, fit)
    key = ("ladder", _shown(stamp, fit), page, None if team is None else team.pk,
           current_title())  # fmt: skip
    drawn = _PAGES.found(key, lambda: _draw_ladder_page(request, team, page, stamp, fit))
    return answer(request, drawn, shared=team is None)


def _shown(stamp: LadderStamp, fit: dict[str, Any]) -> tuple[str, int, bool, int]:
    """What a kept answer of the ladder shows, for its key: the fit it shows (the one
    read: :func:`read_fit`), the visibility and the games in flight."""
    return (fit["fitted"], fit["games_played"], stamp.hides_games, stamp.in_flight)


def _draw_ladder_page(
    request: HttpRequest, team: Team | None, page: int, stamp: LadderStamp, fit: dict[str, Any]
) -> HttpResponse:
    try:
        data = ladder_data(team, page, stamp, fit)
    except PageNotFound as error:
        return _not_found(error)
    tables = mark_safe(_ladder_tables(request, data, team, page))
    return render(request, "ladder/ladder.html", {"data": data, "tables": tables})


def _not_found(error: PageNotFound) -> HttpResponse:
    return HttpResponse(str(error), status=404, content_type="text/plain; charset=utf-8")


def _ladder_tables(request: HttpRequest, data: dict[str, Any], team: Team | None,
                   page: int) -> str:  # fmt: skip
    """The ladder page's tables (most of its drawing: a hundred rows and the grid), drawn
    once per fit, visibility, page and reader's team and kept until the next fit."""
    key = (data["fitted"], data["hides_games"], page, None if team is None else team.pk)
    tables = _DRAWN.get(key) if data["fitted"] is not None else None
    if tables is None:
        tables = render_to_string("ladder/ladder_tables.html", {"data": data}, request)
        if data["fitted"] is not None:
            if len(_DRAWN) >= _DRAWN_MOST or any(kept[0] != key[0] for kept in _DRAWN):
                _DRAWN.clear()  # another fit's (or too many teams'): drawn again
            _DRAWN[key] = tables
    return tables


#: The ladder page's tables as drawn (:func:`_ladder_tables`), by fit, visibility, page
#: and team; at most :data:`_DRAWN_MOST` kept.
_DRAWN: dict[tuple[str | None, bool, int, int | None], str] = {}
_DRAWN_MOST = 512

#: The ladder's pages and API answers as kept (:func:`ladder_page`, :func:`api_ladder`).
_PAGES = DrawnPages(most=512)


def api_ladder(request: HttpRequest) -> HttpResponse:
    """``GET /api/v1/ladder/``: :func:`ladder_data` (``?page=``; a page that does not
    exist: 404 naming it), kept as drawn per fit, games in flight, visibility, page and
    team (a team's answer marks its own rows: it is that team's, ``private``)."""
    team = requesting_team(request)
    try:
        page = _page(request)
    except PageNotFound as error:
        return JsonResponse({"error": str(error)}, status=404)
    stamp = ladder_stamp()
    fit = read_fit(stamp)

    def draw() -> HttpResponse:
        try:
            return JsonResponse(ladder_data(team, page, stamp, fit))
        except PageNotFound as error:
            return JsonResponse({"error": str(error)}, status=404)

    if stamp.fitted is None:
        return draw()
    key = ("api", _shown(stamp, fit), page, None if team is None else team.pk)
    return answer(request, _PAGES.found(key, draw), shared=team is None)


def finals_page(request: HttpRequest) -> HttpResponse:
    """The finals' standings and crosstable, once played."""
    run = FinalsRun.objects.filter(status=FinalsStatus.DONE).order_by("-pk").first()
    context: dict[str, Any] = {"run": run, "rows": [], "bots": [], "cells": {}}
    if run is not None:
        standings = run.standings or {}
        leaderboard = standings.get("leaderboard") or {}
        # The rows are ranked by the standings' score: the number shown is that score's,
        # named as such (the rows' plain ``mbb_per_hand`` is the raw one).
        shown, context["kind"] = _scored(leaderboard.get("score"))
        context["rows"] = [{**row, "shown": row.get(shown) or {}}
                           for row in leaderboard.get("rows", [])]  # fmt: skip
        crosstable = standings.get("crosstable") or {}
        bots = list(crosstable.get("bots", []))
        cell_shown, context["cell_kind"] = _scored(crosstable.get("score"))
        cells = {(cell["row"], cell["column"]): (cell.get(cell_shown) or {})
                 for cell in crosstable.get("cells", [])}  # fmt: skip
        context["bots"] = bots
        context["grid"] = [(row, [cells.get((row, column)) for column in bots]) for row in bots]
    return render(request, "ladder/finals.html", context)


def _scored(score: object) -> tuple[str, str]:
    """The key of a standings row's (or cell's) estimate of ``score``, and its name."""
    if score == "adjusted":
        return "adjusted_mbb_per_hand", "luck-adjusted mbb/hand"
    return "mbb_per_hand", "raw mbb/hand"


def finals_report(request: HttpRequest) -> HttpResponse:
    """The finals' report (the tournament report's page, with its own policy): its public
    copy under the site's visibility now (:func:`arena.server.ladder.finals.public_report`,
    drawn again once it changes), the organiser's whole one to staff only."""
    run = FinalsRun.objects.filter(status=FinalsStatus.DONE).order_by("-pk").first()
    if run is None or not run.report_file:
        raise Http404("no finals yet")
    whole = Path(run.report_file)
    is_organiser = request.user.is_authenticated and request.user.is_staff
    try:
        visibility = Visibility(SiteSettings.current().visibility)
        page = (whole if is_organiser else public_report(whole, visibility)).read_bytes()
    except OSError:
        raise Http404("the report is gone") from None
    response = HttpResponse(page, content_type="text/html; charset=utf-8")
    response.headers["Content-Security-Policy"] = REPORT_POLICY
    return response
