"""The text a person reads: the table, the events, the ends of hands and of the match."""

from __future__ import annotations

import re
from typing import Any

import pytest

from arena.human.render import (
    SeatNames,
    cards_text,
    error_text,
    event_lines,
    hand_end_text,
    hand_start_text,
    hello_text,
    match_end_text,
    request_text,
)
from engine.config import BettingStructure, GameConfig, Variant
from protocol.messages import hand_end
from tests.arena.human.helpers import act, hello_message, random_decisions, start_message, wire

NAMES = SeatNames("p0", {"p1": "station", "p2": "raiser"})


def tokens(text: str) -> set[str]:
    return set(re.findall(r"[2-9TJQKA][cdhs]", text))


# -- what is hidden ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [GameConfig(), GameConfig(variant=Variant.FIVE_CARD_DRAW)],
    ids=["holdem", "draw"],
)
def test_no_other_seats_hole_cards_are_drawn_before_the_showdown(config: GameConfig) -> None:
    checked = 0
    for decision in random_decisions(config, seat_count=3, hand_count=12, seed=3):
        hand, request = decision.hand, decision.request
        actor = request["seat_index"]
        names = SeatNames(request["player_id"], {})
        seat_players = {seat["seat_index"]: seat["player_id"] for seat in request["table_state"]}
        text = "\n".join(
            [
                hand_start_text(start_message(hand, actor)),
                request_text(request, names),
                *event_lines(request["history"], seat_players, names),
            ]
        )
        others = {
            str(card)
            for seat in hand.seats
            if seat.seat_index != actor
            for card in hand.view(seat.seat_index).hole_cards
        }
        assert not tokens(text) & others
        own = {str(card) for card in decision.view.hole_cards}
        assert own <= tokens(text)  # the person does see their own cards
        checked += 1
    assert checked > 20


# -- the table ---------------------------------------------------------------------------------


def test_the_table_shows_seats_stacks_bets_pot_board_cards_turn_and_legal_amounts() -> None:
    assert request_text(act(), NAMES).splitlines() == [
        "--- Hand 3 · flop · pot 38 ---",
        "Board: Th 7d 2s",
        "  seat 0  you      stack   190  bet    0  button  <- to act",
        "  seat 1  station  stack   182  bet    8  small blind",
        "  seat 2  raiser   stack   190  bet    0  big blind  folded",
        "Your cards: Ah Kh",
        "You may: fold, call 8, raise 16..190, all-in 190",
    ]


def test_side_pots_are_listed_with_the_pot() -> None:
    pots = [{"amount": 30, "eligible_seats": [0, 1, 2]}, {"amount": 12, "eligible_seats": [0, 1]}]
    first = request_text(act(pots=pots, pot_total=50), NAMES).splitlines()[0]
    assert first == "--- Hand 3 · flop · pot 50 (pot 1: 30, pot 2: 12) ---"


def test_pre_flop_has_no_board_line() -> None:
    lines = request_text(act(game_state="PRE_FLOP", community_cards=[]), NAMES).splitlines()
    assert lines[0].startswith("--- Hand 3 · pre-flop")
    assert not any(line.startswith("Board") for line in lines)


def test_a_draw_numbers_the_cards_and_shows_who_drew_how_many() -> None:
    request = act(
        type="draw",
        game_state="DRAW",
        community_cards=[],
        hole_cards=wire("Ks Kd 9h 6h 2c"),
        max_discards=5,
    )
    request["table_state"][1]["discard_count"] = 3
    text = request_text(request, NAMES)
    assert "Your cards: 1:Ks 2:Kd 3:9h 4:6h 5:2c" in text
    assert "seat 1  station  stack   182  bet    8  small blind  drew 3" in text
    assert text.endswith("You may: discard up to 5 cards, pat")
    assert "the draw" in text.splitlines()[0]


