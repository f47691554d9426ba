"""The estimator's contract: zero-sum, deterministic, named, and clear about bad input."""

from __future__ import annotations

import json

import pytest

from arena.luck import ESTIMATOR, HandLuck, LuckError, estimate_hand, estimate_steps, luck_record
from arena.luck.value import ValueFunction
from tests.arena.luck.play import random_record


@pytest.mark.parametrize("variant", ["holdem", "five_card_draw"])
@pytest.mark.parametrize("seat_count", [2, 3, 6])
def test_adjusted_results_sum_to_the_raw_results(variant: str, seat_count: int) -> None:
    for seed in range(6):
        record = random_record(seed, variant=variant, seat_count=seat_count, mixed=seed % 2 == 0)
        luck = estimate_hand(record)
        assert len(luck.adjusted) == seat_count
        assert sum(luck.adjusted) == pytest.approx(sum(luck.raw), abs=1e-9)
        assert luck.raw == tuple(
            record["history"]["result"]["final_stacks"][str(s)]
            - record["history"]["result"]["starting_stacks"][str(s)]
            for s in range(seat_count)
        )


def test_the_same_record_gives_bit_identical_numbers() -> None:
    record = random_record(11, seat_count=4, mixed=True)
    again = json.loads(json.dumps(record))  # as read back from hands.jsonl
    first, second = estimate_hand(record), estimate_hand(again)
    assert first == second
    assert [x.hex() for x in first.adjusted] == [x.hex() for x in second.adjusted]


def test_the_estimator_is_named_versioned_and_hashed() -> None:
    name, _, digest = ESTIMATOR.partition("#")
    assert name == "chance-equity/6"
    assert len(digest) == 8 and int(digest, 16) >= 0


def test_luck_record_holds_the_estimator_and_the_adjusted_results() -> None:
    luck = estimate_hand(random_record(3))
    assert luck_record(luck) == {"estimator": ESTIMATOR, "adjusted": list(luck.adjusted)}
    assert luck.luck == tuple(r - a for r, a in zip(luck.raw, luck.adjusted, strict=True))
    assert isinstance(luck, HandLuck)


@pytest.mark.parametrize(
    ("record", "words"),
    [
        ([], "must be an object"),
        ({"history": None}, "without a history"),
        ({"history": {"seats": [], "events": [], "config": {}, "result": None}}, "not over"),
    ],
)
def test_a_bad_record_is_a_clear_error(record: object, words: str) -> None:
    with pytest.raises(LuckError, match=words):
        estimate_hand(record)  # type: ignore[arg-type]


def test_a_bad_distribution_is_a_clear_error() -> None:
    record = random_record(5, mixed=True)
    decision = next(d for d in record["decisions"] if "distribution" in d)
    decision["distribution"] = [{"action": {"action": "CALL"}, "probability": -1}]
    with pytest.raises(LuckError, match="bad distribution entry"):
        estimate_hand(record)


def test_the_estimate_does_not_depend_on_who_the_players_are() -> None:
    record = random_record(9, seat_count=3, mixed=True)
    renamed = json.loads(json.dumps(record).replace('"p0"', '"zed"').replace('"p1"', '"amy"'))
    assert renamed != record
    assert estimate_hand(renamed) == estimate_hand(record)


def test_the_estimate_in_steps_is_the_estimate_and_yields_at_every_value() -> None:
    # A match runs the estimate a value at a time between the bots' replies: the steps
    # end with the same numbers, and a hand with reported strategies takes many steps.
    for seed in range(6):
        record = random_record(seed, seat_count=3, mixed=True)
        steps = estimate_steps(record)
        count = 0
        while True:
            try:
                next(steps)
            except StopIteration as done:
                luck = done.value
                break
            count += 1
        assert luck == estimate_hand(record)
        distributions = sum(len(d.get("distribution", ())) for d in record["decisions"])
        assert count > distributions  # one step per value of every action term, and more


def test_a_bad_record_fails_at_the_first_step() -> None:
    with pytest.raises(LuckError, match="without a history"):
        next(estimate_steps({"decisions": []}))


def _steps_and_result(
    record: dict[str, object], leans: dict[str, float] | None = None
) -> tuple[int, HandLuck]:
    steps = estimate_steps(record, None, leans)
    count = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return count, done.value
        count += 1


@pytest.mark.parametrize("leans", [None, {"p0": 1.0, "p1": 0.5}])
@pytest.mark.parametrize("policy", ["call", "random"])
def test_streets_whose_values_cancel_are_left_out_with_the_same_result(
    policy: str, leans: dict[str, float] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A street's value after its cards is the next street's expectation when nothing
    # happened between them (a check-down): the estimate leaves both out. Computed term
    # by term instead (the shortcut turned off) the result is the same up to rounding; with
    # leans too (the made-hand term, which a street's cards move, is then still computed).
    records = [
        random_record(seed, seat_count=2, policy=policy, stacks=(200,)) for seed in range(12)
    ]
    fast = [_steps_and_result(record, leans) for record in records]
    monkeypatch.setattr(ValueFunction, "carries_over", lambda *args: False)
    slow = [_steps_and_result(record, leans) for record in records]
    for (fast_steps, fast_luck), (slow_steps, slow_luck) in zip(fast, slow, strict=True):
        assert fast_luck.adjusted == pytest.approx(slow_luck.adjusted, abs=1e-9)
        assert fast_steps <= slow_steps
    if policy == "call":  # calling stations check every street down: values were saved
        assert sum(s for s, _ in fast) < sum(s for s, _ in slow)


def test_an_action_taken_written_otherwise_than_in_its_distribution_is_valued_the_same() -> None:
    # The action taken is valued once with its distribution's entry when it is written
    # the same; written otherwise (a key the state ignores) it is valued on its own, and
    # the term is the same numbers.
    record = random_record(5, mixed=True)
    index = next(i for i, d in enumerate(record["decisions"]) if "distribution" in d)
    otherwise = json.loads(json.dumps(record))
    otherwise["decisions"][index]["action"]["note"] = "written otherwise"
    assert otherwise["decisions"][index]["action"] not in [
        entry["action"] for entry in otherwise["decisions"][index]["distribution"]
    ]
    assert estimate_hand(otherwise) == estimate_hand(record)
