"""The database's state as :mod:`arena.ladder`'s values: a game's result, what matchmaking
reads (the running sums' counts, :mod:`arena.server.ladder.sums`, and the last stored fit,
:mod:`arena.server.ladder.fitting`: never every game played).

The ladder's names for versions are their labels (``<team>-v<number>``,
:func:`~arena.server.ladder.models.version_label`); the active versions are the teams'
active ones that are accepted and not disabled. A ring table's result reaches the fit as
its pairwise comparisons (:meth:`arena.ladder.games.TableResult.pairwise`), and its hands
count once for each version at the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from django.db.models import Max, OuterRef, Q, QuerySet, Subquery, prefetch_related_objects
from django.utils import timezone

from arena.ladder.games import GameResult, TableResult
from arena.ladder.matchmaking import (
    Candidates,
    Entrant,
    GameKind,
    GameRequest,
    LadderState,
    MatchmakingSettings,
    Pairing,
)
from arena.ladder.ratings import FitSettings, Standings
from arena.server.ladder.config import LadderSettings
from arena.server.ladder.fit_snapshot import (
    NEIGHBOURS_KEPT,
    Snapshot,
    knobs,
    read_snapshot,
    standings_of,
)
from arena.server.ladder.models import (
    Game,
    GameStatus,
    TableSeat,
    VersionSumsRow,
    label_of,
    version_label,
)
from arena.server.ladder.roster import (
    Asked,
    ClaimRows,
    Roster,
    claim_rows,
    pending_requests,
    read_roster,
)
from arena.server.ladder.snapshot_bytes import StoredRoster, unpack_snapshot
from arena.server.site.models import BotVersion, Team, VersionStatus

__all__ = [
    "IN_FLIGHT",
    "LADDER_BOARD",
    "ActiveVersion",
    "Prefetched",
    "active_labels",
    "active_versions",
    "floor_interval_guess",
    "game_result",
    "game_results",
    "known_fit",
    "ladder_state",
    "ladder_view",
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
    return list(_active_rows().select_related("team"))


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


def game_results(games: Iterable[Game]) -> list[GameResult]:
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
    version with no game. Reads one row, never the games."""
    return _stored_view(active, {}, None)[0]


def _stored_view(
    active: Mapping[int, str], counts: Mapping[int, int], settings: MatchmakingSettings | None
) -> tuple[Standings, Candidates | None]:
    """:func:`stored_standings`, and the snapshot's candidate pairs when they are the ones
    matchmaking would make now (the same versions active, the same ones placed by their
    games now, ``counts``, the same knobs in the ``settings`` given): None otherwise, and
    matchmaking makes them from the standings."""
    prior = FitSettings()
    found = read_snapshot()
    return _view_of(found, active, counts, settings, prior)


def _view_of(
    found: Snapshot | None,
    active: Mapping[int, str],
    counts: Mapping[int, int],
    settings: MatchmakingSettings | None,
    prior: FitSettings,
) -> tuple[Standings, Candidates | None]:
    """:func:`_stored_view` of the snapshot ``found``."""
    if found is None:
        empty = {name: np.zeros(0) for name in ("ids", "strength", "sd", "low", "high")}
        arrays = {**empty, "game_count": np.zeros(0), "band": np.zeros((0, NEIGHBOURS_KEPT))}
        standings = standings_of(arrays, active, game_sd=prior.fallback_game_sd_mbb,
                               confidence=prior.confidence)  # fmt: skip
        return standings, None
    arrays, _roster, game_sd, confidence = found
    standings = standings_of(arrays, active, game_sd=game_sd, confidence=confidence)
    if settings is None or tuple(arrays["knobs"].tolist()) != knobs(settings):
        return standings, None
    ids = arrays["ids"].tolist()
    if set(ids) != set(active):
        return standings, None
    placed = sorted(pk for pk in ids if counts.get(pk, 0) >= settings.placement_games)
    if placed != arrays["placed"].tolist():
        return standings, None
    order = arrays["ids"]
    position = {pk: row for row, pk in enumerate(order.tolist())}
    bots = tuple(active[pk] for pk in order.tolist())
    first = np.array([position[pk] for pk in arrays["pair_first"].tolist()], dtype=np.int64)
    second = np.array([position[pk] for pk in arrays["pair_second"].tolist()], dtype=np.int64)
    return standings, Candidates(bots, first, second, arrays["importance"], arrays["wrong"],
                                 arrays["variance"])  # fmt: skip


