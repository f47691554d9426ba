"""``arena replay`` of reported mixed strategies (drawn again) and of stored luck estimates
(computed again, bit for bit)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from arena.luck import LuckError, estimate_hand, luck_record
from arena.match import replay
from arena.match.config import MatchConfig
from arena.match.replay import replay_file
from engine.config import GameConfig, Variant
from tests.arena.scripted import calling_station, chooser, min_raiser, play, read_records
from tests.arena.session.harness import mixer

Record = dict[str, Any]


def _history(tmp_path: Path, hand_count: int = 8) -> Path:
    play(
        [mixer(), min_raiser, calling_station],
        MatchConfig(hand_count=hand_count, seed=77),
        tmp_path,
    )
    return tmp_path / "hands.jsonl"


def _rewrite(path: Path, records: list[Record]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _hands(records: list[Record]) -> list[Record]:
    return [record for record in records if record["type"] == "hand"]


def test_replay_draws_every_reported_strategy_again_and_finds_the_match_identical(
    tmp_path: Path,
) -> None:
    path = _history(tmp_path)
    mixed = [
        d
        for hand in _hands(read_records(path))
        for d in hand["decisions"]
        if d["by"] == "bot" and "distribution" in d["replies"][-1]
    ]
    assert len(mixed) >= 8
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_recorded_action_other_than_the_draw_is_a_mismatch(tmp_path: Path) -> None:
    path = _history(tmp_path)
    records = read_records(path)
    # The first mixed decision whose distribution offers another legal move than the drawn one.
    for hand in _hands(records):
        for decision in hand["decisions"]:
            reply = decision["replies"][-1] if decision.get("replies") else {}
            others = [
                {k: v for k, v in entry.items() if k != "probability"}
                for entry in reply.get("distribution", [])
                if entry["action"] not in (decision["action"]["action"], "CHECK")
            ]
            if decision["by"] == "bot" and others:
                decision["action"] = others[0]
                _rewrite(path, records)
                report = replay_file(path)
                assert not report.is_ok
                [check] = [c for c in report.checks if not c.is_ok][:1]
                assert check.hand_number == hand["hand_number"], report.format()
                return
    raise AssertionError("no mixed decision with another move")  # pragma: no cover


def _with_luck(path: Path) -> list[Record]:
    records = read_records(path)
    for hand in _hands(records):
        hand["luck"] = luck_record(estimate_hand(hand))
    _rewrite(path, records)
    return records


def test_replay_computes_each_hands_luck_again_and_finds_it_identical(tmp_path: Path) -> None:
    path = _history(tmp_path, hand_count=3)
    _with_luck(path)
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_stored_luck_estimate_off_by_one_bit_is_a_mismatch_naming_hand_and_seat(
    tmp_path: Path,
) -> None:
    path = _history(tmp_path, hand_count=3)
    records = _with_luck(path)
    adjusted = _hands(records)[1]["luck"]["adjusted"]
    adjusted[2] = math.nextafter(adjusted[2], math.inf)
    _rewrite(path, records)
    report = replay_file(path)
    [check] = [c for c in report.checks if not c.is_ok]
    assert check.hand_number == 2
    assert check.reason.startswith("luck of seat 2: recorded adjusted"), check.reason


def test_a_luck_estimate_by_another_estimator_is_a_mismatch_naming_both(tmp_path: Path) -> None:
    path = _history(tmp_path, hand_count=2)
    records = _with_luck(path)
    _hands(records)[0]["luck"]["estimator"] = "chance-equity/0#old"
    _rewrite(path, records)
    report = replay_file(path)
    [check] = [c for c in report.checks if not c.is_ok]
    assert check.hand_number == 1 and "'chance-equity/0#old'" in check.reason


def test_a_match_run_with_luck_and_mixed_strategies_replays_bit_for_bit(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=3, seed=77, luck=True)
    play([mixer(), min_raiser, calling_station], config, tmp_path)
    path = tmp_path / "hands.jsonl"
    assert all("luck" in hand for hand in _hands(read_records(path)))
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_stored_luck_of_the_wrong_length_is_a_mismatch(tmp_path: Path) -> None:
    path = _history(tmp_path, hand_count=1)
    records = _with_luck(path)
    _hands(records)[0]["luck"]["adjusted"].pop()
    _rewrite(path, records)
    [check] = replay_file(path).checks
    assert not check.is_ok and check.reason.startswith("luck: recorded adjusted [")


def test_a_luck_estimate_that_cannot_be_computed_again_is_a_mismatch_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _history(tmp_path, hand_count=1)
    _with_luck(path)

    def broken(record: Any) -> Any:
        raise LuckError("bad distribution entry 7")

    monkeypatch.setattr(replay, "estimate_hand", broken)
    [check] = replay_file(path).checks
    assert not check.is_ok
    assert check.reason == "the luck estimate cannot be computed again: bad distribution entry 7"


def test_a_five_card_draw_match_with_mixed_strategies_replays_identical(tmp_path: Path) -> None:
    # Draw decisions count in a hand's decision index as betting ones do.
    config = MatchConfig(
        game=GameConfig(variant=Variant.FIVE_CARD_DRAW), hand_count=5, seed=9, luck=True
    )
    play([chooser(4), mixer(), calling_station], config, tmp_path)
    path = tmp_path / "hands.jsonl"
    decisions = [d for hand in _hands(read_records(path)) for d in hand["decisions"]]
    assert any(d["action"]["action"] == "DISCARD" for d in decisions)
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_recorded_distribution_other_than_the_replys_is_a_mismatch(tmp_path: Path) -> None:
    path = _history(tmp_path, hand_count=2)
    records = read_records(path)
    decision = next(d for hand in _hands(records) for d in hand["decisions"] if "distribution" in d)
    decision["distribution"][0]["probability"] += 0.001
    _rewrite(path, records)
    report = replay_file(path)
    [check] = [c for c in report.checks if not c.is_ok]
    assert "/distribution/0/probability" in check.reason, check.reason
