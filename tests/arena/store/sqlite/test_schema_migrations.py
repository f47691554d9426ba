"""The luck estimator's results in the results database (schema version 2): each hand's
luck-adjusted results and each match's estimator come back exactly, and a version 1 file is
migrated when opened for writing and read as it is when opened read-only."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from arena.store.outcome import HandSummary, MatchOutcome
from arena.store.sqlite import ResultsDatabase, ResultsDatabaseError
from arena.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from tests.arena.store.sqlite.test_sqlite import finished_ids, planned, sample_outcome

ESTIMATOR = "chance-equity/1 v=0123abcd"


def _version_1_file(path: Path, *, with_match: bool) -> None:
    """A results database as version 1 wrote it: today's tables without the luck columns
    (SQLite drops a column that nothing refers to), one match recorded if asked."""
    with ResultsDatabase(path) as db:
        tournament = planned(db, 2)
        if with_match:
            db.record_match(tournament.id, sample_outcome("m00000"))
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("ALTER TABLE hands DROP COLUMN adjusted_json")
    connection.execute("ALTER TABLE matches DROP COLUMN estimator")
    connection.execute("PRAGMA user_version = 1")
    connection.close()


def _second_with_luck() -> MatchOutcome:
    return sample_outcome("m00001", bots=("beta", "alpha"), estimator=ESTIMATOR)


def _columns(path: Path, table: str) -> list[str]:
    connection = sqlite3.connect(path)
    names = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
    connection.close()
    return names


def test_adjusted_results_and_the_estimator_come_back_bit_for_bit(tmp_path: Path) -> None:
    outcome = sample_outcome("m00000", estimator=ESTIMATOR)
    assert outcome.hands[0].adjusted is not None
    with ResultsDatabase(tmp_path / "r.db") as db:
        tournament = planned(db, 2)
        db.record_match(tournament.id, outcome)
        db.record_match(tournament.id, sample_outcome("m00001", bots=("beta", "alpha")))
    with ResultsDatabase(tmp_path / "r.db", read_only=True) as db, db.snapshot():
        with_luck, without = db.outcomes(tournament.id)
    assert with_luck == outcome and with_luck.estimator == ESTIMATOR
    # Equal floats, not merely close ones: each written with every digit.
    assert [hand.adjusted for hand in with_luck.hands] == [hand.adjusted for hand in outcome.hands]
    assert without.estimator is None and all(hand.adjusted is None for hand in without.hands)


@pytest.mark.parametrize(
    "adjusted", [(1.0,), (float("inf"), 0.0), (float("nan"), 0.0)], ids=["short", "inf", "nan"]
)
def test_adjusted_results_that_cannot_come_back_are_refused_naming_the_hand(
    tmp_path: Path, adjusted: tuple[float, ...]
) -> None:
    outcome = sample_outcome("m00000", hand_count=3, estimator=ESTIMATOR)
    hands = (replace(outcome.hands[0], adjusted=adjusted), *outcome.hands[1:])
    with ResultsDatabase(tmp_path / "r.db") as db:
        tournament = planned(db, 2)
        with pytest.raises(ResultsDatabaseError, match="hand 1: adjusted results") as raised:
            db.record_match(tournament.id, replace(outcome, hands=hands))
        assert raised.value.code == "bad_value"
        assert finished_ids(db, tournament.id) == set()


def test_a_version_1_file_is_migrated_when_opened_for_writing(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    _version_1_file(path, with_match=True)
    assert 1 in MIGRATIONS and "adjusted_json" not in _columns(path, "hands")
    with ResultsDatabase(path) as db:
        tournament = db.tournaments()[0]
        old = db.outcomes(tournament.id)
        db.record_match(tournament.id, _second_with_luck())
        again = db.outcomes(tournament.id)
    # Its match keeps every value, with no luck (it was played without the estimator).
    assert old == [sample_outcome("m00000")] and old[0].estimator is None
    assert again[1] == _second_with_luck()
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    connection.close()
    # The same columns, in the same order, as a file made new by this version.
    ResultsDatabase(tmp_path / "new.db").close()
    for table in ("hands", "matches"):
        assert _columns(path, table) == _columns(tmp_path / "new.db", table)


def test_a_version_1_file_opened_read_only_is_read_as_it_is_and_left_alone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.db"
    _version_1_file(path, with_match=True)
    before = path.read_bytes()
    with ResultsDatabase(path, read_only=True) as db:
        outcomes = db.outcomes(db.tournaments()[0].id)
    assert outcomes == [sample_outcome("m00000")]
    assert outcomes[0].hands[0] == HandSummary(1, 20, (1, -1), pot=2, went_to_showdown=False)
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
    connection.close()
    assert path.read_bytes() == before


def test_a_migration_that_fails_leaves_the_file_at_version_1(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    _version_1_file(path, with_match=False)
    connection = sqlite3.connect(path, isolation_level=None)
    # A column of the name already there makes the second step fail after the first ran.
    connection.execute("ALTER TABLE matches ADD COLUMN estimator TEXT")
    connection.close()
    with pytest.raises(ResultsDatabaseError, match="duplicate column name: estimator"):
        ResultsDatabase(path)
    assert "adjusted_json" not in _columns(path, "hands")  # the first step was rolled back
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == 1
    connection.close()
