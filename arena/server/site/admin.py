"""The organiser's admin site (staff only): teams, versions (disable, validate again),
matches (re-run an infrastructure failure; a bot's fault is a result and never re-run),
the site's settings (checked by the competition file's own rules; reloaded from the file)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.server.competition import SiteRules, rules_attribute
from arena.server.current import current_competition
from arena.server.site.admin_access import LabelledFields
from arena.server.site.models import (
    BotVersion,
    FailureKind,
    Match,
    MatchSeat,
    MatchStatus,
    Membership,
    SiteSettings,
    Team,
    ValidationStep,
)
from arena.server.site.password_links import password_link
from arena.server.site.versions import revalidate
from arena.settings import SettingsError


class MemberInline(LabelledFields, admin.StackedInline):  # type: ignore[type-arg]
    model = Membership
    extra = 1


@admin.register(Team)
class TeamAdmin(LabelledFields, admin.ModelAdmin):  # type: ignore[type-arg]
    """Teams, and their members (with sign-up by the administrator, accounts are made in
    Users and put in a team here)."""

    inlines = (MemberInline,)
    list_display = ("name", "created", "active_version")
    search_fields = ("name",)
    readonly_fields = ("join_code",)


class StepInline(LabelledFields, admin.StackedInline):  # type: ignore[type-arg]
    model = ValidationStep
    extra = 0
    readonly_fields = ("position", "step", "status", "message", "hint", "duration_s")


@admin.register(BotVersion)
class BotVersionAdmin(LabelledFields, admin.ModelAdmin):  # type: ignore[type-arg]
    """Versions: disable, or validate again."""

    list_display = ("team", "number", "status", "is_disabled", "created", "attempts")
    list_filter = ("status", "is_disabled")
    readonly_fields = ("archive_sha256", "claimed_by", "lease_expires", "attempts")
    inlines = (StepInline,)
    actions = ("disable", "enable", "validate_again")

    @admin.action(description="Disable the selected versions (they no longer play)")
    def disable(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        """Disable: a disabled version is never validated nor played."""
        count = queryset.update(is_disabled=True)
        Team.objects.filter(active_version__in=queryset).update(active_version=None)
        self.message_user(request, f"{count} version(s) disabled")

    @admin.action(description="Enable the selected versions")
    def enable(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        """Enable again."""
        self.message_user(request, f"{queryset.update(is_disabled=False)} version(s) enabled")

    @admin.action(description="Validate the selected versions again")
    def validate_again(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        """Queue again (after a fix of the site, say)."""
        for version in queryset:
            revalidate(version)
        self.message_user(request, f"{queryset.count()} version(s) queued")


class SeatInline(LabelledFields, admin.StackedInline):  # type: ignore[type-arg]
    model = MatchSeat
    extra = 0


def rerun_infrastructure_failures(queryset: QuerySet[Match]) -> tuple[int, int]:
    """Queue the matches that failed on our side again; a bot's fault is never re-run.
    Returns (queued, refused)."""
    chosen = list(queryset.values_list("pk", flat=True))
    ours = Match.objects.filter(
        pk__in=chosen, status=MatchStatus.FAILED, failure_kind=FailureKind.INFRASTRUCTURE
    )
    queued = ours.update(status=MatchStatus.QUEUED, failure_kind=FailureKind.NONE,
                         failure_message="")  # fmt: skip
    return queued, len(chosen) - queued


@admin.register(Match)
class MatchAdmin(LabelledFields, admin.ModelAdmin):  # type: ignore[type-arg]
    """Matches: re-run an infrastructure failure."""

    list_display = ("__str__", "status", "failure_kind", "hands_played", "created")
    list_filter = ("status", "failure_kind", "source")
    inlines = (SeatInline,)
    actions = ("rerun",)

    @admin.action(description="Re-run the selected infrastructure failures")
    def rerun(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        """Re-run ours; refuse a bot's fault."""
        queued, refused = rerun_infrastructure_failures(queryset)
        self.message_user(request, f"{queued} match(es) queued again")
        if refused:
            self.message_user(request, f"{refused} not re-run: only a failure of the site is "
                              "re-run, never a bot's fault or a finished match",
                              level=messages.WARNING)  # fmt: skip


def reload_site_settings() -> SiteRules:
    """Copy the competition file's ``[site]``, ``[upload]`` and ``[validation]`` tables
    into the site's settings again (what ``init`` did), over the admin's changes; the rules
    copied. ``SettingsError`` (or ``OSError``) when the file cannot be read, ``LookupError``
    when the site names none."""
    competition = current_competition()
    if competition is None:
        raise LookupError("the site names no competition file")
    SiteSettings.copy_rules(competition.rules)
    return competition.rules


class SiteSettingsForm(forms.ModelForm):  # type: ignore[type-arg]
    """The site's settings as the admin edits them, each value checked by its key's rule
    in the competition file (a bad one is refused on its field, naming the rule)."""

    class Meta:
        model = SiteSettings
        fields = "__all__"

    def clean(self) -> dict[str, Any]:
        """Every value read as the competition file's key would be."""
        cleaned: dict[str, Any] = super().clean() or {}
        try:
            SiteRules.from_stored(cleaned)
        except SettingsError as error:
            assert error.key is not None  # from_stored names the key of each value it refuses
            self.add_error(rules_attribute(error.key), error.reason)
        return cleaned


@admin.register(SiteSettings)
class SiteSettingsAdmin(LabelledFields, admin.ModelAdmin):  # type: ignore[type-arg]
    """The site's settings (one row): edited here, or reloaded from the competition file."""

    form = SiteSettingsForm
    list_display = ("signup", "visibility", "upload_archive_bytes", "validation_hands")
    actions = ("reload",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        """One row only: no "Add" once it exists (:meth:`SiteSettings.current` makes it)."""
        return not SiteSettings.objects.exists()

    @admin.action(description="Reload from the competition file")
    def reload(self, request: HttpRequest, queryset: QuerySet[SiteSettings]) -> None:
        """:func:`reload_site_settings`; a file that cannot be read is named, nothing changes."""
        try:
            reload_site_settings()
        except (SettingsError, OSError, LookupError) as error:
            self.message_user(request, f"not reloaded: {error}", level=messages.ERROR)
            return
        self.message_user(request, "the site's settings are the competition file's again")


admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(Group)
class PlainGroupAdmin(GroupAdmin):
    """Django's Groups page, its permissions the browser's own list
    (:mod:`arena.server.site.admin_access`)."""

    filter_horizontal = ()


@admin.register(User)
class UserWithLinksAdmin(LabelledFields, UserAdmin):  # type: ignore[type-arg]
    """Django's Users page, with a one-time link to set a password (the site sends no email)."""

    actions = ("make_password_links",)
    filter_horizontal = ()  # the browser's own list (arena.server.site.admin_access)

    @admin.action(description="Make a one-time password link for the selected users")
    def make_password_links(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        """A link per user, shown here once, to give to its owner
        (:mod:`arena.server.site.password_links`)."""
        for user in queryset:
            link = request.build_absolute_uri(password_link(user))
            self.message_user(request, f"one-time password link for {user.username}: {link}")