def _active_with_sums() -> tuple[dict[int, ActiveVersion], dict[int, tuple[int, int | None]]]:
    """:func:`active_labels`, and each one's games and last game from its running sums
    (none: no row), in one query."""
    sums = VersionSumsRow.objects.filter(version=OuterRef("pk"))
    rows = _active_rows().annotate(
        games=Subquery(sums.values("game_count")), last=Subquery(sums.values("last_game"))
    )
    active: dict[int, ActiveVersion] = {}
    counts: dict[int, tuple[int, int | None]] = {}
    for pk, team, number, team_id, games, last in rows.values_list(
        "pk", "team__name", "number", "team_id", "games", "last"
    ):
        active[pk] = ActiveVersion(label_of(team, number), team, team_id)
        if games is not None:
            counts[pk] = (games, last)
    return active, counts


def _active_rows() -> QuerySet[BotVersion]:
    """The active versions (:func:`active_versions`' rule), by team name."""
    return BotVersion.objects.filter(
        pk__in=Team.objects.exclude(active_version=None).values("active_version"),
        status=VersionStatus.ACCEPTED,
        is_disabled=False,
    ).order_by("team__name")


class ActiveVersion(NamedTuple):
    """An active version as plain values: its label, its team's name and number."""

    label: str
    team: str
    team_id: int


def active_labels() -> dict[int, ActiveVersion]:
    """Each active version by its number, by team name: what :func:`active_versions`
    finds, as plain values (matchmaking and the fit read a thousand)."""
    return {pk: ActiveVersion(label_of(team, number), team, team_id)
            for pk, team, number, team_id in _active_rows().values_list(
                "pk", "team__name", "number", "team_id")}  # fmt: skip


def ladder_state(
    settings: LadderSettings, now: datetime | None = None, *, partial: bool = True
) -> LadderState:
    """What matchmaking reads, from the database now (:func:`ladder_view`'s state)."""
    return ladder_view(settings, now, partial=partial)[0]


def ladder_view(
    settings: LadderSettings,
    now: datetime | None = None,
    table_size: int = 2,
    *,
    partial: bool = True,
    roster: Roster | None = None,
    rows: Prefetched | None = None,
) -> tuple[LadderState, dict[str, int]]:
    """What matchmaking reads, from the database now: the running sums' counts and the
    last fit's snapshot (one row: its standings and its candidate pairs), never the games
    played (only those in flight and the recent test games); and the number of every
    version the state names, by label (the claim loads only the ones a pairing names).

    When the fit's candidates are still the ones matchmaking would make (the same roster,
    :mod:`arena.server.ladder.roster`) and every active version is placed, the state is
    partial (:class:`arena.ladder.pairings.LadderState`): a few numbers and the versions
    the floor may owe a game, not every active version; else (or with ``partial``
    False) every one is read. ``roster``: the roster as just read in this transaction
    (:func:`~arena.server.ladder.roster.roster_statement`, sent with other statements),
    else read here; ``rows``: the claim's rows read with it, for the floor's interval it
    names (used when the roster's is that one, else read again here)."""
    now = now or timezone.now()
    matchmaking = settings.matchmaking(table_size)
    shortcut = None
    if partial and table_size == 2:
        roster = roster or read_roster(matchmaking.placement_games, known_fit())
        shortcut = _partial_view(now, settings, matchmaking, roster, rows)
    return shortcut or _full_view(_common(pending_requests(), now, settings), matchmaking)