def test_an_unknown_phase_is_shown_as_sent() -> None:
    assert "· SOMETHING_NEW ·" in request_text(act(game_state="SOMETHING_NEW"), NAMES)


def test_two_copies_of_one_bot_are_told_apart_by_their_ids() -> None:
    names = SeatNames("p1", {"p0": "station", "p2": "station"})
    assert [names.label(p) for p in ("p0", "p1", "p2")] == ["station (p0)", "you", "station (p2)"]


def test_cards_text_writes_the_two_of_clubs_and_marks_no_card() -> None:
    assert cards_text(wire("2c")) == "2c"  # card 0: not mistaken for "no card"
    assert cards_text([{"rank": "1", "suit": "x"}]) == "??"
    assert cards_text([]) == "-"


# -- events ------------------------------------------------------------------------------------


SEATS = {0: "p0", 1: "p1", 2: "p2"}


def action(seat: int, kind: str, amount: int = 0, total: int = 0, **flags: bool) -> dict[str, Any]:
    return {"type": "action_taken", "seat_index": seat, "phase": "FLOP", "kind": kind,
            "amount": amount, "total": total, "is_bet": flags.get("is_bet", False),
            "is_all_in": flags.get("is_all_in", False)}  # fmt: skip


@pytest.mark.parametrize(
    ("event", "line"),
    [
        ({"type": "blind_posted", "seat_index": 1, "blind": "big_blind", "amount": 2},
         "station posts the big blind 2"),
        ({"type": "blind_posted", "seat_index": 0, "blind": "small_blind", "amount": 1},
         "you post the small blind 1"),
        ({"type": "ante_posted", "seat_index": 2, "amount": 1}, "raiser posts an ante of 1"),
        ({"type": "street_dealt", "phase": "TURN", "cards": wire("Kc"),
          "board": wire("Th 7d 2s Kc")}, "turn: Th 7d 2s Kc"),
        (action(1, "FOLD"), "station folds"),
        (action(0, "CHECK"), "you check"),
        (action(1, "CALL", 4, 6), "station calls 4"),
        (action(2, "RAISE", 8, 8, is_bet=True), "raiser bets 8"),
        (action(0, "RAISE", 12, 20), "you raise to 20"),
        (action(1, "RAISE", 182, 190, is_all_in=True), "station raises to 190 (all-in)"),
        ({"type": "uncalled_bet_returned", "seat_index": 2, "amount": 10},
         "raiser takes back 10 (not called)"),
        ({"type": "cards_drawn", "seat_index": 1, "discard_count": 3, "discarded": None,
          "drawn": None}, "station draws 3"),
        ({"type": "cards_drawn", "seat_index": 0, "discard_count": 2,
          "discarded": wire("9h 2c"), "drawn": wire("Ah 3s")},
         "you discard 9h 2c and draw Ah 3s"),
        ({"type": "stub_reshuffled", "card_count": 9},
         "the discards are shuffled into a new stub"),
        ({"type": "hand_shown", "seat_index": 1, "cards": wire("Qh Qd"),
          "description": "one pair, queens"}, "station shows Qh Qd (one pair, queens)"),
        ({"type": "hand_mucked", "seat_index": 2}, "raiser mucks"),
        ({"type": "blind_posted", "seat_index": 7, "blind": "big_blind", "amount": 2},
         "seat 7 posts the big blind 2"),
    ],
)  # fmt: skip
def test_each_event_is_told_in_words(event: dict[str, Any], line: str) -> None:
    assert event_lines([event], SEATS, NAMES) == [line]


@pytest.mark.parametrize(
    "kind",
    ["hand_started", "hole_cards_dealt", "betting_round_complete", "pot_awarded", "new_kind"],
)
def test_events_told_elsewhere_or_unknown_are_skipped(kind: str) -> None:
    assert event_lines([{"type": kind, "seat_index": 0}], SEATS, NAMES) == []


# -- the start and the end of a hand and of the match ------------------------------------------


