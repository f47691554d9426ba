"""write_report: the page's data for each kind of run, its bounds, and its errors."""

from __future__ import annotations

import json
import shutil
import sqlite3
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from arena.luck import ESTIMATOR
from arena.report import HandRef, ReportError, write_report
from arena.report.build import load_source
from arena.report.page import (
    CONTENT_SECURITY_POLICY,
    SCRIPT_FILES,
    asset,
    embed_json,
    render_page,
    report_script,
)
from arena.report.sections import ADJUSTMENT_EXPLAINED
from arena.store.sqlite import ResultsDatabase
from tests.arena.report.conftest import HOSTILE, embedded_data
from tests.arena.report.runs import write_match_folder, write_tournament
from tests.arena.store.sqlite.test_sqlite import stored_bots


def _report(source: Path, out: Path, **options: Any) -> dict[str, Any]:
    write_report(source, out, **options)
    return embedded_data(out.read_text(encoding="utf-8"))


def test_a_tournament_report_has_every_section(rr_run: Path, tmp_path: Path) -> None:
    summary = write_report(rr_run, tmp_path / "r.html")
    data = embedded_data(summary.path.read_text(encoding="utf-8"))
    assert summary.kind == data["kind"] == "tournament"
    assert set(summary.bots) == {"ann", "bob", HOSTILE}
    assert {row["bot"] for row in data["leaderboard"]["rows"]} == set(summary.bots)
    assert len(data["crosstable"]["cells"]) == 6
    assert {chart["bot"] for chart in data["charts"]} == set(summary.bots)
    assert all(chart["adjusted"] for chart in data["charts"])
    assert {row["bot"] for row in data["latency"]} == set(summary.bots)
    assert all(row["bins"] and row["count"] for row in data["latency"])
    assert [(row["bot"], row["kind"]) for row in data["faults"]] == [("bob", "timeout")]
    assert data["hands_total"] == summary.hands_total == 60
    assert ("seed", "1") in [tuple(fact) for fact in data["facts"]]


def test_the_fault_summary_counts_and_shows_the_first_example(rr_run: Path, tmp_path: Path) -> None:
    data = _report(rr_run, tmp_path / "r.html")
    (row,) = data["faults"]
    bob = next(r for r in data["leaderboard"]["rows"] if r["bot"] == "bob")
    assert row["count"] == bob["faults"] > 0
    example = row["example"]
    assert example["message"] == "no reply in 5000 ms"
    embedded = {hand["id"]: hand for hand in data["hands"]}
    assert embedded[f"{example['match']}/{example['hand']}"]["why"] == "fault"


