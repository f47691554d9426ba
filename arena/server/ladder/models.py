"""The ladder's tables: games (with their lease), ratings, promotion tests, test game
requests, the teams' ladder settings and the finals.

A game is one duplicate pair of matches between two bot versions: the same deals played
once each way round. Its row is its job: ``queued`` until a worker claims it (``claimed``,
with the worker's name and a lease that the worker renews), then ``done`` (a result),
``bot_fault`` (a bot did not start: a forfeit, or no result when neither did) or
``failed_infrastructure`` (left out after too many attempts the bots were not to blame for).
A claimed game whose lease expired is claimed again and played from its start, with the
same seed. Its seed comes from the site's secret key and the game's number and is shown
only once the game is over.
"""

from __future__ import annotations

from typing import ClassVar

from django.db import models

from arena.server.models import BotVersion, Match, Team

__all__ = [
    "FinalsRun",
    "Game",
    "GameStatus",
    "LadderTeamSettings",
    "PromotionStatus",
    "PromotionTest",
    "Rating",
    "UnrankedRequest",
    "version_label",
]


def version_label(version: BotVersion) -> str:
    """A version's name on the ladder and in its matches: ``<team>-v<number>``."""
    return f"{version.team.name}-v{version.number}"


class GameStatus(models.TextChoices):
    """Where a game is (module docstring)."""

    QUEUED = "queued"
    CLAIMED = "claimed"
    DONE = "done"
    BOT_FAULT = "bot_fault"
    FAILED_INFRASTRUCTURE = "failed_infrastructure"


class Game(models.Model):
    """A ladder game: a duplicate pair of matches, its lease, its result."""

    kind = models.CharField(max_length=16)
    is_rated = models.BooleanField(default=True)
    reason = models.CharField(max_length=200, blank=True)
    first = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    #: The team that asked for an unranked test game (for its rate limit).
    requested_by = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=24, choices=GameStatus.choices, default=GameStatus.QUEUED)
    claimed_by = models.CharField(max_length=64, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    seed = models.CharField(max_length=80)
    deals = models.PositiveIntegerField()
    #: ``first``'s mean mbb/hand over the game's deals (``second``'s is the opposite).
    adjusted_mbb = models.FloatField(null=True, blank=True)
    raw_mbb = models.FloatField(null=True, blank=True)
    hand_count = models.PositiveIntegerField(default=0)
    #: ``first``'s result per deal (luck-adjusted and raw): the duplicate units.
    units = models.JSONField(default=dict, blank=True)
    #: Each seat's faults by kind, by version label.
    faults = models.JSONField(default=dict, blank=True)
    first_at_fault = models.BooleanField(default=False)
    second_at_fault = models.BooleanField(default=False)
    end_reason = models.TextField(blank=True)
    match_seat = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    match_swap = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes: ClassVar = [models.Index(fields=["status", "lease_expires"])]

    def __str__(self) -> str:
        return f"game {self.pk}: {self.first} vs {self.second}"

    @property
    def is_over(self) -> bool:
        """Done, a bot's fault or left out: its seed may be shown."""
        return self.status not in (GameStatus.QUEUED, GameStatus.CLAIMED)

    def score_for(self, version_id: int) -> float | None:
        """``version_id``'s luck-adjusted mbb/hand in this game (None: no result)."""
        if self.adjusted_mbb is None:
            return None
        return self.adjusted_mbb if version_id == self.first_id else -self.adjusted_mbb


class Rating(models.Model):
    """A version's place on the ladder after the last fit (the rows are replaced by each fit)."""

    version = models.OneToOneField(BotVersion, on_delete=models.CASCADE, related_name="+")
    place = models.PositiveIntegerField()
    strength = models.FloatField()
    sd = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    game_count = models.PositiveIntegerField()
    chance_above_next = models.FloatField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering: ClassVar = ["place"]


class PromotionStatus(models.TextChoices):
    """Where a promotion test stands."""

    RUNNING = "running"
    BETTER = "better"
    NOT_BETTER = "not_better"
    CANCELLED = "cancelled"


class PromotionTest(models.Model):
    """ "Is my new version better?": the candidate against the team's active version."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="+")
    candidate = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    incumbent = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(
        max_length=12, choices=PromotionStatus.choices, default=PromotionStatus.RUNNING
    )
    game_count = models.PositiveIntegerField(default=0)
    llr = models.FloatField(default=0.0)
    lower_bound = models.FloatField(default=0.0)
    upper_bound = models.FloatField(default=0.0)
    #: ``[[games, llr], ...]`` after each game (a hundred points at most).
    llr_history = models.JSONField(default=list, blank=True)
    activated = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    decided = models.DateTimeField(null=True, blank=True)


class LadderTeamSettings(models.Model):
    """A team's ladder settings: make a version active by itself when its test finds it
    better."""

    team = models.OneToOneField(Team, on_delete=models.CASCADE, related_name="+")
    auto_activate = models.BooleanField(default=False)

    @classmethod
    def of(cls, team: Team) -> LadderTeamSettings:
        """The team's row (made with the defaults when missing)."""
        row, _ = cls.objects.get_or_create(team=team)
        return row


class UnrankedRequest(models.Model):
    """A team's unranked test games against a chosen opponent, still to start."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="+")
    bot = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    games_left = models.PositiveIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)


class FinalsRun(models.Model):
    """The finals: the final round robin's standings, crosstable and report, once played."""

    status = models.CharField(max_length=12, default="running")
    message = models.TextField(blank=True)
    entrants = models.JSONField(default=list)
    standings = models.JSONField(default=dict, blank=True)
    report_file = models.CharField(max_length=1024, blank=True)
    started = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
