"""Hand histories: JSON documents that replay to identical events and results."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engine.actions import AllIn, Call, Check, Discard, Fold, RaiseTo
from engine.cards import parse_cards
from engine.config import AnteMode, BettingStructure, DrawLimit, GameConfig, Variant
from engine.hand import BlindSeats, Hand, SeatSetup
from engine.history import (
    HISTORY_FORMAT,
    HISTORY_VERSION,
    HistoryError,
    action_from_dict,
    action_to_dict,
    hand_actions,
    hand_to_history,
    history_from_json,
    history_to_json,
    replay_history,
)
from engine.schedule import BlindSchedule
from engine.table import hand_seed
from engine.tournament import Freezeout
from tests.engine.freezeouts import freezeout_hands, random_freezeout
from tests.engine.policies import random_policy


def _random_hand(seed: int) -> Hand:
    """A hand of 2 to 10 players with random stacks, blinds, antes and button, played
    to the end by random legal decisions."""
    rng = random.Random(seed)
    count = rng.randint(2, 10)
    big_blind = rng.choice([2, 4, 10])
    config = GameConfig(
        small_blind=big_blind // 2,
        big_blind=big_blind,
        ante=rng.choice([0, 0, 1, 2]),
        ante_mode=rng.choice([AnteMode.EVERY_PLAYER, AnteMode.BIG_BLIND]),
        structure=rng.choice(
            [BettingStructure.NO_LIMIT] * 3
            + [BettingStructure.POT_LIMIT, BettingStructure.FIXED_LIMIT]
        ),
        variant=rng.choice([Variant.HOLDEM] * 3 + [Variant.FIVE_CARD_DRAW]),
        draw_limit=rng.choice(list(DrawLimit)),
    )
    seat_indexes = sorted(rng.sample(range(10), count))
    seats = [SeatSetup(s, f"p{s}", rng.randint(1, 300)) for s in seat_indexes]
    hand = Hand.start(
        config,
        seats,
        button_index=rng.choice(seat_indexes),
        rng=random.Random(f"deck:{seed}"),
        hand_number=seed + 1,
    )
    policy = random_policy(rng)
    while not hand.is_over:
        hand.act(policy(hand))
    return hand


def test_thousands_of_random_hands_replay_to_identical_events_and_results() -> None:
    reasons: set[str] = set()
    event_types: set[str] = set()
    for seed in range(2000):
        hand = _random_hand(seed)
        doc = hand_to_history(hand, seed=seed)
        text = history_to_json(doc)
        # replay_history checks the events and the result (JSON-equal) itself.
        replayed = replay_history(history_from_json(text))
        assert replayed.events == hand.events and replayed.result == hand.result
        if seed % 20 == 0:
            assert history_to_json(hand_to_history(replayed, seed=seed)) == text
        assert hand.result is not None
        reasons.add(hand.result.ended_reason)
        event_types.update(event.type for event in hand.events)
    assert reasons >= {"FOLD", "SHOWDOWN"}
    # Side pots, uncalled bets, mucks, draws and draw-deck reshuffles all replay.
    assert event_types >= {
        "uncalled_bet_returned",
        "hand_mucked",
        "cards_drawn",
        "stub_reshuffled",
        "ante_posted",
    }


def test_history_records_everything_needed_to_replay() -> None:
    seats = [SeatSetup(0, "ann", 100), SeatSetup(3, "bob", 80, is_sitting_out=True)]
    hand = Hand.start(GameConfig(), seats, button_index=3, rng=random.Random(5), hand_number=9)
    hand.act(RaiseTo(6))
    hand.act(AllIn())
    hand.act(Call())
    doc = hand_to_history(hand, seed="m:9")
    assert doc["format"] == HISTORY_FORMAT and doc["version"] == HISTORY_VERSION
    assert (doc["hand_number"], doc["seed"], doc["button_index"]) == (9, "m:9", 3)
    assert doc["config"] == GameConfig().to_dict()
    assert doc["seats"] == [
        {"seat_index": 0, "player_id": "ann", "stack": 100, "is_sitting_out": False},
        {"seat_index": 3, "player_id": "bob", "stack": 80, "is_sitting_out": True},
    ]
    assert len(doc["deck"]) == 52 and doc["deck"] == [str(c) for c in hand.deck_order]
    # An all-in raise is recorded as the raise it amounted to, a call as a call.
    assert doc["actions"] == [
        {"seat_index": 3, "action": "RAISE", "amount": 6},
        {"seat_index": 0, "action": "RAISE", "amount": 100},
        {"seat_index": 3, "action": "CALL"},
    ]
    assert doc["events"][0]["type"] == "hand_started"
    assert doc["result"]["final_stacks"] == {str(k): v for k, v in hand.stacks.items()}
    assert json.loads(history_to_json(doc)) == doc


def test_history_json_is_byte_identical_for_the_same_seed() -> None:
    def play(seed: int) -> list[str]:
        texts: list[str] = []
        match = Freezeout(
            GameConfig(),
            ["a", "b", "c", "d"],
            starting_stack=100,
            seed=seed,
            schedule=BlindSchedule.doubling(1, 2, every_hands=5),
        )
        decisions = random_policy(random.Random(seed))
        match.play(
            decisions,
            on_hand_finished=lambda hand: texts.append(
                history_to_json(hand_to_history(hand, seed=hand_seed(seed, hand.hand_number)))
            ),
        )
        return texts

    first = play(11)
    assert first == play(11)
    assert first != play(12)
    assert len(first) >= 3
    text = first[0]
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    assert '"seed":"11:1"' in text


def test_documents_built_with_tuples_still_verify() -> None:
    doc = _finished_doc()
    doc["events"][0]["seats"] = tuple(doc["events"][0]["seats"])
    doc["result"]["board"] = tuple(doc["result"]["board"])
    assert replay_history(doc).is_over


def test_unfinished_hand_replays_to_the_same_point() -> None:
    hand = Hand.start(
        GameConfig(),
        [SeatSetup(0, "a", 50), SeatSetup(1, "b", 50), SeatSetup(2, "c", 50)],
        button_index=0,
        rng=random.Random(1),
    )
    hand.act(Call())
    hand.act(Fold())
    doc = hand_to_history(hand)
    assert doc["result"] is None and doc["seed"] is None
    replayed = replay_history(doc)
    assert not replayed.is_over
    assert replayed.actor_index == hand.actor_index
    assert replayed.legal_actions() == hand.legal_actions()


def test_hand_actions_lists_every_decision_with_its_seat() -> None:
    hand = Hand.start(
        GameConfig(),
        [SeatSetup(0, "a", 50), SeatSetup(1, "b", 50)],
        button_index=0,
        rng=random.Random(2),
    )
    hand.act(Call())
    hand.act(Check())
    hand.act(RaiseTo(10))
    hand.act(Fold())
    assert hand_actions(hand) == [(0, Call()), (1, Check()), (1, RaiseTo(10)), (0, Fold())]


def test_document_actions_are_hand_actions_as_dicts() -> None:
    # The document's actions are exactly hand_actions through action_to_dict: every kind
    # (raise, all-in raise, discard) is met over these hands.
    names: set[str] = set()
    for seed in range(300):
        hand = _random_hand(seed)
        actions = hand_to_history(hand)["actions"]
        assert actions == [action_to_dict(seat, action) for seat, action in hand_actions(hand)]
        names.update(entry["action"] for entry in actions)
    assert names == {"FOLD", "CHECK", "CALL", "RAISE", "DISCARD"}


@pytest.mark.parametrize(
    "action",
    [Fold(), Check(), Call(), RaiseTo(40), Discard(tuple(parse_cards("As 7d"))), Discard(())],
)
def test_actions_round_trip_through_dicts(action: Any) -> None:
    data = action_to_dict(4, action)
    assert data["seat_index"] == 4 and data["action"] == str(action.kind)
    assert action_from_dict(json.loads(json.dumps(data))) == (4, action)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("CALL", "an action must be an object, got 'CALL'"),
        ({"action": "CALL"}, "action without a seat index"),
        ({"seat_index": True, "action": "CALL"}, "action without a seat index"),
        ({"seat_index": 1, "action": "RAISE"}, "RAISE needs an integer amount"),
        ({"seat_index": 1, "action": "RAISE", "amount": "9"}, "RAISE needs an integer amount"),
        ({"seat_index": 1, "action": "DISCARD", "cards": ["Zz"]}, "DISCARD with bad cards"),
        ({"seat_index": 1, "action": "DISCARD", "cards": 5}, "DISCARD with bad cards"),
        ({"seat_index": 1, "action": "JUMP"}, "unknown action 'JUMP'"),
    ],
)
def test_bad_action_entries_are_rejected(entry: Any, message: str) -> None:
    with pytest.raises(HistoryError, match=message) as info:
        action_from_dict(entry)
    assert info.value.code == "bad_history"


def _finished_doc() -> dict[str, Any]:
    return hand_to_history(_random_hand(3), seed=3)


def test_tampered_event_is_detected_on_replay() -> None:
    doc = _finished_doc()
    doc["events"][1]["amount"] = 999
    with pytest.raises(HistoryError, match="event 1 differs on replay") as info:
        replay_history(doc)
    assert info.value.code == "history_mismatch"
    # Without verification the hand replays anyway.
    assert replay_history(doc, verify=False).is_over
    doc = _finished_doc()
    doc["events"].append({"type": "extra"})
    with pytest.raises(HistoryError, match=r"recorded \{'type': 'extra'\}, replayed None"):
        replay_history(doc)


def test_tampered_result_is_detected_on_replay() -> None:
    doc = _finished_doc()
    doc["result"]["ended_reason"] = "VOID"
    with pytest.raises(HistoryError, match="result differs on replay") as info:
        replay_history(doc)
    assert info.value.code == "history_mismatch"


def test_recorded_action_rejected_on_replay_is_a_mismatch() -> None:
    doc = hand_to_history(
        Hand.start(
            GameConfig(),
            [SeatSetup(0, "a", 50), SeatSetup(1, "b", 50)],
            button_index=0,
            rng=random.Random(2),
        )
    )
    doc["actions"] = [{"seat_index": 1, "action": "CALL"}]
    with pytest.raises(
        HistoryError, match=r"recorded action 0 \(CALL, seat 1\) is rejected"
    ) as info:
        replay_history(doc)
    assert info.value.code == "history_mismatch"


def _with(doc: dict[str, Any], **changes: Any) -> dict[str, Any]:
    changed = copy.deepcopy(doc)
    changed.update(changes)
    return changed


def test_malformed_documents_are_rejected_with_a_clear_error() -> None:
    doc = _finished_doc()
    cases: list[tuple[dict[str, Any], str, str]] = [
        (_with(doc, format="other"), "unsupported_history", "format 'other'"),
        (_with(doc, version=2), "unsupported_history", "version 2"),
        (_with(doc, config={"small_blind": -1}), "bad_history", "bad config or deck"),
        (_with(doc, config="x"), "bad_history", "field 'config' is missing or bad: 'x'"),
        (_with(doc, deck=["As", "As"]), "bad_history", "bad config or deck"),
        (_with(doc, deck=[1]), "bad_history", "bad config or deck"),
        (_with(doc, seats=[{"seat_index": 0}]), "bad_history", "bad seat in history"),
        (_with(doc, seats=["x"]), "bad_history", "bad seat in history"),
        (_with(doc, button_index=True), "bad_history", "field 'button_index'"),
        (_with(doc, button_index=77), "bad_history", "cannot start: button seat 77"),
        (_with(doc, actions=None), "bad_history", "field 'actions'"),
        (_with(doc, events=None), "bad_history", "field 'events'"),
        (_with(doc, blinds=3), "bad_history", "bad blinds in history: 3"),
        (_with(doc, blinds={"big_blind_index": 0}), "bad_history", "bad blinds"),
        (
            _with(doc, blinds={"small_blind_index": "1", "big_blind_index": 0}),
            "bad_history",
            "bad blinds",
        ),
        (
            _with(doc, blinds={"small_blind_index": None, "big_blind_index": True}),
            "bad_history",
            "bad blinds",
        ),
        (
            _with(doc, blinds={"small_blind_index": None, "big_blind_index": 99}),
            "bad_history",
            "cannot start: big blind seat 99 is not dealt in",
        ),
    ]
    for bad, code, message in cases:
        with pytest.raises(HistoryError, match=message) as info:
            replay_history(bad)
        assert info.value.code == code


def test_history_from_json_accepts_only_a_json_object() -> None:
    with pytest.raises(HistoryError, match="not valid JSON") as info:
        history_from_json("{nope")
    assert info.value.code == "bad_history"
    with pytest.raises(HistoryError, match="not valid JSON"):
        history_from_json(b"\xff\xfe")
    with pytest.raises(HistoryError, match="must be a JSON object, got list"):
        history_from_json("[1, 2]")
    doc = _finished_doc()
    assert history_from_json(history_to_json(doc).encode()) == doc


@pytest.mark.parametrize("match_count", [60, pytest.param(400, marks=pytest.mark.slow)])
def test_dead_button_hands_replay_byte_identical(match_count: int) -> None:
    with_blinds = 0
    for seed in range(match_count):
        variant = Variant.FIVE_CARD_DRAW if seed % 3 == 0 else Variant.HOLDEM
        match = random_freezeout(seed, variant=variant)
        for hand in freezeout_hands(match, random.Random(seed)):
            text = history_to_json(hand_to_history(hand, seed=match.hand_seed(hand.hand_number)))
            doc = history_from_json(text)
            replayed = replay_history(doc)
            assert history_to_json(hand_to_history(replayed, seed=doc["seed"])) == text
            if "blinds" in doc:
                with_blinds += 1
                assert hand.explicit_blinds is not None
                assert doc["blinds"] == {
                    "small_blind_index": hand.small_blind_index,
                    "big_blind_index": hand.big_blind_index,
                }
    assert with_blinds >= match_count // 3


def test_history_records_the_blinds_only_when_they_are_not_the_default() -> None:
    seats = [SeatSetup(0, "ann", 100), SeatSetup(2, "bob", 100), SeatSetup(3, "cy", 100)]
    plain = hand_to_history(Hand.start(GameConfig(), seats, button_index=0, rng=random.Random(1)))
    assert "blinds" not in plain  # documents of ordinary hands are as they always were
    dead = Hand.start(
        GameConfig(),
        seats,
        button_index=1,  # an empty seat: a dead button
        blinds=BlindSeats(small_blind_index=None, big_blind_index=2),
        rng=random.Random(1),
    )
    doc = hand_to_history(dead)
    assert doc["button_index"] == 1
    assert doc["blinds"] == {"small_blind_index": None, "big_blind_index": 2}
    assert replay_history(doc).events == dead.events
    # Without its blinds the document is read by the default rule, which needs a live
    # button: the hand cannot start.
    del doc["blinds"]
    with pytest.raises(HistoryError, match="cannot start: button seat 1 is not among"):
        replay_history(doc)