def test_a_hostile_bot_name_cannot_close_the_data_element(rr_run: Path, tmp_path: Path) -> None:
    write_report(rr_run, tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<script><script>" not in page
    assert page.count("</script>") == 2  # the data element's and the script's own
    assert HOSTILE not in page
    data = embedded_data(page)  # and the name comes back whole
    assert HOSTILE in {row["bot"] for row in data["leaderboard"]["rows"]}


def test_embedded_json_escapes_markup_characters() -> None:
    text = embed_json({"a": "<!-- & -->", "b": "</script>"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"a": "<!-- & -->", "b": "</script>"}


def test_the_page_is_self_contained_and_forbids_loading_anything() -> None:
    page = render_page("t <b>", {"x": 1})
    assert f'content="{CONTENT_SECURITY_POLICY}"' in page
    assert "default-src 'none'" in CONTENT_SECURITY_POLICY
    assert "<title>t &lt;b&gt;</title>" in page
    for remote in ("http://", "https://", "src=", "<link", "@import", "url("):
        assert remote not in page.replace("http://www.w3.org/2000/svg", "")


def test_a_real_tournament_report_shows_the_loser_below_zero(
    real_tournament: Path, tmp_path: Path
) -> None:
    written = _report(real_tournament, tmp_path / "a.html")
    with ResultsDatabase(real_tournament / "results.sqlite", read_only=True) as database:
        bots = stored_bots(database, database.tournaments()[-1].id)
    assert len(bots) == 2 and all(path.endswith("bot.toml") for path in bots.values())
    # The folder loses to the calling station in every deal: its rate is below 0.
    folder = next(r for r in written["leaderboard"]["rows"] if r["bot"] == "folder")
    assert folder["estimate"]["mean"] < 0 and folder["estimate"]["sign"] == "-"
    hand = written["hands"][0]
    assert hand["steps"][0]["say"].startswith(f"hand {hand['number']}: ")


def test_the_duplicate_adjusted_line_ends_where_the_raw_one_ends(
    rr_run: Path, tmp_path: Path
) -> None:
    data = _report(rr_run, tmp_path / "r.html")
    for chart in data["charts"]:
        assert chart["adjusted"][-1][0] == chart["raw"][-1][0]  # as many hands
        assert chart["adjusted"][-1][1] == pytest.approx(chart["raw"][-1][1])  # as many chips


def test_a_ring_tournament_has_ratings_and_no_crosstable(ring_run: Path, tmp_path: Path) -> None:
    data = _report(ring_run, tmp_path / "r.html")
    assert data["crosstable"] is None
    assert all(row["rating"] and row["place"] for row in data["leaderboard"]["rows"])
    assert all(row["estimate"]["n"] == 10 for row in data["leaderboard"]["rows"])


def test_a_sit_and_go_shows_finishing_places_and_ratings(sng_run: Path, tmp_path: Path) -> None:
    data = _report(sng_run, tmp_path / "r.html")
    places = data["places"]
    assert places["places"] == 3
    assert [row["bot"] for row in places["rows"]] == [r["bot"] for r in data["leaderboard"]["rows"]]
    assert all(sum(row["counts"]) == 6 and row["rating"] for row in places["rows"])
    assert data["leaderboard"]["order_by"] == "rating"
    assert all(chart["adjusted"] is None for chart in data["charts"])


def test_a_match_report_uses_results_json(match_run: Path, tmp_path: Path) -> None:
    summary = write_report(match_run, tmp_path / "r.html")
    data = embedded_data(summary.path.read_text(encoding="utf-8"))
    assert summary.kind == "match" and data["unit"] == "hands"
    assert data["crosstable"] is None
    assert [row["bot"] for row in data["faults"]] == ["cat"]
    assert data["faults"][0]["example"]["message"] == "no reply within 5000 ms"
    assert {row["bot"] for row in data["latency"]} == {"ann", "bob", "cat", "dan", "eve"}
    assert all(row["bins"] == [] and row["p99"] > 0 for row in data["latency"])
    assert sum(row["chips"] for row in data["leaderboard"]["rows"]) == 0
    assert all(row["estimate"]["n"] == 30 for row in data["leaderboard"]["rows"])
    assert len(data["hands"]) == 30


def test_a_match_without_an_id_is_titled_by_its_bots_not_match_match(
    match_run: Path, tmp_path: Path
) -> None:
    # The arena's default match id is "match": "match match" said nothing twice.
    page = write_report(match_run, tmp_path / "r.html").path.read_text(encoding="utf-8")
    assert embedded_data(page)["title"] == "ann vs bob vs cat vs dan vs eve"
    assert "<title>ann vs bob vs cat vs dan vs eve</title>" in page
    assert "match match" not in page
    header, *rest = (match_run / "hands.jsonl").read_text(encoding="utf-8").splitlines(True)
    named = tmp_path / "hands.jsonl"
    named.write_text(header.replace('"match_id":"match"', '"match_id":"m7"') + "".join(rest))
    assert _report(named, tmp_path / "named.html")["title"] == "match m7"


def test_a_hand_history_alone_still_gives_a_report(match_run: Path, tmp_path: Path) -> None:
    data = _report(match_run / "hands.jsonl", tmp_path / "r.html")
    assert data["kind"] == "hands" and data["latency"] == []
    assert [(row["bot"], row["kind"]) for row in data["faults"]] == [
        ("cat", "arena_default_action")
    ]


def test_a_five_card_draw_match_embeds_its_draws(draw_run: Path, tmp_path: Path) -> None:
    data = _report(draw_run, tmp_path / "r.html")
    assert all(hand["variant"] == "five_card_draw" for hand in data["hands"])
    assert any(hand["draws"] for hand in data["hands"])


def test_the_hands_embedded_stay_within_max_hands(rr_run: Path, tmp_path: Path) -> None:
    data = _report(rr_run, tmp_path / "r.html", max_hands=7)
    assert len(data["hands"]) == 7
    assert data["hands_total"] == 60
    assert "--hand MATCH/N -o hand.html" in data["open_other"]
    assert str(rr_run) in data["open_other"]
    assert data["open"] is None


def test_a_requested_hand_is_embedded_and_opened(rr_run: Path, tmp_path: Path) -> None:
    wanted = HandRef("rr-002-b02-swap", 4)
    data = _report(rr_run, tmp_path / "r.html", max_hands=0, hands=[wanted])
    assert [hand["id"] for hand in data["hands"]] == [str(wanted)]
    assert data["hands"][0]["why"] == "requested"
    assert data["open"] == str(wanted)


def test_an_unknown_requested_hand_is_an_error_naming_it(rr_run: Path, tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"hand nope/1: .* has no match 'nope' \(matches: rr-001"):
        write_report(rr_run, tmp_path / "r.html", hands=[HandRef("nope", 1)])
    with pytest.raises(ReportError, match=r"match 'rr-001-b01' has no hand 99 \(it has 5"):
        write_report(rr_run, tmp_path / "r.html", hands=[HandRef("rr-001-b01", 99)])
    assert not (tmp_path / "r.html").exists()


def test_a_missing_source_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"nothing-here: no such file or folder"):
        load_source(tmp_path / "nothing-here")


def test_a_folder_that_is_not_a_run_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"is not a run folder: it has neither results.sqlite"):
        load_source(tmp_path)
    other = tmp_path / "notes.txt"
    other.write_text("hello", encoding="utf-8")
    with pytest.raises(ReportError, match=r"notes.txt is not a run folder, a results database"):
        load_source(other)


