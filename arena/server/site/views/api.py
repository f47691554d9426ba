"""The JSON API (``/api/v1/``). A client authenticates with ``Authorization: Bearer
<token>``; the reading endpoints also take a logged-in browser's session. Every error is
``{"error": "..."}`` with a 4xx status; another team's object is 404, as a missing one.

``POST /api/v1/versions/`` (body: the archive's bytes, tar.gz or zip; ``?activate=true``
to play with it once accepted, ``false`` never by itself, left out: only when no version
of the team plays yet) answers ``201 {"id", "version", "status", "url", "is_active",
"active_version", "activate_when_accepted", "plays_now"}``; ``GET /api/v1/versions/<id>/``
answers the same with ``"steps": [{"step", "status", "message", "hint"}], "reason",
"hint"``. ``POST /api/v1/versions/<id>/activate/`` makes an accepted version active now,
or a waiting one once accepted, and answers the version. ``GET /api/v1/limits/`` answers
the site's upload limits by their competition-file key (``{"limits":
{"upload.archive_bytes": ...}}``), to anyone: ``arena submit`` applies them before it
sends. An upload identical to one of the team's versions (the same SHA-256) answers
``200`` with that version and ``"identical": true``: it is not validated again. ``arena
submit`` calls exactly these. A token of scope ``read`` reads only: its uploads and
activations are refused with 403.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from arena.export.sources import SourceError, open_source
from arena.server.competition import SITE_KEYS, Visibility, rules_attribute
from arena.server.site.downloads import FORMATS, export_hands
from arena.server.site.matches import match_data, own_seats
from arena.server.site.models import BotVersion, LeaderboardRow, Match, SiteSettings, Team
from arena.server.site.scope import is_own_match, may_upload, requesting_team, visible
from arena.server.site.tokens import bearer_token
from arena.server.site.versions import (
    UploadRefused,
    UploadTooSoon,
    identical_version,
    plays_now,
    request_activation,
    store_upload,
)
from arena.server.site.views.accounts import limited_address

#: The refusal of an upload or an activation with a token of scope "read".
_READ_ONLY = "this token may only read (scope 'read'): make one that may upload on the tokens page"
#: The values of ``?activate=`` an upload takes, and what each asks.
_ACTIVATE_CHOICES = {"true": True, "false": False}


def _error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def version_data(version: BotVersion, *, with_steps: bool = True) -> dict[str, Any]:
    """A version as the API shows it to its team, with what plays for the team now."""
    active = version.team.active_version
    data: dict[str, Any] = {
        "id": version.pk,
        "version": version.number,
        "status": version.status,
        "reason": version.reason,
        "hint": version.hint,
        "url": reverse("version", args=[version.pk]),
        "is_active": active is not None and active.pk == version.pk,
        "active_version": None if active is None else active.number,
        "activate_when_accepted": version.activate_when_accepted,
        "plays_now": plays_now(version),
    }
    if with_steps:
        data["steps"] = list(version.steps.values("step", "status", "message", "hint"))
    return data


@csrf_exempt  # token-authenticated only: a POST without a bearer token is refused below
@require_http_methods(["GET", "POST"])
def versions(request: HttpRequest) -> JsonResponse:
    """The team's versions (GET) or a new upload (POST, bearer token only)."""
    if request.method == "GET":
        team = requesting_team(request)
        if team is None:
            return _error("authentication needed: Authorization: Bearer <token>", 401)
        rows = visible(team, BotVersion).select_related("team").order_by("-number")
        return JsonResponse({"versions": [version_data(row, with_steps=False) for row in rows]})
    # A browser's cookies never authenticate a POST here (there is no CSRF token to check).
    if bearer_token(request.headers.get("Authorization")) is None:
        return _error("authentication needed: Authorization: Bearer <token>", 401)
    team = requesting_team(request)
    if team is None:
        return _error("the token is unknown or revoked", 401)
    if not may_upload(request):
        return _error(_READ_ONLY, 403)
    wish = request.GET.get("activate")
    if wish is not None and wish not in _ACTIVATE_CHOICES:
        return _error(f"activate={wish!r} is neither 'true' nor 'false'", 400)
    limit = SiteSettings.current().upload_archive_bytes
    length = request.META.get("CONTENT_LENGTH") or "0"
    if not length.isdigit() or int(length) > limit:
        return _error(f"the archive is larger than the limit of {limit:,} bytes", 413)
    try:
        same = identical_version(team, request.body)
        # An upload identical to one of the team's versions is that version, not validated
        # again (``?activate=true`` asks it to play, as for a new upload).
        if same is not None and wish == "true":
            request_activation(team, same)
        created = same or store_upload(
            team,
            request.body,
            address=limited_address(request),
            activate=None if wish is None else _ACTIVATE_CHOICES[wish],
        )
    except UploadRefused as refused:
        return _error(str(refused), 429 if isinstance(refused, UploadTooSoon) else 400)
    except RequestDataTooBig:  # a body without its length, longer than any upload
        return _error(f"the archive is larger than the limit of {limit:,} bytes", 413)
    created.refresh_from_db()
    created.team.refresh_from_db()
    body = version_data(created, with_steps=False)
    body["url"] = request.build_absolute_uri(reverse("api-version", args=[created.pk]))
    if same is not None:
        body["identical"] = True
    return JsonResponse(body, status=201 if same is None else 200)


