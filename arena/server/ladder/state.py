"""The database's state as :mod:`arena.ladder`'s values: a game's result, what matchmaking
reads (the running sums' counts, :mod:`arena.server.ladder.sums`, and the last stored fit,
:mod:`arena.server.ladder.fitting`: never every game played), and the promotion tests
advanced after a result (a candidate found better made active when its team asked).

The ladder's names for versions are their labels (``<team>-v<number>``,
:func:`~arena.server.ladder.models.version_label`); the active versions are the teams'
active ones that are accepted and not disabled. A ring table's result reaches the fit as
its pairwise comparisons (:meth:`arena.ladder.games.TableResult.pairwise`), and its hands
count once for each version at the table.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from statistics import NormalDist
from typing import NamedTuple

from django.db.models import Max, Q, QuerySet
from django.utils import timezone

from arena.ladder.games import GameResult, TableResult
from arena.ladder.matchmaking import Entrant, GameKind, GameRequest, LadderState, Pairing
from arena.ladder.promotion import Verdict, should_activate
from arena.ladder.ratings import FitSettings, Standings
from arena.ladder.ratings import Rating as FittedRating
from arena.server.ladder.config import LadderSettings
from arena.server.ladder.models import (
    LLR_CAP,
    Game,
    GameStatus,
    LadderTeamSettings,
    PromotionStatus,
    PromotionTest,
    Rating,
    RatingFit,
    TableSeat,
    UnrankedRequest,
    VersionSumsRow,
    label_of,
    version_label,
)
from arena.server.site.models import BotVersion, Team, VersionStatus
from arena.server.site.versions import activate

__all__ = [
    "IN_FLIGHT",
    "LADDER_BOARD",
    "ActiveVersion",
    "active_labels",
    "active_versions",
    "advance_promotions",
    "game_result",
    "ladder_state",
    "plays_in",
    "stored_standings",
    "table_result",
    "with_seats",
]

#: The name of the ladder's board among the site's leaderboards.
LADDER_BOARD = "ladder"
#: The statuses of a game not played yet.
IN_FLIGHT = (GameStatus.QUEUED, GameStatus.CLAIMED)
_WITH_TEAMS = ("first__team", "second__team")


def active_versions() -> list[BotVersion]:
    """Each team's active version that is accepted and not disabled, by team name."""
    return list(
        BotVersion.objects.filter(
            pk__in=Team.objects.exclude(active_version=None).values("active_version"),
            status=VersionStatus.ACCEPTED,
            is_disabled=False,
        )
        .select_related("team")
        .order_by("team__name")
    )


def with_seats(games: QuerySet[Game]) -> QuerySet[Game]:
    """``games`` with their versions and a table's seats loaded (no query per game)."""
    return games.select_related(*_WITH_TEAMS).prefetch_related("table_seats__version__team")


def plays_in(version: BotVersion | int) -> Q:
    """The games ``version`` plays in: heads-up as first or second, or at a table's seat."""
    seated = TableSeat.objects.filter(version=version).values("game")
    return Q(first=version) | Q(second=version) | Q(pk__in=seated)


def game_result(game: Game) -> GameResult | None:
    """The ladder's value of a finished heads-up game (None: it has no result, or it is a
    table: :func:`table_result`)."""
    if game.is_table or game.adjusted_mbb is None or game.raw_mbb is None:
        return None
    if game.hand_count <= 0:
        return None
    return GameResult(
        version_label(game.first),
        version_label(game.second),
        adjusted_mbb=game.adjusted_mbb,
        raw_mbb=game.raw_mbb,
        hand_count=game.hand_count,
        is_rated=game.is_rated,
    )


