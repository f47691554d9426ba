"""A tournament's standings (:mod:`arena.tournament.standings`): one pure computation over
the plan and the counted outcomes the results database holds."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.stats.scores import Score
from arena.stats.sprt import Sprt
from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome
from arena.store.sqlite import ResultsDatabase
from arena.store.sqlite.schema import PlannedMatch
from arena.tournament.plan import MatchSpec
from arena.tournament.sequential import SequentialTests
from arena.tournament.standings import Standings, complete_blocks, compute_standings
from tests.arena.report.runs import write_tournament
from tests.arena.stats.adjusted_outcomes import ESTIMATOR, ring, round_robin


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


# -- the luck-adjusted score ----------------------------------------------------------------
# The standings over both scores (:mod:`arena.tournament.standings`): raw and luck-adjusted
# win rates side by side, the luck between them, and the ``score`` that ranks.


BOTS = ("ann", "bob")
PLAN = [
    PlannedMatch("b1", "b1", "heads_up", 0, ("ann", "bob"), 1),
    PlannedMatch("b1-swap", "b1", "heads_up", 1, ("bob", "ann"), 1),
]
BEFORE = Path(__file__).parent / "data" / "standings_before_luck.json"


def _match(match_id: str, seats: tuple[str, str], hands: list[tuple[Any, ...]]) -> MatchOutcome:
    summaries = tuple(
        HandSummary(number, 2, nets, adjusted=adjusted) for number, nets, adjusted in hands
    )
    totals = [sum(hand.nets[index] for hand in summaries) for index in (0, 1)]
    return MatchOutcome(
        match_id,
        tuple(
            SeatOutcome(index, bot, totals[index], 1 + (totals[index] < 0), len(hands))
            for index, bot in enumerate(seats)
        ),
        summaries,
        "hand_count",
        None,
        1.0,
        estimator=ESTIMATOR,
    )


# ann wins by play (adjusted) but loses by the cards (raw): per deal, ann's raw units are
# (2000 - 1000) / 2 = 500 and (-3000 + 1000) / 2 = -1000; adjusted (500 + 750) / 2 = 625
# and (250 + 250) / 2 = 250.
COUNTED = [
    _match("b1", ("ann", "bob"), [(1, (4, -4), (1.0, -1.0)), (2, (-6, 6), (0.5, -0.5))]),
    _match("b1-swap", ("bob", "ann"), [(1, (2, -2), (-1.5, 1.5)), (2, (-2, 2), (-0.5, 0.5))]),
]


def _standings(score: str, counted: list[MatchOutcome] | None = None) -> Any:
    return compute_standings(
        name="t", fmt="round_robin", bots=BOTS, plan=PLAN, counted=counted or COUNTED, score=score
    )


def test_a_unit_with_adjusted_values_ranks_by_the_score_asked_with_both_shown() -> None:
    adjusted = _standings("adjusted")
    raw = _standings("raw")
    assert [row.bot for row in adjusted.leaderboard.rows] == ["ann", "bob"]
    assert [row.bot for row in raw.leaderboard.rows] == ["bob", "ann"]
    for standings in (adjusted, raw):
        ann = standings.leaderboard.row("ann")
        assert ann.estimate.mean == -250.0
        assert ann.adjusted is not None and ann.adjusted.mean == 437.5
        assert ann.luck == -687.5
        cell = standings.crosstable.cell("ann", "bob")
        assert (cell.estimate.mean, cell.adjusted.mean, cell.luck) == (-250.0, 437.5, -687.5)
    assert adjusted.score == "adjusted" and raw.score == "raw"
    assert adjusted.leaderboard.row("ann").scored.mean == 437.5
    assert raw.leaderboard.row("ann").scored.mean == -250.0
    assert adjusted.estimator == ESTIMATOR
    assert adjusted.lead.startswith("#1 ann against #2 bob") and "(adjusted;" in adjusted.lead
    assert raw.lead.startswith("#1 bob against #2 ann") and "(raw;" in raw.lead


def test_luck_adds_up_per_bot_per_pair_and_per_match() -> None:
    plan, outcomes = round_robin(("ann", "bob", "cat"))
    standings = compute_standings(
        name="t", fmt="round_robin", bots=("ann", "bob", "cat"), plan=plan, counted=outcomes
    )
    for row in standings.leaderboard.rows:
        assert row.adjusted is not None and row.luck is not None
        assert row.adjusted.mean + row.luck == pytest.approx(row.estimate.mean, abs=1e-9)
        assert row.adjusted.n == row.estimate.n == 24
    assert standings.crosstable is not None
    for cell in standings.crosstable.cells:
        assert cell.adjusted is not None and cell.luck is not None
        assert cell.adjusted.mean + cell.luck == pytest.approx(cell.estimate.mean, abs=1e-9)
    assert [luck.match_id for luck in standings.match_luck] == [o.match_id for o in outcomes]
    for luck, outcome in zip(standings.match_luck, outcomes, strict=True):
        for seat, seat_outcome in zip(luck.seats, outcome.seats, strict=True):
            assert seat.raw_chips == seat_outcome.chips_won
            assert seat.adjusted_chips + seat.luck_chips == pytest.approx(seat.raw_chips)
            assert seat.adjusted_mbb + seat.luck_mbb == pytest.approx(seat.raw_mbb)
    # The adjusted results vary less than the raw ones: narrower intervals, same units.
    assert all(
        row.adjusted is not None and row.adjusted.half_width < row.estimate.half_width
        for row in standings.leaderboard.rows
    )


def _existing_keys(before: Any, now: Any) -> Any:
    """``now`` cut down to the keys ``before`` has (recursively)."""
    if isinstance(before, dict):
        return {key: _existing_keys(value, now[key]) for key, value in before.items()}
    if isinstance(before, list):
        return [_existing_keys(b, n) for b, n in zip(before, now, strict=True)]
    return now


@pytest.mark.parametrize("fmt", ["round_robin", "ring"])
def test_score_raw_reproduces_the_standings_from_before_the_adjusted_score(fmt: str) -> None:
    # The file holds standings.json computed, before the luck-adjusted score existed, from
    # these very outcomes (their adjusted values were ignored then).
    before = json.loads(BEFORE.read_text(encoding="utf-8"))[fmt]
    plan, outcomes = (
        round_robin(("ann", "bob", "cat")) if fmt == "round_robin" else ring(("ann", "bob", "cat"))
    )
    now = compute_standings(
        name="t", fmt=fmt, bots=("ann", "bob", "cat"), plan=plan, counted=outcomes, score="raw"
    ).to_dict()
    assert _existing_keys(before, now) == before
    assert now["score"] == "raw" and now["leaderboard"]["score"] == "raw"
    assert all(row["adjusted_mbb_per_hand"] for row in now["leaderboard"]["rows"])


def test_without_adjusted_results_the_raw_score_ranks_and_a_note_says_why() -> None:
    bare = [replace(o, hands=tuple(replace(h, adjusted=None) for h in o.hands)) for o in COUNTED]
    standings = _standings("adjusted", bare)
    assert standings.score == "raw" and standings.score_asked == "adjusted"
    assert [row.bot for row in standings.leaderboard.rows] == ["bob", "ann"]
    assert all(row.adjusted is None and row.luck is None for row in standings.leaderboard.rows)
    assert standings.match_luck == ()
    assert standings.notes == (
        "Ranked by the raw result: 2 of 2 counted matches carry no luck-adjusted result "
        "(played with luck off, or before the estimator existed).",
    )
    document = standings.to_dict()
    assert document["score"] == "raw" and document["matches"] == []
    assert document["leaderboard"]["rows"][0]["luck_mbb_per_hand"] is None


def test_one_match_without_adjusted_results_turns_the_whole_ranking_raw() -> None:
    partial = [
        COUNTED[0],
        replace(COUNTED[1], hands=tuple(replace(hand, adjusted=None) for hand in COUNTED[1].hands)),
    ]
    standings = _standings("adjusted", partial)
    assert standings.score == "raw"
    assert "1 of 2 counted matches" in standings.notes[0]
    assert [luck.match_id for luck in standings.match_luck] == ["b1"]


def test_a_bad_score_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="score must be 'raw' or 'adjusted', got 'luck'"):
        _standings("luck")


def test_the_sequential_test_reads_the_adjusted_units_of_its_score() -> None:
    specs = [
        MatchSpec(match_id, "b1", "heads_up", seats, 1, position, ("ann", "bob"), 0, position, 2)
        for position, (match_id, seats) in enumerate(
            (("b1", ("ann", "bob")), ("b1-swap", ("bob", "ann")))
        )
    ]
    results = {}
    scores: tuple[Score, ...] = ("raw", "adjusted")
    for score in scores:
        tests = SequentialTests(Sprt(0.0, 50.0), specs, score=score)
        for spec, outcome in zip(specs, COUNTED, strict=True):
            tests.add(spec, outcome)
        (pair,) = tests.pairs
        results[score] = pair.values
    assert results == {"raw": [500.0, -1000.0], "adjusted": [625.0, 250.0]}