def test_hello_names_the_seat_the_game_and_the_others() -> None:
    names = SeatNames(None, {"p1": "station", "p2": "raiser"})
    text = hello_text(hello_message(seat_count=3), SeatNames("p0", names.names), name="ann")
    assert text.splitlines() == [
        "Welcome, ann. You sit in seat 0 of 3: no-limit hold'em, blinds 1/2, stacks 200, 3 hands.",
        "At the table: station, raiser.",
        "Enter ? for help.",
    ]


def test_hello_of_a_freezeout_of_draw_says_how_long_it_lasts() -> None:
    game = GameConfig(variant=Variant.FIVE_CARD_DRAW, structure=BettingStructure.FIXED_LIMIT)
    hello = hello_message(hand_count=None, game=game.to_dict())
    text = hello_text(hello, SeatNames("p0", {}), name="ann")
    assert "fixed-limit five-card draw" in text
    assert "until one player has every chip." in text
    assert "At the table" not in text


@pytest.mark.parametrize(
    ("position", "said"),
    [
        ("button", " · you are on the button"),
        ("big_blind", " · you are the big blind"),
        ("", ""),
    ],
)
def test_a_new_hand_shows_the_blinds_the_position_and_the_cards(position: str, said: str) -> None:
    message = {
        "hand_number": 4,
        "seat_index": 0,
        "small_blind": 1,
        "big_blind": 2,
        "hole_cards": wire("Ah Kh"),
        "table_state": [{"seat_index": 0, "position": position}],
    }
    assert hand_start_text(message) == f"\n=== Hand 4 · blinds 1/2{said} ===\nYour cards: Ah Kh"


def test_a_new_hand_without_its_own_seat_names_no_position() -> None:
    message = {"hand_number": 1, "seat_index": 0, "small_blind": 1, "big_blind": 2,
               "hole_cards": [], "table_state": []}  # fmt: skip
    assert hand_start_text(message).startswith("\n=== Hand 1 · blinds 1/2 ===")


def showdown_end() -> dict[str, Any]:
    return {
        "type": "hand_end",
        "hand_number": 1,
        "reason": "SHOWDOWN",
        "board": wire("Th 7d 2s Kc 4h"),
        "shown_hands": [
            {"seat_index": 0, "player_id": "p0", "cards": wire("Ah Kh"),
             "description": "one pair, kings"},
            {"seat_index": 1, "player_id": "p1", "cards": wire("Qh Qd"),
             "description": "one pair, queens"},
        ],
        "pots": [{"pot_index": 0, "amount": 28, "eligible_seats": [0, 1],
                  "winners": [{"seat_index": 0, "player_id": "p0", "amount": 28}],
                  "description": "one pair, kings"}],
        "stacks": [{"seat_index": 0, "player_id": "p0", "stack": 214, "net": 14},
                   {"seat_index": 1, "player_id": "p1", "stack": 186, "net": -14}],
    }  # fmt: skip


def test_a_showdown_shows_the_board_the_hands_the_winner_and_the_persons_result() -> None:
    assert hand_end_text(showdown_end(), NAMES).splitlines() == [
        "Hand 1 over (showdown).",
        "Board: Th 7d 2s Kc 4h",
        "  you show Ah Kh (one pair, kings)",
        "  station shows Qh Qd (one pair, queens)",
        "  you win 28 with one pair, kings",
        "You: +14 this hand, stack 214.",
    ]


def test_a_hand_won_without_a_showdown_shows_no_cards() -> None:
    message = showdown_end()
    message.update(reason="FOLD", board=[], shown_hands=[])
    message["pots"][0].update(description=None, winners=[{"player_id": "p1", "amount": 3}])
    assert hand_end_text(message, NAMES).splitlines() == [
        "Hand 1 over (all but one folded).",
        "  station wins 3",
        "You: +14 this hand, stack 214.",
    ]