class _Common(NamedTuple):
    """What a partial and a whole state share: the requests, the time, the test starts;
    and the numbers of the requests' versions by label."""

    requests: tuple[GameRequest, ...]
    now_s: float
    recent_test_starts: dict[str, tuple[float, ...]]
    ids: dict[str, int]

    def fields(self) -> dict[str, Any]:
        """The :class:`LadderState` fields of these."""
        return {"requests": self.requests, "now_s": self.now_s,
                "recent_test_starts": self.recent_test_starts}  # fmt: skip


def _common(asked: Iterable[Asked], now: datetime, settings: LadderSettings) -> _Common:
    """The requests ``asked`` as matchmaking reads them, with each team's recent test
    games' starts (read only when a test game is asked for)."""
    requests, ids = _requests(asked)
    since = now - timedelta(seconds=settings.test_window_s)
    starts: dict[str, list[float]] = {}
    if any(request.kind is GameKind.TEST for request in requests):
        tested = Game.objects.filter(
            kind=GameKind.TEST, created__gt=since, requested_by__isnull=False
        )
        for team, created in tested.values_list("requested_by__name", "created"):
            starts.setdefault(team, []).append(created.timestamp())
    return _Common(tuple(requests), now.timestamp(),
                   {team: tuple(values) for team, values in starts.items()}, ids)  # fmt: skip


def _requests(asked: Iterable[Asked]) -> tuple[list[GameRequest], dict[str, int]]:
    """The teams' pending requests (version tests first), and their versions' numbers
    by label."""
    requests, ids = [], {}
    for asked_for in asked:
        if asked_for.games_left is None:
            requests.append(GameRequest(asked_for.team, asked_for.bot, asked_for.opponent,
                                        GameKind.VERSION_TEST))  # fmt: skip
        else:
            requests.append(GameRequest(asked_for.team, asked_for.bot, asked_for.opponent,
                                        GameKind.TEST, asked_for.games_left))  # fmt: skip
        ids.update({asked_for.bot: asked_for.bot_id, asked_for.opponent: asked_for.opponent_id})
    return requests, ids


class Prefetched(NamedTuple):
    """The claim's rows (:func:`~arena.server.ladder.roster.claim_rows`) as read for the
    floor's ``interval``."""

    interval: int
    rows: ClaimRows


#: The floor's interval of the last roster a claim of this process read (its rows for
#: the next claim are read with its first statements for that one: the roster's size
#: seldom changes, and when it has they are read again).
_LAST_INTERVAL: dict[str, int] = {}


def floor_interval_guess() -> int | None:
    """The floor's interval the next claim's rows are likely read for (the last roster's:
    :data:`_LAST_INTERVAL`); None before a claim."""
    return _LAST_INTERVAL.get("floor")


