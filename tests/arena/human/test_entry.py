"""A person's entries: parsed into the protocol's replies, refused with what is legal."""

from __future__ import annotations

from typing import Any

import pytest

from arena.human.entry import (
    Command,
    EntryError,
    describe_legal,
    parse_entry,
    request_hole_cards,
)
from engine.actions import AllIn, Call, Check, Fold, RaiseTo
from engine.config import BettingStructure, DrawLimit, GameConfig, Variant
from protocol.replies import parse_action, parse_discard
from protocol.request_decoder import legal_from_request
from tests.arena.human.helpers import random_decisions

CONFIGS = [
    GameConfig(),
    GameConfig(small_blind=5, big_blind=10, ante=1),
    GameConfig(structure=BettingStructure.POT_LIMIT),
    GameConfig(structure=BettingStructure.FIXED_LIMIT),
    GameConfig(variant=Variant.FIVE_CARD_DRAW, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE),
]


def bet_request(
    *,
    legal_actions: tuple[str, ...] = ("FOLD", "CALL", "RAISE", "ALL_IN"),
    to_call: int = 4,
    current_bet: int = 6,
    committed: int = 2,
    stack: int = 198,
    min_raise_to: int | None = 10,
    max_raise_to: int | None = 200,
) -> dict[str, Any]:
    """An ``act`` request for seat 0 with the fields an entry is read against."""
    return {
        "type": "act",
        "seq": 7,
        "seat_index": 0,
        "player_stack": stack,
        "current_bet": current_bet,
        "to_call": to_call,
        "min_raise_to": min_raise_to,
        "max_raise_to": max_raise_to,
        "legal_actions": list(legal_actions),
        "table_state": [
            {"seat_index": 1, "current_bet": current_bet},
            {"seat_index": 0, "current_bet": committed},
        ],
    }


def draw_request(cards: tuple[str, ...], *, max_discards: int = 5) -> dict[str, Any]:
    """A ``draw`` request for seat 0 holding ``cards`` (wire form)."""
    ranks = {"T": "10"}
    suits = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
    return {
        "type": "draw",
        "seq": 3,
        "seat_index": 0,
        "player_stack": 98,
        "current_bet": 0,
        "max_discards": max_discards,
        "hole_cards": [{"rank": ranks.get(c[0], c[0]), "suit": suits[c[1]]} for c in cards],
    }


HAND = ("Ks", "Kd", "9h", "6h", "2c")


# -- the legal actions a request states --------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.variant}-{c.structure}")
def test_legal_actions_read_from_a_request_are_the_engines(config: GameConfig) -> None:
    count = 0
    for decision in random_decisions(config, seat_count=3, hand_count=15, seed=11):
        assert legal_from_request(decision.request) == decision.view.legal_actions
        count += 1
    assert count > 20


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.variant}-{c.structure}")
def test_every_legal_option_shown_has_an_entry_the_protocol_accepts(config: GameConfig) -> None:
    """Each option the person is shown (fold, check, call, the raise bounds, all-in, pat,
    a discard) has an entry that parses into a reply the protocol's own reply parser
    accepts against the engine's legal actions."""
    checked = 0
    for decision in random_decisions(config, seat_count=3, hand_count=10, seed=5):
        request, view = decision.request, decision.view
        legal = view.legal_actions
        assert legal is not None
        entries = []
        if legal.can_draw:
            entries = ["pat", "1", f"d {view.hole_cards[0]} {view.hole_cards[1]}"]
            entries = entries[: 1 + legal.max_discard_count]
        for option in describe_legal(request):
            word, _, amounts = option.partition(" ")
            if word in ("raise", "bet"):
                entries += [f"r {amount}" for amount in amounts.split("..")]
            elif word in ("fold", "check", "call", "all-in"):
                entries.append(word)
        for entry in entries:
            reply = parse_entry(entry, request, draw_limit=config.draw_limit)
            assert isinstance(reply, dict)
            if legal.can_draw:
                parse_discard(
                    reply, request["seq"], legal, view.hole_cards, draw_limit=config.draw_limit
                )
            else:
                parse_action(reply, decision.request["seq"], legal)
            checked += 1
    assert checked > 30


def test_a_request_without_its_own_seat_in_the_table_counts_nothing_committed() -> None:
    request = bet_request()
    request["table_state"] = []
    assert legal_from_request(request).committed == 0


