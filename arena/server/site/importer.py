"""``arena server import-tournament``: a tournament's standings and matches on the site,
until the ladder writes its own results.

The run folder's results database is read through :mod:`arena.store` and ranked by
:func:`arena.tournament.standings.compute_standings`, exactly as ``arena report`` does: the
leaderboard named after the tournament is replaced, and each finished match becomes a
:class:`~arena.server.site.models.Match` (its hands stay in the run folder, which the site
reads; keep it). A bot whose name is a team's name is that team's. Importing the same
run again updates it in place.

Each row keeps the number that ranks it, and says which it is (:func:`ranking_number`):
the luck-adjusted or raw win rate, or a freezeout's rating.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.server.django_start import start_django
from arena.server.site_folder import SiteFolder
from arena.settings import UsageError
from arena.stats.tables import Leaderboard
from arena.stats.tables import LeaderboardRow as StandingsRow
from arena.store.outcome import MatchOutcome
from arena.store.run_folder import RunFolder
from arena.store.sqlite import ResultsDatabase, ResultsDatabaseError
from arena.tournament.standings import Standings, compute_standings

__all__ = ["ImportSummary", "import_tournament", "ranking_number", "read_tournament"]


@dataclass(frozen=True, slots=True)
class ImportSummary:
    """What an import put on the site."""

    name: str
    rows: int
    matches: int


@dataclass(frozen=True, slots=True)
class TournamentResults:
    """A run folder's latest tournament: its standings and its finished matches."""

    name: str
    standings: Standings
    outcomes: tuple[MatchOutcome, ...]
    folder: Path


def read_tournament(folder: Path) -> TournamentResults:
    """The latest tournament of the run folder ``folder``; :class:`UsageError` when there
    is none or the database cannot be read."""
    run = RunFolder(folder)
    try:
        with ResultsDatabase(run.database, read_only=True) as database, database.snapshot():
            tournaments = database.tournaments()
            if not tournaments:
                raise UsageError(f"{run.database} holds no tournament yet")
            record = tournaments[-1]
            plan = {entry.match_id: entry for entry in database.plan(record.id)}
            outcomes = database.outcomes(record.id)
    except ResultsDatabaseError as error:
        raise UsageError(f"{folder}: cannot read the results database: {error}") from None
    counted = [
        outcome
        for outcome in outcomes
        if plan[outcome.match_id].is_counted and plan[outcome.match_id].status == "finished"
    ]
    config = record.config
    bots = [str(bot["name"]) for bot in config.get("bots", ()) if isinstance(bot, Mapping)]
    standings = compute_standings(
        name=record.name,
        fmt=str(config.get("format", "")),
        bots=bots,
        plan=[entry.planned for entry in plan.values()],
        counted=counted,
    )
    return TournamentResults(record.name, standings, tuple(counted), folder.absolute())


def import_tournament(site_dir: Path, folder: Path) -> ImportSummary:
    """Put the tournament of ``folder`` on the site at ``site_dir``."""
    site = SiteFolder.load(site_dir.absolute())
    results = read_tournament(folder)
    start_django(site.root)
    return save_tournament(results)


def save_tournament(results: TournamentResults) -> ImportSummary:
    """Write ``results`` to the site's database in one transaction."""
    from django.db import transaction
    from django.utils import timezone

    from arena.server.site.models import LeaderboardRow, Match, MatchSeat, MatchStatus, Team

    teams = {team.name: team for team in Team.objects.all()}
    source = f"tournament {results.name}"
    with transaction.atomic():
        LeaderboardRow.objects.filter(board=results.name).delete()
        board = results.standings.leaderboard
        rows = board.rows
        numbers = [ranking_number(board, row) for row in rows]
        LeaderboardRow.objects.bulk_create(
            LeaderboardRow(
                board=results.name,
                position=row.rank,
                name=row.bot,
                team=teams.get(row.bot),
                kind=kind,
                mbb_per_hand=value,
                half_width=half_width,
                hands=row.hands,
            )
            for row, (kind, value, half_width) in zip(rows, numbers, strict=True)
        )
        for outcome in results.outcomes:
            hands = "" if outcome.hands_path is None else str(results.folder / outcome.hands_path)
            match, _ = Match.objects.update_or_create(
                source=source,
                external_id=outcome.match_id,
                defaults={
                    "status": MatchStatus.FINISHED,
                    "hands_file": hands,
                    "hands_played": len(outcome.hands),
                    "finished": timezone.now(),
                },
            )
            match.seats.all().delete()
            MatchSeat.objects.bulk_create(
                MatchSeat(
                    match=match,
                    seat_index=seat.seat_index,
                    name=seat.bot,
                    player_id=f"p{seat.seat_index}",
                    team=teams.get(seat.bot),
                    chips_won=seat.chips_won,
                    adjusted_chips=_adjusted(outcome, position),
                    fault_count=sum(seat.fault_counts.values()),
                )
                for position, seat in enumerate(outcome.seats)
            )
    return ImportSummary(results.name, len(rows), len(results.outcomes))


def ranking_number(board: Leaderboard, row: StandingsRow) -> tuple[str, float | None, float | None]:
    """The kind (a :class:`~arena.server.site.models.ScoreKind` value), the number and its
    95% half-width that rank ``row`` on ``board``: a freezeout's rating, or the win rate
    of the board's score (luck-adjusted or raw), never one kind shown in another's order."""
    if board.order_by == "rating":
        rating = row.rating
        return "skill", None if rating is None else _finite(rating.ordinal), None
    scored = row.scored
    kind = "adjusted" if board.score == "adjusted" else "raw"
    return kind, _finite(scored.mean), _finite(scored.half_width)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _adjusted(outcome: MatchOutcome, position: int) -> float | None:
    """A seat's luck-adjusted chips over the match, when every hand has an estimate."""
    total = 0.0
    for hand in outcome.hands:
        if hand.adjusted is None:
            return None
        total += hand.adjusted[position]
    return total