def test_an_unreadable_database_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "results.sqlite").write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(ReportError, match=r"cannot read the results database: .*results.sqlite"):
        write_report(tmp_path, tmp_path / "r.html")


def test_a_database_without_a_tournament_is_an_error(tmp_path: Path) -> None:
    from arena.store.sqlite import ResultsDatabase

    ResultsDatabase(tmp_path / "results.sqlite").close()
    with pytest.raises(ReportError, match=r"results.sqlite holds no tournament yet"):
        load_source(tmp_path / "results.sqlite")


def test_a_running_tournament_keeps_its_secret_seed_out(tmp_path: Path) -> None:
    run = write_tournament(tmp_path / "run", deals=5, block_deals=5, standings=False)
    with sqlite3.connect(run / "results.sqlite") as connection:
        connection.execute("UPDATE tournaments SET status = 'running', seed_was_given = 0")
    data = _report(run, tmp_path / "r.html")
    labels = [fact[0] for fact in data["facts"]]
    assert "seed" not in labels and ("status", "running") in [tuple(f) for f in data["facts"]]


def test_a_broken_match_file_is_noted_not_fatal(tmp_path: Path) -> None:
    run = write_tournament(tmp_path / "run", deals=5, block_deals=5)
    (run / "matches" / "rr-001-b01" / "hands.jsonl").write_text("garbage\n", encoding="utf-8")
    data = _report(run, tmp_path / "r.html")
    assert any("rr-001-b01" in note and "cannot be read" in note for note in data["notes"])
    assert all(hand["match"] != "rr-001-b01" for hand in data["hands"])
    with pytest.raises(ReportError, match=r"rr-001-b01/hands.jsonl:1: not a JSON record"):
        write_report(run, tmp_path / "r.html", hands=[HandRef("rr-001-b01", 1)])


