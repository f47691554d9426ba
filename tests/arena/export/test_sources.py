"""The hands an export reads: a hands.jsonl, a match's run folder, a tournament's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.export.sources import SourceError, SourceHand, open_source
from arena.store.sqlite import ResultsDatabase
from engine.config import GameConfig
from tests.arena.export.runs import play_hands, write_hands
from tests.arena.report.runs import write_tournament


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tournament(tmp_path_factory.mktemp("export") / "run", deals=4, block_deals=2)


def test_a_hands_file_is_one_match_with_its_players_names(tmp_path: Path) -> None:
    path = write_hands(
        tmp_path / "run" / "hands.jsonl", "m1", ["ann", "bob"], play_hands(GameConfig(), 3)
    )
    source = open_source(path)
    assert (source.kind, source.folder) == ("match", tmp_path / "run")
    hands = list(source.hands())
    assert [hand.label for hand in hands] == ["m1/1", "m1/2", "m1/3"]
    assert hands[0].names == {"p0": "ann", "p1": "bob"}
    assert hands[2].history["hand_number"] == 3
    # The match's run folder is the same source.
    assert [hand.label for hand in open_source(tmp_path / "run").hands()] == [
        "m1/1",
        "m1/2",
        "m1/3",
    ]


def test_a_tournament_gives_its_matches_in_plan_order(tournament: Path) -> None:
    source = open_source(tournament)
    assert source.kind == "tournament"
    with ResultsDatabase(tournament / "results.sqlite", read_only=True) as database:
        outcomes = database.outcomes(database.tournaments()[-1].id)
    planned = [outcome.match_id for outcome in outcomes]
    assert [match.match_id for match in source.matches] == planned
    assert planned != sorted(planned)  # plan order, not name order
    hands = list(source.hands())
    assert len(hands) == 2 * len(planned)
    assert {hand.match_id for hand in hands} == set(planned)


def test_a_tournament_folder_without_its_database_gives_its_files_by_name(
    tournament: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tournament / "matches", copy / "matches")
    source = open_source(copy)
    ids = [match.match_id for match in source.matches]
    assert source.kind == "tournament" and ids == sorted(ids) and len(ids) == 12


def test_a_match_without_a_match_id_is_named_after_its_folder(tmp_path: Path) -> None:
    path = write_hands(tmp_path / "m7" / "hands.jsonl", "", ["a", "b"], [])
    assert open_source(path).matches[0].match_id == "m7"


def test_a_hand_record_without_a_number_takes_its_historys(tmp_path: Path) -> None:
    path = write_hands(tmp_path / "hands.jsonl", "m", ["a", "b"], play_hands(GameConfig(), 1))
    path.write_text(path.read_text().replace('"hand_number":1,"hand_id"', '"hand_id"'))
    (hand,) = open_source(path).hands()
    assert hand == SourceHand("m", 1, hand.history, {"p0": "a", "p1": "b"})


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda root: root / "missing", "does not exist"),
        (lambda root: root, "is not a run"),
        (lambda root: _file(root / "results.json", '{"players": []}'), "not a hand history"),
        (lambda root: _file(root / "results.sqlite", "not a database"), "cannot read the results"),
        (lambda root: _empty_database(root), "holds no tournament yet"),
        (lambda root: _folder(root / "matches"), "without any played match"),
    ],
)
def test_a_source_that_is_not_a_run_is_named(tmp_path: Path, make: object, message: str) -> None:
    root = tmp_path / "source"
    root.mkdir()
    path = make(root)  # type: ignore[operator]
    with pytest.raises(SourceError, match=message) as info:
        open_source(path)
    assert str(path) in str(info.value) or "results.sqlite" in str(info.value)


def test_a_broken_line_is_reported_while_reading(tmp_path: Path) -> None:
    path = write_hands(tmp_path / "hands.jsonl", "m", ["a", "b"], play_hands(GameConfig(), 2))
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], lines[1], "{not json", lines[2]]) + "\n")
    hands = open_source(path).hands()
    assert next(hands).hand_number == 1
    with pytest.raises(SourceError, match=r"hands.jsonl:3: not a JSON record"):
        next(hands)


def _file(path: Path, text: str) -> Path:
    path.write_text(text)
    return path if path.name != "results.sqlite" else path.parent


def _folder(path: Path) -> Path:
    path.mkdir()
    return path.parent


def _empty_database(root: Path) -> Path:
    with ResultsDatabase(root / "results.sqlite"):
        pass
    return root