def _partial_view(
    now: datetime,
    ladder: LadderSettings,
    settings: MatchmakingSettings,
    roster: Roster,
    prefetched: Prefetched | None,
) -> tuple[LadderState, dict[str, int]] | None:
    """The partial state (:func:`ladder_view`) from ``roster`` (with the fit's row) and one
    statement more (the requests, the games in flight and the overdue versions), or None when
    the shortcut does not hold: no fit, or one made before the roster was stored, other
    knobs, a version owed placement games, another roster than the fit's, a table in
    flight."""
    unpacked = _unpacked(roster)
    if unpacked is None or roster.placing:
        return None
    arrays, stored = unpacked
    if stored is None or roster.digest != stored.digest:
        return None
    if tuple(arrays["knobs"].tolist()) != knobs(settings):
        return None
    interval = settings.floor_interval(roster.size)
    _LAST_INTERVAL["floor"] = interval
    if prefetched is not None and prefetched.interval == interval:
        rows = prefetched.rows
    else:
        rows = claim_rows(interval)
    flying = rows.in_flight
    if flying is None:
        return None
    common = _common(rows.requests, now, ladder)
    labels = stored.labels
    ids = arrays["ids"]
    sorter = np.argsort(ids)

    def positions(numbers: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return sorter[np.searchsorted(ids, numbers, sorter=sorter)]

    first, second = positions(arrays["pair_first"]), positions(arrays["pair_second"])
    candidates = Candidates(labels, first, second, arrays["importance"], arrays["wrong"],
                            arrays["variance"], teams=stored.teams)  # fmt: skip
    started: dict[int, int] = {}  # each version's last rated game in flight
    for game in flying:
        if game.is_rated:
            for version_id in (game.first_id, game.second_id):
                started[version_id] = max(started.get(version_id, 0), game.pk)
    entrants = []
    for version in rows.overdue:
        flown = started.get(version.pk)
        last = version.last_game if flown is None else max(version.last_game, flown)
        entrants.append(Entrant(label_of(version.team, version.number), version.team,
                                game_count=version.game_count, last_game_number=last))  # fmt: skip
    # Matchmaking reads only the standings' spread of one game from a partial state.
    spread = Standings.from_band([], [], np.zeros((0, NEIGHBOURS_KEPT)),
                                 game_sd=roster.game_sd, confidence=roster.confidence)  # fmt: skip
    state = LadderState(
        entrants=tuple(entrants),
        standings=spread,
        in_flight=tuple(Pairing(game.first, game.second, GameKind(game.kind)) for game in flying),
        game_number=roster.game_number,
        candidates=candidates,
        entrant_total=roster.size,
        **common.fields(),
    )
    return state, {**dict(zip(labels, ids.tolist(), strict=True)), **common.ids}


#: The last fit's snapshot as this process unpacked it, by its MD5 (one entry): a fit
#: changes at most every few seconds, and a claim, many times a second, then neither has
#: it sent (:func:`~arena.server.ladder.roster.roster_statement`) nor unpacks it again.
_UNPACKED: dict[str, tuple[dict[str, npt.NDArray[Any]], StoredRoster | None]] = {}


def known_fit() -> str:
    """The MD5 of the fit's snapshot this process holds unpacked (empty: none), for
    :func:`~arena.server.ladder.roster.roster_statement`."""
    return next(iter(_UNPACKED), "")


def _unpacked(roster: Roster) -> tuple[dict[str, npt.NDArray[Any]], StoredRoster | None] | None:
    """The fit's snapshot ``roster`` names, unpacked: the one it brought (kept for the next
    claims, its arrays read-only), or the one this process holds when it brought none
    because it was that one; None before a fit (or when another thread has just kept
    another: the claim then reads everything)."""
    if roster.snapshot is not None:
        arrays, stored = unpack_snapshot(roster.snapshot)
        for values in arrays.values():
            values.flags.writeable = False
        _UNPACKED.clear()
        _UNPACKED[roster.fit_digest] = (arrays, stored)
        return arrays, stored
    return _UNPACKED.get(roster.fit_digest)


def _full_view(
    common: _Common, settings: MatchmakingSettings
) -> tuple[LadderState, dict[str, int]]:
    """The whole state (with ``common``): every active version (:func:`ladder_view`)."""
    active, sums = _active_with_sums()
    flying = list(Game.objects.filter(status__in=IN_FLIGHT).select_related(*_WITH_TEAMS))
    if any(game.is_table for game in flying):  # a table's seats (heads-up has none)
        prefetch_related_objects(flying, "table_seats__version__team")
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
    standings, candidates = _stored_view(
        {pk: version.label for pk, version in active.items()},
        {pk: games for pk, (games, _last) in sums.items()},
        settings,
    )
    ids = {version.label: pk for pk, version in active.items()}
    in_flight = tuple(
        Pairing(version_label(game.first), version_label(game.second), GameKind(game.kind),
                others=tuple(version_label(seat.version) for seat in game.seats_in_order()[2:]))
        for game in flying
    )  # fmt: skip
    state = LadderState(
        entrants=tuple(entrants),
        standings=standings,
        in_flight=in_flight,
        game_number=Game.objects.aggregate(last=Max("pk"))["last"] or 0,
        candidates=candidates,
        **common.fields(),
    )
    return state, {**ids, **common.ids}