# -- betting entries ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "action", "amount"),
    [
        ("f", "FOLD", None),
        ("Fold", "FOLD", None),
        ("c", "CALL", None),
        ("  CALL ", "CALL", None),
        ("r 40", "RAISE", 40),
        ("r40", "RAISE", 40),
        ("raise 40", "RAISE", 40),
        ("raise to 40", "RAISE", 40),
        ("bet 40", "RAISE", 40),
        ("b 40", "RAISE", 40),
        ("a", "ALL_IN", None),
        ("allin", "ALL_IN", None),
        ("all-in", "ALL_IN", None),
        ("all   in", "ALL_IN", None),
    ],
)
def test_betting_entries_become_the_protocols_actions(
    entry: str, action: str, amount: int | None
) -> None:
    reply = parse_entry(entry, bet_request())
    expected: dict[str, Any] = {"type": "action", "seq": 7, "action": action}
    if amount is not None:
        expected["amount"] = amount
    assert reply == expected


@pytest.mark.parametrize("entry", ["c", "call", "k", "x", "check"])
def test_call_with_nothing_to_call_is_a_check(entry: str) -> None:
    request = bet_request(legal_actions=("FOLD", "CHECK", "RAISE"), to_call=0, current_bet=0)
    reply = parse_entry(entry, request)
    assert reply == {"type": "action", "seq": 7, "action": "CHECK"}


@pytest.mark.parametrize(
    ("entry", "command"),
    [("?", Command.HELP), ("help", Command.HELP), ("t", Command.TABLE), ("Q", Command.QUIT)],
)
def test_seat_commands_are_not_replies(entry: str, command: Command) -> None:
    assert parse_entry(entry, bet_request()) is command
    assert parse_entry(entry, draw_request(HAND)) is command


LEGAL_TEXT = "You may: fold, call 4, raise 10..200, all-in 200"


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("", "nothing entered"),
        ("hello", "'hello' is not an action (? for help)"),
        ("40", "'40' alone is not an action; to raise to it: r 40"),
        ("r", "'r' needs an amount, the round total to raise to (e.g. r 40)"),
        ("raise lots", "raise amount 'lots' is not a whole number of chips"),
        ("r -5", "raise amount -5 is negative: the least is 10"),
        ("check", "cannot check: 4 to call, current bet 6"),
        ("r 8", "raise to 8 below minimum 10"),
        ("r 500", "raise to 500 needs 498 chips, stack is 198 (all-in is raise to 200)"),
    ],
)
def test_a_bad_betting_entry_says_why_and_what_is_legal(entry: str, reason: str) -> None:
    with pytest.raises(EntryError) as caught:
        parse_entry(entry, bet_request())
    assert str(caught.value) == f"{reason}. {LEGAL_TEXT}"
    assert caught.value.code == "bad_entry"


def test_all_in_is_refused_when_a_short_all_in_did_not_reopen_the_betting() -> None:
    # Raising is closed for this seat; its stack covers more than the call, so all-in
    # would be a raise: not legal, and not offered.
    request = bet_request(legal_actions=("FOLD", "CALL"), min_raise_to=None, max_raise_to=None)
    assert describe_legal(request) == ["fold", "call 4"]
    with pytest.raises(EntryError, match=r"^all-in would raise to 200 but raising is closed"):
        parse_entry("a", request)


def test_a_raise_above_the_pot_limit_names_the_maximum() -> None:
    request = bet_request(max_raise_to=22)
    with pytest.raises(EntryError, match=r"^raise to 30 above maximum 22\. You may: "):
        parse_entry("r 30", request)


def test_fold_is_refused_where_the_request_does_not_list_it() -> None:
    request = bet_request(legal_actions=("CHECK", "RAISE"), to_call=0, current_bet=0)
    with pytest.raises(EntryError, match=r"^cannot fold now\. You may: check, bet 10..200$"):
        parse_entry("f", request)


def test_the_first_chips_of_a_round_are_offered_as_a_bet_and_entered_as_either() -> None:
    # Nothing bet yet this round (after the flop, say): the option is a bet, not a raise.
    request = bet_request(legal_actions=("CHECK", "RAISE", "ALL_IN"), to_call=0, current_bet=0)
    request["table_state"] = [{"seat_index": 0, "current_bet": 0}]
    assert describe_legal(request) == ["check", "bet 10..200", "all-in 198"]
    for entry in ("b 20", "bet 20", "r 20"):
        assert parse_entry(entry, request) == {
            "type": "action",
            "seq": 7,
            "action": "RAISE",
            "amount": 20,
        }


