"""The ladder's tables: games (with their lease), ratings, promotion tests, test game
requests, the teams' ladder settings, the finals, and the value fits (the luck
estimator's betting weights fitted on earlier games) with their job.

A game is one duplicate pair of matches between two bot versions: the same deals played
once each way round. With a ring competition a rated game is a table instead: ``N`` versions
(``seat_count``), the same deals played in the ``N`` rotations of the table (seat ``i`` gets
the ``(i + r) mod N``-th version in rotation ``r``), each version's result on its
:class:`TableSeat` row. Its row is its job: ``queued`` until a worker claims it (``claimed``,
with the worker's name and a lease that the worker renews), then ``done`` (a result),
``bot_fault`` (a bot did not start: a forfeit, or no result when neither did) or
``failed_infrastructure`` (left out after too many attempts the bots were not to blame for).
A claimed game whose lease expired is claimed again and played from its start, with the
same seed. Its seed comes from the site's secret key and the game's number; a team is
shown it only once the game is over and only where the site shows every card anyway
(:func:`arena.server.ladder.views.published_seed`).
"""

from __future__ import annotations

from typing import ClassVar

from django.db import models

from arena.server.site.models import BotVersion, Match, Team

__all__ = [
    "LLR_CAP",
    "FinalsRun",
    "FinalsStatus",
    "Game",
    "GameStatus",
    "LadderTeamSettings",
    "OwnFaults",
    "PairSumsRow",
    "PromotionStatus",
    "PromotionTest",
    "Rating",
    "RatingFit",
    "RatingPoint",
    "TableSeat",
    "UnrankedRequest",
    "ValueFit",
    "ValueFitJob",
    "VersionSumsRow",
    "label_of",
    "version_label",
]


def version_label(version: BotVersion) -> str:
    """A version's name on the ladder and in its matches: ``<team>-v<number>``."""
    return label_of(version.team.name, version.number)


def label_of(team: str, number: int) -> str:
    """The label of version ``number`` of the team named ``team`` (:func:`version_label`
    without the models: for rows read as plain values)."""
    return f"{team}-v{number}"


class GameStatus(models.TextChoices):
    """Where a game is (module docstring)."""

    QUEUED = "queued"
    CLAIMED = "claimed"
    DONE = "done"
    BOT_FAULT = "bot_fault"
    FAILED_INFRASTRUCTURE = "failed_infrastructure"


class ValueFit(models.Model):
    """The luck estimator's betting weights fitted on the ladder's own earlier games
    (:mod:`arena.server.ladder.value_fits`), frozen: a row is written whole, once, and
    never changed, and a game claimed after it is played with it (:attr:`Game.value_fit`).
    ``weights`` as :meth:`arena.luck.LuckValue.to_dict` writes them, ``digest`` their hash,
    ``estimator`` the estimator's name with them; the games fitted on (every one finished
    before ``created``): ``game_count`` of them, ``hand_count`` hands, the newest
    ``last_game``, and ``games_digest`` a hash of their numbers."""

    weights = models.JSONField()
    digest = models.CharField(max_length=16)
    estimator = models.CharField(max_length=120)
    last_game = models.BigIntegerField()
    game_count = models.PositiveIntegerField()
    hand_count = models.PositiveIntegerField()
    games_digest = models.CharField(max_length=16)
    created = models.DateTimeField()

    def __str__(self) -> str:
        return f"value fit {self.pk}: {self.estimator} on {self.game_count} games"


class ValueFitJob(models.Model):
    """The value fit's job (one row): the claim of the worker fitting now (one at a time,
    taken by a conditional update) and the games done when a fit was last tried
    (``tried_at_count``: the next is due that many games later)."""

    claimed_until = models.DateTimeField(null=True, blank=True)
    tried_at_count = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"value fit job (tried at {self.tried_at_count} games)"


