"""One match read for a report: its ``hands.jsonl`` and, in a run folder, ``results.json``.

The hand history is streamed once (a match of any length fits in memory: only each hand's
nets, pot and big blind are kept). A bot's win rate is in mbb/hand with a 95% interval
over hands: a single match has no duplicate deals, so each hand is a unit (hands whose
big blind is 0, in an ante-only level, have no big blind to measure by and are left out
of the rate, not of the chips). ``results.json`` adds the fault ledger, the latency
summary and the finishing places; a hand history alone still gives the leaderboard, the
chart and the hands, with the actions the arena chose for a faulted bot as its faults.

When the match ran the luck estimator, each hand record carries each seat's luck-adjusted
result (``luck``): the leaderboard then shows the adjusted rate beside the raw one, ranked
by the match's ``score``, and the match's luck per seat (raw minus adjusted).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.report.data import MAX_CHART_POINTS, ReportError, RunData
from arena.report.sections import (
    FaultRow,
    LatencyRow,
    MatchPlace,
    cumulative,
    latency_bins,
    leaderboard_section,
    luck_section,
)
from arena.report.selection import Candidate, HandRef
from arena.stats._values import is_real
from arena.stats.lead import lead_sentence
from arena.stats.match_luck import match_luck
from arena.stats.tables import leaderboard
from arena.stats.units import mbb
from arena.store.hand_log import DEFAULT_MATCH_ID, HandLogError, iter_hands, read_header
from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome

__all__ = ["load_match"]

#: The message of a bot's first fault in a hand history alone (the arena chose its action).
_DEFAULTED = "the bot faulted and the arena chose its action"


def load_match(hands_path: Path, results_path: Path | None) -> RunData:
    """The report's data of the match whose hand history is ``hands_path`` (with its
    ``results.json`` when given)."""
    try:
        header = read_header(hands_path)
        results = _results(results_path) if results_path is not None else None
        names = {
            str(player.get("player_id")): str(player.get("name"))
            for player in header["players"]
            if isinstance(player, Mapping)
        }
        match_id = str(header.get("match_id") or DEFAULT_MATCH_ID)
        kind = "match" if results_path is not None else "hands"
        source = hands_path.parent if results_path is not None else hands_path
        # A match given no id is named by its bots (seat order), not "match match".
        title = (
            " vs ".join(names.values())
            if match_id == DEFAULT_MATCH_ID and names
            else f"match {match_id}"
        )
        data = RunData(kind=kind, title=title, source=source, unit="hands")
        data.hand_files[match_id] = hands_path
        config = header.get("config")
        config = config if isinstance(config, Mapping) else {}
        asked = str(config.get("score") or "adjusted") if config.get("luck") is True else "raw"
        _read_hands(hands_path, match_id, names, data, asked)
    except HandLogError as error:
        raise ReportError(str(error)) from None
    if results is not None:
        _from_results(results, data)
    data.facts = _facts(header, config, data, results)
    # A match does not record whether its seed was given: private, as its results.json.
    data.has_secret_seed = any(label == "seed" for label, _value in data.facts)
    return data


def _results(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReportError(f"{path}: cannot read the results: {error.strerror or error}") from None
    except ValueError as error:
        raise ReportError(f"{path}: the results are not JSON ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("players"), list):
        raise ReportError(f"{path}: not a match's results (no players)")
    return document


def _read_hands(
    path: Path, match_id: str, names: Mapping[str, str], data: RunData, asked: str
) -> None:
    """Stream the hands: chips, units (raw and adjusted) and the chart per bot, each hand's
    summary for the match's luck, and the hand candidates."""
    chips: dict[str, int] = dict.fromkeys(names.values(), 0)
    hands: dict[str, int] = dict.fromkeys(names.values(), 0)
    units: list[dict[str, float]] = []
    adjusted_units: list[dict[str, float]] | None = []
    estimators: set[str] = set()
    seat_of = {player_id: index for index, player_id in enumerate(names)}
    summaries: list[HandSummary] = []
    steps: dict[str, list[tuple[float, float]]] = defaultdict(list)
    arena_defaults: dict[str, FaultRow] = {}
    for record in iter_hands(path):
        history = record["history"]
        result = history.get("result")
        if not isinstance(result, Mapping):
            continue  # a hand cut short by an interrupted match: nothing was won
        number = int(history.get("hand_number", record.get("hand_number", 0)))
        seats = {str(seat["seat_index"]): seat for seat in history.get("seats", ())}
        start = result.get("starting_stacks", {})
        final = result.get("final_stacks", {})
        big_blind = int(history.get("config", {}).get("big_blind", 0))
        adjusted = _adjusted_by_seat(record, history)
        if adjusted is None:
            adjusted_units = None
        else:
            estimators.add(str(record["luck"].get("estimator")))
        unit: dict[str, float] = {}
        adjusted_unit: dict[str, float] = {}
        nets = [0] * len(seat_of)
        adjusted_nets = [0.0] * len(seat_of)
        for index, stack in start.items():
            player_id = str(seats[index]["player_id"])
            bot = names.get(player_id, player_id)
            net = int(final[index]) - int(stack)
            chips[bot] = chips.get(bot, 0) + net
            hands[bot] = hands.get(bot, 0) + 1
            steps[bot].append((1, net))
            if player_id in seat_of:
                nets[seat_of[player_id]] = net
            if big_blind > 0:
                unit[bot] = mbb(net, big_blind)
            if adjusted is not None and index in adjusted:
                if player_id in seat_of:
                    adjusted_nets[seat_of[player_id]] = adjusted[index]
                if big_blind > 0:
                    adjusted_unit[bot] = 1000.0 * adjusted[index] / big_blind
        if unit:
            units.append(unit)
            if adjusted_units is not None:
                adjusted_units.append(adjusted_unit)
        summaries.append(
            HandSummary(
                number,
                max(big_blind, 1),
                tuple(nets),
                adjusted=None if adjusted is None else tuple(adjusted_nets),
            )
        )
        has_fault = False
        for decision in record.get("decisions", ()):
            if isinstance(decision, Mapping) and decision.get("by") == "policy":
                has_fault = True
                bot = names.get(str(decision.get("player_id")), str(decision.get("player_id")))
                entry = arena_defaults.setdefault(
                    bot,
                    {
                        "bot": bot,
                        "kind": "arena_default_action",
                        "count": 0,
                        "example": {"match": match_id, "hand": number, "message": _DEFAULTED},
                    },
                )
                entry["count"] += 1
        pot = sum(int(award.get("amount", 0)) for award in result.get("awards", ()))
        data.candidates.append(
            Candidate(HandRef(match_id, number), len(data.candidates), pot, has_fault)
        )
    has_adjusted = bool(units) and adjusted_units is not None
    score = "adjusted" if asked == "adjusted" and has_adjusted else "raw"
    board = leaderboard(
        units,
        chips,
        hands,
        adjusted_units=adjusted_units if has_adjusted else None,
        score="adjusted" if score == "adjusted" else "raw",
    )
    data.leaderboard = leaderboard_section(
        board.to_dict(), {bot: entry["count"] for bot, entry in arena_defaults.items()}
    )
    data.score = score
    data.lead = lead_sentence(board, None, "hands")
    if asked == "adjusted" and not has_adjusted:
        data.notes.append(
            "Ranked by the raw result: not every hand of the match carries a luck-adjusted result."
        )
    if has_adjusted:
        data.estimator = ", ".join(sorted(estimators))
        match_seats = tuple(
            SeatOutcome(index, names[player_id], 0, 0, 0) for player_id, index in seat_of.items()
        )
        outcome = MatchOutcome(match_id, match_seats, tuple(summaries), "", None, 0.0)
        luck = match_luck(outcome)
        data.luck = luck_section([luck.to_dict()] if luck is not None else [])
    data.charts = [
        {"bot": bot, "raw": cumulative(line, MAX_CHART_POINTS), "adjusted": None}
        for bot, line in sorted(steps.items())
    ]
    data.faults = sorted(arena_defaults.values(), key=lambda row: row["bot"])


