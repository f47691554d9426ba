"""The forms a team posts from its version's ladder page: ask for a promotion test, ask for
unranked test games (within the matchmaking's own window rule), set "activate automatically
when better". Each finds the version through :func:`arena.server.site.scope.visible`:
another team's version is 404."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.db.models import Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena.ladder.matchmaking import GameKind
from arena.server.ladder import config
from arena.server.ladder.models import (
    Game,
    LadderTeamSettings,
    PromotionStatus,
    PromotionTest,
    UnrankedRequest,
    version_label,
)
from arena.server.ladder.state import active_versions
from arena.server.site.models import BotVersion, Team, VersionStatus
from arena.server.site.scope import identified, requesting_team, visible

__all__ = ["request_promotion", "request_test_games", "team_settings"]


def _own_version(request: HttpRequest, version_id: int) -> tuple[Team, BotVersion]:
    team = requesting_team(request)
    version = get_object_or_404(visible(team, BotVersion).select_related("team"), pk=version_id)
    assert team is not None  # visible() found it: the team owns it
    return team, version


def _back(request: HttpRequest, version: BotVersion, message: str) -> HttpResponse:
    """Back to the version's page with ``message`` (Django's messages: the text never
    travels in the URL, where anyone could write a link with their own)."""
    messages.success(request, message)
    return redirect("ladder-version", version_id=version.pk)


@identified
@require_POST
def request_promotion(request: HttpRequest, version_id: int) -> HttpResponse:
    """Ask whether this version is better than the team's active one (a promotion test)."""
    team, version = _own_version(request, version_id)
    incumbent = team.active_version
    if version.status != VersionStatus.ACCEPTED or incumbent is None or incumbent == version:
        raise Http404("an accepted version that is not the active one, and an active one")
    running = PromotionTest.objects.filter(candidate=version, status=PromotionStatus.RUNNING)
    if not running.exists():
        PromotionTest.objects.create(team=team, candidate=version, incumbent=incumbent)
    return _back(request, version, f"promotion test against {version_label(incumbent)} asked for")


@identified
@require_POST
def request_test_games(request: HttpRequest, version_id: int) -> HttpResponse:
    """Ask for unranked test games of this version against a chosen active version; at
    most the settings' games per request, and per team in the window (429 past it)."""
    team, version = _own_version(request, version_id)
    settings = config.current()
    try:
        opponent_id = int(request.POST.get("opponent", ""))
        count = int(request.POST.get("games", "1"))
    except ValueError:
        return HttpResponse("opponent and games must be numbers", status=400)
    opponent = next((v for v in active_versions() if v.pk == opponent_id), None)
    if version.status != VersionStatus.ACCEPTED or opponent is None or opponent == version:
        return HttpResponse("choose an accepted version and another active one", status=400)
    if not 1 <= count <= settings.test_games_per_request:
        return HttpResponse(
            f"games must be 1 to {settings.test_games_per_request}, got {count}", status=400
        )
    now = timezone.now()
    # The database narrows the games to the window; the matchmaking's rule decides.
    since = now - timedelta(seconds=settings.test_window_s)
    starts = [
        created.timestamp()
        for created in Game.objects.filter(
            requested_by=team, kind=GameKind.TEST, created__gt=since
        ).values_list("created", flat=True)
    ]
    rule = settings.matchmaking()
    started = rule.test_games_started(starts, now.timestamp())
    pending = UnrankedRequest.objects.filter(team=team).aggregate(n=Sum("games_left"))["n"] or 0
    if not rule.may_start_test_games(starts, now.timestamp(), pending + count):
        return HttpResponse(
            f"at most {settings.test_games_per_window} test games per team in "
            f"{settings.test_window_s / 3600:g} h ({started} started, {pending} waiting)",
            status=429,
        )
    UnrankedRequest.objects.create(team=team, bot=version, opponent=opponent, games_left=count)
    return _back(
        request, version, f"{count} test game(s) against {version_label(opponent)} asked for"
    )


@identified
@require_POST
def team_settings(request: HttpRequest, version_id: int) -> HttpResponse:
    """Set "activate automatically when better" for the version's team."""
    team, version = _own_version(request, version_id)
    LadderTeamSettings.objects.update_or_create(
        team=team, defaults={"auto_activate": request.POST.get("auto_activate") == "on"}
    )
    return _back(request, version, "settings saved")
