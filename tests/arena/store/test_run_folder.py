"""The names of a run folder's files (:mod:`arena.store.run_folder`)."""

from __future__ import annotations

from pathlib import Path

from arena.store.run_folder import RunFolder


def test_a_match_folder_names_its_history_results_report_and_stderr_files() -> None:
    folder = RunFolder(Path("out"))
    assert folder.history == Path("out/hands.jsonl")
    assert folder.results == Path("out/results.json")
    assert folder.report == Path("out/report.html")
    assert folder.stderr_log(2, "my bot/v2") == Path("out/stderr/2-my_bot_v2.log")
    assert folder.relative(folder.stderr_log(0, "a")) == "stderr/0-a.log"


def test_a_tournament_folder_names_its_database_standings_builds_and_matches() -> None:
    folder = RunFolder(Path("t"))
    assert folder.database == Path("t/results.sqlite")
    assert folder.standings == Path("t/standings.json")
    assert folder.build_dir("bot one") == Path("t/builds/bot_one")
    match = folder.match("m-1")
    assert match.history == Path("t/matches/m-1/hands.jsonl")
    assert match.error == Path("t/matches/m-1/error.txt")
    assert match.relative(match.history, to=folder) == "matches/m-1/hands.jsonl"


def test_what_a_folder_holds_is_told_by_its_files(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path)
    assert not folder.is_match() and not folder.is_tournament()
    folder.history.write_text("", encoding="utf-8")
    assert folder.is_match() and not folder.is_tournament()
    folder.match("b").path.mkdir(parents=True)
    folder.match("a").path.mkdir()
    folder.match("b").history.write_text("", encoding="utf-8")
    folder.match("a").history.write_text("", encoding="utf-8")
    assert folder.is_tournament()
    assert folder.match_histories() == [folder.match("a").history, folder.match("b").history]
    other = RunFolder(tmp_path / "db")
    other.path.mkdir()
    other.database.write_text("", encoding="utf-8")
    assert other.is_tournament()
