"""The tournament results database (:mod:`arena.store.sqlite`): opening and refusing files,
tournaments, the plan, one transaction per match, the counted flag, read-only readers.

``sample_outcome`` and ``sample_plan`` are shared with the crash and schema tests (the crash
test's writer process imports them too).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from arena.store.outcome import (
    FaultExample,
    HandSummary,
    LatencySummary,
    MatchOutcome,
    SeatOutcome,
)
from arena.store.run_folder import RunFolder
from arena.store.sqlite import (
    DATABASE_FILE_MODE,
    PlannedMatch,
    ResultsDatabase,
    ResultsDatabaseError,
    TournamentRecord,
)
from arena.store.sqlite.schema import SCHEMA_VERSION

BOTS = ("alpha", "beta")
SECRET_SEED = 2**255 + 12345  # a secret seed has 256 bits: more than SQLite's INTEGER holds


def sample_plan(count: int, *, bots: tuple[str, ...] = BOTS) -> list[PlannedMatch]:
    """``count`` heads-up matches in blocks of two (the second with the seats swapped);
    match seeds use all 64 bits."""
    plan = []
    for position in range(count):
        block = position // 2
        seats = bots if position % 2 == 0 else bots[::-1]
        plan.append(
            PlannedMatch(
                match_id=f"m{position:05d}",
                block_id=f"b{block:05d}",
                kind="heads_up",
                position=position,
                bots=seats,
                seed=2**64 - 1 - block,
            )
        )
    return plan


def sample_outcome(
    match_id: str,
    *,
    bots: tuple[str, ...] = BOTS,
    hand_count: int | None = None,
    error: str | None = None,
    estimator: str | None = None,
) -> MatchOutcome:
    """A match outcome with every field used: faults with and without examples, an example
    without a count, latency histograms, optional stacks. Deterministic in ``match_id``;
    the hand count varies with it unless given. With ``estimator``, each hand carries
    luck-adjusted results (floats whose text has many digits: a third of the net, plus a
    tenth) and the outcome names the estimator."""
    number = int(match_id.lstrip("m") or 0)
    hand_count = 20 + (number * 37) % 90 if hand_count is None else hand_count
    hands = tuple(
        HandSummary(
            hand_number=hand,
            big_blind=20 * (1 + hand // 40),
            nets=(hand - number, number - hand, *((0,) * (len(bots) - 2))),
            pot=2 * abs(hand - number),
            went_to_showdown=hand % 3 == 0,
            adjusted=(
                None
                if estimator is None
                else (
                    (hand - number) / 3 + 0.1,
                    (number - hand) / 3 - 0.1,
                    *((0.0,) * (len(bots) - 2)),
                )
            ),
        )
        for hand in range(1, hand_count + 1)
    )
    seats = tuple(
        SeatOutcome(
            seat_index=index,
            bot=bot,
            chips_won=(-1) ** index * number,
            place=index + 1,
            hands_played=hand_count,
            final_stack=None if index == 0 else 1000 + number,
            eliminated_in_hand=None if index < 2 else hand_count,
            fault_counts={"timeout": 2, "invalid_reply": 1} if index == 0 else {},
            fault_examples=(
                (
                    FaultExample("invalid_reply", None, "not JSON: 'hi'"),
                    FaultExample("timeout", 3, "no reply in 5000 ms"),
                )
                if index == 0
                else (FaultExample("crash", 7, "exit code 1"),)
            ),
            latency=LatencySummary(
                count=hand_count * 2,
                mean_ms=1.25 + index,
                p50_ms=1.0,
                p99_ms=9.5,
                max_ms=12.75,
                histogram=((1.0, hand_count), (5.0, hand_count - 1), (float("inf"), 1)),
            ),
            stderr_path=f"{match_id}/stderr-{index}.log" if index == 0 else None,
            stderr_bytes=17 * index,
        )
        for index, bot in enumerate(bots)
    )
    return MatchOutcome(
        match_id=match_id,
        seats=seats,
        hands=hands,
        ended_reason="hands" if error is None else "error",
        hands_path=f"{match_id}/hands.jsonl",
        duration_s=0.5 + number / 8,
        error=error,
        extra={"deal_check": [number, 2], "note": None},
        estimator=estimator,
    )


class Clock:
    """A clock that moves one second per reading."""

    def __init__(self) -> None:
        self.time = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.time += timedelta(seconds=1)
        return self.time


@pytest.fixture
def db(tmp_path: Path) -> Iterator[ResultsDatabase]:
    with ResultsDatabase(tmp_path / "results.sqlite", now=Clock()) as database:
        yield database


def start(database: ResultsDatabase, fingerprint: str = "fp-1") -> TournamentRecord:
    return database.start_tournament(
        "weekly", fingerprint, {"format": "round_robin", "deals": 200}, SECRET_SEED, False
    )


def stored_bots(database: ResultsDatabase, tournament_id: int) -> dict[str, str]:
    """Each bot's manifest path as the ``bots`` table holds it, by name."""
    with closing(sqlite3.connect(database.path)) as connection:
        rows = connection.execute(
            "SELECT name, manifest_path FROM bots WHERE tournament_id = ? ORDER BY name",
            (tournament_id,),
        ).fetchall()
    return dict(rows)


