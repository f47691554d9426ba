"""The site's pages: the protocol and the starter bots to download (which the overview,
:mod:`arena.server.ladder.overview_page`, links to), the leaderboard, a team's page, a
version's page (its validation, live), the upload form, a match's page and its hand
viewer."""

from __future__ import annotations

import math
from pathlib import Path

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Max, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from arena.report.page import CONTENT_SECURITY_POLICY as VIEWER_POLICY
from arena.server.competition import Visibility
from arena.server.overview import STARTERS_DIR, starter_bots
from arena.server.site.context_processors import current_title
from arena.server.site.downloads import FORMATS
from arena.server.site.drawn_pages import DrawnPage, DrawnPages, answer, is_current, is_storable
from arena.server.site.forms import UploadForm
from arena.server.site.matches import (
    match_data,
    own_seats,
    version_results,
    viewer_etag,
    viewer_page,
    viewer_title,
)
from arena.server.site.models import (
    BotVersion,
    LeaderboardRow,
    Match,
    Membership,
    SiteSettings,
    Team,
)
from arena.server.site.scope import identified, is_own_match, requesting_team, visible
from arena.server.site.statements import Statement
from arena.server.site.versions import (
    UploadRefused,
    UploadTooSoon,
    activate,
    identical_version,
    plays_now,
    request_activation,
    store_upload,
)
from arena.server.site.viewer_store import audience, is_public, match_stamp, stored_viewer
from arena.server.site.views.accounts import limited_address
from arena.uploads import pack

#: How long anyone's cache may keep the public hand viewer before asking again (its ETag
#: then answers 304 while the match is unchanged).
VIEWER_MAX_AGE_S = 300
#: The protocol's document, which the overview links to.
PROTOCOL_FILE = Path(__file__).resolve().parents[4] / "protocol" / "PROTOCOL.md"


def no_icon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, which browsers ask for: nothing (rather than a 404 in their log)."""
    return HttpResponse(status=204, headers={"Cache-Control": "max-age=86400"})


#: The rows of each board one page of the leaderboard lists (a ladder of a thousand
#: versions is a thousand rows to draw for every visitor).
BOARD_ROWS_PER_PAGE = 50


def leaderboard(request: HttpRequest) -> HttpResponse:
    """Every leaderboard, best first, :data:`BOARD_ROWS_PER_PAGE` rows of each to a page
    (``?page=``; not a whole number from 1: 400 naming it). A reader without a logged-in
    user gets the page as kept (:mod:`arena.server.site.drawn_pages`), drawn again once a
    board's rows change (each board's count, last row and last change: one query) or
    the competition's title does. A team renamed while its board's rows stay shows its
    new name at the board's next write (the ladder's: its next fit)."""
    text = request.GET.get("page", "1")
    page = int(text) if text.isdigit() else 0
    if page < 1:
        return HttpResponse(f"page must be a whole number from 1, got {text!r}", status=400)
    stamp = tuple(_BOARDS_STAMP.rows())
    sizes = {board: size for board, size, _, _ in stamp}
    if not is_storable(request):
        return _draw_leaderboard(request, page, sizes)
    key = ("leaderboard", stamp, page, current_title())
    return answer(request, _BOARDS.found(key, lambda: _draw_leaderboard(request, page, sizes)),
                  shared=True)  # fmt: skip


#: The leaderboard's pages as kept (:func:`leaderboard`).
_BOARDS = DrawnPages(most=256)
#: Each board's rows, last row and last change (the kept pages' stamp), by board.
_BOARDS_STAMP = Statement(
    lambda: (
        LeaderboardRow.objects.values_list("board")
        .annotate(rows=Count("pk"), last=Max("pk"), changed=Max("updated"))
        .order_by("board")
    )
)


def _draw_leaderboard(request: HttpRequest, page: int, sizes: dict[str, int]) -> HttpResponse:
    start = (page - 1) * BOARD_ROWS_PER_PAGE
    boards = {
        board: list(
            LeaderboardRow.objects.filter(board=board)
            .select_related("team")
            .order_by("position", "pk")[start : start + BOARD_ROWS_PER_PAGE]
        )
        for board in sorted(sizes)
    }
    pages = max([1, *(math.ceil(size / BOARD_ROWS_PER_PAGE) for size in sizes.values())])
    context = {"boards": {board: rows for board, rows in boards.items() if rows},
               "rows_per_page": BOARD_ROWS_PER_PAGE, "page": page, "pages": pages}  # fmt: skip
    return render(request, "arena/leaderboard.html", context)


def team_page(request: HttpRequest, team_id: int) -> HttpResponse:
    """A team: public facts for all; its versions, code and tokens for its members."""
    team = get_object_or_404(visible(requesting_team(request), Team), pk=team_id)
    mine = requesting_team(request)
    is_mine = mine is not None and mine.pk == team.pk
    context = {
        "team": team,
        "is_mine": is_mine,
        "members": _members(request, team) if is_mine else [],
        "versions": visible(mine, BotVersion).filter(team=team).order_by("-number"),
        "matches": visible(mine, Match)
        .filter(Q(seats__team=team) | Q(seats__version__team=team))
        .distinct()
        .order_by("-pk")[:50],
    }
    return render(request, "arena/team.html", context)


def _members(request: HttpRequest, team: Team) -> list[tuple[Membership, bool]]:
    """The team's members, each with whether the requesting user may remove it."""
    members = list(team.memberships.select_related("user").order_by("joined", "pk"))
    mine = next((member for member in members if member.user_id == request.user.pk), None)
    alone = len(members) == 1
    return [(member, mine is not None and not alone and mine.may_remove(member))
            for member in members]  # fmt: skip


