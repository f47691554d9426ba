"""The site's tables: teams and their members, API tokens, bot versions and their
validation steps, matches with each seat's result, the leaderboard's rows, the site's
settings and the events the rate limits count.

Every row a team owns reaches its team in one step (``version.team``, ``token.team``):
:mod:`arena.server.site.scope` filters on it, once for every view.
"""

from __future__ import annotations

import secrets
from typing import Any, ClassVar

from django.conf import settings
from django.db import models

from arena.server.competition import SiteRules, rules_attribute


def new_join_code() -> str:
    """A team's code, which a new member types to join it."""
    return secrets.token_urlsafe(12)


class Team(models.Model):
    """A team: one or more members sharing bots, tokens and results."""

    name = models.CharField(max_length=64, unique=True)
    join_code = models.CharField(max_length=32, unique=True, default=new_join_code)
    active_version = models.ForeignKey(
        "BotVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name

    def rotate_join_code(self) -> str:
        """Give the team a new code (the old one joins no one any more); the new code."""
        self.join_code = new_join_code()
        self.save(update_fields=["join_code"])
        return self.join_code


class Membership(models.Model):
    """A user's team (one team per user)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="membership"
    )
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    joined = models.DateTimeField(auto_now_add=True)

    def may_remove(self, other: Membership) -> bool:
        """Whether this member may take ``other`` out of their team: itself, or one who
        joined after it, never an earlier one (who joins with the code cannot throw the
        team's founders out). The last member stays whatever this says (the view's rule)."""
        return other.team_id == self.team_id and (other.joined, other.pk) >= (self.joined, self.pk)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        """Take the member out, by the team's page or the admin's; the team gets a new code,
        so that who was removed cannot join again with the code it knew (its tokens stop
        working by :func:`arena.server.site.scope.requesting_team`'s rule)."""
        team = self.team
        deleted = super().delete(*args, **kwargs)
        team.rotate_join_code()
        return deleted


class TokenScope(models.TextChoices):
    """What a token may do: read the team's versions, matches and hands, or also upload
    versions and choose the one that plays (what ``arena submit`` needs)."""

    READ = "read", "read only"
    UPLOAD = "upload", "read and upload"


class ApiToken(models.Model):
    """A team's API token: only its SHA-256 digest is kept (the token is shown once)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="tokens")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    name = models.CharField(max_length=64)
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)
    #: When the token stops working by itself (None: only when revoked or its maker leaves).
    expires = models.DateTimeField(null=True, blank=True)
    #: What it may do (:class:`TokenScope`); the tokens made before scopes may upload.
    scope = models.CharField(max_length=16, choices=TokenScope.choices, default=TokenScope.UPLOAD)


class VersionStatus(models.TextChoices):
    """Where an upload is in its validation; the last two are final."""

    QUEUED = "queued"
    BUILDING = "building"
    PROTOCOL_CHECK = "protocol_check"
    VALIDATION_MATCH = "validation_match"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


#: The statuses of a version a worker holds (its lease says until when).
IN_PROGRESS = (
    VersionStatus.BUILDING,
    VersionStatus.PROTOCOL_CHECK,
    VersionStatus.VALIDATION_MATCH,
)


class BotVersion(models.Model):
    """One upload of a team's bot: its archive, its validation and its verdict."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    archive = models.FileField(upload_to="archives/")
    archive_sha256 = models.CharField(max_length=64)
    status = models.CharField(
        max_length=20, choices=VersionStatus.choices, default=VersionStatus.QUEUED
    )
    reason = models.TextField(blank=True)
    hint = models.TextField(blank=True)
    #: The bot's own stderr during validation: shown to its team only.
    stderr = models.TextField(blank=True)
    is_disabled = models.BooleanField(default=False)
    #: Whether it becomes the team's active version once accepted: yes, no, or (None) only
    #: when no version of the team plays yet -- a team's first accepted version plays by
    #: itself (see :func:`arena.server.site.versions.on_accepted`).
    activate_when_accepted = models.BooleanField(null=True, default=None)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    # The job's lease: the worker holding it and until when (an expired lease is claimed
    # again, so a worker killed mid-validation loses nothing).
    claimed_by = models.CharField(max_length=64, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["team", "number"], name="one_number_per_team")
        ]
        indexes: ClassVar = [models.Index(fields=["status", "lease_expires"])]

    def __str__(self) -> str:
        return f"{self.team.name} v{self.number}"

    @property
    def is_final(self) -> bool:
        """Accepted or rejected."""
        return self.status in (VersionStatus.ACCEPTED, VersionStatus.REJECTED)


class ValidationStep(models.Model):
    """One step of a version's validation, as its page shows it live: the fields of the
    validation's :class:`~arena.server.validation.report.StepReport` (``status`` one of its
    ``StepStatus``)."""

    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="steps")
    position = models.PositiveIntegerField()
    step = models.CharField(max_length=32)
    status = models.CharField(max_length=16)
    message = models.TextField(blank=True)
    hint = models.TextField(blank=True)
    #: How long the step took (0 while it runs).
    duration_s = models.FloatField(default=0.0)

    class Meta:
        ordering: ClassVar = ["position"]


class MatchStatus(models.TextChoices):
    """A match's state."""

    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"


class FailureKind(models.TextChoices):
    """Why a match failed: our side (re-run it) or a bot's (never re-run: it is a result)."""

    NONE = ""
    INFRASTRUCTURE = "infrastructure"
    BOT_FAULT = "bot_fault"