def test_a_hand_missing_from_its_file_is_noted(tmp_path: Path) -> None:
    run = write_tournament(tmp_path / "run", deals=5, block_deals=5)
    path = run / "matches" / "rr-001-b01" / "hands.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")  # hands 1 and 2 only
    data = _report(run, tmp_path / "r.html")
    assert "hand rr-001-b01/3 is not in" in " ".join(data["notes"])
    with pytest.raises(ReportError, match="hand rr-001-b01/4 is not in"):
        write_report(run, tmp_path / "r.html", hands=[HandRef("rr-001-b01", 4)])


def test_a_bad_max_hands_is_an_error(rr_run: Path, tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="max_hands must be a whole number of 0 or more, got -1"):
        write_report(rr_run, tmp_path / "r.html", max_hands=-1)


def test_an_unwritable_output_is_an_error_naming_it(rr_run: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(ReportError, match=r"cannot write the report .*file/r.html"):
        write_report(rr_run, blocker / "r.html")


def test_bad_results_json_is_an_error_naming_it(match_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(match_run, copy)
    (copy / "results.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ReportError, match=r"results.json: the results are not JSON"):
        load_source(copy)
    (copy / "results.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ReportError, match=r"results.json: not a match's results"):
        load_source(copy)


def test_a_missing_table_is_an_error_naming_the_database(tmp_path: Path) -> None:
    run = write_tournament(tmp_path / "run", deals=5, block_deals=5)
    with sqlite3.connect(run / "results.sqlite") as connection:
        connection.execute("DROP TABLE latency")
    with pytest.raises(
        ReportError, match=r"cannot read the results database: .*results.sqlite: .*no such table"
    ):
        load_source(run)


def test_an_unreadable_standings_json_is_noted_and_the_tables_computed(
    rr_run: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "run"
    shutil.copytree(rr_run, copy)
    (copy / "standings.json").write_text("{broken", encoding="utf-8")
    data = _report(copy, tmp_path / "r.html")
    assert any("standings.json cannot be read" in note for note in data["notes"])
    assert data["leaderboard"] == _report(rr_run, tmp_path / "a.html")["leaderboard"]


def test_a_failed_match_and_odd_latency_rows_are_left_out(tmp_path: Path) -> None:
    from arena.store.outcome import MatchOutcome, SeatOutcome
    from arena.store.sqlite import PlannedMatch, ResultsDatabase

    run = write_tournament(tmp_path / "run", deals=5, block_deals=5, standings=False)
    with ResultsDatabase(run / "results.sqlite") as db:
        (tournament,) = db.tournaments()
        db.plan_matches(
            tournament.id, [PlannedMatch("late", "late", "heads_up", 99, ("ann", "bob"), 1)]
        )
        seats = (SeatOutcome(0, "ann", 0, 0, 0), SeatOutcome(1, "bob", 0, 0, 0))
        db.record_match(tournament.id, MatchOutcome("late", seats, (), "error", None, 0.1, "boom"))
    with sqlite3.connect(run / "results.sqlite") as connection:
        # A histogram in another bucket layout (an older file), and a seat that never replied.
        connection.execute("UPDATE latency SET histogram_json = '[[1.0, 5]]' WHERE seat_index = 0")
        connection.execute("UPDATE latency SET count = 0 WHERE seat_index = 1")
        connection.execute(
            "UPDATE tournaments SET config_json = json_remove(config_json, '$.game')"
        )
        connection.execute("UPDATE tournaments SET finished_at = NULL, status = 'running'")
    data = _report(run, tmp_path / "r.html")
    facts = dict(tuple(fact) for fact in data["facts"])
    assert facts["matches counted"] == "6 of 7 planned"
    assert facts["game"] == "?, ?" and "finished" not in facts
    assert data["latency"] == []  # no seat had a histogram of today's layout and replies
    assert all(hand["match"] != "late" for hand in data["hands"])


def test_a_hand_the_viewer_cannot_follow_is_noted(tmp_path: Path) -> None:
    run = write_tournament(tmp_path / "run", deals=5, block_deals=5)
    path = run / "matches" / "rr-001-b01" / "hands.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2])
    del record["history"]["seats"]
    lines[2] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = _report(run, tmp_path / "r.html")
    assert any("hand rr-001-b01/2: the history cannot be shown" in n for n in data["notes"])
    with pytest.raises(ReportError, match="hand rr-001-b01/2: the history cannot be shown"):
        write_report(run, tmp_path / "r.html", hands=[HandRef("rr-001-b01", 2)])


def test_a_failed_write_leaves_no_partial_file(
    rr_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("arena.report.build.os.replace", refuse)
    with pytest.raises(ReportError, match=r"cannot write the report .*No space left on device"):
        write_report(rr_run, tmp_path / "r.html")
    assert list(tmp_path.iterdir()) == []


def test_the_script_is_every_script_asset_once_in_its_order() -> None:
    # A file added to assets/ but not to SCRIPT_FILES would never run: none may be left out.
    folder = resources.files("arena.report").joinpath("assets")
    on_disk = sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".js"))
    assert sorted(SCRIPT_FILES) == on_disk and len(set(SCRIPT_FILES)) == len(SCRIPT_FILES)
    script = report_script()
    positions = [script.index(asset(name)) for name in SCRIPT_FILES]
    assert positions == sorted(positions)
    # One function holds them all: nothing they declare becomes a global of the page.
    before_the_files = script.partition(asset(SCRIPT_FILES[0]))[0]
    assert before_the_files.endswith("(function () {\n") and script.endswith("\n})();\n")


def test_an_asset_that_closes_its_element_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.report.page.report_script", lambda: "x </script> y")
    with pytest.raises(ValueError, match="closes its own element"):
        render_page("t", {})


def test_a_freezeout_match_shows_places(tmp_path: Path) -> None:
    from tests.arena.report.runs import write_match_folder

    run = write_match_folder(
        tmp_path / "run", ["ann", "bob"], hand_count=5, stack_policy="freezeout"
    )
    data = _report(run, tmp_path / "r.html")
    assert sorted(row["bot"] for row in data["places"]["match"]) == ["ann", "bob"]


def test_match_files_in_odd_shapes(tmp_path: Path) -> None:
    from arena.report.from_match import load_match
    from tests.arena.report.runs import write_match_folder

    run = write_match_folder(tmp_path / "run", ["ann", "bob"], hand_count=4)
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    results["players"][0]["faults"]["latency"]["histogram"] = [[0.5, 3], [2.0, 1]]
    results["players"].append("not a player")
    (run / "results.json").write_text(json.dumps(results), encoding="utf-8")
    with (run / "hands.jsonl").open("a", encoding="utf-8") as file:  # a hand cut short
        file.write(json.dumps({"type": "hand", "hand_number": 5, "history": {"result": None}}))
    data = _report(run, tmp_path / "r.html")
    assert data["hands_total"] == 4
    ann = next(row for row in data["latency"] if row["bot"] == "ann")
    assert sum(count for _low, _high, count in ann["bins"]) == 4
    with pytest.raises(ReportError, match="cannot read the results"):
        load_match(run / "hands.jsonl", run)  # a folder where results.json should be
    (run / "hands.jsonl").write_text("nonsense\n", encoding="utf-8")
    with pytest.raises(ReportError, match=r"hands\.jsonl:1: not a JSON record"):
        load_source(run)


# -- raw and luck-adjusted numbers ----------------------------------------------------------
# The report's raw and luck-adjusted numbers: both per bot and per pair, the luck between
# them, the explanation and the estimator beside them, each match's luck, and the raw score
# with a note when the matches carry no adjusted result.


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
