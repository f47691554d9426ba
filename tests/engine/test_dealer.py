"""The DealerEngine facade (the classic dealer API): normal, edge and error cases per method."""

from __future__ import annotations

import pytest

from engine.dealer import DealerEngine
from engine.errors import EngineError, IllegalActionError
from engine.events import HandEnded, HoleCardsDealt, StreetDealt
from engine.phases import Phase


def dealer(players: int = 3, stack: int = 100, **options: object) -> DealerEngine:
    engine = DealerEngine(
        "holdem",
        [(f"p{i}", stack) for i in range(players)],
        [(1, 2)],
        seed=11,
        **options,  # type: ignore[arg-type]
    )
    engine.start_game()
    return engine


def actor_id(engine: DealerEngine) -> str:
    actor = engine.get_game_state()["actor"]
    assert isinstance(actor, str)
    return actor


def play_to_end(engine: DealerEngine) -> None:
    while engine.get_game_state()["actor"] is not None:
        engine.process_action(actor_id(engine), "CALL")


# -- start_game / start_hand ---------------------------------------------------------------


def test_start_game_seats_players_and_reports_waiting_state_before() -> None:
    engine = DealerEngine("holdem", {"a": 50, "b": 60}, [(1, 2)])
    assert engine.get_game_state()["phase"] == "WAITING_FOR_PLAYERS"
    engine.start_game()
    assert engine.get_game_state()["phase"] == "GAME_STARTED"
    assert engine.get_player_state("b")["stack"] == 60


def test_start_game_twice_or_with_one_player_is_an_error() -> None:
    engine = dealer()
    with pytest.raises(EngineError) as info:
        engine.start_game()
    assert info.value.code == "game_already_started"
    lonely = DealerEngine("holdem", [("a", 50)], [(1, 2)])
    with pytest.raises(EngineError) as info:
        lonely.start_game()
    assert info.value.code == "not_enough_players"


def test_duplicate_player_ids_are_rejected() -> None:
    engine = DealerEngine("holdem", [("a", 50), ("a", 60)], [(1, 2)])
    with pytest.raises(EngineError):
        engine.start_game()


def test_start_hand_posts_blinds_and_deals_private_cards() -> None:
    engine = dealer()
    events = engine.start_hand()
    assert [e.seat_index for e in events if isinstance(e, HoleCardsDealt)] == [1, 2, 0]
    state = engine.get_game_state()
    assert state["phase"] == "PRE_FLOP"
    assert state["main_pot"] == 3 and state["side_pots"] == []


def test_start_hand_before_start_game_is_an_error() -> None:
    engine = DealerEngine("holdem", [("a", 50), ("b", 60)], [(1, 2)])
    with pytest.raises(EngineError) as info:
        engine.start_hand()
    assert info.value.code == "game_not_started"


def test_same_seed_deals_the_same_cards() -> None:
    first, second = dealer(), dealer()
    assert [e.to_dict() for e in first.start_hand()] == [e.to_dict() for e in second.start_hand()]


def test_blind_levels_go_up_every_hands_per_level_hands() -> None:
    engine = DealerEngine(
        "holdem", [("a", 500), ("b", 500)], [(1, 2), (2, 4, 1)], seed=1, hands_per_level=1
    )
    engine.start_game()
    engine.start_hand()
    engine.process_action(actor_id(engine), "FOLD")
    engine.end_hand()
    engine.start_hand()
    assert engine.get_game_state()["main_pot"] == 2 + 4 + 2  # blinds and two antes
    with pytest.raises(EngineError):
        DealerEngine("holdem", [("a", 1)], [])


# -- request_player_action -----------------------------------------------------------------


def test_request_player_action_gives_the_request_fields_and_legal_actions() -> None:
    engine = dealer()
    engine.start_hand()
    request = engine.request_player_action("p0")
    assert request["game_state"] == "PRE_FLOP"
    assert len(request["hole_cards"]) == 2 and request["community_cards"] == []
    assert (request["current_bet"], request["to_call"], request["player_stack"]) == (2, 2, 100)
    assert request["legal_actions"] == ["FOLD", "CALL", "RAISE", "ALL_IN"]
    assert (request["min_raise_to"], request["max_raise_to"]) == (4, 100)
    assert [p["position"] for p in request["table_state"]] == ["button", "small_blind", "big_blind"]


