"""The luck estimator in a match (``MatchConfig.luck``): every hand record carries its
estimate, the stored numbers are what the estimator gives on the stored record, the results
carry each bot's adjusted result beside the raw one, and with luck off nothing is computed or
written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena import luck
from arena.match.config import MatchConfig, StackPolicy
from arena.match.results import MatchResult
from tests.arena.scripted import calling_station, chooser, hand_records, min_raiser, play, shover
from tests.arena.session.harness import mixer


def _config(**changes: object) -> MatchConfig:
    options: dict[str, object] = {"hand_count": 6, "seed": 17, "luck": True}
    return MatchConfig(**{**options, **changes})  # type: ignore[arg-type]


def test_each_hand_record_carries_the_estimate_of_the_record_as_stored(tmp_path: Path) -> None:
    result = play([chooser(3), min_raiser, calling_station], _config(), tmp_path)
    records = hand_records(tmp_path)
    assert len(records) == 6
    for record in records:
        stored = record["luck"]
        assert stored["estimator"] == luck.ESTIMATOR == result.estimator
        # Recomputed from the line read back: the very same floats, not close ones.
        assert luck.luck_record(luck.estimate_hand(record)) == stored
        assert list(record) == ["type", "hand_number", "hand_id", "sitting_out", "decisions",
                                "luck", "history"]  # fmt: skip


def test_the_results_carry_each_hands_and_each_bots_adjusted_result(tmp_path: Path) -> None:
    result = play([chooser(3), shover, calling_station], _config(hand_count=5), tmp_path)
    records = {record["hand_number"]: record for record in hand_records(tmp_path)}
    assert [hand.hand_number for hand in result.hands] == sorted(records)
    for hand in result.hands:
        assert hand.adjusted == tuple(records[hand.hand_number]["luck"]["adjusted"])
        assert hand.big_blind == 2 and sum(hand.nets) == 0
    for player in result.players:
        adjusted = sum((hand.adjusted or ())[player.seat_index] for hand in result.hands)
        assert player.adjusted_big_blinds_won == pytest.approx(adjusted / 2)
        assert player.big_blinds_won == sum(h.nets[player.seat_index] for h in result.hands) / 2
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert written["estimator"] == luck.ESTIMATOR
    for entry, player in zip(written["players"], result.players, strict=True):
        assert player.adjusted_big_blinds_won is not None
        assert entry["adjusted_big_blinds_won"] == round(player.adjusted_big_blinds_won, 4)
        assert entry["luck_big_blinds"] == round(
            player.big_blinds_won - player.adjusted_big_blinds_won, 4
        )
    again = MatchResult.read_json(tmp_path / "results.json")
    assert again.estimator == luck.ESTIMATOR
    assert [p.adjusted_big_blinds_won for p in again.players] == [
        round(p.adjusted_big_blinds_won or 0.0, 4) for p in result.players
    ]


def test_with_luck_off_nothing_is_computed_and_the_files_are_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(record: object) -> object:
        raise AssertionError("the estimator ran with luck off")

    monkeypatch.setattr(luck, "estimate_hand", never)
    result = play([chooser(3), calling_station], _config(luck=False), tmp_path)
    assert all("luck" not in record for record in hand_records(tmp_path))
    assert result.estimator is None and all(hand.adjusted is None for hand in result.hands)
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert "estimator" not in written and "luck" not in written["config"]
    assert all("adjusted_big_blinds_won" not in entry for entry in written["players"])


def test_the_estimate_is_the_same_with_the_prefetch_on_or_off(tmp_path: Path) -> None:
    play([chooser(5), min_raiser], _config(prefetch=True), tmp_path / "on")
    play([chooser(5), min_raiser], _config(prefetch=False), tmp_path / "off")
    assert (tmp_path / "on" / "hands.jsonl").read_bytes() == (
        tmp_path / "off" / "hands.jsonl"
    ).read_bytes()


def test_a_freezeout_counts_a_busted_seat_zero_in_the_hands_it_is_not_dealt(
    tmp_path: Path,
) -> None:
    config = _config(hand_count=None, stack_policy=StackPolicy.FREEZEOUT, starting_stack=20)
    result = play([chooser(1), chooser(2), chooser(3)], config, tmp_path)
    records = {record["hand_number"]: record for record in hand_records(tmp_path)}
    short = [
        hand for hand in result.hands if len(records[hand.hand_number]["history"]["seats"]) < 3
    ]
    assert short, "no hand after a bust: the test needs one"
    for hand in short:
        dealt = {seat["seat_index"] for seat in records[hand.hand_number]["history"]["seats"]}
        assert hand.adjusted is not None
        for seat_index in set(range(3)) - dealt:
            assert hand.adjusted[seat_index] == 0.0 == hand.nets[seat_index]
        adjusted = records[hand.hand_number]["luck"]["adjusted"]
        assert [hand.adjusted[i] for i in sorted(dealt)] == adjusted


def test_a_reported_distribution_is_in_the_record_the_estimate_reads(tmp_path: Path) -> None:
    play([mixer(), calling_station], _config(hand_count=4), tmp_path)
    records = hand_records(tmp_path)
    mixed = [
        d for r in records for d in r["decisions"] if d["by"] == "bot" and d["seat_index"] == 0
    ]
    assert mixed and all(decision["distribution"] for decision in mixed)
    for record in records:
        # The action term reads the distribution: the stored estimate is that of the record
        # with it, and differs from the record's estimate without it where the bot mixed.
        assert luck.luck_record(luck.estimate_hand(record)) == record["luck"]
    assert any(
        luck.estimate_hand(record).adjusted
        != luck.estimate_hand(
            {**record, "decisions": [_without_distribution(d) for d in record["decisions"]]}
        ).adjusted
        for record in records
    )


def _without_distribution(decision: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in decision.items() if key != "distribution"}
