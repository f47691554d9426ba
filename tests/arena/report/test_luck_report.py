"""The report's raw and luck-adjusted numbers: both per bot and per pair, the luck between
them, the explanation and the estimator beside them, each match's luck, and the raw score
with a note when the matches carry no adjusted result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.luck import ESTIMATOR
from arena.report import write_report
from arena.report.sections import ADJUSTMENT_EXPLAINED
from arena.store.sqlite import ResultsDatabase
from tests.arena.report.conftest import embedded_data
from tests.arena.report.runs import write_match_folder, write_tournament


def _data(source: Path, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "report.html"
    write_report(source, out)
    return embedded_data(out.read_text(encoding="utf-8"))


def test_a_tournament_report_shows_raw_adjusted_and_luck_per_bot_and_pair(
    rr_run: Path, tmp_path: Path
) -> None:
    data = _data(rr_run, tmp_path)
    assert data["score"] == "adjusted" and data["estimator"] == ESTIMATOR
    assert data["adjustment"] == ADJUSTMENT_EXPLAINED
    assert data["adjustment"].count(". ") == 1  # two sentences
    rows = data["leaderboard"]["rows"]
    assert data["leaderboard"]["score"] == "adjusted"
    for row in rows:
        # Rounded to 2 decimals each: raw = adjusted + luck within the rounding.
        assert row["adjusted"]["n"] == row["estimate"]["n"] > 0
        assert row["adjusted"]["mean"] + row["luck"] == pytest.approx(
            row["estimate"]["mean"], abs=0.02
        )
    means = [row["adjusted"]["mean"] for row in rows]
    assert means == sorted(means, reverse=True)  # ranked by the adjusted score
    for cell in data["crosstable"]["cells"]:
        assert cell["adjusted"]["mean"] + cell["luck"] == pytest.approx(cell["mean"], abs=0.02)
    assert data["lead"].startswith(f"#1 {rows[0]['bot']} against #2 {rows[1]['bot']}")
    assert ("ranked by", "the adjusted result") in map(tuple, data["facts"])
    assert ("luck estimator", ESTIMATOR) in map(tuple, data["facts"])


def test_each_matchs_luck_adds_up_to_its_raw_result(rr_run: Path, tmp_path: Path) -> None:
    data = _data(rr_run, tmp_path)
    assert len(data["luck"]) == 12  # 3 pairs x 2 blocks x 2 seatings
    for match in data["luck"]:
        assert len(match["seats"]) == 2
        for seat in match["seats"]:
            assert seat["adjusted"] + seat["luck"] == pytest.approx(seat["raw"], abs=0.11)
            assert seat["adjusted_mbb"] + seat["luck_mbb"] == pytest.approx(
                seat["raw_mbb"], abs=0.11
            )
        # Heads-up, what one seat wins by luck the other loses.
        assert sum(seat["luck"] for seat in match["seats"]) == pytest.approx(0.0, abs=0.11)


def test_without_adjusted_results_the_report_ranks_raw_and_says_why(tmp_path: Path) -> None:
    run = write_tournament(tmp_path / "run", bots=("ann", "bob"), luck=False)
    data = _data(run, tmp_path)
    assert data["score"] == "raw" and data["estimator"] is None
    assert data["adjustment"] is None and data["luck"] == []
    assert all(
        row["adjusted"] is None and row["luck"] is None for row in data["leaderboard"]["rows"]
    )
    assert "Ranked by the raw result (score = raw)." in data["notes"]


def test_a_tournament_that_asked_for_the_raw_score_is_ranked_raw_with_adjusted_beside(
    tmp_path: Path,
) -> None:
    # The report reads the score the tournament was configured with.
    run = write_tournament(tmp_path / "run", bots=("ann", "bob", "cat"), score="raw")
    data = _data(run, tmp_path)
    assert data["score"] == "raw"
    rows = data["leaderboard"]["rows"]
    assert all(row["adjusted"] is not None for row in rows)
    means = [row["estimate"]["mean"] for row in rows]
    assert means == sorted(means, reverse=True)


def test_a_match_report_shows_both_scores_and_the_matchs_luck(
    match_run: Path, tmp_path: Path
) -> None:
    data = _data(match_run, tmp_path)
    assert data["unit"] == "hands" and data["score"] == "adjusted"
    assert data["estimator"] == ESTIMATOR and data["adjustment"] == ADJUSTMENT_EXPLAINED
    rows = data["leaderboard"]["rows"]
    assert all(row["adjusted"]["n"] == row["estimate"]["n"] == 30 for row in rows)
    (match,) = data["luck"]
    assert [seat["bot"] for seat in match["seats"]] == ["ann", "bob", "cat", "dan", "eve"]
    # Over the seats, the luck cancels: the estimator's corrections are zero-sum.
    assert sum(seat["luck"] for seat in match["seats"]) == pytest.approx(0.0, abs=0.3)


def test_a_match_without_the_estimator_is_ranked_raw(tmp_path: Path) -> None:
    run = write_match_folder(tmp_path / "run", ["ann", "bob"], hand_count=6, luck=False)
    data = _data(run, tmp_path)
    assert data["score"] == "raw" and data["luck"] == [] and data["estimator"] is None
    assert all(row["adjusted"] is None for row in data["leaderboard"]["rows"])


def test_a_real_tournament_stores_prints_and_reports_both_scores_alike(
    real_tournament: Path, tmp_path: Path
) -> None:
    # End to end: the worker ran the estimator, the database kept the adjusted results,
    # standings.json and the report (recomputed from the database) show the same numbers.
    standings = json.loads((real_tournament / "standings.json").read_text(encoding="utf-8"))
    assert standings["score"] == "adjusted" and standings["estimator"] == ESTIMATOR
    assert len(standings["matches"]) == standings["matches_counted"] == 4
    data = _data(real_tournament, tmp_path)
    assert data["estimator"] == ESTIMATOR and data["score"] == "adjusted"
    for row in standings["leaderboard"]["rows"]:
        shown = next(r for r in data["leaderboard"]["rows"] if r["bot"] == row["bot"])
        assert shown["adjusted"]["mean"] == round(row["adjusted_mbb_per_hand"]["mean"], 2)
        assert shown["luck"] == round(row["luck_mbb_per_hand"], 2)
    with ResultsDatabase(real_tournament / "results.sqlite", read_only=True) as database:
        outcomes = database.outcomes(database.tournaments()[-1].id)
    assert all(outcome.estimator == ESTIMATOR for outcome in outcomes)
    assert all(hand.adjusted is not None for outcome in outcomes for hand in outcome.hands)


def test_a_match_whose_hands_lost_their_luck_is_ranked_raw_with_a_note(
    tmp_path: Path,
) -> None:
    run = write_match_folder(tmp_path / "run", ["ann", "bob"], hand_count=4)
    path = run / "hands.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2])
    del record["luck"]  # the second hand's estimate is missing
    lines[2] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = _data(run, tmp_path)
    assert data["score"] == "raw" and data["luck"] == []
    assert any("not every hand of the match" in note for note in data["notes"])
