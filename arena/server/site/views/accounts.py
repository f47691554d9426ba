"""Accounts: sign-up as the site allows, log-in (rate-limited), log-out, teams (create,
join with the team's code) and API tokens (shown once, revocable)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import (
    PasswordChangeDoneView,
    PasswordChangeView,
    PasswordResetCompleteView,
    PasswordResetConfirmView,
)
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from arena.server.competition import SignUp
from arena.server.site import ratelimit, throttle
from arena.server.site.forms import (
    JoinTeamForm,
    NewTeamForm,
    SignUpForm,
    TokenForm,
    codes_match,
)
from arena.server.site.models import ApiToken, Membership, SiteSettings, Team, TokenScope
from arena.server.site.names import account_key
from arena.server.site.ratelimit import Limit
from arena.server.site.scope import identified, requesting_team, visible
from arena.server.site.tokens import new_token, token_digest, token_prefix


def client_address(request: HttpRequest) -> str:
    """The client's address: the connection's, which behind the trusted proxy
    (``arena server run --trusted-proxy``) waitress has set from that proxy's
    ``X-Forwarded-For``, and from no one else's (a header any client can send)."""
    return str(request.META.get("REMOTE_ADDR", ""))[:64]


def _refused(request: HttpRequest, template: str, context: Mapping[str, object],
             checks: tuple[tuple[Limit, str], ...]) -> HttpResponse | None:  # fmt: skip
    """A 429 page naming the first of ``checks`` (a limit and its key) already used up, or
    None when every one has room."""
    for limit, key in checks:
        if throttle.is_over(limit, key):
            return render(request, template, {**context, "limited": limit.refusal}, status=429)
    return None


def limited_address(request: HttpRequest) -> str:
    """The client's address as the rate limits count it (:func:`ratelimit.address_key`)."""
    return ratelimit.address_key(client_address(request))


def sign_up(request: HttpRequest) -> HttpResponse:
    """A new account, when the site's sign-up allows one; at most
    :data:`~arena.server.site.ratelimit.SIGN_UPS` from one address, and a wrong invitation
    code counts as a guess (:data:`~arena.server.site.ratelimit.CODE_GUESSES`)."""
    site = SiteSettings.current()
    if site.signup == SignUp.ADMIN:
        return render(request, "arena/closed.html", status=403)
    invite = site.invite_code if site.signup == SignUp.INVITE else None
    form = SignUpForm(request.POST or None, invite=invite)
    if request.method == "POST":
        address = limited_address(request)
        checks = ((ratelimit.SIGN_UPS, address), (ratelimit.CODE_GUESSES, address))
        refused = _refused(request, "arena/signup.html", {"form": form}, checks)
        if refused is not None:
            return refused
        if form.is_valid():
            user = form.save()
            throttle.note(ratelimit.SIGN_UPS, address)
            login(request, user)  # the site's one backend
            return redirect("team-new")
        if form.has_error("invite_code"):
            throttle.note(ratelimit.CODE_GUESSES, address)
    return render(request, "arena/signup.html", {"form": form})


def log_in(request: HttpRequest) -> HttpResponse:
    """Log in (the admin's log-in too); after too many failures for the account from this
    address, or from this address in all, 429 (:mod:`arena.server.site.ratelimit`). The
    account is counted as the log-in finds it (:func:`account_key`), whatever its spelling."""
    form = AuthenticationForm(request, data=request.POST or None)
    if request.method == "POST":
        address = limited_address(request)
        account = account_key(str(request.POST.get("username", ""))[:150])
        checks = ((ratelimit.LOG_IN_PAIR, f"{address} {account}"),
                  (ratelimit.LOG_IN_ADDRESS, address))  # fmt: skip
        refused = _refused(request, "arena/login.html", {"form": form}, checks)
        if refused is not None:
            return refused
        if form.is_valid():
            login(request, form.get_user())
            return redirect(_next_page(request))
        for limit, key in checks:
            throttle.note(limit, key)
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
    """Join the team whose code was given; a wrong code counts as a guess
    (:data:`~arena.server.site.ratelimit.CODE_GUESSES`)."""
    form = JoinTeamForm(request.POST)
    if requesting_team(request) is not None or not form.is_valid():
        return redirect("team-new")
    address = limited_address(request)
    context = {"form": NewTeamForm(), "join": form}
    refused = _refused(request, "arena/team_new.html", context,
                       ((ratelimit.CODE_GUESSES, address),))  # fmt: skip
    if refused is not None:
        return refused
    team = _team_with_code(form.cleaned_data["code"])
    if team is None:
        throttle.note(ratelimit.CODE_GUESSES, address)
        form.add_error("code", "no team has that code")
        return render(request, "arena/team_new.html", context, status=400)
    Membership.objects.create(user=request.user, team=team)  # type: ignore[misc]
    return redirect("my-team")


