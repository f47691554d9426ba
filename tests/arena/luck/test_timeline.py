"""Reading hand records: every game the engine deals, and clear errors for bad records."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from arena.luck import LuckError, estimate_hand
from arena.luck.timeline import (
    EVENT_KEYS,
    ChanceStep,
    DecisionStep,
    walk_history,
    walk_input,
    with_action,
)
from engine.actions import Call, Check
from engine.config import AnteMode, BettingStructure, GameConfig, Variant
from engine.hand import BlindSeats, Hand, SeatSetup
from engine.history import hand_to_history
from tests.arena.luck.play import random_record

GAMES = {
    "antes": GameConfig(ante=1),
    "big blind ante": GameConfig(ante=2, ante_mode=AnteMode.BIG_BLIND),
    "fixed limit": GameConfig(structure=BettingStructure.FIXED_LIMIT),
    "pot limit draw": GameConfig(
        variant=Variant.FIVE_CARD_DRAW, structure=BettingStructure.POT_LIMIT
    ),
    "antes only": GameConfig(small_blind=0, big_blind=0, ante=2),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_adjusts_zero_sum(game: str) -> None:
    for seed in range(4):
        record = random_record(seed, seat_count=2 + seed, config=GAMES[game], stacks=(1, 50, 300))
        luck = estimate_hand(record)
        assert sum(luck.adjusted) == pytest.approx(sum(luck.raw), abs=1e-9)


def test_a_draw_after_the_muck_was_reshuffled_gets_no_term() -> None:
    for seed in range(40):
        record = random_record(seed, variant="five_card_draw", seat_count=9, policy="call")
        if any(e["type"] == "stub_reshuffled" for e in record["history"]["events"]):
            break
    else:  # pragma: no cover - the seeds above do reshuffle
        pytest.fail("no hand reshuffled the muck")
    steps = walk_history(record["history"]).steps
    draws = [s for s in steps if isinstance(s, ChanceStep) and s.kind == "draw"]
    assert any(s.is_reshuffled for s in draws)
    luck = estimate_hand(record)
    assert sum(luck.adjusted) == pytest.approx(sum(luck.raw), abs=1e-9)


def test_a_voided_hand_has_nothing_to_adjust() -> None:
    record = random_record(2)
    history = record["history"]
    history["events"].insert(-1, {"type": "hand_voided", "reason": "test", "refunds": []})
    history["result"]["final_stacks"] = dict(history["result"]["starting_stacks"])
    luck = estimate_hand(record)
    assert luck.raw == (0, 0) and luck.adjusted == (0.0, 0.0)


def test_the_walk_reports_only_the_decisions_asked_for_and_every_chance_step() -> None:
    # The estimator asks only for the decisions it may term (a reported distribution):
    # the other decisions' snapshots are not made, the chance steps are the same.
    record = random_record(4, seat_count=3, mixed=True)
    every = walk_history(record["history"]).steps
    some = walk_history(record["history"], decisions={0, 2}).steps
    assert [s.index for s in some if isinstance(s, DecisionStep)] == [0, 2]
    assert [s for s in some if isinstance(s, ChanceStep)] == [
        s for s in every if isinstance(s, ChanceStep)
    ]
    assert [s for s in some if isinstance(s, DecisionStep)] == [
        s for s in every if isinstance(s, DecisionStep) and s.index in (0, 2)
    ]


def test_an_all_in_in_a_distribution_puts_in_the_whole_stack() -> None:
    record = random_record(1, seat_count=3)
    timeline = walk_history(record["history"])
    step = next(s for s in timeline.steps if not isinstance(s, ChanceStep))
    after = with_action(step.before, step.position, {"action": "ALL_IN"})
    assert after.stacks[step.position] == 0
    assert after.committed[step.position] == (
        step.before.committed[step.position] + step.before.stacks[step.position]
    )
    assert with_action(step.before, step.position, {"action": "CHECK"}) == step.before


def _broken(change: Any) -> dict[str, Any]:
    record = random_record(7, seat_count=3, mixed=True)
    broken = copy.deepcopy(record)
    change(broken)
    return broken


def _first_mixed(record: dict[str, Any]) -> dict[str, Any]:
    return next(d for d in record["decisions"] if "distribution" in d)


def _first_action(record: dict[str, Any]) -> dict[str, Any]:
    events = record["history"]["events"]
    return next(e for e in events if isinstance(e, dict) and e["type"] == "action_taken")


BAD_RECORDS = {
    "not an object": (lambda r: r["history"]["events"].__setitem__(1, 5), "is not an object"),
    "bad cards": (
        lambda r: next(
            e for e in r["history"]["events"] if e["type"] == "hole_cards_dealt"
        ).__setitem__("cards", ["Zz", "As"]),
        "bad cards",
    ),
    "unknown seat": (
        lambda r: r["history"]["events"][1].__setitem__("seat_index", 42),
        "not in the hand",
    ),
    "bad amount": (
        lambda r: r["history"]["events"][1].__setitem__("amount", "ten"),
        "not an integer",
    ),
    # An action's seat and amount are read on a path of their own (the walk's commonest
    # event): the same errors.
    "unknown seat in an action": (
        lambda r: _first_action(r).__setitem__("seat_index", 42),
        "not in the hand",
    ),
    "bad amount in an action": (
        lambda r: _first_action(r).__setitem__("amount", True),
        "not an integer",
    ),
    "no stacks": (lambda r: r["history"]["result"].pop("final_stacks"), "without stacks"),
    "no seats": (lambda r: r["history"].pop("seats"), "without seats"),
    "bad seats": (lambda r: r["history"]["seats"].__setitem__(0, {"x": 1}), "bad seats"),
    "no seed or deck": (
        lambda r: (r["history"].pop("seed"), r["history"].pop("deck")),
        "without a seed or a deck",
    ),
    "decisions not a list": (lambda r: r.__setitem__("decisions", {}), "must be a list"),
    "decision not an object": (
        lambda r: r["decisions"].__setitem__(r["decisions"].index(_first_mixed(r)), 3),
        "is not an object",
    ),
    "empty distribution": (
        lambda r: _first_mixed(r).__setitem__("distribution", []),
        "non-empty list",
    ),
    "zero probabilities": (
        lambda r: _first_mixed(r).__setitem__(
            "distribution", [{"action": {"action": "FOLD"}, "probability": 0}]
        ),
        "sum to 0",
    ),
    "another seat": (lambda r: _first_mixed(r).__setitem__("seat_index", 9), "is by seat 9"),
    "no action": (lambda r: _first_mixed(r).pop("action"), "without an action"),
    "raise without amount": (
        lambda r: _first_mixed(r).__setitem__(
            "distribution", [{"action": {"action": "RAISE"}, "probability": 1}]
        ),
        "RAISE without an integer amount",
    ),
    "not a bet": (
        lambda r: _first_mixed(r).__setitem__("action", {"action": "DISCARD"}),
        "not a betting action",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_RECORDS))
def test_a_bad_record_names_the_bad_value(name: str) -> None:
    change, words = BAD_RECORDS[name]
    with pytest.raises(LuckError, match=words):
        estimate_hand(_broken(change))


def test_a_history_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(LuckError, match="must be an object"):
        walk_history([])  # type: ignore[arg-type]


def test_decisions_the_arena_chose_or_past_the_history_add_no_term() -> None:
    record = random_record(7, seat_count=3, mixed=True)
    plain = estimate_hand({**record, "decisions": []})
    by_policy = copy.deepcopy(record)
    for decision in by_policy["decisions"]:
        decision["by"] = "policy"
    assert estimate_hand(by_policy) == plain


def test_a_dead_small_blind_hand_adjusts_zero_sum() -> None:
    # The table's dead button rule: seat 1 left, so nobody posts the small blind and the
    # button may sit on an empty seat; the history says where the blinds were.
    seats = [SeatSetup(0, "a", 100), SeatSetup(2, "c", 100), SeatSetup(3, "d", 100)]
    hand = Hand.start(
        GameConfig(),
        seats,
        button_index=1,
        blinds=BlindSeats(small_blind_index=None, big_blind_index=2),
        rng=random.Random(5),
    )
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(Check() if legal.can_check else Call())
    history = hand_to_history(hand, seed="dead")
    assert history["blinds"]["small_blind_index"] is None
    luck = estimate_hand({"decisions": [], "history": history})
    assert sum(luck.adjusted) == pytest.approx(sum(luck.raw), abs=1e-9)
    assert luck.raw != (0, 0, 0)


def test_the_walk_records_each_streets_pot_when_its_betting_ended() -> None:
    # The pot a street's betting ended with sets its sample size: for a street the hand
    # went past, the pot when the next street came; for the last one, the final pot (every
    # chip put in, less an uncalled bet returned).
    for seed in range(12):
        record = random_record(seed, seat_count=3)
        events = record["history"]["events"]
        timeline = walk_history(record["history"])
        streets = [s for s in timeline.steps if isinstance(s, ChanceStep) and s.kind == "street"]
        last = len(streets[-1].after.board) if streets else 0
        assert set(timeline.street_pots) == {0, *(len(s.after.board) for s in streets)}
        for step in streets:
            assert timeline.street_pots[len(step.before.board)] == sum(step.before.committed)
        put_in = sum(
            e["amount"]
            for e in events
            if e["type"] in ("ante_posted", "blind_posted", "action_taken")
        )
        returned = sum(e["amount"] for e in events if e["type"] == "uncalled_bet_returned")
        assert timeline.street_pots[last] == put_in - returned


def test_each_street_knows_what_the_last_betting_round_raised() -> None:
    # What a street's states carry as last_raised is how far the last completed round took
    # the pot beyond two big blinds: the pre-flop's raising for the flop, the flop's for the
    # turn. Checks and calls of the blinds raise nothing; the actions of a round in progress
    # do not count until it completes.
    raised_somewhere = 0
    for seed in range(20):
        record = random_record(seed, seat_count=2, stacks=(200,))
        timeline = walk_history(record["history"])
        previous = 4  # the pot a round with no raise ends at: the big blinds
        assert all(
            step.before.last_raised == 0
            for step in timeline.steps
            if isinstance(step, DecisionStep) and not step.before.board
        )
        for step in timeline.steps:
            if not (isinstance(step, ChanceStep) and step.kind == "street"):
                continue
            pot = sum(step.before.committed)
            expected = max(pot - 4, 0) - max(previous - 4, 0)
            assert step.before.last_raised == step.after.last_raised == expected
            raised_somewhere += expected > 0
            previous = pot
    assert raised_somewhere


def test_the_walks_input_is_walked_as_the_whole_history_and_drops_what_it_never_reads() -> None:
    # The deck keys the samples only without a seed: dropped with one, kept without.
    record = random_record(5, seat_count=3, mixed=True)
    history = {**record["history"], "seed": None}
    unseeded = walk_input(history)
    assert unseeded["deck"] == history["deck"]
    assert set(unseeded["result"]) == {"starting_stacks", "final_stacks"}
    assert walk_history(unseeded) == walk_history(history)
    seeded = record["history"]
    assert seeded["seed"] is not None
    assert "deck" not in walk_input(seeded)
    assert walk_history(walk_input(seeded)) == walk_history(seeded)
    assert estimate_hand({**record, "history": walk_input(seeded)}) == estimate_hand(
        {**record, "history": seeded}
    )


def test_the_walks_input_keeps_a_bad_result_or_events_for_the_walk_to_refuse() -> None:
    history = {**random_record(6)["history"], "result": "over"}
    assert walk_input(history)["result"] == "over"
    with pytest.raises(LuckError, match="'over'"):
        walk_history(walk_input(history))
    history = {**random_record(6)["history"], "events": "none"}
    assert walk_input(history)["events"] == "none"
    with pytest.raises(LuckError, match="without seats, events or config"):
        walk_history(walk_input(history))


def test_the_walks_input_keeps_only_the_keys_the_walk_reads_of_each_event() -> None:
    record = random_record(7, seat_count=3, mixed=True)
    history = record["history"]
    extra = [{"type": "something_new", "x": 1}, {"type": ["not", "a", "name"]}, 5]
    sent = walk_input({**history, "events": history["events"] + extra})
    for event in sent["events"][: -len(extra)]:
        assert set(event) <= set(EVENT_KEYS[event["type"]])  # an action's flags: dropped
    assert len(sent["events"][0]) < len(history["events"][0])  # the hand's start: its seats
    assert sent["events"][-len(extra) :] == extra  # another type, or no name: kept whole
    assert walk_history(walk_input(history)) == walk_history(history)
    with pytest.raises(LuckError, match=r"event \d+ is not an object: 5"):
        walk_history(sent)