class Game(models.Model):
    """A ladder game: a duplicate pair of matches (or a table's rotations), its lease, its
    result. ``first`` and ``second`` are its first two seats; a table's every seat, with
    each version's result, is a :class:`TableSeat` (a heads-up game has none)."""

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
    #: Versions at the table: 2 heads-up, ``N`` for a ring table.
    seat_count = models.PositiveSmallIntegerField(default=2)
    #: ``first``'s mean mbb/hand over the game's deals (heads-up, ``second``'s is the
    #: opposite; a table's every seat has its own on its :class:`TableSeat`).
    adjusted_mbb = models.FloatField(null=True, blank=True)
    raw_mbb = models.FloatField(null=True, blank=True)
    hand_count = models.PositiveIntegerField(default=0)
    #: ``first``'s result per deal (luck-adjusted and raw): the duplicate units (a table:
    #: ``{"adjusted": {label: [...]}, "raw": {label: [...]}}``, every seat's).
    units = models.JSONField(default=dict, blank=True)
    #: Each seat's faults by kind, by version label.
    faults = models.JSONField(default=dict, blank=True)
    #: The luck estimator that adjusted its results (``arena.luck``'s name and version,
    #: as its matches reported it); empty when no match was played to its end with one.
    #: Stored with the game so that a later change of estimator shows in its history.
    estimator = models.CharField(max_length=120, blank=True)
    #: The value fit whose weights its luck estimator used, chosen when it was made (so a
    #: game played again uses it too); None: the shipped weights.
    value_fit = models.ForeignKey(
        ValueFit, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    first_at_fault = models.BooleanField(default=False)
    second_at_fault = models.BooleanField(default=False)
    end_reason = models.TextField(blank=True)
    match_seat = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    match_swap = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    #: A table's matches (:class:`Match` numbers) in rotation order (heads-up: empty; its
    #: two are ``match_seat`` and ``match_swap``).
    rotation_matches = models.JSONField(default=list, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    #: True once the game is in the running sums (:class:`PairSumsRow`,
    #: :class:`VersionSumsRow`): each finished game is added exactly once.
    counted = models.BooleanField(default=False)

    class Meta:
        indexes: ClassVar = [
            models.Index(fields=["status", "lease_expires"]),
            # The finished games not yet in the sums: a handful, whatever the history.
            models.Index(fields=["id"], condition=models.Q(counted=False), name="game_not_counted"),
            # A team's recent test games (the rate limit), without reading every game.
            models.Index(fields=["kind", "created"], name="game_kind_created"),
        ]

    def __str__(self) -> str:
        if self.is_table:
            return f"game {self.pk}: table of {self.seat_count} ({self.first}, {self.second}, ...)"
        return f"game {self.pk}: {self.first} vs {self.second}"

    @property
    def is_table(self) -> bool:
        """True for a ring table (more than two seats)."""
        return self.seat_count > 2

    def seats_in_order(self) -> list[TableSeat]:
        """A table's seats by seat index (heads-up: none)."""
        if not self.is_table:
            return []
        return sorted(self.table_seats.all(), key=lambda seat: seat.seat_index)

    def seat_of(self, version_id: int) -> TableSeat | None:
        """``version_id``'s seat at this table (None: heads-up, or not at it)."""
        return next((s for s in self.seats_in_order() if s.version_id == version_id), None)

    def match_numbers(self) -> list[int]:
        """The game's matches on the site (their pages), in playing order."""
        if self.is_table:
            return [int(number) for number in self.rotation_matches]
        return [pk for pk in (self.match_seat_id, self.match_swap_id) if pk is not None]

    def is_at_fault(self, version_id: int) -> bool:
        """True when ``version_id`` did not start (it forfeited, or nobody had a result)."""
        seat = self.seat_of(version_id)
        if seat is not None:
            return seat.at_fault
        if version_id == self.first_id:
            return self.first_at_fault
        return version_id == self.second_id and self.second_at_fault

    def raw_for(self, version_id: int) -> float | None:
        """``version_id``'s raw mbb/hand in this game (None: no result)."""
        if self.raw_mbb is None:
            return None
        seat = self.seat_of(version_id)
        if seat is not None:
            return seat.raw_mbb
        return self.raw_mbb if version_id == self.first_id else -self.raw_mbb

    @property
    def is_over(self) -> bool:
        """Done, a bot's fault or left out (its seed may be shown: see the module)."""
        return self.status not in (GameStatus.QUEUED, GameStatus.CLAIMED)

    def score_for(self, version_id: int) -> float | None:
        """``version_id``'s luck-adjusted mbb/hand in this game (None: no result)."""
        if self.adjusted_mbb is None:
            return None
        seat = self.seat_of(version_id)
        if seat is not None:
            return seat.adjusted_mbb
        return self.adjusted_mbb if version_id == self.first_id else -self.adjusted_mbb


class TableSeat(models.Model):
    """One seat of a ring table game: its version, in the first rotation's seat order, and
    the version's result at the table (mbb/hand, luck-adjusted and raw; None until over or
    without a result) and whether it did not start."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="table_seats")
    seat_index = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    adjusted_mbb = models.FloatField(null=True, blank=True)
    raw_mbb = models.FloatField(null=True, blank=True)
    at_fault = models.BooleanField(default=False)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["game", "seat_index"], name="one_version_per_seat"),
            models.UniqueConstraint(fields=["game", "version"], name="one_seat_per_version"),
        ]
        indexes: ClassVar = [models.Index(fields=["version", "game"])]

    def __str__(self) -> str:
        return f"game {self.game_id} seat {self.seat_index}: {self.version}"


class OwnFaults(models.Model):
    """A version's own faults in one game, for its team only: each fault's match, kind,
    hand and reason (``[{"match", "kind", "hand", "reason"}, ...]``) and the end of the
    version's own stderr (:mod:`arena.server.ladder.own_faults`). The game's public
    reason names a fault by its code; the rest is here, read only through
    :func:`arena.server.site.scope.visible` (the version's team's rows)."""

    #: The path from a row to the team that may read it (:func:`~arena.server.site.scope.visible`).
    owner_team: ClassVar[str] = "version__team"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    faults = models.JSONField(default=list, blank=True)
    stderr = models.TextField(blank=True)

    class Meta:
        verbose_name_plural = "own faults"
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["game", "version"], name="own_faults_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.version}'s faults"


class PairSumsRow(models.Model):
    """One pair's rated games as running sums (:class:`arena.ladder.sums.PairSums`), from
    ``first``'s point of view (``first`` the version with the smaller number on the site),
    updated in the transaction that stores each game: the fit and the pages read these,
    never the games."""

    first = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    game_count = models.PositiveIntegerField(default=0)
    information = models.FloatField(default=0.0)
    weighted_sum = models.FloatField(default=0.0)
    adjusted_sum = models.FloatField(default=0.0)
    adjusted_squares = models.FloatField(default=0.0)
    raw_sum = models.FloatField(default=0.0)
    raw_squares = models.FloatField(default=0.0)
    hand_count = models.BigIntegerField(default=0)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["first", "second"], name="one_sums_row_per_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.first} vs {self.second}: {self.game_count} games"


class VersionSumsRow(models.Model):
    """A version's rated games with a result and their hands (a table's once, not once
    per pair), and the number of the last rated game it finished (what matchmaking's floor
    reads), updated with the pairs' sums."""

    version = models.OneToOneField(BotVersion, on_delete=models.CASCADE, related_name="+")
    game_count = models.PositiveIntegerField(default=0)
    hand_count = models.BigIntegerField(default=0)
    last_game = models.BigIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.version}: {self.game_count} games"