def test_request_player_action_when_check_is_possible_offers_check() -> None:
    engine = dealer(players=2)
    engine.start_hand()
    engine.process_action("p0", "CALL")
    assert engine.request_player_action("p1")["legal_actions"][:2] == ["FOLD", "CHECK"]


def test_request_player_action_out_of_turn_or_unknown_is_an_error() -> None:
    engine = dealer()
    engine.start_hand()
    with pytest.raises(IllegalActionError) as info:
        engine.request_player_action("p1")
    assert info.value.code == "not_your_turn"
    with pytest.raises(EngineError) as unknown:
        engine.request_player_action("nobody")
    assert unknown.value.code == "unknown_player"


# -- process_action / validate_action ------------------------------------------------------


def test_process_action_maps_the_classic_action_names() -> None:
    engine = dealer()
    engine.start_hand()
    engine.process_action("p0", "RAISE", 6)
    engine.process_action("p1", "CALL", 6)
    engine.process_action("p2", "ALL_IN")
    engine.process_action("p0", "FOLD", 999)  # the amount of a fold is ignored
    engine.process_action("p1", "call")
    assert engine.get_player_state("p2")["status"] == "ALL_IN"


def test_process_action_call_with_nothing_to_call_is_a_check() -> None:
    engine = dealer(players=2)
    engine.start_hand()
    engine.process_action("p0", "CALL")
    engine.process_action("p1", "CALL")
    assert engine.get_game_state()["phase"] == "FLOP"


@pytest.mark.parametrize(
    ("action", "amount", "code"),
    [
        ("RAISE", 500, "amount_above_stack"),
        ("RAISE", 3, "raise_below_minimum"),
        ("CHECK", 0, "cannot_check"),
        ("CALL", 5, "bad_amount"),
        ("ALL_IN", 101, "amount_above_stack"),
        ("BLUFF", 0, "unknown_action"),
    ],
)
def test_process_action_rejects_bad_actions_and_changes_nothing(
    action: str,
    amount: int,
    code: str,
) -> None:
    engine = dealer()
    engine.start_hand()
    before = engine.get_game_state()
    with pytest.raises(IllegalActionError) as info:
        engine.validate_action("p0", action, amount)
    assert info.value.code == code
    with pytest.raises(IllegalActionError):
        engine.process_action("p0", action, amount)
    assert engine.get_game_state() == before


def test_validate_action_accepts_legal_and_rejects_out_of_turn() -> None:
    engine = dealer()
    engine.start_hand()
    engine.validate_action("p0", "RAISE", 4)
    with pytest.raises(IllegalActionError) as info:
        engine.validate_action("p2", "CALL")
    assert info.value.code == "not_your_turn"
    assert engine.get_game_state()["actor"] == "p0"


def test_actions_before_any_hand_are_an_error() -> None:
    engine = dealer()
    with pytest.raises(EngineError) as info:
        engine.process_action("p0", "CALL")
    assert info.value.code == "no_hand"


# -- dealing and rounds --------------------------------------------------------------------


def test_reveal_community_card_returns_the_board_dealt_automatically() -> None:
    engine = dealer(players=2)
    engine.start_hand()
    assert engine.reveal_community_card() == ()
    engine.process_action("p0", "CALL")
    events = engine.process_action("p1", "CHECK")
    flop = next(e for e in events if isinstance(e, StreetDealt))
    assert engine.reveal_community_card("ignored") == tuple(str(c) for c in flop.cards)


def test_advance_round_reports_phase_and_refuses_while_a_player_must_act() -> None:
    engine = dealer(players=2)
    engine.start_hand()
    with pytest.raises(EngineError) as info:
        engine.advance_round()
    assert info.value.code == "round_in_progress"
    engine.process_action("p0", "FOLD")
    assert engine.advance_round() is Phase.HAND_COMPLETE


# -- winners and the end of the hand -------------------------------------------------------


