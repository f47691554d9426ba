"""The person's seat: prompts until an entry is legal, commands, leaving, time limits."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots.in_memory import FakeClock
from arena.human.render import HELP_TEXT
from arena.human.seat import BET_PROMPT, DRAW_PROMPT, HumanSeat, LeftTableError
from engine.config import DrawLimit, GameConfig, Variant
from tests.arena.human.helpers import TIMEOUT, ScriptedFrontEnd, act, hello_message, wire
from tests.arena.human.test_entry import HAND, bet_request, draw_request


def seated(entries: list[str | None], **kwargs: Any) -> tuple[HumanSeat, ScriptedFrontEnd]:
    front = ScriptedFrontEnd(entries)
    seat = HumanSeat(front, name="ann", names={"p1": "station", "p2": "raiser"}, **kwargs)
    seat.start(hello_message(seat_count=3))
    return seat, front


def test_hello_is_answered_ready_with_the_persons_name() -> None:
    front = ScriptedFrontEnd([])
    seat = HumanSeat(front, name="ann")
    assert seat.start(hello_message()) == {"type": "ready", "seq": 1, "name": "ann"}
    assert front.shown[0].startswith("Welcome, ann. You sit in seat 0 of 2")
    assert not front.prompts  # nobody is asked anything to start


def test_a_bad_entry_is_refused_with_what_is_legal_and_asked_again() -> None:
    seat, front = seated(["check", "r 5", "c"])
    reply = seat.ask(act())
    assert reply == {"type": "action", "seq": 9, "action": "CALL"}
    assert [text for text, _ in front.prompts] == [BET_PROMPT] * 3
    legal = "You may: fold, call 8, raise 16..190, all-in 190"
    assert front.shown[-2:] == [
        f"cannot check: 8 to call, current bet 8. {legal}",
        f"raise to 5 below minimum 16. {legal}",
    ]


def test_help_and_table_are_shown_and_the_person_is_asked_again() -> None:
    seat, front = seated(["?", "t", "f"])
    assert seat.ask(act()) == {"type": "action", "seq": 9, "action": "FOLD"}
    table = front.shown[1]
    assert table.startswith("--- Hand 3 · flop")
    assert front.shown[2:] == [HELP_TEXT, table]


@pytest.mark.parametrize("entries", [["q"], ["quit"], []], ids=["q", "quit", "end of input"])
def test_quitting_or_the_end_of_the_input_leaves_the_table(entries: list[str | None]) -> None:
    seat, _ = seated(entries)
    with pytest.raises(LeftTableError):
        seat.ask(act())


def test_a_draw_is_asked_with_its_own_prompt_and_the_games_draw_limit() -> None:
    front = ScriptedFrontEnd(["1 2 3 4", "3 4 5"])
    seat = HumanSeat(front)
    game = GameConfig(variant=Variant.FIVE_CARD_DRAW, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)
    seat.start(hello_message(game=game.to_dict()))
    assert seat.draw_limit is DrawLimit.THREE_OR_FOUR_WITH_ACE
    draw = act(type="draw", game_state="DRAW", max_discards=4)
    draw["hole_cards"] = draw_request(HAND)["hole_cards"]
    reply = seat.ask(draw)
    assert reply is not None and len(reply["cards"]) == 3
    assert front.prompts[0][0] == DRAW_PROMPT
    assert front.shown[-1].startswith("4 cards discarded but the card kept, 2c, is not an ace")


def test_without_a_time_limit_the_person_is_never_hurried() -> None:
    seat, front = seated(["c"])
    seat.ask(act())
    assert front.prompts == [(BET_PROMPT, None)]


def test_the_time_limit_runs_across_the_prompts_of_one_decision() -> None:
    clock = FakeClock()
    seat, front = seated(["zz", "c"], clock=clock)
    front.on_prompt = lambda: clock.sleep(4.0)
    assert seat.ask(act(), timeout_s=10.0) == {"type": "action", "seq": 9, "action": "CALL"}
    assert [timeout for _, timeout in front.prompts] == [10.0, 6.0]


def test_the_time_running_out_gives_no_reply() -> None:
    clock = FakeClock()
    seat, front = seated([TIMEOUT], clock=clock)
    assert seat.ask(act(), timeout_s=5.0) is None
    # Time spent on bad entries counts: once it is over, nobody is asked again.
    seat, front = seated(["zz", "c"], clock=clock)
    front.on_prompt = lambda: clock.sleep(6.0)
    assert seat.ask(act(), timeout_s=5.0) is None
    assert len(front.prompts) == 1


def test_the_events_of_a_hand_are_told_once() -> None:
    seat, front = seated(["c", "c"])
    blind = {"type": "blind_posted", "seat_index": 1, "blind": "big_blind", "amount": 2}
    call = {"type": "action_taken", "seat_index": 2, "kind": "CALL", "amount": 2, "total": 2}
    start = {"type": "hand_start", "hand_id": "m-3", "hand_number": 3, "seat_index": 0}
    seat.notify(start | {"small_blind": 1, "big_blind": 2, "hole_cards": [], "table_state": []})
    seat.ask(act(history=[blind]))
    seat.ask(act(history=[blind, call]))
    told = [text for text in front.shown if text.startswith(("station", "raiser"))]
    assert told == [
        "station posts the big blind 2",
        "raiser calls 2",
    ]


def test_a_request_of_a_hand_whose_start_was_missed_tells_its_events_from_the_start() -> None:
    seat, front = seated(["c", "c"])
    blind = {"type": "blind_posted", "seat_index": 1, "blind": "big_blind", "amount": 2}
    seat.ask(act(history=[blind]))
    seat.ask(act(hand_id="m-4", history=[blind]))
    assert front.shown.count("station posts the big blind 2") == 2


def test_notifications_are_shown_and_unknown_ones_skipped() -> None:
    seat, front = seated([])
    before = len(front.shown)
    seat.notify({"type": "chat", "text": "hi"})
    assert len(front.shown) == before
    seat.notify({"type": "error", "code": "timeout", "message": "FOLD was applied"})
    seat.notify({"type": "hand_end", "hand_number": 1, "reason": "VOID"})
    seat.notify({"type": "match_end", "hands_played": 2, "standings": []})
    assert front.shown[before:] == [
        "Time is up: FOLD was applied",
        "Hand 1 was called off: every chip went back.",
        "\nMatch over after 2 hands.",
    ]
    assert seat.is_finished


def test_a_bet_request_from_the_entry_tests_is_answered_too() -> None:
    # The seat needs no more of a request than the entry rules read, plus the table.
    seat, _ = seated(["a"])
    minimal = bet_request() | {"hand_id": "m-1", "hand_number": 1, "game_state": "TURN",
                               "player_id": "p0", "hole_cards": [], "community_cards": [],
                               "pot_total": 10, "pots": []}  # fmt: skip
    minimal["table_state"] = [
        dict(seat, player_id=f"p{seat['seat_index']}", position="", stack=100, status="ACTIVE")
        for seat in minimal["table_state"]
    ]
    assert seat.ask(minimal) == {"type": "action", "seq": 7, "action": "ALL_IN"}


def test_the_rest_of_a_hand_is_told_when_it_ends_but_not_the_shown_hands() -> None:
    seat, front = seated(["c"])
    blind = {"type": "blind_posted", "seat_index": 1, "blind": "big_blind", "amount": 2}
    start = {"type": "hand_start", "hand_id": "m-3", "hand_number": 3, "seat_index": 0}
    seat.notify(start | {"small_blind": 1, "big_blind": 2, "hole_cards": [], "table_state": []})
    seat.ask(act(history=[blind]))
    mine = {"type": "action_taken", "seat_index": 0, "kind": "CALL", "amount": 8, "total": 8}
    theirs = {"type": "action_taken", "seat_index": 1, "kind": "CHECK", "amount": 0, "total": 8}
    river = {"type": "street_dealt", "phase": "RIVER", "board": wire("Th 7d 2s 5h 2c")}
    returned = {"type": "uncalled_bet_returned", "seat_index": 2, "amount": 4}
    shown = {"type": "hand_shown", "seat_index": 1, "cards": wire("As Ad"), "description": "x"}
    before = len(front.shown)
    seat.hand_over("m-9", [blind, mine])  # another hand's story: not this one's
    assert len(front.shown) == before
    seat.hand_over("m-3", [blind, mine, theirs, river, returned, shown])
    assert front.shown[before:] == [
        "you call 8\nstation checks\nriver: Th 7d 2s 5h 2c\nraiser takes back 4 (not called)"
    ]
    seat.hand_over("m-3", [blind, mine, theirs, river, returned, shown])
    assert len(front.shown) == before + 1  # told once
