"""The hand viewer's steps, computed from engine-played hands."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.report.viewer import FOLDED_WHY, ViewerError, viewer_hand
from engine.actions import AllIn, Call, Check, Fold, RaiseTo
from engine.config import AnteMode, GameConfig, Variant
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history
from tests.engine.policies import random_policy

NAMES = {f"p{k}": f"bot {k}" for k in range(10)}


def _random_hand(seed: int) -> Hand:
    """A random table (2 to 9 seats, uneven stacks so all-ins make side pots), game and
    play."""
    rng = random.Random(seed)
    count = rng.randint(2, 9)
    config = GameConfig(
        variant=rng.choice([Variant.HOLDEM, Variant.HOLDEM, Variant.FIVE_CARD_DRAW]),
        ante=rng.choice([0, 0, 1, 2]),
        ante_mode=rng.choice([AnteMode.EVERY_PLAYER, AnteMode.BIG_BLIND]),
    )
    seats = [SeatSetup(k, f"p{k}", rng.choice([3, 15, 40, 200])) for k in range(count)]
    hand = Hand.start(config, seats, button_index=rng.randrange(count), rng=rng)
    policy = random_policy(rng)
    while not hand.is_over:
        hand.act(policy(hand))
    return hand


def _total(step: dict[str, Any]) -> int:
    chips: list[int] = [*step["stacks"], *step["bets"], *(pot["amount"] for pot in step["pots"])]
    return sum(chips)


@pytest.mark.parametrize("seed", range(150))
def test_chips_are_conserved_at_every_step_and_the_last_step_has_the_final_stacks(
    seed: int,
) -> None:
    hand = _random_hand(seed)
    history = hand_to_history(hand)
    document = viewer_hand(history, NAMES, match_id="m")
    start = sum(seat["stack"] for seat in history["seats"])
    assert all(_total(step) == start for step in document["steps"])
    assert hand.result is not None
    final = dict(hand.result.final_stacks)
    last = document["steps"][-1]
    assert last["stacks"] == [final[seat["seat_index"]] for seat in history["seats"]]
    assert last["say"] != "final stacks (as recorded)"
    assert sum(w["amount"] for w in document["result"]["winners"]) == document["pot"]
    boards = [step["board"] for step in document["steps"]]
    assert boards == sorted(boards)  # the board only grows


def test_hole_cards_are_all_face_up_from_the_first_step() -> None:
    history = hand_to_history(_random_hand(3))
    document = viewer_hand(history, NAMES, match_id="m")
    dealt = {
        e["seat_index"]: e["cards"] for e in history["events"] if e["type"] == "hole_cards_dealt"
    }
    assert document["cards"] == [dealt.get(seat["seat_index"], []) for seat in history["seats"]]
    assert all(document["cards"])


def _side_pot_hand() -> dict[str, Any]:
    """Three-handed: the button, short at 20, goes all-in; both blinds call, then bet and
    call on the flop; the short stack can win only what it matched."""
    config = GameConfig()
    seats = [SeatSetup(0, "p0", 20), SeatSetup(1, "p1", 100), SeatSetup(2, "p2", 100)]
    hand = Hand.start(config, seats, button_index=0, deck=Deck.shuffled(random.Random(9)))
    for action in (
        AllIn(),
        Call(),
        Call(),
        RaiseTo(40),
        Call(),
        Check(),
        Check(),
        Check(),
        Check(),
    ):
        hand.act(action)
    assert hand.is_over
    return hand_to_history(hand)


def test_an_all_in_for_less_makes_a_side_pot_it_cannot_win() -> None:
    document = viewer_hand(_side_pot_hand(), NAMES, match_id="m")
    turn = next(step for step in document["steps"] if step["say"].startswith("turn"))
    assert turn["pots"] == [
        {"amount": 60, "seats": [0, 1, 2]},
        {"amount": 80, "seats": [1, 2]},
    ]
    flop = next(step for step in document["steps"] if step["say"].startswith("flop"))
    assert flop["pots"] == [{"amount": 60, "seats": [0, 1, 2]}]
    says = [step["say"] for step in document["steps"]]
    assert any("the main pot" in say for say in says)
    assert any("side pot 1" in say for say in says)
    assert says[-1].startswith("result: ")


def test_the_board_appears_street_by_street() -> None:
    document = viewer_hand(_side_pot_hand(), NAMES, match_id="m")
    counts = {step["say"].split(":")[0]: step["board"] for step in document["steps"]}
    assert (counts["flop"], counts["turn"], counts["river"]) == (3, 4, 5)
    assert document["steps"][0]["board"] == 0


def test_a_pot_won_by_folds_says_others_folded_and_returns_the_uncalled_bet() -> None:
    hand = Hand.start(
        GameConfig(),
        [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200)],
        button_index=0,
        deck=Deck.shuffled(random.Random(1)),
    )
    hand.act(Fold())  # heads-up the button posts the small blind and acts first
    document = viewer_hand(hand_to_history(hand), NAMES, match_id="m")
    says = [step["say"] for step in document["steps"]]
    assert says == [
        "hand 1: bot 0 has the button; blinds 1/2",
        "bot 0 posts the small blind 1, bot 1 posts the big blind 2",
        "bot 0 folds",
        "1 uncalled returned to bot 1",
        f"bot 1 wins 2 ({FOLDED_WHY})",
    ]
    assert document["result"]["winners"] == [
        {"seat": 1, "name": "bot 1", "amount": 2, "why": FOLDED_WHY}
    ]
    assert document["steps"][-1]["win"] == [1]
    assert document["steps"][-1]["stacks"] == [199, 201]


def test_a_showdown_names_the_winning_hand() -> None:
    document = viewer_hand(_side_pot_hand(), NAMES, match_id="m")
    history = _side_pot_hand()
    shown = {
        e["seat_index"]: e["description"] for e in history["events"] if e["type"] == "hand_shown"
    }
    for winner in document["result"]["winners"]:
        assert winner["why"] == shown[winner["seat"]]
        assert winner["why"] != FOLDED_WHY


def test_five_card_draw_steps_show_the_discards_and_the_replacements() -> None:
    config = GameConfig(variant=Variant.FIVE_CARD_DRAW)
    seats = [SeatSetup(k, f"p{k}", 200) for k in range(3)]
    rng = random.Random(5)
    hand = Hand.start(config, seats, button_index=0, rng=rng)
    policy = random_policy(rng)
    while not hand.is_over:
        hand.act(policy(hand))
    history = hand_to_history(hand)
    document = viewer_hand(history, NAMES, match_id="m")
    drawn_events = [e for e in history["events"] if e["type"] == "cards_drawn"]
    assert drawn_events, "the random play reached the draw"
    draw_steps = [step for step in document["steps"] if "draw" in step]
    assert len(draw_steps) == len(drawn_events) == len(document["draws"])
    for step, event in zip(draw_steps, drawn_events, strict=True):
        assert step["draw"] == {"discarded": event["discarded"], "drawn": event["drawn"]}
        seat = step["actor"]
        held = step["cards"][seat]
        assert not set(event["discarded"]) & set(held)
        assert set(event["drawn"]) <= set(held) and len(held) == 5
    before = document["steps"][0]["cards"]
    assert before == document["cards"]  # the deal, before anyone drew


def test_a_big_blind_ante_is_dead_money_in_the_main_pot() -> None:
    config = GameConfig(ante=2, ante_mode=AnteMode.BIG_BLIND)
    seats = [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200), SeatSetup(2, "p2", 200)]
    hand = Hand.start(config, seats, button_index=0, deck=Deck.shuffled(random.Random(2)))
    document = viewer_hand(hand_to_history(hand), NAMES, match_id="m")
    posted = document["steps"][1]
    assert posted["say"] == (
        "bot 2 posts the ante 2, bot 1 posts the small blind 1, bot 2 posts the big blind 2"
    )
    assert posted["pots"] == [{"amount": 2, "seats": [0, 1, 2]}]
    assert posted["bets"] == [0, 1, 2]
    assert posted["notes"] == ["", "small blind 1", "big blind 2"]


def test_an_action_the_arena_chose_for_a_faulted_bot_is_marked() -> None:
    hand = Hand.start(
        GameConfig(),
        [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200)],
        button_index=0,
        deck=Deck.shuffled(random.Random(1)),
    )
    hand.act(Fold())
    decisions = [{"seat_index": 0, "player_id": "p0", "by": "policy"}]
    document = viewer_hand(hand_to_history(hand), NAMES, match_id="m", decisions=decisions)
    assert document["faults"] == ["bot 0 folds (the arena's default for a faulted bot)"]
    assert "the arena's default" in document["steps"][2]["say"]


def test_a_voided_hand_refunds_every_bet() -> None:
    history = hand_to_history(
        Hand.start(
            GameConfig(),
            [SeatSetup(0, "p0", 10), SeatSetup(1, "p1", 10)],
            button_index=0,
            deck=Deck.shuffled(random.Random(1)),
        )
    )
    history["events"] += [
        {
            "type": "hand_voided",
            "reason": "test",
            "refunds": [{"seat_index": 0, "amount": 1}, {"seat_index": 1, "amount": 2}],
        },
        {
            "type": "hand_ended",
            "reason": "VOID",
            "final_stacks": [{"seat_index": 0, "stack": 10}, {"seat_index": 1, "stack": 10}],
        },
    ]
    history["result"] = {"ended_reason": "VOID", "awards": []}
    document = viewer_hand(history, NAMES, match_id="m")
    assert document["steps"][-1]["stacks"] == [10, 10]
    assert document["steps"][-1]["pots"] == []
    assert document["result"]["say"] == "the hand was voided: every bet was refunded"


def test_a_history_in_another_layout_is_an_error_naming_the_hand() -> None:
    history = hand_to_history(_random_hand(1))
    del history["events"][0]["seats"]
    with pytest.raises(ViewerError, match=r"hand m/1: the history cannot be shown \(KeyError"):
        viewer_hand(history, NAMES, match_id="m")


def test_recorded_stacks_win_over_a_disagreeing_walk() -> None:
    history = hand_to_history(_random_hand(4))
    ended = history["events"][-1]
    ended["final_stacks"][0]["stack"] += 5  # a history our walk cannot reproduce
    document = viewer_hand(history, NAMES, match_id="m")
    assert document["steps"][-1]["say"] == "final stacks (as recorded)"


def test_unknown_player_ids_keep_their_id_as_the_name() -> None:
    document = viewer_hand(hand_to_history(_random_hand(2)), {}, match_id="m")
    assert document["seats"][0]["name"] == "p0"


def test_a_stack_shorter_than_the_ante_is_all_in_on_the_ante() -> None:
    config = GameConfig(ante=2)
    seats = [SeatSetup(0, "p0", 1), SeatSetup(1, "p1", 200), SeatSetup(2, "p2", 200)]
    hand = Hand.start(config, seats, button_index=0, deck=Deck.shuffled(random.Random(2)))
    policy = random_policy(random.Random(2))
    while not hand.is_over:
        hand.act(policy(hand))
    document = viewer_hand(hand_to_history(hand), NAMES, match_id="m")
    assert document["steps"][1]["status"][0] == "allin"
    assert document["steps"][1]["notes"][0] == "ante 1"