def _team_with_code(code: str) -> Team | None:
    """The team whose code is ``code``: every team's code compared in constant time, none
    skipped once one matched (a lookup by the code would tell by its time how near it was)."""
    found = None
    for team in Team.objects.only("pk", "join_code"):
        if codes_match(code, team.join_code):
            found = team
    return found


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
        days = form.cleaned_data["days"]
        ApiToken.objects.create(
            team=team,
            created_by=request.user,  # type: ignore[misc]  # login_required: a User
            name=form.cleaned_data["name"],
            prefix=token_prefix(shown),
            digest=token_digest(shown),
            expires=None if days is None else timezone.now() + timedelta(days=days),
            scope=form.cleaned_data["scope"] or TokenScope.UPLOAD,
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


@login_required
@require_POST
def rotate_join_code(request: HttpRequest) -> HttpResponse:
    """Give the team a new code (any member may): the old one joins no one any more."""
    _team_or_404(request).rotate_join_code()
    return redirect("my-team")


@identified
@require_POST
def remove_member(request: HttpRequest, membership_id: int) -> HttpResponse:
    """Take a member out of the team, as :meth:`Membership.may_remove` allows: a member
    removes itself or those who joined after it; the last member stays (a team keeps
    someone who can act for it); a token removes no one (a member does, logged in). The
    team gets a new code and the removed member's tokens stop working at once."""
    team = _team_or_404(request)
    target = get_object_or_404(Membership.objects.filter(team=team), pk=membership_id)
    user = request.user
    mine = (
        Membership.objects.filter(user=user, team=team).first() if user.is_authenticated else None
    )
    if mine is None:
        return _plain("a member removes members, logged in (a token cannot)", 403)
    if team.memberships.count() == 1:
        return _plain("the last member of a team cannot leave it", 400)
    if not mine.may_remove(target):
        return _plain("a member removes only those who joined after it", 403)
    leaving = target.pk == mine.pk
    target.delete()
    return redirect("team-new" if leaving else "my-team")


def _plain(message: str, status: int) -> HttpResponse:
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


class _LimitedPasswordChange(PasswordChangeView):
    """Django's password change, its wrong current passwords counted per account
    (:data:`~arena.server.site.ratelimit.PASSWORD_CHANGES`): once used up, 429 until the
    oldest leaves the window, whatever the password given."""

    def _key(self) -> str:
        return f"user {self.request.user.pk}"

    def post(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        limit = ratelimit.PASSWORD_CHANGES
        if throttle.is_over(limit, self._key()):
            return self.render_to_response(self.get_context_data(limited=limit.refusal), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        if "old_password" in form.errors:
            throttle.note(ratelimit.PASSWORD_CHANGES, self._key())
        return super().form_invalid(form)


#: A member changes its password (Django's view, the old password asked first, wrong ones
#: rate-limited; the new one must pass the site's password validators).
change_password = _LimitedPasswordChange.as_view(
    template_name="arena/password.html", success_url=reverse_lazy("password-changed")
)
password_changed = PasswordChangeDoneView.as_view(template_name="arena/password_done.html")
#: A member sets a new password through the one-time link the administrator made
#: (:mod:`arena.server.site.password_links`): the site sends no email.
reset_password = PasswordResetConfirmView.as_view(
    template_name="arena/password.html", success_url=reverse_lazy("password-reset-done")
)
password_reset_done = PasswordResetCompleteView.as_view(template_name="arena/password_done.html")
