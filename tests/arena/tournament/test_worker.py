"""The worker's side: one match from a job to an outcome, failures as outcomes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena import luck
from arena.cluster.job import MatchJob
from arena.match.config import MatchConfig
from arena.store.outcome import HandSummary
from arena.tournament.worker import play_match
from tests.arena.tournament.helpers import FOLDER, STATION

pytestmark = pytest.mark.allow_error_logs


def _job(tmp_path: Path, manifests: tuple[Path, ...], **config: object) -> MatchJob:
    return MatchJob(
        match_id="m-1",
        config=MatchConfig(hand_count=6, seed=3, match_id="m-1", **config),  # type: ignore[arg-type]
        bots=("fold", "call"),
        manifests=manifests,
        sandbox="none",
        tournament_dir=tmp_path,
    )


def test_a_match_comes_back_with_every_hand_summarized(tmp_path: Path) -> None:
    outcome = play_match(_job(tmp_path, (FOLDER, STATION)))
    assert outcome.error is None and outcome.is_counted
    assert [hand.hand_number for hand in outcome.hands] == [1, 2, 3, 4, 5, 6]
    for hand in outcome.hands:
        assert sum(hand.nets) == 0 and hand.big_blind == 2
    fold, call = outcome.seats
    assert (fold.bot, call.bot) == ("fold", "call")  # the tournament's names, not manifests'
    assert fold.chips_won == sum(hand.nets[0] for hand in outcome.hands) < 0
    assert fold.chips_won == -call.chips_won
    assert fold.latency.count > 0 and fold.latency.max_ms >= fold.latency.p50_ms
    assert sum(count for _bound, count in fold.latency.histogram) == fold.latency.count
    # Each bot's stderr is kept with the match, and the outcome says where.
    assert call.stderr_path == "matches/m-1/stderr/1-call.log"
    assert (tmp_path / call.stderr_path).is_file()
    assert outcome.hands_path == "matches/m-1/hands.jsonl"
    assert (tmp_path / "matches" / "m-1" / "hands.jsonl").exists()


def test_a_match_cut_short_before_starts_again_in_an_empty_folder(tmp_path: Path) -> None:
    stale = tmp_path / "matches" / "m-1"
    stale.mkdir(parents=True)
    (stale / "hands.jsonl").write_text('{"cut": ', encoding="utf-8")
    (stale / "leftover.txt").write_text("old", encoding="utf-8")
    outcome = play_match(_job(tmp_path, (FOLDER, STATION)))
    assert outcome.error is None
    assert not (stale / "leftover.txt").exists()
    assert len((stale / "hands.jsonl").read_text().splitlines()) == 1 + 6 + 1  # header, hands, end


def test_a_bot_that_never_starts_is_a_failed_outcome_not_an_exception(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text('name = "broken"\ncommand = ["/nonexistent/bot"]\n', encoding="utf-8")
    outcome = play_match(_job(tmp_path, (broken, STATION)))
    assert not outcome.is_counted and outcome.error is not None
    assert "fold" in outcome.error or "p0" in outcome.error
    assert outcome.hands == () and [seat.bot for seat in outcome.seats] == ["fold", "call"]


def test_a_bad_manifest_is_a_failed_outcome_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n", encoding="utf-8")
    outcome = play_match(_job(tmp_path, (bad, STATION)))
    assert outcome.error is not None and "cannot prepare the match" in outcome.error
    assert "bad.toml" in outcome.error


def test_an_arena_error_is_kept_with_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*_args: object, **_kwargs: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr("arena.tournament.worker.live_match", explode)
    outcome = play_match(_job(tmp_path, (FOLDER, STATION)))
    assert outcome.error == "RuntimeError: boom"
    assert "RuntimeError: boom" in (tmp_path / "matches" / "m-1" / "error.txt").read_text()


# -- the luck estimator in the worker --------------------------------------------------------
# The worker runs the luck estimator with the match (so in parallel with the other matches):
# the outcome's hands carry each seat's adjusted result and the outcome names the estimator;
# the hands' summaries are the match's own, equal to the hand history's.


def summarize_hand(history: Mapping[str, Any], seat_count: int) -> HandSummary:
    """The summary of one hand read back from its history document (nets by seat index)."""
    result = history["result"]
    starting = result["starting_stacks"]
    final = result["final_stacks"]
    nets = tuple(
        final.get(str(seat), 0) - starting.get(str(seat), 0) if str(seat) in starting else 0
        for seat in range(seat_count)
    )
    return HandSummary(
        hand_number=int(history["hand_number"]),
        big_blind=int(history["config"]["big_blind"]),
        nets=nets,
        pot=sum(int(award["amount"]) for award in result["awards"]),
        went_to_showdown=result["ended_reason"] == "SHOWDOWN",
    )


def _luck_job(tmp_path: Path, *, luck_on: bool) -> MatchJob:
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
    outcome = play_match(_luck_job(tmp_path, luck_on=True))
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
    outcome = play_match(_luck_job(tmp_path, luck_on=False))
    assert outcome.error is None and outcome.estimator is None
    records = _records(tmp_path)
    # The same summaries the hand history gives, and nothing of the estimator anywhere.
    assert list(outcome.hands) == [summarize_hand(r["history"], 2) for r in records]  # type: ignore[arg-type]
    assert all("luck" not in record for record in records)
