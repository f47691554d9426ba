"""The worker runs the luck estimator with the match (so in parallel with the other
matches): the outcome's hands carry each seat's adjusted result and the outcome names the
estimator; the hands' summaries are the match's own, equal to the hand history's."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from arena import luck
from arena.cluster.job import MatchJob
from arena.match.config import MatchConfig
from arena.tournament.collect import summarize_hand
from arena.tournament.worker import play_match
from tests.arena.tournament.helpers import STATION

pytestmark = pytest.mark.allow_error_logs


def _job(tmp_path: Path, *, luck_on: bool) -> MatchJob:
    return MatchJob(
        match_id="m-1",
        config=MatchConfig(hand_count=5, seed=3, match_id="m-1", luck=luck_on),
        bots=("call", "call-2"),  # hands that go to the showdown: every street's term
        manifests=(STATION, STATION),
        sandbox="none",
        tournament_dir=tmp_path,
    )


def _records(tmp_path: Path) -> list[dict[str, object]]:
    lines = (tmp_path / "matches" / "m-1" / "hands.jsonl").read_text(encoding="utf-8")
    return [r for r in map(json.loads, lines.splitlines()) if r["type"] == "hand"]


def test_the_outcome_carries_the_adjusted_results_the_hand_history_stores(tmp_path: Path) -> None:
    outcome = play_match(_job(tmp_path, luck_on=True))
    assert outcome.error is None and outcome.estimator == luck.ESTIMATOR
    records = _records(tmp_path)
    assert len(outcome.hands) == len(records) == 5
    for hand, record in zip(outcome.hands, records, strict=True):
        stored = record["luck"]
        assert isinstance(stored, dict) and hand.adjusted == tuple(stored["adjusted"])
        history = record["history"]
        assert isinstance(history, dict)
        assert hand == replace(summarize_hand(history, 2), adjusted=hand.adjusted)


def test_without_luck_the_outcome_has_no_adjusted_results(tmp_path: Path) -> None:
    outcome = play_match(_job(tmp_path, luck_on=False))
    assert outcome.error is None and outcome.estimator is None
    records = _records(tmp_path)
    # The same summaries the hand history gives, and nothing of the estimator anywhere.
    assert list(outcome.hands) == [summarize_hand(r["history"], 2) for r in records]  # type: ignore[arg-type]
    assert all("luck" not in record for record in records)