def table_result(game: Game) -> TableResult | None:
    """The ladder's value of a finished table (None: it has no result, or it is heads-up)."""
    seats = game.seats_in_order()
    if not seats or game.adjusted_mbb is None or game.hand_count <= 0:
        return None
    adjusted = tuple(seat.adjusted_mbb for seat in seats)
    raw = tuple(seat.raw_mbb for seat in seats)
    if any(value is None for value in adjusted + raw):
        return None
    return TableResult(
        tuple(version_label(seat.version) for seat in seats),
        tuple(float(value) for value in adjusted if value is not None),
        tuple(float(value) for value in raw if value is not None),
        hand_count=game.hand_count,
        is_rated=game.is_rated,
    )


def _results(games: Iterable[Game]) -> list[GameResult]:
    """Each game's results as the fit reads them: a heads-up game's own, a table's pairs."""
    found: list[GameResult] = []
    for game in games:
        table = table_result(game)
        if table is not None:
            found.extend(table.pairwise())
        elif (result := game_result(game)) is not None:
            found.append(result)
    return found


def stored_standings(active: Mapping[int, str]) -> Standings:
    """The last stored fit (:mod:`arena.server.ladder.fitting`) as standings of the
    ``active`` versions (their labels by number): their ratings, the covariances kept of
    each with the ones just below it, the pooled spread; one not in the fit (activated
    since, or before any fit) at strength 0 with the prior's spread, as the fit rates a
    version with no game. Reads two tables, as plain values, never the games."""
    prior = FitSettings()
    ratings: list[FittedRating] = []
    kept: dict[tuple[str, str], float] = {}
    rows = list(
        Rating.objects.order_by("place").values_list(
            "version_id", "strength", "sd", "low", "high", "game_count", "covariances"
        )
    )
    # ``covariances[k]`` is with the version k + 1 places down among every row written.
    placed = [active.get(row[0]) for row in rows]
    order = []
    for position, (version_id, strength, sd, low, high, games, below) in enumerate(rows):
        bot = active.get(version_id)
        if bot is None:  # no longer active: not an entrant
            continue
        order.append(bot)
        ratings.append(FittedRating(bot, len(order), strength, sd, low, high, games))
        for other, value in zip(placed[position + 1 :], below, strict=False):
            if other is not None:
                kept[(bot, other)] = value
    known = set(order)
    z = NormalDist().inv_cdf(1.0 - (1.0 - prior.confidence) / 2.0)
    sd = prior.prior_sd_mbb
    ratings += [FittedRating(bot, 0, 0.0, sd, -z * sd, z * sd, 0)
                for bot in active.values() if bot not in known]  # fmt: skip
    row = RatingFit.objects.filter(pk=1, fitted__isnull=False).values_list("game_sd", "confidence")
    game_sd, confidence = row.first() or (prior.fallback_game_sd_mbb, prior.confidence)
    return Standings.from_stored(ratings, kept, game_sd=game_sd, confidence=confidence)


class ActiveVersion(NamedTuple):
    """An active version as plain values: its label, its team's name and number."""

    label: str
    team: str
    team_id: int


def active_labels() -> dict[int, ActiveVersion]:
    """Each active version by its number, by team name: what :func:`active_versions`
    finds, as plain values (matchmaking and the fit read a thousand)."""
    rows = BotVersion.objects.filter(
        pk__in=Team.objects.exclude(active_version=None).values("active_version"),
        status=VersionStatus.ACCEPTED,
        is_disabled=False,
    ).order_by("team__name")
    return {pk: ActiveVersion(label_of(team, number), team, team_id)
            for pk, team, number, team_id in rows.values_list(
                "pk", "team__name", "number", "team_id")}  # fmt: skip


