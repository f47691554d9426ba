"""Accounts: sign-up as the site allows, log-in (rate-limited), log-out, teams (create,
join with the team's code) and API tokens (shown once, revocable)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from arena.server.competition import SignUp
from arena.server.site import ratelimit
from arena.server.site.forms import JoinTeamForm, NewTeamForm, SignUpForm, TokenForm
from arena.server.site.models import ApiToken, LoginFailure, Membership, SiteSettings, Team
from arena.server.site.scope import identified, requesting_team, visible
from arena.server.site.tokens import new_token, token_digest, token_prefix

__all__ = ["join_team", "log_in", "log_out", "new_team", "revoke_token", "sign_up", "tokens"]


def client_address(request: HttpRequest) -> str:
    """The client's address: the connection's, which behind the trusted proxy
    (``arena server run --trusted-proxy``) waitress has set from that proxy's
    ``X-Forwarded-For``, and from no one else's (a header any client can send)."""
    return str(request.META.get("REMOTE_ADDR", ""))[:64]


def sign_up(request: HttpRequest) -> HttpResponse:
    """A new account, when the site's sign-up allows one."""
    site = SiteSettings.current()
    if site.signup == SignUp.ADMIN:
        return render(request, "arena/closed.html", status=403)
    invite = site.invite_code if site.signup == SignUp.INVITE else None
    form = SignUpForm(request.POST or None, invite=invite)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("team-new")
    return render(request, "arena/signup.html", {"form": form})


def _is_limited(address: str, username: str) -> bool:
    """:func:`arena.server.site.ratelimit.is_limited` for the account and for the address, over
    the failures the database keeps (narrowed to the window; the rule decides)."""
    now = timezone.now()
    recent = LoginFailure.objects.filter(at__gte=now - timedelta(seconds=ratelimit.WINDOW))

    def limited(failures: QuerySet[LoginFailure], limit: int) -> bool:
        times = [at.timestamp() for at in failures.values_list("at", flat=True)]
        return ratelimit.is_limited(
            times, now=now.timestamp(), limit=limit, window=ratelimit.WINDOW
        )

    return limited(recent.filter(username=username), ratelimit.ACCOUNT_LIMIT) or limited(
        recent.filter(address=address), ratelimit.ADDRESS_LIMIT
    )


def log_in(request: HttpRequest) -> HttpResponse:
    """Log in (the admin's log-in too); after too many failures for the account or the
    address, 429."""
    form = AuthenticationForm(request, data=request.POST or None)
    if request.method == "POST":
        address = client_address(request)
        username = str(request.POST.get("username", ""))[:150]
        if _is_limited(address, username):
            minutes = int(ratelimit.WINDOW // 60)
            message = f"too many failed log-ins: wait up to {minutes} minutes"
            return render(request, "arena/login.html", {"form": form, "limited": message},
                          status=429)  # fmt: skip
        if form.is_valid():
            login(request, form.get_user())
            return redirect(_next_page(request))
        now = timezone.now()
        LoginFailure.objects.filter(at__lt=now - timedelta(seconds=ratelimit.WINDOW)).delete()
        LoginFailure.objects.create(address=address, username=username, at=now)
    return render(request, "arena/login.html", {"form": form})


def _next_page(request: HttpRequest) -> str:
    """Where to go after logging in: ``next`` when it is a page of this site."""
    wanted = str(request.POST.get("next") or request.GET.get("next") or "")
    safe = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if wanted and safe else "/"


@require_POST
def log_out(request: HttpRequest) -> HttpResponse:
    """Log out (a POST, so that no link can log someone out)."""
    logout(request)
    return redirect("leaderboard")


@login_required
def new_team(request: HttpRequest) -> HttpResponse:
    """Make a team (for a user without one) or join one with its code."""
    if requesting_team(request) is not None:
        return redirect("my-team")
    form = NewTeamForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            team = Team.objects.create(name=form.cleaned_data["name"])
            Membership.objects.create(user=request.user, team=team)  # type: ignore[misc]
        return redirect("my-team")
    return render(request, "arena/team_new.html", {"form": form, "join": JoinTeamForm()})


@login_required
@require_POST
def join_team(request: HttpRequest) -> HttpResponse:
    """Join the team whose code was given."""
    form = JoinTeamForm(request.POST)
    if requesting_team(request) is not None or not form.is_valid():
        return redirect("team-new")
    team = Team.objects.filter(join_code=form.cleaned_data["code"]).first()
    if team is None:
        form.add_error("code", "no team has that code")
        return render(request, "arena/team_new.html", {"form": NewTeamForm(), "join": form},
                      status=400)  # fmt: skip
    Membership.objects.create(user=request.user, team=team)  # type: ignore[misc]
    return redirect("my-team")


def _team_or_404(request: HttpRequest) -> Team:
    team = requesting_team(request)
    if team is None:
        raise Http404("no team")
    return team


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    """The team's tokens; a POST makes one and shows it this once."""
    team = _team_or_404(request)
    form = TokenForm(request.POST or None)
    shown = None
    if request.method == "POST" and form.is_valid():
        shown = new_token()
        ApiToken.objects.create(
            team=team,
            created_by=request.user,  # type: ignore[misc]  # login_required: a User
            name=form.cleaned_data["name"],
            prefix=token_prefix(shown),
            digest=token_digest(shown),
        )
        form = TokenForm()
    rows = visible(team, ApiToken).order_by("-created")
    response = render(request, "arena/tokens.html", {"form": form, "tokens": rows, "shown": shown})
    response.headers["Cache-Control"] = "no-store"
    return response


@identified
@require_POST
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    """Revoke one of the team's tokens."""
    token = get_object_or_404(visible(_team_or_404(request), ApiToken), pk=token_id)
    if token.revoked is None:
        token.revoked = timezone.now()
        token.save(update_fields=["revoked"])
    return redirect("tokens")
