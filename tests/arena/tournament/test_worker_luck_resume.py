"""A tournament run with the luck estimator and resumed keeps every match's adjusted
results: those recorded before the interruption as they were, the match played again with
the same numbers, and every match names the estimator."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena import luck
from arena.store.outcome import MatchOutcome
from arena.store.sqlite import ResultsDatabase
from tests.arena.tournament.helpers import FOLDER, STATION, run_tournament

pytestmark = pytest.mark.allow_error_logs

ARGS = (STATION, FOLDER, "--deals", "4", "--block-deals", "2", "--seed", "5",
        "--sandbox", "none", "--concurrency", "2", "--no-progress", "--no-report",
        "--luck", "on")  # fmt: skip


def _outcomes(out: Path) -> list[MatchOutcome]:
    with ResultsDatabase(out / "results.sqlite", read_only=True) as db:
        (tournament,) = db.tournaments()
        return db.outcomes(tournament.id)


def _as_if_cut_short(out: Path, match_id: str) -> None:
    """The match back to planned, its rows gone: as a host killed while it played."""
    connection = sqlite3.connect(out / "results.sqlite", isolation_level=None)
    connection.execute("PRAGMA foreign_keys = ON")
    (row,) = connection.execute("SELECT id FROM matches WHERE match_id = ?", (match_id,))
    connection.execute("DELETE FROM hands WHERE match_row = ?", row)
    connection.execute("DELETE FROM match_seats WHERE match_row = ?", row)
    connection.execute(
        "UPDATE matches SET status = 'planned', counted = 0, estimator = NULL WHERE id = ?", row
    )
    connection.close()


def test_a_resumed_tournament_keeps_the_adjusted_results(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, text = run_tournament(*ARGS, "--out", out)
    assert code == 0, text
    before = _outcomes(out)
    assert len(before) == 4
    _as_if_cut_short(out, before[-1].match_id)
    code, text = run_tournament(*ARGS, "--out", out)
    assert code == 0, text
    assert "resumed: 3 matches were already finished" in text
    after = _outcomes(out)
    for old, new in zip(before, after, strict=True):
        assert new.estimator == old.estimator == luck.ESTIMATOR
        assert all(hand.adjusted is not None for hand in new.hands)
        # Kept, or played again from the same seed: the same hands, the same floats.
        assert new.hands == old.hands
