"""The records of the hand history (:mod:`arena.match.records`): each ``to_dict`` gives
the keys in the order they are written, and :func:`encode_record` is the one encoder."""

from __future__ import annotations

from typing import Any

from arena.match.records import (
    HISTORY_FORMAT,
    DecisionRecord,
    HandRecord,
    MatchEndRecord,
    MatchHeader,
    PlayerEntry,
    StandingEntry,
    action_to_dict,
    encode_record,
    encode_value,
)
from engine.actions import AllIn, Call, Check, Discard, Fold, RaiseTo
from engine.tournament import Standing


def test_action_to_dict_records_discards() -> None:
    from engine.cards import parse_cards

    discard = Discard(tuple(parse_cards("As 7d")))
    assert action_to_dict(discard) == {"action": "DISCARD", "cards": ["As", "7d"]}


def _decision(**overrides: Any) -> DecisionRecord:
    fields: dict[str, Any] = {
        "seat_index": 1,
        "player_id": "p1",
        "phase": "FLOP",
        "by": "bot",
        "action": RaiseTo(12),
        "replies": ({"type": "action", "seq": 7, "action": "RAISE", "amount": 12},),
    }
    fields.update(overrides)
    return DecisionRecord(**fields)


def test_a_header_is_written_with_its_keys_in_order() -> None:
    header = MatchHeader(
        match_id="m",
        seed=5,
        config={"hand_count": 2},
        players=(PlayerEntry("p0", 0, "ann"), PlayerEntry("p1", 1, "bob")),
    )
    assert list(header.to_dict()) == ["type", "format", "match_id", "seed", "config", "players"]
    assert encode_record(header) == (
        '{"type":"match","format":1,"match_id":"m","seed":5,"config":{"hand_count":2},'
        '"players":[{"player_id":"p0","seat_index":0,"name":"ann"},'
        '{"player_id":"p1","seat_index":1,"name":"bob"}]}\n'
    )
    assert HISTORY_FORMAT == 1


def test_a_decision_the_bot_made_keeps_its_replies() -> None:
    decision = _decision()
    assert list(decision.to_dict()) == [
        "seat_index",
        "player_id",
        "phase",
        "by",
        "action",
        "replies",
    ]
    assert decision.to_dict()["replies"] == [
        {"type": "action", "seq": 7, "action": "RAISE", "amount": 12}
    ]


def test_a_decision_without_replies_omits_the_key_and_a_fault_is_written_last() -> None:
    sitting_out = _decision(by="sitting_out", action=Fold(), replies=None)
    assert sitting_out.to_dict() == {
        "seat_index": 1,
        "player_id": "p1",
        "phase": "FLOP",
        "by": "sitting_out",
        "action": {"action": "FOLD"},
    }
    timeout = _decision(by="policy", action=Fold(), replies=(), fault="timeout")
    assert list(timeout.to_dict()) == [
        "seat_index",
        "player_id",
        "phase",
        "by",
        "action",
        "replies",
        "fault",
    ]
    assert timeout.to_dict()["replies"] == []  # asked, and said nothing


def test_a_hand_record_is_written_with_the_history_last() -> None:
    record = HandRecord(
        hand_number=3,
        hand_id="m-3",
        sitting_out=(2,),
        decisions=(_decision(by="dead", action=Check(), replies=None),),
        history={"deck": ["As"]},
    )
    assert list(record.to_dict()) == [
        "type",
        "hand_number",
        "hand_id",
        "sitting_out",
        "decisions",
        "history",
    ]
    assert encode_record(record) == (
        '{"type":"hand","hand_number":3,"hand_id":"m-3","sitting_out":[2],'
        '"decisions":[{"seat_index":1,"player_id":"p1","phase":"FLOP","by":"dead",'
        '"action":{"action":"CHECK"}}],"history":{"deck":["As"]}}\n'
    )


def test_a_history_encoded_in_its_own_step_gives_the_same_line() -> None:
    history: dict[str, Any] = {"deck": ["As", "Kd"], "name": "café", "events": [{"x": 1.5}]}
    plain = HandRecord(3, "m-3", (), (_decision(by="bot", action=Fold(), replies=()),), history)
    split = HandRecord(
        3,
        "m-3",
        (),
        (_decision(by="bot", action=Fold(), replies=()),),
        history,
        history_text=encode_value(history),
    )
    assert split == plain  # the text is a cache, not part of the value
    assert encode_record(split) == encode_record(plain)


def test_a_match_end_record_lists_the_standings_in_order() -> None:
    standing = Standing(
        place=1, player_id="p0", chips=230, busted_hand_number=None, is_shared=False
    )
    entry = StandingEntry.of(standing, name="ann é", net=30)
    assert entry == StandingEntry("p0", "ann é", 230, 30, 1)
    record = MatchEndRecord(hands_played=4, standings=(entry,))
    assert list(record.to_dict()) == ["type", "hands_played", "standings"]
    # Not ASCII-escaped: the file is UTF-8.
    assert encode_record(record) == (
        '{"type":"match_end","hands_played":4,"standings":'
        '[{"player_id":"p0","name":"ann é","chips":230,"net":30,"place":1}]}\n'
    )
    assert record.to_line() == encode_record(record)


def test_actions_are_recorded_with_their_wire_names() -> None:
    assert action_to_dict(Call()) == {"action": "CALL"}
    assert action_to_dict(AllIn()) == {"action": "ALL_IN"}
    assert action_to_dict(Discard(())) == {"action": "DISCARD", "cards": []}