def _adjusted_by_seat(
    record: Mapping[str, Any], history: Mapping[str, Any]
) -> dict[str, float] | None:
    """The hand's luck-adjusted result by seat index (text, as the stacks are keyed), or
    None when the hand carries none (or a malformed one: then nothing is adjusted)."""
    luck = record.get("luck")
    adjusted = luck.get("adjusted") if isinstance(luck, Mapping) else None
    seats = history.get("seats", ())
    if not isinstance(adjusted, list) or len(adjusted) != len(seats):
        return None
    if not all(is_real(value) and math.isfinite(value) for value in adjusted):
        return None
    # The estimator gives the seats in the history's order.
    return {
        str(seat["seat_index"]): float(value) for seat, value in zip(seats, adjusted, strict=True)
    }


def _from_results(results: Mapping[str, Any], data: RunData) -> None:
    """The fault ledger, latency and places of ``results.json``."""
    faults: list[FaultRow] = []
    totals: dict[str, int] = {}
    latency: list[LatencyRow] = []
    places: list[MatchPlace] = []
    match_id = next(iter(data.hand_files))
    for player in results["players"]:
        if not isinstance(player, Mapping):
            continue
        bot = str(player.get("name"))
        ledger = player.get("faults") if isinstance(player.get("faults"), Mapping) else {}
        assert isinstance(ledger, Mapping)
        firsts: dict[str, Mapping[str, Any]] = {}
        for fault in ledger.get("faults", ()):
            if isinstance(fault, Mapping):
                firsts.setdefault(str(fault.get("kind")), fault)
        for kind, count in (ledger.get("counts") or {}).items():
            if not count:
                continue
            totals[bot] = totals.get(bot, 0) + int(count)
            first = firsts.get(kind)
            faults.append(
                {
                    "bot": bot,
                    "kind": kind,
                    "count": int(count),
                    "example": None
                    if first is None
                    else {
                        "match": match_id,
                        "hand": first.get("hand_number"),
                        "message": str(first.get("detail") or first.get("code") or ""),
                    },
                }
            )
        stats = ledger.get("latency")
        if isinstance(stats, Mapping) and stats.get("count"):
            histogram = stats.get("histogram")
            latency.append(
                {
                    "bot": bot,
                    "count": stats["count"],
                    "mean": stats.get("mean_ms"),
                    "p50": stats.get("p50_ms"),
                    "p99": stats.get("p99_ms"),
                    "max": stats.get("max_ms"),
                    "bins": latency_bins(histogram) if isinstance(histogram, list) else [],
                }
            )
        places.append(
            {
                "bot": bot,
                "place": player.get("place"),
                "eliminated": player.get("eliminated_in_hand"),
                "final_stack": player.get("final_stack"),
            }
        )
    data.faults = sorted(faults, key=lambda row: (row["bot"], -row["count"], row["kind"]))
    for row in data.leaderboard["rows"]:
        row["faults"] = totals.get(row["bot"], 0)
    data.latency = sorted(latency, key=lambda row: row["bot"])
    config = results.get("config") if isinstance(results.get("config"), Mapping) else {}
    assert isinstance(config, Mapping)
    if config.get("stack_policy") == "freezeout":
        data.places = {
            "match": sorted(places, key=lambda row: (row["place"] is None, row["place"] or 0))
        }


def _facts(
    header: Mapping[str, Any],
    config: Mapping[str, Any],
    data: RunData,
    results: Mapping[str, Any] | None,
) -> list[tuple[str, str]]:
    game = config.get("game") if isinstance(config.get("game"), Mapping) else {}
    assert isinstance(game, Mapping)
    facts = [
        (
            "game",
            f"{game.get('variant', '?')}, {str(game.get('structure', '?')).replace('_', '-')}",
        ),
        ("blinds", f"{game.get('small_blind', '?')}/{game.get('big_blind', '?')}"),
        ("stacks", f"{config.get('starting_stack', '?')}, {config.get('stack_policy', '?')}"),
        ("bots", str(len(header.get("players", ())))),
        ("hands", f"{len(data.candidates):,}"),
    ]
    if results is not None:
        facts.append(("ended", str(results.get("ended_reason", "?")).replace("_", " ")))
    if results is not None and header.get("seed") is not None:  # public once it is over
        facts.append(("seed", str(header.get("seed"))))
    return facts
