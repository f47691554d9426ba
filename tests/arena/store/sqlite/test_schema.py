"""The results database's schema (:mod:`arena.store.sqlite.schema`): any outcome comes back
exactly as recorded, and ``docs/results-database.md`` describes every table and column the
code creates, with example queries that run."""

from __future__ import annotations

import re
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.store.outcome import (
    FaultExample,
    HandSummary,
    LatencySummary,
    MatchOutcome,
    SeatOutcome,
)
from arena.store.sqlite import PlannedMatch, ResultsDatabase
from arena.store.sqlite.schema import SCHEMA_VERSION, TABLES
from tests import REPO_ROOT
from tests.arena.store.sqlite.test_sqlite import planned, sample_outcome

DOC = REPO_ROOT / "docs" / "results-database.md"

# -- any outcome round-trips -------------------------------------------------------------

_INT64 = st.integers(-(2**63), 2**63 - 1)
_SMALL = st.integers(0, 10_000)
_MS = st.floats(min_value=0, allow_nan=False)  # infinity included: a REAL holds it
_TEXT = st.text(max_size=12)
# Any finite float, subnormals and -0.0 included: each must come back as the same float.
_ADJUSTED = st.floats(allow_nan=False, allow_infinity=False)
_KINDS = st.sampled_from(["timeout", "invalid_reply", "crash", "hung", "stale_reply"])
_JSON = st.recursive(
    st.none() | st.booleans() | _INT64 | st.floats(allow_nan=False, allow_infinity=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def seat_outcomes(draw: st.DrawFn, seat_index: int) -> SeatOutcome:
    example_kinds = draw(st.lists(_KINDS, unique=True, max_size=3))
    return SeatOutcome(
        seat_index=seat_index,
        bot=draw(_TEXT),
        chips_won=draw(_INT64),
        place=draw(_SMALL),
        hands_played=draw(_SMALL),
        final_stack=draw(st.none() | _INT64),
        eliminated_in_hand=draw(st.none() | _SMALL),
        fault_counts=draw(st.dictionaries(_KINDS, _SMALL, max_size=3)),
        fault_examples=tuple(
            FaultExample(kind, draw(st.none() | _SMALL), draw(_TEXT)) for kind in example_kinds
        ),
        latency=LatencySummary(
            count=draw(_SMALL),
            mean_ms=draw(_MS),
            p50_ms=draw(_MS),
            p99_ms=draw(_MS),
            max_ms=draw(_MS),
            histogram=tuple(draw(st.lists(st.tuples(_MS, _SMALL), max_size=4))),
        ),
        stderr_path=draw(st.none() | _TEXT),
        stderr_bytes=draw(_SMALL),
    )


@st.composite
def outcomes(draw: st.DrawFn) -> MatchOutcome:
    seat_indexes = sorted(draw(st.sets(st.integers(0, 9), max_size=4)))
    seat_count = len(seat_indexes)
    numbers = sorted(draw(st.sets(st.integers(1, 10**6), max_size=8)))
    estimator = draw(st.none() | _TEXT)
    return MatchOutcome(
        match_id="m00000",
        seats=tuple(draw(seat_outcomes(index)) for index in seat_indexes),
        hands=tuple(
            HandSummary(
                hand_number=number,
                big_blind=draw(_SMALL),
                nets=tuple(draw(st.lists(_INT64, min_size=seat_count, max_size=seat_count))),
                pot=draw(_SMALL),
                went_to_showdown=draw(st.booleans()),
                adjusted=None
                if estimator is None
                else tuple(draw(st.lists(_ADJUSTED, min_size=seat_count, max_size=seat_count))),
            )
            for number in numbers
        ),
        ended_reason=draw(_TEXT),
        hands_path=draw(st.none() | _TEXT),
        duration_s=draw(st.floats(min_value=0, allow_nan=False, allow_infinity=False)),
        error=draw(st.none() | _TEXT),
        extra=draw(st.dictionaries(_TEXT, _JSON, max_size=3)),
        estimator=estimator,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outcomes())
def test_any_outcome_comes_back_exactly_as_recorded(outcome: MatchOutcome) -> None:
    with tempfile.TemporaryDirectory() as folder, ResultsDatabase(Path(folder) / "r.db") as db:
        tournament = db.start_tournament("t", "fp", {}, 1, True)
        bots = [""] * 10
        for seat in outcome.seats:
            bots[seat.seat_index] = seat.bot
        db.plan_matches(tournament.id, [PlannedMatch("m00000", "b0", "ring", 0, tuple(bots), 1)])
        db.record_match(tournament.id, outcome)
        assert db.outcomes(tournament.id) == [outcome]


# -- the document ------------------------------------------------------------------------


def documented_columns() -> dict[str, list[str]]:
    """Each ``### `table` `` section's column names, from its table's first column."""
    sections = re.split(r"^### `(\w+)`\s*$", DOC.read_text(encoding="utf-8"), flags=re.M)
    return {
        name: re.findall(r"^\| `(\w+)` \|", body, flags=re.M)
        for name, body in zip(sections[1::2], sections[2::2], strict=True)
    }


def test_the_document_describes_every_table_and_column_in_order(tmp_path: Path) -> None:
    ResultsDatabase(tmp_path / "r.db").close()
    with sqlite3.connect(tmp_path / "r.db") as connection:
        actual = {
            table: [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
            for table in TABLES
        }
    connection.close()
    assert documented_columns() == actual


def test_the_document_states_the_schema_version() -> None:
    assert f"`PRAGMA user_version` (today {SCHEMA_VERSION})" in DOC.read_text(encoding="utf-8")


def test_the_documents_example_queries_run_and_find_the_recorded_rows(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with ResultsDatabase(path) as db:
        tournament = planned(db, 2)
        db.record_match(tournament.id, sample_outcome("m00000", hand_count=10, estimator="e/1"))
        db.record_match(tournament.id, sample_outcome("m00001", bots=("beta", "alpha")))
    queries = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(queries) == 3
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
        by_bot = connection.execute(queries[0]).fetchall()
        luck = connection.execute(queries[1]).fetchall()
        timeouts = connection.execute(queries[2]).fetchall()
    connection.close()
    # Hand h of match m00000 nets h for alpha; match m00001 (57 hands) nets h - 1 for beta.
    alpha = sum(range(1, 11)) + sum(1 - h for h in range(1, 58))
    assert {bot: (hands, chips) for bot, hands, chips, _ in by_bot} == {
        "alpha": (67, alpha),
        "beta": (67, -alpha),
    }
    # Only m00000 ran the estimator: alpha nets h in hand h (big blind 20), adjusted h/3 + 0.1.
    assert luck == [("alpha", 10, 27.5, 9.67), ("beta", 10, -27.5, -9.67)]
    assert sorted(timeouts) == [
        ("m00000", "alpha", 2, 3, "no reply in 5000 ms"),
        ("m00001", "beta", 2, 3, "no reply in 5000 ms"),
    ]
