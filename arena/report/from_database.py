"""A tournament's run folder read for a report: the results database and standings.json.

The database is opened read-only (a report may be made while the tournament runs) and
read in one read transaction, so every table is seen in one state. The leaderboard and
crosstable are the tournament's standings (:func:`arena.tournament.standings.compute_standings`,
the one computation the tournament prints too) over the counted matches: duplicate deals as
units, complete blocks only, each win rate raw and luck-adjusted (when the matches ran
the luck estimator) ranked by the tournament's ``score``, with each match's luck. The
sequential tests' results are what the tournament wrote in ``standings.json`` (none while
it runs).

The charts: for each bot, its chips over its hands in plan order (the raw line) and,
for the duplicate formats, the duplicate-adjusted line: each deal of a complete block
counts once for all its seatings, as ``k`` times the bot's mean result over the block's
``k`` matches (in chips of that deal's big blind), so the line covers as many hands as
the raw one and ends where it ends (when every block is complete), but the luck of the
cards has cancelled at every deal.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from arena.report.data import MAX_CHART_POINTS, ReportError, RunData
from arena.report.sections import (
    Chart,
    FaultRow,
    LatencyRow,
    Leaderboard,
    PlaceCounts,
    SprtTest,
    TournamentPlaces,
    crosstable_section,
    cumulative,
    latency_bins,
    leaderboard_section,
    luck_section,
)
from arena.report.selection import Candidate, HandRef
from arena.session.latency import LatencyHistogram
from arena.store.outcome import MatchOutcome
from arena.store.run_folder import RunFolder
from arena.store.sqlite import ResultsDatabase, ResultsDatabaseError, TournamentRecord
from arena.store.sqlite.schema import PlanEntry
from arena.tournament.standings import DuplicateBlock, compute_standings

__all__ = ["load_tournament"]


def load_tournament(folder: Path) -> RunData:
    """The report's data of the tournament run folder ``folder`` (its latest tournament)."""
    run = RunFolder(folder)
    path = run.database
    try:
        with ResultsDatabase(path, read_only=True) as database, database.snapshot():
            tournaments = database.tournaments()
            if not tournaments:
                raise ReportError(f"{path} holds no tournament yet")
            record = tournaments[-1]
            plan = {entry.match_id: entry for entry in database.plan(record.id)}
            outcomes = database.outcomes(record.id)
    except ResultsDatabaseError as error:
        raise ReportError(f"cannot read the results database: {error}") from None
    config = record.config
    fmt = str(config.get("format", ""))
    counted = [
        outcome
        for outcome in outcomes
        if plan[outcome.match_id].is_counted and plan[outcome.match_id].status == "finished"
    ]
    bots = [str(bot["name"]) for bot in config.get("bots", ()) if isinstance(bot, Mapping)]
    data = RunData(kind="tournament", title=str(record.name), source=folder)
    planned = [entry.planned for entry in plan.values()]
    standings = compute_standings(
        name=record.name, fmt=fmt, bots=bots, plan=planned, counted=counted, score=_score(config)
    )
    fault_totals, data.faults = _faults(counted)
    data.leaderboard = leaderboard_section(standings.leaderboard.to_dict(), fault_totals)
    table = standings.crosstable
    data.crosstable = crosstable_section(None if table is None else table.to_dict())
    data.sprt = _sprt(run.standings, data)
    data.unit = "deals"
    data.score = standings.score
    data.estimator = standings.estimator
    data.lead = standings.lead
    data.luck = luck_section([luck.to_dict() for luck in standings.match_luck])
    data.notes.extend(standings.notes)
    data.charts = _charts(fmt, counted, standings.blocks)
    data.latency = _latency(counted)
    if fmt == "sit_and_go":
        data.places = _places(counted, data.leaderboard)
    data.facts = _facts(record, fmt, plan, counted)
    if fmt != "sit_and_go":
        data.facts.append(("ranked by", f"the {standings.score} result"))
    if standings.estimator:
        data.facts.append(("luck estimator", standings.estimator))
    data.has_secret_seed = record.is_finished and not record.seed_was_given
    for outcome in outcomes:
        if outcome.hands_path:
            data.hand_files[outcome.match_id] = folder / outcome.hands_path
    data.candidates = _candidates(outcomes)
    if fmt != "sit_and_go":
        data.notes.append(
            "The dashed line is duplicate-adjusted: each deal counts once for all the seats "
            "the bot played it from, so the luck of the cards cancels."
        )
    return data