@require_GET
def limits(request: HttpRequest) -> JsonResponse:
    """The site's upload limits (the ``[upload]`` keys of :data:`SITE_KEYS`, as the site's
    settings hold them now), by key; public, as the upload page shows them."""
    rules = SiteSettings.current().rules()
    values = {key: getattr(rules, rules_attribute(key)) for key in SITE_KEYS
              if key.startswith("upload.")}  # fmt: skip
    return JsonResponse({"limits": values})


@csrf_exempt  # token-authenticated only, as an upload
@require_http_methods(["POST"])
def activate(request: HttpRequest, version_id: int) -> JsonResponse:
    """Make one of the team's versions active: now when accepted, once accepted when it
    waits for its verdict; 400 for a rejected one (or after the deadline). Another team's
    version is 404, as a missing one; a browser's session (no bearer token: there is no
    CSRF token to check) is refused with 400, pointing to the version page's button."""
    team = requesting_team(request)
    found = visible(team, BotVersion).select_related("team").filter(pk=version_id).first()
    if team is None or found is None:
        return _error(f"no version {version_id}", 404)
    if bearer_token(request.headers.get("Authorization")) is None:
        return _error(
            "this endpoint takes Authorization: Bearer <token>; "
            "in a browser, use the version page's button",
            400,
        )
    if not may_upload(request):
        return _error(_READ_ONLY, 403)
    try:
        request_activation(team, found)
    except UploadRefused as refused:
        return _error(str(refused), 400)
    found.refresh_from_db()
    found.team.refresh_from_db()
    return JsonResponse(version_data(found, with_steps=False))


@require_GET
def version(request: HttpRequest, version_id: int) -> JsonResponse:
    """One of the team's versions with its steps."""
    team = requesting_team(request)
    found = visible(team, BotVersion).select_related("team").filter(pk=version_id).first()
    if found is None:
        return _error(f"no version {version_id}", 404)
    return JsonResponse(version_data(found))


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


@require_GET
def leaderboard(request: HttpRequest) -> JsonResponse:
    """Every leaderboard's rows, best first."""
    boards: dict[str, list[dict[str, Any]]] = {}
    for row in LeaderboardRow.objects.select_related("team"):
        boards.setdefault(row.board, []).append(
            {
                "position": row.position,
                "name": row.name,
                "team": None if row.team is None else row.team.name,
                "kind": row.kind,
                "mbb_per_hand": _finite(row.mbb_per_hand),
                "half_width": _finite(row.half_width),
                "hands": row.hands,
            }
        )
    return JsonResponse({"boards": boards})


@require_GET
def match(request: HttpRequest, match_id: int) -> JsonResponse:
    """A match's seats and results."""
    found = visible(requesting_team(request), Match).filter(pk=match_id).first()
    if found is None:
        return _error(f"no match {match_id}", 404)
    return JsonResponse(match_data(found))


@require_GET
def hands(request: HttpRequest, match_id: int, fmt: str) -> HttpResponse:
    """The hands of one of the team's own matches as PHH or ACPC log lines, the other
    seats' cards hidden as the site's visibility says (:mod:`arena.server.site.downloads`)."""
    team = requesting_team(request)
    found = visible(team, Match).filter(pk=match_id).first()
    if found is None or not is_own_match(team, found) or fmt not in FORMATS:
        return _error(f"no hands of match {match_id} as {fmt!r} for this team", 404)
    try:
        if not found.hands_file:  # an empty path would be the server's working folder
            raise SourceError("no hand history")
        source = open_source(Path(found.hands_file))
    except SourceError:  # not the error's text: it names the server's files
        return _error(f"the hands of match {match_id} cannot be read", 404)
    visibility = Visibility(SiteSettings.current().visibility)
    text = export_hands(source.hands(), fmt, own_seats=own_seats(team, found),
                        visibility=visibility)  # fmt: skip
    disposition = f'attachment; filename="match-{found.pk}{FORMATS[fmt]}"'
    return HttpResponse(text, content_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": disposition})  # fmt: skip


@require_GET
def team(request: HttpRequest, team_id: int) -> JsonResponse:
    """A team's public facts (name, active version, matches); its versions for its own."""
    mine = requesting_team(request)
    found = visible(mine, Team).filter(pk=team_id).first()
    if found is None:
        return _error(f"no team {team_id}", 404)
    matches = (
        visible(mine, Match)
        .filter(Q(seats__team=found) | Q(seats__version__team=found))
        .distinct()
        .order_by("-pk")[:100]
    )
    active = found.active_version
    data: dict[str, Any] = {
        "id": found.pk,
        "name": found.name,
        "active_version": None if active is None else active.number,
        "matches": [match.pk for match in matches],
    }
    if mine is not None and mine.pk == found.pk:
        rows = visible(mine, BotVersion).select_related("team").order_by("-number")
        data["versions"] = [version_data(row, with_steps=False) for row in rows]
    return JsonResponse(data)


@require_GET
def teams(request: HttpRequest) -> JsonResponse:
    """Every team's name and id."""
    rows = visible(requesting_team(request), Team).order_by("name")
    return JsonResponse({"teams": [{"id": team.pk, "name": team.name} for team in rows]})
