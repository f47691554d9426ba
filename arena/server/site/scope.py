"""The one place every query is scoped to the requesting team.

A view never filters by team itself: it asks :func:`visible` for the rows of a model the
team may see and looks its object up among them (``get_object_or_404(visible(team,
BotVersion), pk=...)``), so that another team's object is "not found" (404), the same as one
that does not exist. The rules, per model:

==================  =====================================================================
``BotVersion``      the team's own (sources, stderr, logs)
``ApiToken``        the team's own
``Match``           the matches one of its versions or its team sat in; every match
                    unless the site's visibility is ``nothing``
``Team``            every team (names and public pages)
a team's own rows   a model that names its owner (``owner_team``, the lookup path to its
                    team, as the ladder's per-version fault details do): the team's own
==================  =====================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any, TypeVar

from django.contrib.auth.views import redirect_to_login
from django.db.models import F, Model, Q, QuerySet
from django.http import HttpRequest, HttpResponse

from arena.server.competition import Visibility
from arena.server.site.models import ApiToken, BotVersion, Match, SiteSettings, Team, TokenScope
from arena.server.site.tokens import bearer_token, token_digest

__all__ = ["identified", "is_own_match", "may_upload", "requesting_team", "visible"]

_M = TypeVar("_M", bound=Model)
#: How often a token's last use is written.
LAST_USED_EVERY = timedelta(minutes=1)


def visible(team: Team | None, model: type[_M]) -> QuerySet[_M]:
    """The rows of ``model`` that ``team`` (None: a visitor without a team) may see."""
    rows: QuerySet[Any] = model._default_manager.all()
    if model is BotVersion or model is ApiToken:
        return rows.filter(team=team) if team is not None else rows.none()
    if model is Match:
        if Visibility(SiteSettings.current().visibility) is not Visibility.NOTHING:
            return rows
        return rows.filter(_own_match(team)).distinct() if team is not None else rows.none()
    if model is Team:
        return rows
    owner = getattr(model, "owner_team", None)
    if isinstance(owner, str):
        return rows.filter(**{owner: team}) if team is not None else rows.none()
    raise LookupError(
        f"no visibility rule for {model.__name__}: add one to arena.server.site.scope"
    )


def is_own_match(team: Team | None, match: Match) -> bool:
    """Whether ``team`` sat in ``match`` (it then sees its own cards)."""
    return team is not None and Match.objects.filter(_own_match(team), pk=match.pk).exists()


def _own_match(team: Team | None) -> Q:
    return Q(seats__team=team) | Q(seats__version__team=team)


def requesting_team(request: HttpRequest) -> Team | None:
    """The team a request acts for: its bearer token's (an API call), else its logged-in
    user's. A token is no team at all when it is unknown, revoked or expired, or when its
    maker is no longer an active member of its team (removed, left, deactivated): every
    call looks again, so each takes effect at once. A token's last use is noted."""
    token = bearer_token(request.headers.get("Authorization"))
    if token is not None:
        from django.utils import timezone

        now = timezone.now()
        found = (
            ApiToken.objects.select_related("team")
            .filter(
                Q(expires__isnull=True) | Q(expires__gt=now),
                digest=token_digest(token),
                revoked__isnull=True,
                created_by__is_active=True,
                created_by__membership__team=F("team"),
            )
            .first()
        )
        if found is None:
            return None
        if found.last_used is None or now - found.last_used > LAST_USED_EVERY:
            # Noted at most once a minute: no write on every call of a busy client.
            ApiToken.objects.filter(pk=found.pk).update(last_used=now)
        return found.team
    user = request.user
    if not user.is_authenticated:
        return None
    membership = getattr(user, "membership", None)
    return None if membership is None else membership.team


def may_upload(request: HttpRequest) -> bool:
    """Whether the request's bearer token may upload and activate versions (its scope,
    :class:`~arena.server.site.models.TokenScope`); a request without a token is not
    asked here (the upload endpoints take tokens only)."""
    token = bearer_token(request.headers.get("Authorization"))
    return (
        token is not None
        and ApiToken.objects.filter(digest=token_digest(token), scope=TokenScope.UPLOAD).exists()
    )


_View = TypeVar("_View", bound=Callable[..., HttpResponse])


def identified(view: _View) -> _View:
    """A view for a logged-in user or a bearer token's team (a visitor with neither is sent
    to log in); what it finds is still scoped by :func:`visible`, so another team's object
    is 404 whichever way the caller came."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        has_token = bearer_token(request.headers.get("Authorization")) is not None
        if not has_token and not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        return view(request, *args, **kwargs)

    return wrapper  # type: ignore[return-value]