class Match(models.Model):
    """A match played (or to play) between versions, or imported from a tournament."""

    status = models.CharField(max_length=16, choices=MatchStatus.choices)
    failure_kind = models.CharField(max_length=16, choices=FailureKind.choices, blank=True)
    failure_message = models.TextField(blank=True)
    source = models.CharField(max_length=128)
    external_id = models.CharField(max_length=128, blank=True)
    hands_file = models.CharField(max_length=1024, blank=True)
    hands_played = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "matches"
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["source", "external_id"], name="one_match_per_id")
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.external_id or self.pk}"


class MatchSeat(models.Model):
    """A seat of a match: who sat there and its result, raw and luck-adjusted (chips)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat_index = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=64)
    player_id = models.CharField(max_length=64, blank=True)
    version = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    team = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    chips_won = models.BigIntegerField(default=0)
    adjusted_chips = models.FloatField(null=True, blank=True)
    fault_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering: ClassVar = ["seat_index"]


class ViewerDocument(models.Model):
    """A match's hand viewer document for one audience, made once (the hands replayed and
    their hidden cards blanked) and read by every later request
    (:mod:`arena.server.site.viewer_store`). ``audience`` names what it shows: the site's
    visibility and the seats whose cards it shows whatever that says (none: anyone's
    view); ``stamp`` is a digest of the match as it was made from (a match played again
    makes it stale); ``digest`` is the document's own."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    audience = models.CharField(max_length=64)
    stamp = models.CharField(max_length=64)
    digest = models.CharField(max_length=64)
    document = models.JSONField()
    created = models.DateTimeField(auto_now=True)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["match", "audience"], name="one_viewer_per_audience")
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} for {self.audience}"


class ScoreKind(models.TextChoices):
    """What a leaderboard's number is; its label heads the column that shows it."""

    RAW = "raw", "raw mbb/hand"
    ADJUSTED = "adjusted", "luck-adjusted mbb/hand"
    #: The ladder's: a strength in luck-adjusted mbb/hand against the field's average.
    RATING = "rating", "rating (luck-adjusted mbb/hand against the field)"
    #: A freezeout's: openskill's conservative skill, mu - 3 sigma.
    SKILL = "skill", "rating (\u03bc \u2212 3\u03c3)"


class LeaderboardRow(models.Model):
    """A row of a leaderboard (the ladder's, or an imported tournament's standings):
    ``mbb_per_hand`` is the number that ranks it, of the kind ``kind`` names."""

    board = models.CharField(max_length=128)
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=64)
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.SET_NULL)
    kind = models.CharField(max_length=8, choices=ScoreKind.choices, default=ScoreKind.RAW)
    mbb_per_hand = models.FloatField(null=True)
    half_width = models.FloatField(null=True)
    hands = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering: ClassVar = ["board", "position"]


def _stored_default(key: str) -> str | int:
    """The column default of a copied site key: its declared default as a row holds it."""
    return SiteRules().to_stored()[rules_attribute(key)]


class SiteSettings(models.Model):
    """The site's settings (one row): the competition file's copied keys (its ``[site]``,
    ``[upload]`` and ``[validation]`` tables, see :mod:`arena.server.competition`), set by
    ``init`` and by the admin's "reload", changed in the admin pages. One column per field
    of :class:`SiteRules`, its default the declared one; :meth:`rules` reads the row."""

    signup = models.CharField(max_length=8, default=_stored_default("site.signup"))
    invite_code = models.CharField(max_length=64, blank=True)
    visibility = models.CharField(max_length=12, default=_stored_default("site.visibility"))
    upload_archive_bytes = models.PositiveBigIntegerField(
        default=_stored_default("upload.archive_bytes")
    )
    upload_unpacked_bytes = models.PositiveBigIntegerField(
        default=_stored_default("upload.unpacked_bytes")
    )
    upload_file_count = models.PositiveIntegerField(default=_stored_default("upload.file_count"))
    validation_hands = models.PositiveIntegerField(default=_stored_default("validation.hands"))
    validation_allowed_faults = models.PositiveIntegerField(
        default=_stored_default("validation.allowed_faults")
    )
    validation_house_bot = models.CharField(max_length=1024, blank=True)
    upload_queued_per_team = models.PositiveIntegerField(
        default=_stored_default("upload.queued_per_team")
    )

    class Meta:
        verbose_name_plural = "site settings"

    @classmethod
    def current(cls) -> SiteSettings:
        """The one row (made with the defaults when missing)."""
        row, _ = cls.objects.get_or_create(pk=1)
        return row

    @classmethod
    def copy_rules(cls, rules: SiteRules) -> SiteSettings:
        """Make the one row hold ``rules`` (``init``, the admin's "reload")."""
        row, _ = cls.objects.update_or_create(pk=1, defaults=rules.to_stored())
        return row

    def rules(self) -> SiteRules:
        """The row's values as the site's rules; :class:`arena.settings.SettingsError`
        names a value the admin pages let through that no rule allows."""
        return SiteRules.from_stored(
            {name: getattr(self, name) for name in SiteRules().to_stored()}
        )


class RateEvent(models.Model):
    """An event a rate limit counts (a failed log-in, a sign-up, a wrong code, an upload),
    by the limit's kind and key (see :mod:`arena.server.site.ratelimit`)."""

    kind = models.CharField(max_length=32)
    key = models.CharField(max_length=200)
    at = models.DateTimeField(db_index=True)

    class Meta:
        indexes: ClassVar = [models.Index(fields=["kind", "key", "at"])]
