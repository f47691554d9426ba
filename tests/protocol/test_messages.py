"""Message builders: engine views and results in, schema-valid wire messages out."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engine.actions import LegalActions
from engine.cards import parse_cards
from engine.config import BettingStructure, GameConfig, Variant
from engine.deck import Deck
from engine.hand import BlindSeats, Hand, SeatSetup
from engine.result import HandResult, PotAward
from engine.view import PotView, SeatPublicView, SeatView
from protocol.cards import card_from_wire
from protocol.codec import decode, encode
from protocol.errors import ArenaBugError, BotReplyError, ErrorCode
from protocol.messages import (
    REPLY_TYPES,
    Standing,
    TimeLimits,
    act_request,
    draw_request,
    error_message,
    hand_end,
    hand_start,
    hello,
    match_end,
)
from protocol.schema import find_issue, validate_outgoing, validator_for

LEGAL = LegalActions(
    seat_index=0,
    stack=199,
    current_bet=2,
    committed=1,
    can_fold=True,
    can_check=False,
    can_call=True,
    call_amount=1,
    can_raise=True,
    min_raise_to=4,
    max_raise_to=200,
)
VIEW = SeatView(
    hand_number=3,
    variant="holdem",
    structure="no_limit",
    phase="PRE_FLOP",
    seat_index=0,
    hole_cards=tuple(parse_cards("Ah Ks")),
    board=(),
    button_index=0,
    small_blind_index=0,
    big_blind_index=1,
    small_blind=1,
    big_blind=2,
    ante=0,
    seats=(
        SeatPublicView(0, "p0", 199, "ACTIVE", 1, 1, "button", None),
        SeatPublicView(1, "p1", 198, "ACTIVE", 2, 2, "big_blind", None),
    ),
    pots=(),
    pot_total=3,
    current_bet=2,
    actor_index=0,
    legal_actions=LEGAL,
    history=(
        {"type": "blind_posted", "seat_index": 0, "blind": "small_blind", "amount": 1},
        {"type": "hole_cards_dealt", "seat_index": 0, "cards": ["Ah", "Ks"]},
        {"type": "hole_cards_dealt", "seat_index": 1, "cards": None, "cards_count": 2},
    ),
    is_over=False,
)
DRAW_LEGAL = replace(
    LEGAL,
    current_bet=0,
    committed=0,
    can_fold=False,
    can_call=False,
    call_amount=0,
    can_raise=False,
    can_draw=True,
    max_discard_count=5,
)
DRAW_VIEW = replace(
    VIEW,
    variant="five_card_draw",
    phase="DRAW",
    hole_cards=tuple(parse_cards("Ah Ks 7c 7d 2s")),
    legal_actions=DRAW_LEGAL,
    current_bet=0,
    pots=(PotView(4, (0, 1)),),
    seats=tuple(replace(seat, street_committed=0, discard_count=None) for seat in VIEW.seats),
)
RESULT = HandResult(
    hand_number=3,
    ended_reason="SHOWDOWN",
    board=tuple(parse_cards("2c 7h 9d Js Qs")),
    shown_cards={1: tuple(parse_cards("Qh Qd")), 0: tuple(parse_cards("Ah Ks"))},
    awards=(PotAward(0, 40, (0, 1), ((1, 40),), "three of a kind, queens"),),
    starting_stacks={0: 200, 1: 200},
    final_stacks={0: 180, 1: 220},
)


def _valid(message: dict[str, Any]) -> dict[str, Any]:
    """The message as a bot receives it, after checking it against its schema."""
    validate_outgoing(message)
    return decode(encode(message, strict=True))


def test_hello_carries_version_seat_game_and_limits() -> None:
    config = GameConfig(small_blind=5, big_blind=10, ante=1, structure=BettingStructure.POT_LIMIT)
    message = _valid(
        hello(
            seq=1,
            player_id="p1",
            seat_index=1,
            config=config,
            seat_count=6,
            starting_stack=1000,
            hand_count=None,
            time_limits=TimeLimits(startup_ms=10_000, decision_ms=2000, time_bank_ms=30_000),
        ),
    )
    assert message["protocol_version"] == 1 and message["supported_versions"] == [1]
    assert (message["player_id"], message["seat_index"], message["seq"]) == ("p1", 1, 1)
    assert message["game"]["structure"] == "pot_limit" and message["game"]["hand_count"] is None
    assert message["game"]["seat_count"] == 6 and message["game"]["ante"] == 1
    assert message["time_limits"] == {
        "startup_ms": 10_000,
        "decision_ms": 2000,
        "time_bank_ms": 30_000,
    }
    assert message["max_attempts"] == 3 and message["max_line_bytes"] == 65536


def test_act_request_has_the_core_fields_and_what_a_bot_needs_to_act() -> None:
    message = _valid(act_request(VIEW, seq=7, hand_id="m1-3", time_limit_ms=5000))
    assert message["player_id"] == "p0" and message["game_state"] == "PRE_FLOP"
    assert message["hole_cards"] == [
        {"rank": "A", "suit": "hearts"},
        {"rank": "K", "suit": "spades"},
    ]
    assert (message["current_bet"], message["to_call"], message["player_stack"]) == (2, 1, 199)
    assert (message["min_raise_to"], message["max_raise_to"]) == (4, 200)
    assert message["legal_actions"] == ["FOLD", "CALL", "RAISE", "ALL_IN"]
    assert message["table_state"][1] == {
        "player_id": "p1",
        "seat_index": 1,
        "position": "big_blind",
        "stack": 198,
        "status": "ACTIVE",
        "current_bet": 2,
        "hand_committed": 2,
        "discard_count": None,
    }
    assert (message["button_seat"], message["small_blind_seat"], message["big_blind_seat"]) == (
        0,
        0,
        1,
    )
    assert (message["attempt"], message["attempts_left"], message["time_limit_ms"]) == (1, 3, 5000)


def test_history_cards_go_out_in_wire_form_and_hidden_ones_stay_hidden() -> None:
    history = _valid(act_request(VIEW, seq=7, hand_id="h", time_limit_ms=5000))["history"]
    assert history[1]["cards"] == [{"rank": "A", "suit": "hearts"}, {"rank": "K", "suit": "spades"}]
    assert history[2]["cards"] is None and history[2]["cards_count"] == 2


def test_raise_bounds_are_null_when_raising_is_closed() -> None:
    closed = replace(VIEW, legal_actions=replace(LEGAL, can_raise=False))
    message = _valid(act_request(closed, seq=7, hand_id="h", time_limit_ms=5000))
    assert message["min_raise_to"] is None and message["max_raise_to"] is None
    assert message["legal_actions"] == ["FOLD", "CALL"]


def test_attempts_left_counts_the_current_attempt() -> None:
    message = act_request(VIEW, seq=9, hand_id="h", time_limit_ms=5000, attempt=3)
    assert (message["attempt"], message["attempts_left"]) == (3, 1)
    with pytest.raises(ArenaBugError, match="attempt 4"):
        act_request(VIEW, seq=9, hand_id="h", time_limit_ms=5000, attempt=4)


def test_act_for_a_seat_that_is_not_to_act_is_our_bug() -> None:
    with pytest.raises(ArenaBugError, match="not to act"):
        act_request(replace(VIEW, legal_actions=None), seq=1, hand_id="h", time_limit_ms=1)
    other = replace(VIEW, seat_index=1)
    with pytest.raises(ArenaBugError, match="not to act"):
        act_request(other, seq=1, hand_id="h", time_limit_ms=1)


def test_act_for_a_seat_missing_from_the_table_is_our_bug() -> None:
    lonely = replace(VIEW, seats=VIEW.seats[1:])
    with pytest.raises(ArenaBugError, match="not at the table"):
        act_request(lonely, seq=1, hand_id="h", time_limit_ms=1)


def test_draw_request_tells_how_many_cards_may_go() -> None:
    message = _valid(draw_request(DRAW_VIEW, seq=8, hand_id="h", time_limit_ms=5000))
    assert message["max_discards"] == 5 and len(message["hole_cards"]) == 5
    assert message["pots"] == [{"amount": 4, "eligible_seats": [0, 1]}]
    assert REPLY_TYPES["draw"] == "discard"


def test_asking_for_the_wrong_kind_of_decision_is_our_bug() -> None:
    with pytest.raises(ArenaBugError, match="draw_request"):
        act_request(DRAW_VIEW, seq=1, hand_id="h", time_limit_ms=1)
    with pytest.raises(ArenaBugError, match="act_request"):
        draw_request(VIEW, seq=1, hand_id="h", time_limit_ms=1)


def test_error_message_repeats_the_fault_and_the_attempts_left() -> None:
    fault = BotReplyError(ErrorCode.RAISE_BELOW_MINIMUM, "raise to 3 below minimum 4", "/amount")
    message = _valid(error_message(fault, in_reply_to=7, attempts_left=2))
    assert message == {
        "type": "error",
        "in_reply_to": 7,
        "code": "raise_below_minimum",
        "message": "raise to 3 below minimum 4",
        "path": "/amount",
        "attempts_left": 2,
    }


def test_hand_start_gives_only_the_seats_own_cards() -> None:
    message = _valid(hand_start(VIEW, hand_id="m1-3"))
    assert message["hole_cards"] == [
        {"rank": "A", "suit": "hearts"},
        {"rank": "K", "suit": "spades"},
    ]
    assert message["seat_index"] == 0 and message["hand_number"] == 3


def test_a_dead_small_blind_and_a_dead_button_are_valid_on_the_wire() -> None:
    # The dead button rule (freezeouts): the button on seat 1, where nobody sits, and the
    # small blind dead (its seat 2 is empty too): nobody posts it.
    seats = [SeatSetup(0, "p0", 100), SeatSetup(3, "p3", 100), SeatSetup(4, "p4", 100)]
    blinds = BlindSeats(small_blind_index=None, big_blind_index=3)
    hand = Hand.start(GameConfig(), seats, button_index=1, blinds=blinds, deck=Deck.stacked([]))
    assert hand.actor_index == 4  # left of the big blind
    start = _valid(hand_start(hand.view(0), hand_id="m1-9"))
    request = _valid(act_request(hand.view(4), seq=2, hand_id="m1-9", time_limit_ms=5000))
    for message in (start, request):
        assert (message["button_seat"], message["small_blind_seat"], message["big_blind_seat"]) == (
            1,
            None,
            3,
        )
        assert [seat["position"] for seat in message["table_state"]] == ["", "big_blind", ""]
    assert [event["type"] for event in request["history"]][:2] == [
        "hand_started",
        "blind_posted",
    ]


def test_hand_end_shows_showdown_hands_pots_and_new_stacks() -> None:
    message = _valid(hand_end(RESULT, hand_id="m1-3", player_ids={0: "p0", 1: "p1"}))
    assert message["reason"] == "SHOWDOWN" and len(message["board"]) == 5
    assert [hand["seat_index"] for hand in message["shown_hands"]] == [0, 1]
    assert message["shown_hands"][1]["description"].startswith("three of a kind")
    assert message["pots"][0]["winners"] == [{"seat_index": 1, "player_id": "p1", "amount": 40}]
    assert message["stacks"] == [
        {"seat_index": 0, "player_id": "p0", "stack": 180, "net": -20},
        {"seat_index": 1, "player_id": "p1", "stack": 220, "net": 20},
    ]


def test_hand_end_without_a_showdown_shows_no_cards() -> None:
    folded = replace(RESULT, ended_reason="FOLD", board=(), shown_cards={})
    message = _valid(hand_end(folded, hand_id="h", player_ids={0: "p0", 1: "p1"}))
    assert message["shown_hands"] == [] and message["board"] == []


def test_hand_end_with_an_unknown_seat_is_our_bug() -> None:
    with pytest.raises(ArenaBugError, match="seat 1"):
        hand_end(RESULT, hand_id="h", player_ids={0: "p0"})


def test_hand_end_with_an_unrankable_shown_hand_is_our_bug() -> None:
    broken = replace(RESULT, board=(), shown_cards={0: tuple(parse_cards("Ah Ks"))})
    with pytest.raises(ArenaBugError, match="Ah Ks"):
        hand_end(broken, hand_id="h", player_ids={0: "p0", 1: "p1"})


def test_match_end_lists_the_standings() -> None:
    standings = [Standing("p1", "shover", 400, 200, 1), Standing("p0", "caller", 0, -200, 2)]
    message = _valid(match_end(standings, hands_played=57))
    assert [row["place"] for row in message["standings"]] == [1, 2]
    assert message["hands_played"] == 57


def test_a_standing_without_a_final_stack_leaves_chips_out() -> None:
    # Stacks reset every hand: no number that reads like a stack is sent.
    message = _valid(match_end([Standing("p0", "caller", None, 30, 1)], hands_played=2))
    assert message["standings"] == [{"player_id": "p0", "name": "caller", "net": 30, "place": 1}]


COMMITMENT = "0123456789abcdef" * 4
SALT = bytes(range(32))
CLOCK = TimeLimits(startup_ms=10_000, decision_ms=5_000, time_bank_ms=0)


def _hello(**options: Any) -> dict[str, Any]:
    return hello(
        seq=1,
        player_id="p0",
        seat_index=0,
        config=GameConfig(),
        seat_count=2,
        starting_stack=200,
        hand_count=10,
        time_limits=CLOCK,
        **options,
    )


def test_hello_carries_the_deck_commitment_when_given() -> None:
    assert _valid(_hello(deck_commitment=COMMITMENT))["deck_commitment"] == COMMITMENT
    assert "deck_commitment" not in _valid(_hello())


def test_a_hello_with_a_malformed_commitment_is_our_bug() -> None:
    for bad in ("ABCDEF" * 10 + "abcd", COMMITMENT[:-1], COMMITMENT + "0", "g" * 64):
        with pytest.raises(ArenaBugError, match="not a SHA-256 in hex"):
            _hello(deck_commitment=bad)


def test_match_end_reveals_the_seed_as_decimal_text_and_the_salt_in_hex() -> None:
    seed = 2**256 - 1  # more digits than a JSON number keeps in every language
    message = _valid(match_end([], hands_played=3, deck_seed=seed, deck_salt=SALT))
    assert message["deck_seed"] == str(seed) and int(message["deck_seed"]) == seed
    assert bytes.fromhex(message["deck_salt"]) == SALT
    negative = _valid(match_end([], hands_played=3, deck_seed=-7, deck_salt=SALT))
    assert negative["deck_seed"] == "-7"
    assert "deck_seed" not in _valid(match_end([], hands_played=3))


def test_match_end_reveals_the_seed_and_the_salt_together_or_not_at_all() -> None:
    with pytest.raises(ArenaBugError, match="together, got seed 5 and salt None"):
        match_end([], hands_played=1, deck_seed=5)
    with pytest.raises(ArenaBugError, match="together, got seed None"):
        match_end([], hands_played=1, deck_salt=SALT)
    with pytest.raises(ArenaBugError, match="is not 32 bytes"):
        match_end([], hands_played=1, deck_seed=5, deck_salt=b"short")


def test_the_schemas_check_the_deck_fields() -> None:
    revealed = match_end([], hands_played=1, deck_seed=5, deck_salt=SALT)
    assert find_issue(revealed) is None
    seed_only = {k: v for k, v in revealed.items() if k != "deck_salt"}
    salt_only = {k: v for k, v in revealed.items() if k != "deck_seed"}
    assert find_issue(seed_only) is not None and find_issue(salt_only) is not None
    for field, bad in (("deck_seed", "5.0"), ("deck_seed", 5), ("deck_salt", "AB" * 32)):
        assert find_issue(revealed | {field: bad}) is not None, (field, bad)
    committed = _hello(deck_commitment=COMMITMENT)
    assert find_issue(committed | {"deck_commitment": "ab"}) is not None


def test_outgoing_validation_rejects_our_mistakes_loudly() -> None:
    message = act_request(VIEW, seq=7, hand_id="h", time_limit_ms=5000)
    with pytest.raises(ArenaBugError, match="/hole_cards/0"):
        validate_outgoing(message | {"hole_cards": [51]})
    with pytest.raises(ArenaBugError, match="unknown type"):
        validate_outgoing({"type": "action", "seq": 1, "action": "FOLD"})
    with pytest.raises(ArenaBugError, match="typo"):
        validate_outgoing(message | {"typo": 1})


def test_every_arena_message_type_names_the_variant_values_the_engine_uses() -> None:
    for variant in Variant:
        config = GameConfig(variant=variant)
        message = hello(
            seq=1,
            player_id="p",
            seat_index=0,
            config=config,
            seat_count=2,
            starting_stack=10,
            hand_count=1,
            time_limits=CLOCK,
        )
        assert find_issue(message) is None


def test_wire_cards_round_trip_and_non_cards_are_none() -> None:
    for card in parse_cards("2c Th As"):
        assert card_from_wire(card.to_wire()) is card
    assert card_from_wire(["A", "spades"]) is None
    assert card_from_wire({"rank": 10, "suit": "hearts"}) is None
    assert card_from_wire({"rank": "A"}) is None


def test_hello_names_the_features_this_arena_accepts_within_version_one() -> None:
    message = hello(
        seq=1,
        player_id="p0",
        seat_index=0,
        config=GameConfig(),
        seat_count=2,
        starting_stack=200,
        hand_count=10,
        time_limits=CLOCK,
    )
    assert message["features"] == ["distribution"] and message["protocol_version"] == 1
    assert validator_for("hello").is_valid(message)
    assert validator_for("hello").is_valid(message | {"features": []})
    assert not validator_for("hello").is_valid(message | {"features": ["x", "x"]})