def ladder_state(settings: LadderSettings, now: datetime | None = None) -> LadderState:
    """What matchmaking reads, from the database now: the running sums' counts and the last
    stored fit, never the games played (only those in flight and the recent test games)."""
    now = now or timezone.now()
    active = active_labels()
    sums = {
        version_id: (games, last)
        for version_id, games, last in VersionSumsRow.objects.filter(
            version__in=list(active)
        ).values_list("version_id", "game_count", "last_game")
    }
    flying = list(with_seats(Game.objects.filter(status__in=IN_FLIGHT)))
    started: dict[int, int] = {}  # each version's last rated game in flight
    for game in flying:
        if game.is_rated:
            seats = game.seats_in_order()
            for version_id in [seat.version_id for seat in seats] or [
                game.first_id,
                game.second_id,
            ]:
                started[version_id] = max(started.get(version_id, 0), game.pk)
    entrants = []
    for version_id, (bot, team, _team_id) in active.items():
        games, last = sums.get(version_id, (0, None))
        flown = started.get(version_id)
        if flown is not None:
            last = flown if last is None else max(last, flown)
        entrants.append(Entrant(bot, team, game_count=games, last_game_number=last))
    standings = stored_standings({pk: version.label for pk, version in active.items()})
    in_flight = tuple(
        Pairing(version_label(game.first), version_label(game.second), GameKind(game.kind),
                others=tuple(version_label(seat.version) for seat in game.seats_in_order()[2:]))
        for game in flying
    )  # fmt: skip
    requests = [
        GameRequest(test.team.name, version_label(test.candidate),
                    version_label(test.incumbent), GameKind.VERSION_TEST)
        for test in PromotionTest.objects.filter(status=PromotionStatus.RUNNING)
        .select_related("team", "candidate__team", "incumbent__team").order_by("pk")
    ]  # fmt: skip
    requests += [
        GameRequest(request.team.name, version_label(request.bot),
                    version_label(request.opponent), GameKind.TEST, request.games_left)
        for request in UnrankedRequest.objects.filter(games_left__gt=0)
        .select_related("team", "bot__team", "opponent__team").order_by("pk")
    ]  # fmt: skip
    since = now - timedelta(seconds=settings.test_window_s)
    starts: dict[str, list[float]] = {}
    for game in Game.objects.filter(kind=GameKind.TEST, created__gt=since).select_related(
        "requested_by"
    ):
        if game.requested_by is not None:
            starts.setdefault(game.requested_by.name, []).append(game.created.timestamp())
    return LadderState(
        entrants=tuple(entrants),
        standings=standings,
        in_flight=in_flight,
        requests=tuple(requests),
        game_number=Game.objects.aggregate(last=Max("pk"))["last"] or 0,
        now_s=now.timestamp() if now else time.time(),
        recent_test_starts={team: tuple(values) for team, values in starts.items()},
    )


def _finite(value: float) -> float:
    return max(-LLR_CAP, min(LLR_CAP, value))


def advance_promotions(settings: LadderSettings, *, is_frozen: bool = False) -> None:
    """Read each running promotion test's games again: its ratio's history, its verdict,
    and the candidate made active when it is better and its team asked (not after the
    deadline: activations are frozen then)."""
    running = PromotionTest.objects.filter(status=PromotionStatus.RUNNING).select_related(
        "team", "candidate__team", "incumbent__team"
    )
    for test in running:
        pair = Q(first=test.candidate, second=test.incumbent) | Q(
            first=test.incumbent, second=test.candidate
        )
        games = with_seats(Game.objects.filter(pair, kind=GameKind.VERSION_TEST))
        candidate, incumbent = version_label(test.candidate), version_label(test.incumbent)
        state = settings.promotion(candidate, incumbent).state(_results(games.order_by("pk")))
        test.game_count = state.game_count
        test.llr = _finite(state.result.llr)
        test.lower_bound, test.upper_bound = state.lower_bound, state.upper_bound
        test.llr_history = [[count, _finite(value)] for count, value in state.llr_history]
        if state.verdict is not Verdict.CONTINUE:
            test.status = (
                PromotionStatus.BETTER
                if state.verdict is Verdict.BETTER
                else PromotionStatus.NOT_BETTER
            )
            test.decided = timezone.now()
            auto = LadderTeamSettings.of(test.team).auto_activate
            if should_activate(state, auto_activate=auto) and not is_frozen:
                activate(test.team, test.candidate)
                test.activated = True
        test.save()