def finished_ids(database: ResultsDatabase, tournament_id: int) -> set[str]:
    """The matches recorded as finished (a failed match is not: a resume retries it)."""
    return {entry.match_id for entry in database.plan(tournament_id) if entry.status == "finished"}


def planned(database: ResultsDatabase, count: int = 4) -> TournamentRecord:
    tournament = start(database)
    database.plan_matches(tournament.id, sample_plan(count))
    return tournament


def row_counts(path: Path) -> dict[str, int]:
    """Rows per child table, read through a separate plain connection."""
    with sqlite3.connect(path) as connection:
        return {
            table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("match_seats", "hands", "faults", "latency")
        }


# -- opening -----------------------------------------------------------------------------


def test_a_new_database_and_its_wal_files_are_private_to_the_owner(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    old_umask = os.umask(0)  # even a permissive umask must not widen the file
    try:
        with ResultsDatabase(path) as database:
            start(database)
            modes = {
                name: stat.S_IMODE((tmp_path / name).stat().st_mode)
                for name in ("results.sqlite", "results.sqlite-wal", "results.sqlite-shm")
            }
    finally:
        os.umask(old_umask)
    assert DATABASE_FILE_MODE == 0o600
    assert modes == dict.fromkeys(modes, 0o600)


def test_the_database_runs_in_wal_mode_with_foreign_keys_and_normal_sync(
    db: ResultsDatabase,
) -> None:
    connection = db._connection  # the pragmas are per connection: ask the database's own
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert connection.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_text_file_is_refused_naming_the_path_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("these are my notes, not a database\n" * 20)
    with pytest.raises(ResultsDatabaseError) as raised:
        ResultsDatabase(path)
    assert raised.value.code == "not_a_database"
    assert str(path) in str(raised.value) and "not an SQLite database" in str(raised.value)
    assert path.read_text() == "these are my notes, not a database\n" * 20
    with pytest.raises(ResultsDatabaseError, match="not an SQLite database"):
        ResultsDatabase(path, read_only=True)


@pytest.mark.parametrize("name", ["missing-folder/results.sqlite", "."])
def test_a_path_that_cannot_be_a_file_is_refused_naming_it(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with pytest.raises(ResultsDatabaseError) as raised:
        ResultsDatabase(path)
    assert raised.value.code == "cannot_open"
    assert str(path) in str(raised.value)


def test_a_read_only_open_never_creates_a_file(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    with pytest.raises(ResultsDatabaseError, match="no such file") as raised:
        ResultsDatabase(path, read_only=True)
    assert raised.value.code == "cannot_open"
    assert not path.exists()


def test_a_read_only_open_of_an_empty_file_is_not_a_results_database(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    path.touch()
    with pytest.raises(ResultsDatabaseError, match="not a results database") as raised:
        ResultsDatabase(path, read_only=True)
    assert raised.value.code == "schema_version"


def test_a_database_of_another_schema_version_is_refused_naming_both_versions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.sqlite"
    ResultsDatabase(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    for read_only in (False, True):
        with pytest.raises(ResultsDatabaseError) as raised:
            ResultsDatabase(path, read_only=read_only)
        message = str(raised.value)
        assert raised.value.code == "schema_version"
        assert str(path) in message
        assert f"schema version {SCHEMA_VERSION + 1}" in message
        assert f"reads versions 1 and {SCHEMA_VERSION}" in message


def test_an_sqlite_database_of_another_program_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE recipes (name TEXT)")
    connection.close()
    with pytest.raises(ResultsDatabaseError, match="not a results database") as raised:
        ResultsDatabase(path)
    assert raised.value.code == "schema_version"
    with sqlite3.connect(path) as connection:  # and it was left alone
        tables = connection.execute("SELECT name FROM sqlite_master").fetchall()
    connection.close()
    assert tables == [("recipes",)]


def test_an_existing_database_opens_again_with_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    with ResultsDatabase(path) as database:
        tournament = planned(database, 2)
        database.record_match(tournament.id, sample_outcome("m00000"))
    with ResultsDatabase(path) as database:
        assert database.outcomes(tournament.id) == [sample_outcome("m00000")]


def test_a_closed_database_raises_its_own_error(tmp_path: Path) -> None:
    database = ResultsDatabase(tmp_path / "results.sqlite")
    database.close()
    database.close()  # twice is harmless
    with pytest.raises(ResultsDatabaseError, match="cannot list tournaments") as raised:
        database.tournaments()
    assert raised.value.code == "sqlite"


# -- tournaments -------------------------------------------------------------------------


def test_a_tournament_is_created_then_resumed_with_its_stored_secret_seed(
    db: ResultsDatabase,
) -> None:
    created = db.start_tournament(
        "weekly", "fp-1", {"format": "round_robin", "bots": ["a", "b"]}, SECRET_SEED, False,
        bots={"alpha": Path("bots/alpha/bot.toml"), "beta": "bots/beta/bot.toml"},
    )  # fmt: skip
    assert created.seed == SECRET_SEED and created.seed_was_given is False
    assert created.config == {"format": "round_robin", "bots": ["a", "b"]}
    assert created.status == "running" and not created.is_finished
    assert created.created_at == "2030-01-02T03:04:06.000+00:00"
    assert created.finished_at is None
    # A resume draws a new secret seed, but the stored one wins: the plan must not change.
    resumed = db.start_tournament("weekly", "fp-1", {}, 99, False, bots={"alpha": "elsewhere"})
    assert resumed == created
    assert db.find_tournament("fp-1") == created
    assert db.find_tournament("fp-other") is None
    assert stored_bots(db, created.id) == {
        "alpha": "bots/alpha/bot.toml",
        "beta": "bots/beta/bot.toml",
    }
    other = db.start_tournament("nightly", "fp-2", {}, 7, True)
    assert other.seed_was_given is True and other.id != created.id
    assert db.tournaments() == [created, other]
    assert db.tournament(other.id) == other


def test_finishing_a_tournament_keeps_the_first_finishing_time(db: ResultsDatabase) -> None:
    tournament = start(db)
    assert db.tournament(tournament.id).is_finished is False
    db.finish_tournament(tournament.id)
    first = db.tournament(tournament.id)
    db.finish_tournament(tournament.id)
    assert db.tournament(tournament.id).is_finished is True
    assert first.status == "finished" and first.finished_at is not None
    assert db.tournament(tournament.id).finished_at == first.finished_at


def test_a_config_that_is_not_json_ready_is_refused_naming_the_tournament(
    db: ResultsDatabase,
) -> None:
    with pytest.raises(ResultsDatabaseError, match="config of tournament 'weekly'") as raised:
        db.start_tournament("weekly", "fp", {"path": Path("x")}, 1, True)
    assert raised.value.code == "bad_value"
    assert db.tournaments() == []


@pytest.mark.parametrize(
    "call",
    [
        lambda d: d.tournament(42),
        lambda d: d.finish_tournament(42),
        lambda d: d.plan_matches(42, sample_plan(1)),
        lambda d: d.set_counted(42, [], True),
        lambda d: d.outcomes(42),
    ],
)
def test_an_unknown_tournament_is_named_in_the_error(
    db: ResultsDatabase, call: Callable[[ResultsDatabase], Any]
) -> None:
    with pytest.raises(ResultsDatabaseError, match="no tournament 42") as raised:
        call(db)
    assert raised.value.code == "unknown_tournament"


# -- the plan ----------------------------------------------------------------------------


def test_planning_again_is_idempotent_and_adds_only_new_matches(db: ResultsDatabase) -> None:
    tournament = start(db)
    assert db.plan_matches(tournament.id, sample_plan(4)) == 4
    assert db.plan_matches(tournament.id, sample_plan(4)) == 0
    assert db.plan_matches(tournament.id, sample_plan(6)) == 2
    with sqlite3.connect(db.path) as connection:
        rows = connection.execute(
            "SELECT match_id, seats_json, seed, status, counted FROM matches ORDER BY position"
        ).fetchall()
    connection.close()
    assert len(rows) == 6
    # A 64-bit unsigned match seed is kept exactly (as text: SQLite's INTEGER is signed).
    assert rows[1] == ("m00001", '["beta", "alpha"]', str(2**64 - 1), "planned", 0)
    assert finished_ids(db, tournament.id) == set()
    assert db.outcomes(tournament.id) == []


def test_a_changed_plan_is_refused_and_nothing_of_it_is_stored(db: ResultsDatabase) -> None:
    tournament = start(db)
    db.plan_matches(tournament.id, sample_plan(2))
    changed = [*sample_plan(3)]
    changed[1] = PlannedMatch("m00001", "b00000", "heads_up", 1, ("beta", "alpha"), 5)
    with pytest.raises(ResultsDatabaseError) as raised:
        db.plan_matches(tournament.id, changed)
    assert raised.value.code == "plan_changed"
    assert "'m00001'" in str(raised.value) and "seed 5" in str(raised.value)
    assert str(2**64 - 1) in str(raised.value)
    assert db.plan_matches(tournament.id, sample_plan(3)) == 1  # m00002 was not stored


# -- recording matches -------------------------------------------------------------------


def test_outcomes_come_back_exactly_as_recorded_in_plan_order(db: ResultsDatabase) -> None:
    tournament = planned(db, 5)
    for match_id in ("m00003", "m00000", "m00004"):
        db.record_match(tournament.id, sample_outcome(match_id, bots=_seats(match_id)))
    assert db.outcomes(tournament.id) == [
        sample_outcome(match_id, bots=_seats(match_id))
        for match_id in ("m00000", "m00003", "m00004")
    ]
    assert finished_ids(db, tournament.id) == {"m00000", "m00003", "m00004"}


def _seats(match_id: str) -> tuple[str, ...]:
    """The sample plan's seating of ``match_id``."""
    return BOTS if int(match_id[1:]) % 2 == 0 else BOTS[::-1]


def test_a_finished_match_recorded_again_is_refused_without_duplicate_rows(
    db: ResultsDatabase,
) -> None:
    tournament = planned(db)
    db.record_match(tournament.id, sample_outcome("m00000", hand_count=10))
    before = row_counts(db.path)
    with pytest.raises(ResultsDatabaseError, match="already recorded") as raised:
        db.record_match(tournament.id, sample_outcome("m00000", hand_count=10))
    assert raised.value.code == "already_recorded"
    assert row_counts(db.path) == before
    assert before["hands"] == 10 and before["match_seats"] == 2


def test_a_failed_match_is_not_counted_and_its_retry_replaces_its_rows(
    db: ResultsDatabase,
) -> None:
    tournament = planned(db)
    failed = sample_outcome("m00000", hand_count=12, error="bot beta never started")
    db.record_match(tournament.id, failed, counted=True)
    assert finished_ids(db, tournament.id) == set()  # a resume plays it again
    assert db.outcomes(tournament.id) == [failed]
    assert db.outcomes(tournament.id, counted_only=True) == []
    retried = sample_outcome("m00000", hand_count=30)
    db.record_match(tournament.id, retried)
    assert db.outcomes(tournament.id, counted_only=True) == [retried]
    assert row_counts(db.path) == {"match_seats": 2, "hands": 30, "faults": 3, "latency": 2}


def test_an_unplanned_match_is_refused(db: ResultsDatabase) -> None:
    tournament = planned(db, 2)
    with pytest.raises(ResultsDatabaseError, match="'m00009' is not planned") as raised:
        db.record_match(tournament.id, sample_outcome("m00009"))
    assert raised.value.code == "unknown_match"


def test_a_seat_holding_another_bot_than_planned_is_refused(db: ResultsDatabase) -> None:
    tournament = planned(db, 2)
    with pytest.raises(ResultsDatabaseError, match="bot 'beta' in seat 0") as raised:
        db.record_match(tournament.id, sample_outcome("m00000", bots=("beta", "alpha")))
    assert raised.value.code == "bad_value"
    assert db.outcomes(tournament.id) == []


def _with(outcome: MatchOutcome, **changes: Any) -> MatchOutcome:
    fields = {name: getattr(outcome, name) for name in MatchOutcome.__dataclass_fields__}
    return MatchOutcome(**{**fields, **changes})


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            lambda o: _with(o, seats=o.seats[::-1]),
            "seats are not in seat order without repeats: [1, 0]",
        ),
        (
            lambda o: _with(o, hands=(*o.hands, o.hands[-1])),
            "hand 20 follows hand 20",
        ),
        (
            lambda o: _with(
                o,
                seats=(
                    SeatOutcome(
                        0, "alpha", 0, 1, 0, fault_examples=(FaultExample("crash", 1, "x"),) * 2
                    ),
                ),
            ),
            "seat 0 has two fault examples of one kind",
        ),
        (lambda o: _with(o, extra={"when": datetime(2030, 1, 1)}), "extra of match 'm00000'"),
        (lambda o: _with(o, extra={"mean": float("nan")}), "not JSON-ready"),
    ],
)
def test_an_outcome_that_would_not_come_back_as_it_is_is_refused(
    db: ResultsDatabase, change: Callable[[MatchOutcome], MatchOutcome], named: str
) -> None:
    tournament = planned(db, 2)
    with pytest.raises(ResultsDatabaseError) as raised:
        db.record_match(tournament.id, change(sample_outcome("m00000", hand_count=20)))
    assert raised.value.code == "bad_value"
    assert named in str(raised.value)
    assert db.outcomes(tournament.id) == []


def test_a_match_that_fails_half_way_leaves_no_row_of_it(db: ResultsDatabase) -> None:
    tournament = planned(db, 2)
    good = sample_outcome("m00000", hand_count=25)
    # The second seat's chips overflow SQLite's 64-bit INTEGER: the first seat's row and
    # the match's update are already written inside the transaction when it fails.
    bad_seat = SeatOutcome(1, "beta", 2**70, 2, 25)
    with pytest.raises(ResultsDatabaseError, match="cannot record match 'm00000'") as raised:
        db.record_match(tournament.id, _with(good, seats=(good.seats[0], bad_seat)))
    assert raised.value.code == "sqlite"
    assert row_counts(db.path) == dict.fromkeys(("match_seats", "hands", "faults", "latency"), 0)
    with sqlite3.connect(db.path) as connection:
        status = connection.execute("SELECT status FROM matches WHERE match_id = 'm00000'")
        assert status.fetchone() == ("planned",)
    connection.close()
    db.record_match(tournament.id, good)  # and the match can still be recorded
    assert db.outcomes(tournament.id) == [good]


def test_a_full_disk_is_a_clear_error_and_stores_nothing_of_the_match(
    db: ResultsDatabase,
) -> None:
    tournament = planned(db, 2)
    pages = db._connection.execute("PRAGMA page_count").fetchone()[0]
    db._connection.execute(f"PRAGMA max_page_count = {pages + 1}")  # the disk is full
    with pytest.raises(ResultsDatabaseError, match="disk is full") as raised:
        db.record_match(tournament.id, sample_outcome("m00000", hand_count=3000))
    assert raised.value.code == "sqlite"
    assert str(db.path) in str(raised.value)
    db._connection.execute(f"PRAGMA max_page_count = {2**30}")  # space again
    assert db.outcomes(tournament.id) == []
    db.record_match(tournament.id, sample_outcome("m00000", hand_count=3000))
    assert len(db.outcomes(tournament.id)[0].hands) == 3000


# -- counted -----------------------------------------------------------------------------


def test_matches_after_a_stopped_pair_are_kept_but_not_counted(db: ResultsDatabase) -> None:
    tournament = planned(db, 4)
    for match_id in ("m00000", "m00001", "m00002"):
        db.record_match(tournament.id, sample_outcome(match_id, bots=_seats(match_id)))
    db.record_match(tournament.id, sample_outcome("m00003", bots=_seats("m00003")), counted=False)
    counted = [outcome.match_id for outcome in db.outcomes(tournament.id, counted_only=True)]
    assert counted == ["m00000", "m00001", "m00002"]
    assert db.set_counted(tournament.id, ["m00002", "m00003"], False) == 2
    counted = [outcome.match_id for outcome in db.outcomes(tournament.id, counted_only=True)]
    assert counted == ["m00000", "m00001"]
    assert len(db.outcomes(tournament.id)) == 4  # kept
    assert db.set_counted(tournament.id, ["m00003"], True) == 1
    assert [o.match_id for o in db.outcomes(tournament.id, counted_only=True)][-1] == "m00003"


def test_planned_and_failed_matches_are_never_counted(db: ResultsDatabase) -> None:
    tournament = planned(db, 3)
    db.record_match(tournament.id, sample_outcome("m00000", error="arena failure"))
    assert db.set_counted(tournament.id, ["m00000", "m00001"], True) == 0
    assert db.outcomes(tournament.id, counted_only=True) == []


def test_counting_an_unknown_match_changes_nothing_and_names_it(db: ResultsDatabase) -> None:
    tournament = planned(db, 2)
    db.record_match(tournament.id, sample_outcome("m00000"))
    with pytest.raises(ResultsDatabaseError, match="no match 'zz' in tournament") as raised:
        db.set_counted(tournament.id, ["m00000", "zz"], False)
    assert raised.value.code == "unknown_match"
    assert len(db.outcomes(tournament.id, counted_only=True)) == 1


# -- readers -----------------------------------------------------------------------------


def test_a_read_only_reader_reads_but_never_writes(db: ResultsDatabase) -> None:
    tournament = planned(db, 2)
    db.record_match(tournament.id, sample_outcome("m00000"))
    with ResultsDatabase(db.path, read_only=True) as reader:
        assert reader.outcomes(tournament.id) == [sample_outcome("m00000")]
        assert reader.tournaments() == [db.tournament(tournament.id)]
        attempts: list[Callable[[], object]] = [
            lambda: start(reader, "fp-new"),
            lambda: reader.plan_matches(tournament.id, sample_plan(3)),
            lambda: reader.record_match(tournament.id, sample_outcome("m00001", bots=BOTS[::-1])),
            lambda: reader.set_counted(tournament.id, ["m00000"], False),
            lambda: reader.finish_tournament(tournament.id),
        ]
        for attempt in attempts:
            with pytest.raises(ResultsDatabaseError, match="open read-only") as raised:
                attempt()
            assert raised.value.code == "read_only"


def test_a_reader_snapshot_does_not_block_the_writer_and_sees_one_state(
    db: ResultsDatabase,
) -> None:
    tournament = planned(db, 4)
    db.record_match(tournament.id, sample_outcome("m00000"))
    with ResultsDatabase(db.path, read_only=True) as reader:
        with reader.snapshot():
            assert len(reader.outcomes(tournament.id)) == 1
            # WAL: the writer commits while the reader holds its snapshot...
            db.record_match(tournament.id, sample_outcome("m00001", bots=BOTS[::-1]))
            db.finish_tournament(tournament.id)
            # ...and the reader still sees the state its snapshot began with.
            assert len(reader.outcomes(tournament.id)) == 1
            assert finished_ids(reader, tournament.id) == {"m00000"}
            assert reader.tournament(tournament.id).is_finished is False
        assert len(reader.outcomes(tournament.id)) == 2
        assert reader.tournament(tournament.id).is_finished is True


def test_a_reader_opens_a_database_whose_writer_has_closed(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    with ResultsDatabase(path) as database:
        tournament = planned(database, 2)
        database.record_match(tournament.id, sample_outcome("m00000"))
    assert not (tmp_path / "results.sqlite-wal").exists()  # checkpointed at close
    with ResultsDatabase(path, read_only=True) as reader:
        assert finished_ids(reader, tournament.id) == {"m00000"}


def test_a_finished_run_read_afterwards_leaves_no_wal_or_shm_file(tmp_path: Path) -> None:
    # A report or an export opens the database after the run: the last connection to
    # close must be able to checkpoint and delete SQLite's side files.
    folder = RunFolder(tmp_path)
    with ResultsDatabase(folder.database) as database:
        tournament = planned(database, 2)
        database.record_match(tournament.id, sample_outcome("m00000"))
    with ResultsDatabase(folder.database, read_only=True) as reader:
        assert finished_ids(reader, tournament.id) == {"m00000"}
        with pytest.raises(ResultsDatabaseError, match="read-only"):
            reader.finish_tournament(tournament.id)
    # SQLite's -wal and -shm files are there only while the database is open.
    assert [
        path.name for path in tmp_path.iterdir() if path.name.startswith("results.sqlite-")
    ] == []


def test_a_reader_of_a_file_it_may_not_write_still_reads_it(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path)
    with ResultsDatabase(folder.database) as database:
        tournament = planned(database, 2)
    folder.database.chmod(0o400)
    try:
        with ResultsDatabase(folder.database, read_only=True) as reader:
            assert finished_ids(reader, tournament.id) == set()
    finally:
        folder.database.chmod(0o600)


def test_the_plan_comes_back_in_order_with_each_match_status_and_count(
    db: ResultsDatabase,
) -> None:
    tournament = planned(db, 4)
    db.record_match(tournament.id, sample_outcome("m00000"))
    db.record_match(tournament.id, sample_outcome("m00001", bots=BOTS[::-1], error="crashed"))
    db.record_match(tournament.id, sample_outcome("m00002"))
    db.set_counted(tournament.id, ["m00002"], False)
    entries = db.plan(tournament.id)
    assert [entry.planned for entry in entries] == sample_plan(4)
    assert [(entry.match_id, entry.status, entry.is_counted) for entry in entries] == [
        ("m00000", "finished", True),
        ("m00001", "failed", False),
        ("m00002", "finished", False),
        ("m00003", "planned", False),
    ]
    with pytest.raises(ResultsDatabaseError, match="no tournament 99"):
        db.plan(99)


def test_the_bots_table_is_filled_from_the_tournament_config(db: ResultsDatabase) -> None:
    config = {
        "format": "round_robin",
        "bots": [
            {"name": "alpha", "manifest": "bots/alpha/bot.toml"},
            {"name": "beta", "manifest": "bots/beta/bot.toml"},
        ],
    }
    record = db.start_tournament("weekly", "fp-cfg", config, 1, True)
    assert stored_bots(db, record.id) == {
        "alpha": "bots/alpha/bot.toml",
        "beta": "bots/beta/bot.toml",
    }