def test_determine_winners_and_distribute_pot_after_a_fold() -> None:
    engine = dealer()
    engine.start_hand()
    engine.process_action("p0", "FOLD")
    engine.process_action("p1", "FOLD")
    assert engine.determine_winners() == [
        {"player_id": "p2", "seat_index": 2, "amount": 2, "pot_index": 0},
    ]  # the big blind's uncalled chip went back first: the pot is the two blinds' 1 + 1
    assert engine.distribute_pot()[0]["amount"] == 2


def test_determine_winners_at_showdown_covers_every_pot() -> None:
    engine = dealer(players=3)
    engine.start_hand()
    play_to_end(engine)
    total = sum(w["amount"] for w in engine.determine_winners())
    assert total == 6
    assert sum(p["amount"] for p in engine.distribute_pot()) == 6


def test_winners_before_the_hand_is_over_is_an_error() -> None:
    engine = dealer()
    engine.start_hand()
    for method in (engine.determine_winners, engine.distribute_pot, engine.end_hand):
        with pytest.raises(EngineError) as info:
            method()
        assert info.value.code == "hand_not_over"


def test_end_hand_returns_the_result_and_the_next_hand_moves_the_button() -> None:
    engine = dealer()
    engine.start_hand()
    engine.process_action("p0", "FOLD")
    engine.process_action("p1", "FOLD")
    result = engine.end_hand()
    assert result.ended_reason == "FOLD"
    events = engine.start_hand()
    assert events[0].to_dict()["button_index"] == 1
    assert not any(isinstance(e, HandEnded) for e in events)


def test_busted_player_leaves_the_table_after_end_hand() -> None:
    engine = DealerEngine("holdem", [("a", 2), ("b", 100), ("c", 100)], [(1, 2)], seed=3)
    engine.start_game()
    engine.start_hand()
    while engine.get_game_state()["actor"] is not None:
        engine.process_action(actor_id(engine), "ALL_IN")
    engine.end_hand()
    state = engine.get_game_state()
    assert sum(p["stack"] for p in state["players"]) == 202


# -- state ---------------------------------------------------------------------------------


def test_get_game_state_shows_main_and_side_pots() -> None:
    engine = DealerEngine("holdem", [("a", 100), ("b", 30), ("c", 100)], [(1, 2)], seed=5)
    engine.start_game()
    engine.start_hand()
    engine.process_action("a", "RAISE", 60)
    engine.process_action("b", "ALL_IN")
    engine.process_action("c", "CALL")
    state = engine.get_game_state()
    assert state["main_pot"] == 90 and state["side_pots"] == [60]


def test_get_player_state_before_and_during_a_hand() -> None:
    engine = dealer()
    with pytest.raises(EngineError) as info:
        engine.get_player_state("ghost")
    assert info.value.code == "unknown_player"
    assert engine.get_player_state("p1") == {
        "id": "p1",
        "position": "",
        "stack": 100,
        "status": "OUT",
        "bet": 0,
    }
    engine.start_hand()
    assert engine.get_player_state("p2") == {
        "id": "p2",
        "position": "big_blind",
        "stack": 98,
        "status": "ACTIVE",
        "bet": 2,
    }
    with pytest.raises(EngineError):
        engine.get_player_state("ghost")


def test_request_player_action_when_raising_is_not_possible() -> None:
    engine = DealerEngine("holdem", [("a", 100), ("b", 30), ("c", 100)], [(1, 2)], seed=5)
    engine.start_game()
    engine.start_hand()
    engine.process_action("a", "FOLD")
    engine.process_action("b", "ALL_IN")
    request = engine.request_player_action("c")
    assert request["legal_actions"] == ["FOLD", "CALL"]
    assert request["min_raise_to"] is None and request["max_raise_to"] is None


def test_a_busted_player_is_still_known_to_the_finished_hand() -> None:
    # With seed 1, "a" loses its two chips all in on the first hand.
    engine = DealerEngine("holdem", [("a", 2), ("b", 100)], [(1, 2)], seed=1)
    engine.start_game()
    engine.start_hand()
    while engine.get_game_state()["actor"] is not None:
        engine.process_action(actor_id(engine), "CALL")
    engine.end_hand()
    busted = next(p for p in ("a", "b") if p not in engine.table.stacks)
    assert engine.get_player_state(busted)["stack"] == 0