class RatingFit(models.Model):
    """The last fit of the ratings (one row): when, how long it took, the pooled spread of
    one game it found, the games played (done) then, and the claim of the worker fitting
    now (one at a time: a conditional update takes it,
    :func:`arena.server.ladder.fitting.refresh_if_due`); the games done so far, counted as
    each is added to the sums (a fit copies it: counting a million games is not a fit's
    work); and the fit as matchmaking reads it (``snapshot``)."""

    fitted = models.DateTimeField(null=True, blank=True)
    game_count = models.PositiveIntegerField(default=0)
    done_count = models.PositiveIntegerField(default=0)
    #: What matchmaking reads of the fit, made with it (:mod:`arena.server.ladder.fit_snapshot`'s
    #: ``fit_snapshot``): the ratings in place order with their covariance band, and tier
    #: 5's candidate pairs, as arrays in one value (one row read per claim, not a
    #: thousand).
    snapshot = models.BinaryField(blank=True, default=b"")
    seconds = models.FloatField(default=0.0)
    game_sd = models.FloatField(default=0.0)
    confidence = models.FloatField(default=0.95)
    claimed_until = models.DateTimeField(null=True, blank=True)
    history_written = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"fit of {self.fitted}"


class RatingPoint(models.Model):
    """A version's rating after a fit: the rating history its page draws."""

    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField()
    strength = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    place = models.PositiveIntegerField()
    game_count = models.PositiveIntegerField()

    class Meta:
        indexes: ClassVar = [models.Index(fields=["version", "at"])]

    def __str__(self) -> str:
        return f"{self.version} at {self.at}: {self.strength:.1f}"


class Rating(models.Model):
    """A version's place on the ladder after the last fit (the rows are replaced by each
    fit), with its covariance with the versions just below it (``covariances[k]``: with
    the one ``k + 1`` places down; what matchmaking's neighbours read)."""

    version = models.OneToOneField(BotVersion, on_delete=models.CASCADE, related_name="+")
    place = models.PositiveIntegerField()
    strength = models.FloatField()
    sd = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    game_count = models.PositiveIntegerField()
    chance_above_next = models.FloatField(null=True, blank=True)
    covariances = models.JSONField(default=list, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering: ClassVar = ["place"]


class PromotionStatus(models.TextChoices):
    """Where a promotion test stands."""

    RUNNING = "running"
    BETTER = "better"
    NOT_BETTER = "not_better"
    CANCELLED = "cancelled"


#: Where an infinite ratio (every game the same score) is drawn and stored (JSON has no inf).
LLR_CAP = 1e6


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

    @property
    def status_text(self) -> str:
        """The status as words ("not better")."""
        return str(self.status).replace("_", " ")

    @property
    def evidence(self) -> str:
        """What the test has seen, honestly: no games yet (its bounds are not set then), a
        ratio that is infinite (every game the same score: no spread, the test is decided
        at once), or the ratio and its bounds."""
        if self.game_count == 0:
            return "no games yet"
        games = f"{self.game_count} game{'' if self.game_count == 1 else 's'}"
        if abs(self.llr) >= LLR_CAP:
            return f"after {games}, every one with the same result (no spread: decided at once)"
        return (
            f"after {games} (log-likelihood ratio {self.llr:.2f}, "
            f"bounds {self.lower_bound:.2f} and {self.upper_bound:.2f})"
        )


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


class FinalsStatus(models.TextChoices):
    """Where a finals run is: playing, published, or stopped by an error (its message)."""

    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class FinalsRun(models.Model):
    """The finals: the final round robin's standings, crosstable and report, once played."""

    status = models.CharField(max_length=12, default=FinalsStatus.RUNNING)
    message = models.TextField(blank=True)
    entrants = models.JSONField(default=list)
    standings = models.JSONField(default=dict, blank=True)
    report_file = models.CharField(max_length=1024, blank=True)
    started = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