@login_required
def my_team(request: HttpRequest) -> HttpResponse:
    """The user's team page (or the page to make or join one)."""
    team = requesting_team(request)
    if team is None:
        return redirect("team-new")
    return team_page(request, team.pk)


def version_page(request: HttpRequest, version_id: int) -> HttpResponse:
    """One of the team's versions: its validation steps (refreshed while it runs), its
    verdict and its stderr."""
    version = get_object_or_404(visible(requesting_team(request), BotVersion), pk=version_id)
    context = {
        "version": version,
        "plays_now": plays_now(version),
        "steps": version.steps.all(),
        "results": version_results(version),
        "matches": Match.objects.filter(seats__version=version).distinct().order_by("-pk")[:50],
        "formats": list(FORMATS),
    }
    return render(request, "arena/version.html", context)


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    """The upload form: a new version of the team's bot."""
    team = requesting_team(request)
    if team is None:
        return redirect("team-new")
    form = UploadForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        archive = form.cleaned_data["archive"]
        try:
            limit = SiteSettings.current().upload_archive_bytes
            if archive.size > limit:  # refused before it is read
                raise UploadRefused(f"the archive is larger than the limit of {limit:,} bytes")
            wish = True if form.cleaned_data["activate"] else None
            data = archive.read()
            # The same archive again is that version: linked to it, not validated again.
            same = identical_version(team, data)
            if same is not None and wish:
                request_activation(team, same)
            version = same or store_upload(
                team, data, address=limited_address(request), activate=wish
            )
        except UploadRefused as refused:
            form.add_error("archive", str(refused))
            status = 429 if isinstance(refused, UploadTooSoon) else 400
        else:
            return redirect("version", version_id=version.pk)
    limits = SiteSettings.current().rules().archive_limits
    context = {"form": form, "limits": limits, "plays": team.active_version}
    return render(request, "arena/upload.html", context, status=status)


@identified
@require_POST
def make_active(request: HttpRequest, version_id: int) -> HttpResponse:
    """Make an accepted version the team's active one."""
    team = requesting_team(request)
    version = get_object_or_404(visible(team, BotVersion), pk=version_id)
    assert team is not None  # visible() found the version: the team is its owner
    try:
        activate(team, version)
    except UploadRefused:
        raise Http404("not an accepted version") from None
    return redirect("version", version_id=version.pk)


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """A match: its seats and results, and a link to its hands."""
    team = requesting_team(request)
    match = get_object_or_404(visible(team, Match), pk=match_id)
    context = {"match": match, "data": match_data(match), "is_own": is_own_match(team, match),
               "formats": list(FORMATS)}  # fmt: skip
    return render(request, "arena/match.html", context)


def match_hands(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match's hands in the report's hand viewer (its own page and policy), drawn
    from the stored document of the requester's audience
    (:mod:`arena.server.site.viewer_store`: the hands are replayed once, not per request).
    The page's ETag answers a repeated request with 304; only the document everyone at no
    seat shares may be kept by a shared cache, a team's own view (its own cards) is
    ``private``. The page is drawn once per match, audience, match's stamp and title,
    and kept with its gzip (:mod:`arena.server.site.drawn_pages`)."""
    team = requesting_team(request)
    match = get_object_or_404(visible(team, Match), pk=match_id)
    visibility = Visibility(SiteSettings.current().visibility)
    seats = own_seats(team, match)
    key = (match.pk, audience(seats, visibility), match_stamp(match), viewer_title(match))
    kept = _VIEWERS.get(key)
    page: DrawnPage | HttpResponse
    if kept is not None:
        page = kept
    else:
        stored = stored_viewer(match, seats=seats, visibility=visibility)
        etag = viewer_etag(match, stored.digest)
        if is_current(request, etag):
            # Neither the document read nor the page drawn: a page with only the ETag.
            page = DrawnPage(b"", None, "text/html; charset=utf-8", etag)
        else:
            drawn = HttpResponse(viewer_page(match, stored.document))
            drawn.headers["ETag"] = etag  # known without the page (viewer_etag)
            page = _VIEWERS.keep(key, drawn)
    shared = is_public(seats, visibility)
    response = answer(request, page, shared=shared, max_age=VIEWER_MAX_AGE_S if shared else 0)
    response.headers["Content-Security-Policy"] = VIEWER_POLICY
    return response


#: Hand viewer pages as drawn (:func:`match_hands`).
_VIEWERS = DrawnPages(most=64)


def protocol(request: HttpRequest) -> HttpResponse:
    """The protocol a bot speaks (``protocol/PROTOCOL.md``), as text."""
    text = PROTOCOL_FILE.read_text(encoding="utf-8")
    return HttpResponse(text, content_type="text/plain; charset=utf-8")


def starter(request: HttpRequest, name: str) -> HttpResponse:
    """A starter bot's folder as the tar.gz ``arena submit`` would upload."""
    if name not in starter_bots():
        raise Http404(f"no starter bot {name!r}")
    response = HttpResponse(pack(STARTERS_DIR / name), content_type="application/gzip")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}.tar.gz"'
    return response