def _score(config: Mapping[str, Any]) -> str:
    """The score the tournament asked for: its ``score``, else adjusted when it ran the
    luck estimator (a run stored before the setting did not: raw)."""
    score = config.get("score")
    if score in ("raw", "adjusted"):
        return str(score)
    return "adjusted" if config.get("luck") == "on" else "raw"


def _sprt(path: Path, data: RunData) -> list[SprtTest]:
    """The sequential tests' results, as the tournament wrote them in standings.json
    (none while it runs, or when the file cannot be read: a note says so)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        data.notes.append(f"{path} cannot be read ({error}): no sequential test is shown")
        return []
    tests = document.get("sprt", ()) if isinstance(document, dict) else ()
    return (
        [cast(SprtTest, dict(item)) for item in tests if isinstance(item, dict)]
        if isinstance(tests, list)
        else []
    )


def _charts(
    fmt: str, counted: Sequence[MatchOutcome], blocks: Sequence[DuplicateBlock]
) -> list[Chart]:
    """Each bot's raw line and (duplicate formats) its duplicate-adjusted line, from the
    standings' complete blocks and their units."""
    raw: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for outcome in counted:
        seats = [(seat.seat_index, seat.bot) for seat in outcome.seats]
        for hand in outcome.hands:
            for index, bot in seats:
                if index < len(hand.nets):
                    raw[bot].append((1, hand.nets[index]))
    adjusted: dict[str, list[tuple[float, float]]] = defaultdict(list)
    if fmt != "sit_and_go":
        for block, units in blocks:
            _adjusted_steps(block, units, adjusted)
    return [
        {
            "bot": bot,
            "raw": cumulative(steps, MAX_CHART_POINTS),
            "adjusted": cumulative(adjusted[bot], MAX_CHART_POINTS) if bot in adjusted else None,
        }
        for bot, steps in sorted(raw.items())
    ]


def _adjusted_steps(
    block: Sequence[MatchOutcome],
    units: Sequence[dict[str, float]],
    adjusted: dict[str, list[tuple[float, float]]],
) -> None:
    """Append each deal of ``block`` (its ``units``, one per deal) to each bot's
    duplicate-adjusted line: ``k`` hands and ``k`` times its mean result in chips (``k``
    seatings of the deal)."""
    common = set.intersection(*({hand.hand_number for hand in o.hands} for o in block))
    big_blinds = {hand.hand_number: hand.big_blind for hand in block[0].hands}
    k = len(block)
    for number, unit in zip(sorted(common), units, strict=True):
        for bot, mbb in unit.items():
            adjusted[bot].append((k, k * mbb * big_blinds[number] / 1000.0))


def _faults(counted: Sequence[MatchOutcome]) -> tuple[dict[str, int], list[FaultRow]]:
    """Each bot's fault total, and one row per bot and kind: the count and the first
    example (in plan order) with its match, hand and message."""
    totals: dict[str, int] = defaultdict(int)
    rows: dict[tuple[str, str], FaultRow] = {}

    def row(bot: str, kind: str) -> FaultRow:
        return rows.setdefault((bot, kind), {"bot": bot, "kind": kind, "count": 0, "example": None})

    for outcome in counted:
        for seat in outcome.seats:
            for kind, count in seat.fault_counts.items():
                totals[seat.bot] += count
                row(seat.bot, kind)["count"] += count
            for example in seat.fault_examples:
                found = row(seat.bot, example.kind)
                if found["example"] is None:
                    found["example"] = {
                        "match": outcome.match_id,
                        "hand": example.hand_number,
                        "message": example.message,
                    }
    ordered = sorted(rows.values(), key=lambda row: (row["bot"], -row["count"], row["kind"]))
    return dict(totals), ordered