def test_a_voided_hand_says_every_chip_went_back() -> None:
    message = {"hand_number": 2, "reason": "VOID"}
    assert hand_end_text(message, NAMES) == "Hand 2 was called off: every chip went back."


def test_errors_say_whether_time_ran_out_or_the_arena_refused() -> None:
    timeout = {"code": "timeout", "message": "no reply within 30000 ms; FOLD was applied"}
    assert error_text(timeout) == "Time is up: no reply within 30000 ms; FOLD was applied"
    refused = {"code": "cannot_check", "message": "cannot check", "attempts_left": 2}
    assert error_text(refused) == "The arena refused that: cannot check (2 tries left)"


def test_the_match_end_lists_the_standings_best_first() -> None:
    message = {
        "hands_played": 1,
        "standings": [
            {"player_id": "p1", "name": "station", "net": 14, "place": 1},
            {"player_id": "p0", "name": "ann", "net": -14, "place": 2},
        ],
    }
    assert match_end_text(message, NAMES).splitlines() == [
        "",
        "Match over after 1 hand.",
        "  1. station    +14",
        "  2. you (ann)  -14",
    ]


def test_hand_end_messages_of_real_hands_name_only_shown_cards() -> None:
    shown_any = hidden_any = False
    seen: set[int] = set()
    hands = []
    for decision in random_decisions(GameConfig(), seat_count=3, hand_count=40, seed=4):
        if id(decision.hand) not in seen:
            seen.add(id(decision.hand))
            hands.append(decision.hand)
    for hand in hands:
        assert hand.is_over and hand.result is not None
        player_ids = {seat.seat_index: seat.player_id for seat in hand.seats}
        message = hand_end(hand.result, hand_id="m-1", player_ids=player_ids)
        text = hand_end_text(message, SeatNames("p0", {}))
        for seat in hand.seats:
            cards = {str(card) for card in hand.view(seat.seat_index).hole_cards}
            if seat.seat_index in hand.result.shown_cards:
                assert cards <= tokens(text)
                shown_any = True
            elif seat.seat_index != 0:
                assert not cards & tokens(text)
                hidden_any = True
    assert shown_any and hidden_any


def test_a_tie_of_descriptions_names_the_kicker_that_broke_it() -> None:
    # "one pair, kings" beats "one pair, kings": the person must see why.
    message = showdown_end()
    message["board"] = wire("Kd 7d 2s 9c 4h")
    message["shown_hands"][1].update(cards=wire("Kc Qd"), description="one pair, kings")
    lines = hand_end_text(message, NAMES).splitlines()
    assert "  station shows Kc Qd (one pair, kings)" in lines
    assert "  you win 28 with one pair, kings (kicker: ace against queen)" in lines


def test_a_flush_against_a_flush_of_the_same_top_card_names_the_card_that_decided() -> None:
    message = showdown_end()
    message["board"] = wire("Ah 9h 4h 2c 3d")
    message["shown_hands"][0].update(cards=wire("Kh 5h"))
    message["shown_hands"][1].update(cards=wire("Qh Jh"))
    message["pots"][0]["description"] = "flush, ace high"
    lines = hand_end_text(message, NAMES).splitlines()
    assert "  you win 28 with flush, ace high (second card: king against queen)" in lines


def test_a_split_pot_or_a_hand_with_a_hidden_card_names_no_kicker() -> None:
    message = showdown_end()
    message["board"] = wire("Kd Kc 7d 7s As")
    message["shown_hands"][0].update(cards=wire("2c 3c"))
    message["shown_hands"][1].update(cards=wire("2h 3h"))  # both play the board
    message["pots"][0]["winners"].append({"seat_index": 1, "player_id": "p1", "amount": 14})
    assert "kicker" not in hand_end_text(message, NAMES)
    message["shown_hands"][1].update(cards=[{"rank": "?", "suit": "?"}] * 2)
    assert "kicker" not in hand_end_text(message, NAMES)