def test_a_negative_amount_is_named_negative_even_where_raising_is_closed() -> None:
    request = bet_request(legal_actions=("FOLD", "CALL"), min_raise_to=None, max_raise_to=None)
    with pytest.raises(EntryError, match=r"^raise amount -4 is negative\. You may: fold, call 4$"):
        parse_entry("r -4", request)


def test_a_single_raise_size_is_shown_as_one_amount() -> None:
    # Fixed-limit: the raise is one size; a stack that reaches only one amount likewise.
    request = bet_request(min_raise_to=12, max_raise_to=12)
    assert describe_legal(request) == ["fold", "call 4", "raise 12", "all-in 200"]


# -- draw entries ----------------------------------------------------------------------------


def wire_cards(*texts: str) -> list[dict[str, str]]:
    return draw_request(texts)["hole_cards"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("entry", "discarded"),
    [
        ("pat", ()),
        ("p", ()),
        ("stand pat", ()),
        ("9h 6h 2c", ("9h", "6h", "2c")),
        ("d 9h, 6H", ("9h", "6h")),
        ("discard 2c", ("2c",)),
        ("3 4 5", ("9h", "6h", "2c")),
        ("1 9h", ("Ks", "9h")),
    ],
)
def test_draw_entries_name_cards_or_their_places(entry: str, discarded: tuple[str, ...]) -> None:
    reply = parse_entry(entry, draw_request(HAND))
    assert reply == {"type": "discard", "seq": 3, "cards": wire_cards(*discarded)}


def test_a_ten_may_be_entered_as_10() -> None:
    request = draw_request(("Th", "Kd", "9h", "6h", "2c"))
    assert parse_entry("10h", request) == {
        "type": "discard",
        "seq": 3,
        "cards": [{"rank": "10", "suit": "hearts"}],
    }


DRAW_LEGAL = "You may: discard up to 5 cards, pat"


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("d", "name the cards to discard (e.g. 9h 2c, or their places 3 5), or pat"),
        ("6", "card place 6 is not in 1..5"),
        ("0", "card place 0 is not in 1..5"),
        ("9z", "'9z' is not a card (e.g. As, Th or 10h) nor a place"),
        ("fold", "'fold' is not a card (e.g. As, Th or 10h) nor a place"),
        ("As", "card As is not in the hand Ks Kd 9h 6h 2c"),
        ("3 9h", "card 9h is discarded twice"),
    ],
)
def test_a_bad_draw_entry_says_why_and_what_is_legal(entry: str, reason: str) -> None:
    with pytest.raises(EntryError) as caught:
        parse_entry(entry, draw_request(HAND))
    assert str(caught.value) == f"{reason}. {DRAW_LEGAL}"


def test_a_draw_of_more_cards_than_allowed_is_refused() -> None:
    request = draw_request(HAND, max_discards=3)
    assert describe_legal(request) == ["discard up to 3 cards", "pat"]
    with pytest.raises(EntryError, match=r"^4 cards discarded, at most 3 allowed\. You may"):
        parse_entry("1 2 3 4", request)


def test_four_cards_may_go_only_when_the_card_kept_is_an_ace() -> None:
    # House rule three_or_four_with_ace: a fourth card only when keeping an ace.
    ace = draw_request(("As", "Kd", "9h", "6h", "2c"), max_discards=4)
    reply = parse_entry("2 3 4 5", ace, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)
    assert isinstance(reply, dict) and len(reply["cards"]) == 4
    king = draw_request(HAND, max_discards=4)
    with pytest.raises(EntryError, match=r"^4 cards discarded but the card kept, Ks, is not"):
        parse_entry("2 3 4 5", king, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)


def test_one_card_is_said_in_the_singular() -> None:
    assert describe_legal(draw_request(HAND, max_discards=1))[0] == "discard up to 1 card"


def test_hole_cards_of_a_request_without_cards_are_none() -> None:
    assert request_hole_cards({"type": "act"}) == []
    assert [str(card) for card in request_hole_cards(draw_request(HAND))] == list(HAND)


def test_replies_map_to_the_engine_actions_the_person_meant() -> None:
    request = bet_request()
    legal = legal_from_request(request)
    meant = {"f": Fold(), "c": Call(), "r 40": RaiseTo(40), "a": AllIn()}
    for entry, action in meant.items():
        reply = parse_entry(entry, request)
        assert parse_action(reply, 7, legal) == action
    free = bet_request(legal_actions=("FOLD", "CHECK", "RAISE"), to_call=0, current_bet=0)
    assert parse_action(parse_entry("c", free), 7, legal_from_request(free)) == Check()