def _latency(counted: Sequence[MatchOutcome]) -> list[LatencyRow]:
    """Each bot's reply latencies over its counted matches: the merged histogram (the
    buckets of every match share one layout) and its summary."""
    merged: dict[str, LatencyHistogram] = {}
    for outcome in counted:
        for seat in outcome.seats:
            latency = seat.latency
            if not latency.count:
                continue
            try:
                histogram = LatencyHistogram.from_buckets(
                    latency.histogram,
                    total_ms=latency.mean_ms * latency.count,
                    max_ms=latency.max_ms,
                )
            except ValueError:
                continue  # a histogram of another layout: its summary alone is no distribution
            merged.setdefault(seat.bot, LatencyHistogram()).merge(histogram)
    return [
        {
            "bot": bot,
            "count": histogram.count,
            "mean": round(histogram.mean_ms, 3),
            "p50": round(histogram.quantile(0.5), 3),
            "p99": round(histogram.quantile(0.99), 3),
            "max": round(histogram.max_ms, 3),
            "bins": latency_bins(histogram.buckets()),
        }
        for bot, histogram in sorted(merged.items())
    ]


def _places(counted: Sequence[MatchOutcome], board: Leaderboard) -> TournamentPlaces:
    """Freezeouts: how often each bot finished in each place, and its rating."""
    counts: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    most = 0
    for outcome in counted:
        for seat in outcome.seats:
            counts[seat.bot][seat.place] += 1
            most = max(most, seat.place)
    rows: list[PlaceCounts] = []
    for row in board["rows"]:
        bot = row["bot"]
        found = counts.get(bot, {})
        rows.append(
            {
                "bot": bot,
                "counts": [found.get(place, 0) for place in range(1, most + 1)],
                "average": row["place"],
                "rating": row["rating"],
            }
        )
    return {"places": most, "rows": rows}


def _facts(
    record: TournamentRecord,
    fmt: str,
    plan: Mapping[str, PlanEntry],
    counted: Sequence[MatchOutcome],
) -> list[tuple[str, str]]:
    """The summary's facts (the seed only when it is public: given, or the tournament is
    over)."""
    config = record.config
    game = config.get("game")
    if not isinstance(game, Mapping):
        game = {}
    facts = [
        ("format", fmt.replace("_", " ")),
        ("game", f"{game.get('variant', '?')}, {str(game.get('betting', '?')).replace('_', '-')}"),
        ("blinds", f"{game.get('small_blind', '?')}/{game.get('big_blind', '?')}"),
        ("bots", str(len(config.get("bots", ())))),
        ("matches counted", f"{len(counted)} of {len(plan)} planned"),
        ("hands", f"{sum(len(o.hands) for o in counted):,}"),
        ("status", str(record.status)),
        ("luck", str(config.get("luck", "off"))),
    ]
    if record.seed_was_given or record.is_finished:  # a secret seed stays secret while it runs
        facts.append(("seed", str(record.seed)))
    facts.append(("started", str(record.created_at)))
    if record.finished_at:
        facts.append(("finished", str(record.finished_at)))
    return facts


def _candidates(outcomes: Sequence[MatchOutcome]) -> list[Candidate]:
    """Every recorded hand, in plan order; the hands of a first fault example marked."""
    fault_hands = {
        (outcome.match_id, example.hand_number)
        for outcome in outcomes
        for seat in outcome.seats
        for example in seat.fault_examples
        if example.hand_number is not None
    }
    candidates: list[Candidate] = []
    for outcome in outcomes:
        if not outcome.hands_path:
            continue
        match_id = outcome.match_id
        for hand in outcome.hands:
            candidates.append(
                Candidate(
                    HandRef(match_id, hand.hand_number),
                    order=len(candidates),
                    pot=hand.pot,
                    has_fault=(match_id, hand.hand_number) in fault_hands,
                )
            )
    return candidates
