"""A match carries each player's lean (:class:`arena.luck.leans.BettingLeans`) to the luck
estimator: every hand is estimated with the leans of the match's hands before it, in the
match's process or the estimator's alike, and a replay counts them again the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.luck import HandLuck, LuckValue, estimate_hand, luck_record
from arena.luck.leans import BettingLeans
from arena.match import luck_process, luck_worker
from arena.match.config import MatchConfig
from arena.match.luck_process import LuckProcess
from arena.match.replay import luck_difference, replay_file
from tests.arena.scripted import (
    calling_station,
    capture_hand_records,
    hand_records,
    made_hand_raiser,
    match_leans,
    play,
    started_luck_processes,
)

#: Hands enough for the made-hand raiser to have had made streets and other streets
#: (arena.luck.leans.MIN_STREETS of each) well before the match's end.
HANDS = 24


def _config(**changes: Any) -> MatchConfig:
    options: dict[str, Any] = {"hand_count": HANDS, "seed": 5, "luck": True}
    return MatchConfig(**{**options, **changes})


def _play(out: Path, *, use_process: bool, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The hand records of a match of the made-hand raiser against a calling station,
    estimated in the estimator's process or in the match's own."""
    with monkeypatch.context() as patch:
        patch.setattr(luck_process, "USE_LUCK_PROCESS", use_process)
        patch.setattr(luck_process, "MIN_HANDS", 1)
        pids = started_luck_processes(patch)
        play([made_hand_raiser, calling_station], _config(), out)
    assert len(pids) == (1 if use_process else 0)
    return hand_records(out)


@pytest.fixture(scope="module")
def leaning_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand history of a match (estimates in the match's process) in which the
    made-hand raiser's lean becomes more than 0."""
    out = tmp_path_factory.mktemp("leaning")
    with pytest.MonkeyPatch.context() as patch:
        _play(out, use_process=False, monkeypatch=patch)
    return out


def test_the_raisers_lean_counts_and_changes_the_estimate(leaning_match: Path) -> None:
    # The test's premise: the leans are there, and they are not a no-op.
    records = hand_records(leaning_match)
    all_leans = match_leans(records)
    assert all_leans[0] == {}  # nothing counted before the first hand
    leaning = [k for k, leans in enumerate(all_leans) if leans.get("p0", 0.0) > 0]
    assert leaning and leaning[-1] == len(records) - 1
    assert all("p1" not in leans for leans in all_leans)  # a calling station never bets
    assert any(
        estimate_hand(records[k], None, all_leans[k]) != estimate_hand(records[k]) for k in leaning
    )


def test_each_hand_is_estimated_with_the_leans_of_the_hands_before_it(
    leaning_match: Path,
) -> None:
    records = hand_records(leaning_match)
    leans = BettingLeans()
    for record in records:
        before = leans.leans(record["history"])
        assert record["luck"] == luck_record(estimate_hand(record, None, before))
        leans.observe(record["history"])
    # Leans counted on hands after a hand (here: every hand of the match) would give other
    # estimates (and biased ones): the ones stored are those of the hands before.
    final = leans.leans(records[-1]["history"])
    assert final
    assert any(
        luck_record(estimate_hand(record, None, final)) != record["luck"] for record in records
    )


def test_the_hand_history_is_the_same_bytes_with_the_estimators_process_or_without_it(
    leaning_match: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _play(tmp_path, use_process=True, monkeypatch=monkeypatch)
    assert (tmp_path / "hands.jsonl").read_bytes() == (leaning_match / "hands.jsonl").read_bytes()


def _ends(read_fd: int, write_fd: int, luck_value: LuckValue | None) -> None:
    """A worker that ends at once."""


def test_after_the_process_fails_the_match_estimates_with_the_leans_sent(
    leaning_match: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hands sent and not answered, then every later hand, are estimated in the
    # match's process from what was sent: the leans with them.
    monkeypatch.setattr(luck_worker, "serve", _ends)  # what the forked child runs
    monkeypatch.setattr(luck_process, "STALL_S", 0.2)
    monkeypatch.setattr(luck_process, "BATCH_HANDS", 4)  # sent before the failure and after
    _play(tmp_path, use_process=True, monkeypatch=monkeypatch)
    assert (tmp_path / "hands.jsonl").read_bytes() == (leaning_match / "hands.jsonl").read_bytes()


def test_a_replay_counts_the_leans_again_and_finds_the_luck_identical(
    leaning_match: Path,
) -> None:
    report = replay_file(leaning_match / "hands.jsonl")
    assert report.is_ok, report.format()
    assert len(report.checks) == HANDS
    # Without the leans the stored luck of a leaning hand is not reproduced: the replay's
    # check of the luck reads them.
    records = hand_records(leaning_match)
    assert any(
        leans and luck_difference(record)
        for record, leans in zip(records, match_leans(records), strict=True)
    )


def test_what_is_sent_to_the_process_carries_the_leans_and_is_estimated_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = capture_hand_records(monkeypatch)
    play([made_hand_raiser, calling_station], _config(), tmp_path)
    all_leans = match_leans([record.to_dict() for record in records])
    assert any(all_leans)
    sent = [
        luck_process.estimate_input(record, leans)
        for record, leans in zip(records, all_leans, strict=True)
    ]
    assert [hand.get("leans", {}) for hand in sent] == all_leans
    expected = [
        estimate_hand(record.to_dict(), None, leans)
        for record, leans in zip(records, all_leans, strict=True)
    ]
    assert [luck_worker.estimate(hand) for hand in sent] == expected
    # And the process's answers: the very floats, through marshal both ways.
    answers: list[HandLuck] = []
    estimates = LuckProcess("sent")
    try:
        for hand in sent:
            estimates.submit(hand, answers.append)
        estimates.drain()
    finally:
        estimates.close()
    assert answers == expected
