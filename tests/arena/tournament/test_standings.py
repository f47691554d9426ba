"""A tournament's standings (:mod:`arena.tournament.standings`): one pure computation over
the plan and the counted outcomes the results database holds."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from arena.store.outcome import MatchOutcome
from arena.store.sqlite import ResultsDatabase
from arena.store.sqlite.schema import PlannedMatch
from arena.tournament.standings import Standings, complete_blocks, compute_standings
from tests.arena.report.runs import write_tournament


def _standings_of(folder: Path, *, bots: tuple[str, ...], fmt: str) -> Standings:
    with ResultsDatabase(folder / "results.sqlite", read_only=True) as database:
        record = database.tournaments()[-1]
        plan = database.plan(record.id)
        counted = database.outcomes(record.id, counted_only=True)
    return compute_standings(
        name=record.name,
        fmt=fmt,
        bots=bots,
        plan=[entry.planned for entry in plan],
        counted=counted,
    )


def test_a_round_robin_is_ranked_by_duplicate_units_with_a_crosstable_of_pairs(
    tmp_path: Path,
) -> None:
    bots = ("ann", "bob", "cat")
    folder = write_tournament(tmp_path / "run", bots=bots, faulty=["bob"])
    # runs.py writes standings.json by its own computation over the blocks it made.
    oracle = json.loads((folder / "standings.json").read_text(encoding="utf-8"))
    standings = _standings_of(folder, bots=bots, fmt="round_robin")
    assert standings.leaderboard.to_dict() == oracle["leaderboard"]
    assert standings.crosstable is not None
    assert standings.crosstable.to_dict() == oracle["crosstable"]
    assert standings.matches_counted == standings.matches_planned == 12
    assert standings.fault_counts.keys() <= {"bob"}


def test_a_ring_game_has_ratings_and_places_but_no_crosstable(tmp_path: Path) -> None:
    bots = ("ann", "bob", "cat")
    folder = write_tournament(tmp_path / "run", bots=bots, fmt="ring", standings=False)
    standings = _standings_of(folder, bots=bots, fmt="ring")
    assert standings.crosstable is None
    rows = standings.leaderboard.to_dict()["rows"]
    assert all(row["rating"] and row["average_place"] for row in rows)
    assert all(row["mbb_per_hand"]["n"] == 10 for row in rows)  # 10 deals, each one unit


def test_freezeouts_are_ordered_by_rating(tmp_path: Path) -> None:
    bots = ("ann", "bob", "cat")
    folder = write_tournament(tmp_path / "run", bots=bots, fmt="sit_and_go", deals=6)
    standings = _standings_of(folder, bots=bots, fmt="sit_and_go")
    board = standings.leaderboard.to_dict()
    assert board["order_by"] == "rating" and standings.crosstable is None
    ratings = [row["rating"]["ordinal"] for row in board["rows"]]
    assert ratings == sorted(ratings, reverse=True)


def test_a_block_missing_a_seating_does_not_count_its_deals(tmp_path: Path) -> None:
    bots = ("ann", "bob")
    folder = write_tournament(tmp_path / "run", bots=bots, deals=10, block_deals=5)
    with ResultsDatabase(folder / "results.sqlite", read_only=True) as database:
        record = database.tournaments()[-1]
        plan = [entry.planned for entry in database.plan(record.id)]
        counted = database.outcomes(record.id, counted_only=True)
    whole = compute_standings(name="t", fmt="round_robin", bots=bots, plan=plan, counted=counted)
    cut = compute_standings(name="t", fmt="round_robin", bots=bots, plan=plan, counted=counted[:-1])
    assert whole.leaderboard.to_dict()["rows"][0]["mbb_per_hand"]["n"] == 10
    assert cut.leaderboard.to_dict()["rows"][0]["mbb_per_hand"]["n"] == 5  # one block of 5 deals
    assert cut.matches_counted == 3 and cut.matches_planned == 4


def test_the_standings_do_not_depend_on_the_order_matches_finished(tmp_path: Path) -> None:
    bots = ("ann", "bob", "cat")
    folder = write_tournament(tmp_path / "run", bots=bots, fmt="ring", standings=False)
    with ResultsDatabase(folder / "results.sqlite", read_only=True) as database:
        record = database.tournaments()[-1]
        plan = [entry.planned for entry in database.plan(record.id)]
        counted = database.outcomes(record.id, counted_only=True)
    in_order = compute_standings(name="t", fmt="ring", bots=bots, plan=plan, counted=counted)
    shuffled = compute_standings(name="t", fmt="ring", bots=bots, plan=plan, counted=counted[::-1])
    assert shuffled.to_dict() == in_order.to_dict()


def test_a_bot_without_a_counted_match_is_listed_with_nothing() -> None:
    plan = [PlannedMatch("m", "m", "heads_up", 0, ("a", "b"), 1)]
    standings = compute_standings(
        name="t", fmt="round_robin", bots=("a", "b", "c"), plan=plan, counted=[]
    )
    assert {row["bot"] for row in standings.leaderboard.to_dict()["rows"]} == {"a", "b", "c"}
    assert standings.matches_counted == 0 and standings.hands == 0


def test_complete_blocks_keep_plan_order_whatever_order_they_come_in() -> None:
    plan = [
        PlannedMatch(
            f"b{block}{'-swap' if swap else ''}",
            f"b{block}",
            "heads_up",
            2 * block + swap,
            ("a", "b")[:: 1 - 2 * swap],
            block,
        )
        for block in range(3)
        for swap in (0, 1)
    ]
    outcomes = [MatchOutcome(entry.match_id, (), (), "hands", None, 0.0) for entry in plan]
    blocks = complete_blocks(plan, outcomes[::-1])
    assert [[o.match_id for o in block] for block in blocks] == [
        ["b0", "b0-swap"],
        ["b1", "b1-swap"],
        ["b2", "b2-swap"],
    ]
    assert complete_blocks(plan, [dataclasses.replace(outcomes[0])]) == []


@pytest.mark.parametrize("fmt", ["round_robin", "gauntlet"])
def test_the_standings_document_shows_the_seed_only_once_finished(fmt: str) -> None:
    plan = [PlannedMatch("m", "m", "heads_up", 0, ("a", "b"), 1)]
    running = compute_standings(name="t", fmt=fmt, bots=("a", "b"), plan=plan, counted=[])
    done = compute_standings(
        name="t", fmt=fmt, bots=("a", "b"), plan=plan, counted=[], is_finished=True, seed=7
    )
    assert running.to_dict()["seed"] is None and running.to_dict()["is_finished"] is False
    assert done.to_dict()["seed"] == 7 and done.to_dict()["format"] == fmt
