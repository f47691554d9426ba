"""Parsing bots' replies: seq rules, schema faults, and legality with the engine's codes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import AllIn, Call, Check, Discard, Fold, LegalActions, RaiseTo
from engine.cards import parse_cards
from engine.config import DrawLimit
from protocol.errors import ArenaBugError, BotReplyError, ErrorCode, StaleReplyError
from protocol.legal import all_in_is_legal, legal_action_names
from protocol.replies import (
    Ready,
    action_from_reply,
    action_shape_is_valid,
    discard_shape_is_valid,
    known_fields,
    parse_action,
    parse_discard,
    parse_ready,
    reply_seq,
)
from protocol.schema import validator_for
from tests.protocol.situations import FACING_BET

# Flop, nothing bet yet: check, or bet 2..50.
UNOPENED = replace(
    FACING_BET,
    stack=50,
    current_bet=0,
    can_check=True,
    can_call=False,
    call_amount=0,
    min_raise_to=2,
    max_raise_to=50,
)
# A short all-in raise did not reopen the betting: call 30 only (stack 80).
NOT_REOPENED = replace(
    FACING_BET,
    stack=80,
    current_bet=30,
    committed=0,
    call_amount=30,
    can_raise=False,
    min_raise_to=0,
    max_raise_to=0,
)
# Facing 30 with only 20 left: the call is all-in for less.
SHORT_CALL = replace(NOT_REOPENED, stack=20, call_amount=20)
# Pot-limit: the stack (500) is more than the pot-size maximum raise-to (40).
POT_LIMIT = replace(FACING_BET, stack=500, current_bet=10, call_amount=10, max_raise_to=40)
# Cannot reach a full raise: min == max == the all-in total.
SHORT_RAISE = replace(FACING_BET, stack=5, min_raise_to=5, max_raise_to=5)
DRAW = replace(
    FACING_BET,
    can_fold=False,
    can_call=False,
    call_amount=0,
    can_raise=False,
    can_draw=True,
    max_discard_count=3,
)
HOLE = parse_cards("As Kd 7c 7h 2s")


def _action(action: str, amount: Any = None, seq: float = 5, **extra: Any) -> dict[str, Any]:
    reply: dict[str, Any] = {"type": "action", "seq": seq, "action": action}
    if amount is not None:
        reply["amount"] = amount
    reply.update(extra)
    return reply


def _rejected(reply: object, legal: LegalActions = FACING_BET, seq: int = 5) -> BotReplyError:
    with pytest.raises(BotReplyError) as info:
        parse_action(reply, seq, legal)
    return info.value


# -- seq ------------------------------------------------------------------------------------


def test_late_reply_to_an_old_request_is_stale_and_never_applied() -> None:
    with pytest.raises(StaleReplyError) as info:
        parse_action(_action("FOLD", seq=4), 5, FACING_BET)
    assert info.value.code == "stale_seq" == ErrorCode.STALE_SEQ.value
    assert (info.value.seq, info.value.expected_seq, info.value.path) == (4, 5, "/seq")
    assert "4" in info.value.message and "5" in info.value.message


def test_stale_reply_is_stale_even_when_it_is_also_malformed() -> None:
    with pytest.raises(StaleReplyError):
        parse_action({"type": "action", "seq": 1, "action": "bogus"}, 5, FACING_BET)
    with pytest.raises(StaleReplyError):
        parse_discard({"seq": 1}, 5, DRAW, HOLE)
    with pytest.raises(StaleReplyError):
        parse_ready({"seq": 1}, 2)


BAD_SEQS: list[object] = [0, -5, None, 1.5, "3", True, False, [5], {"n": 5}]


@pytest.mark.parametrize("seq", BAD_SEQS, ids=repr)
def test_a_seq_that_is_not_a_positive_integer_is_bad_seq_not_stale(seq: object) -> None:
    error = _rejected(_action("FOLD", seq=seq))  # type: ignore[arg-type]
    assert not isinstance(error, StaleReplyError)
    assert (error.code, error.path) == ("bad_seq", "/seq") == (ErrorCode.BAD_SEQ.value, "/seq")
    assert repr(seq)[:10] in error.message and "5" in error.message


@pytest.mark.parametrize("seq", BAD_SEQS, ids=repr)
def test_a_bad_seq_is_bad_seq_in_discards_and_ready_too(seq: object) -> None:
    with pytest.raises(BotReplyError) as info:
        parse_discard({"type": "discard", "seq": seq, "cards": []}, 5, DRAW, HOLE)
    assert info.value.code == "bad_seq" and not isinstance(info.value, StaleReplyError)
    with pytest.raises(BotReplyError) as info:
        parse_ready({"type": "ready", "seq": seq, "name": "r"}, 1)
    assert info.value.code == "bad_seq" and not isinstance(info.value, StaleReplyError)


def test_a_bad_seq_is_bad_seq_even_when_the_reply_is_also_malformed() -> None:
    error = _rejected({"type": "action", "seq": -5, "action": "bogus"})
    assert error.code == "bad_seq"


def test_a_typed_reply_without_seq_is_bad_seq() -> None:
    error = _rejected({"type": "action", "action": "FOLD"})
    assert (error.code, error.path) == ("bad_seq", "/seq")
    assert "missing" in error.message
    with pytest.raises(BotReplyError) as info:
        parse_discard({"type": "discard", "cards": []}, 5, DRAW, HOLE)
    assert info.value.code == "bad_seq"


def test_reply_seq_is_the_positive_integer_seq_or_none() -> None:
    assert [reply_seq({"seq": seq}) for seq in (1, 7, 7.0)] == [1, 7, 7]
    assert [reply_seq({"seq": seq}) for seq in BAD_SEQS] == [None] * len(BAD_SEQS)
    assert reply_seq({}) is None and reply_seq([1]) is None


def test_reply_with_a_seq_never_sent_is_an_unknown_seq_fault() -> None:
    error = _rejected(_action("FOLD", seq=9))
    assert (error.code, error.path) == ("unknown_seq", "/seq")
    assert not isinstance(error, StaleReplyError)


def test_reply_that_is_not_an_object_is_a_schema_violation_of_the_whole_line() -> None:
    error = _rejected(["FOLD"])
    assert (error.code, error.path) == ("schema_violation", "")
    assert str(error).startswith("schema_violation at : ")


# -- shape ----------------------------------------------------------------------------------


def test_unknown_action_name_has_its_own_code_and_names_the_value() -> None:
    error = _rejected(_action("call"))
    assert (error.code, error.path) == ("unknown_action", "/action")
    assert "'call'" in error.message and "upper case" in error.message


def test_wrong_reply_type_is_a_schema_violation_naming_both_types() -> None:
    error = _rejected({"type": "ready", "seq": 5, "name": "x"})
    assert (error.code, error.path) == ("schema_violation", "/type")
    assert "'action'" in error.message and "'ready'" in error.message


def test_raise_without_amount_is_a_schema_violation_at_amount() -> None:
    error = _rejected(_action("RAISE"))
    assert (error.code, error.path) == ("schema_violation", "/amount")
    error = _rejected(_action("RAISE", amount=None) | {"amount": None})
    assert (error.code, error.path) == ("schema_violation", "/amount")


@pytest.mark.parametrize("amount", ["10", 10.5, True, -1, [10]])
def test_non_integer_or_negative_amount_is_a_schema_violation(amount: object) -> None:
    error = _rejected(_action("RAISE", amount=amount))
    assert (error.code, error.path) == ("schema_violation", "/amount")


def test_a_bad_value_is_quoted_briefly() -> None:
    error = _rejected(_action("X" * 1000))
    assert len(error.message) < 200 and "..." in error.message


def test_unknown_fields_in_a_reply_are_ignored() -> None:
    assert (
        parse_action(_action("FOLD", comment="gl hf", debug={"ev": 1.5}), 5, FACING_BET) == Fold()
    )


def test_integral_floats_count_as_integers_like_json_schema_says() -> None:
    assert parse_action(_action("RAISE", amount=10.0, seq=5.0), 5, FACING_BET) == RaiseTo(10)


# -- legality -------------------------------------------------------------------------------


def test_each_legal_action_maps_to_its_engine_action() -> None:
    assert parse_action(_action("FOLD"), 5, FACING_BET) == Fold()
    assert parse_action(_action("CALL"), 5, FACING_BET) == Call()
    assert parse_action(_action("RAISE", 10), 5, FACING_BET) == RaiseTo(10)
    assert parse_action(_action("ALL_IN"), 5, FACING_BET) == AllIn()
    assert parse_action(_action("CHECK"), 5, UNOPENED) == Check()


def test_fold_ignores_its_amount() -> None:
    assert parse_action(_action("FOLD", 999_999), 5, FACING_BET) == Fold()


def test_check_ignores_its_amount() -> None:
    assert parse_action(_action("CHECK", 7), 5, UNOPENED) == Check()


def test_call_amount_when_given_must_equal_current_bet() -> None:
    assert parse_action(_action("CALL", 2), 5, FACING_BET) == Call()
    error = _rejected(_action("CALL", 1))
    assert (error.code, error.path) == ("call_amount_mismatch", "/amount")
    assert "current_bet 2" in error.message and "to_call is 2" in error.message


def test_call_with_nothing_to_call_counts_as_check() -> None:
    assert parse_action(_action("CALL"), 5, UNOPENED) == Check()
    assert parse_action(_action("CALL", 0), 5, UNOPENED) == Check()


def test_short_call_is_a_call_for_less_and_all_in_is_the_same() -> None:
    assert legal_action_names(SHORT_CALL) == ["FOLD", "CALL", "ALL_IN"]
    assert parse_action(_action("CALL", 30), 5, SHORT_CALL) == Call()
    assert parse_action(_action("ALL_IN"), 5, SHORT_CALL) == AllIn()


def test_check_facing_a_bet_is_rejected() -> None:
    error = _rejected(_action("CHECK"))
    assert (error.code, error.path) == ("cannot_check", "/action")
    assert "2 to call" in error.message


def test_call_when_neither_call_nor_check_is_legal_is_rejected() -> None:
    odd = replace(UNOPENED, can_check=False)
    assert _rejected(_action("CALL"), odd).code == "cannot_call"


def test_fold_when_folding_is_not_offered_is_rejected() -> None:
    assert _rejected(_action("FOLD"), replace(FACING_BET, can_fold=False)).code == "cannot_fold"


def test_raise_below_the_minimum_names_both_amounts_and_the_seat() -> None:
    error = _rejected(_action("RAISE", 3))
    assert (error.code, error.path) == ("raise_below_minimum", "/amount")
    assert error.message == "raise to 3 below minimum 4 (seat 3)"


def test_raise_beyond_the_stack_is_amount_above_stack() -> None:
    error = _rejected(_action("RAISE", 101))
    assert (error.code, error.path) == ("amount_above_stack", "/amount")
    assert "stack is 100" in error.message


def test_pot_limit_raise_beyond_the_pot_is_raise_above_maximum() -> None:
    error = _rejected(_action("RAISE", 41), POT_LIMIT)
    assert (error.code, error.path) == ("raise_above_maximum", "/amount")
    assert "maximum 40" in error.message


def test_raise_when_the_betting_was_not_reopened_is_not_allowed() -> None:
    error = _rejected(_action("RAISE", 60), NOT_REOPENED)
    assert (error.code, error.path) == ("raising_not_allowed", "/action")
    assert "FOLD, CALL" in error.message


def test_all_in_is_a_call_or_a_raise_exactly_as_the_engine_allows() -> None:
    assert all_in_is_legal(FACING_BET)  # a raise to 100 (no-limit)
    assert all_in_is_legal(SHORT_RAISE)  # an all-in raise short of a full raise
    assert all_in_is_legal(SHORT_CALL)  # a call for less
    assert not all_in_is_legal(NOT_REOPENED)  # it would be a raise, and raising is closed
    assert not all_in_is_legal(POT_LIMIT)  # it would exceed the pot-limit maximum
    assert not all_in_is_legal(DRAW)
    assert not all_in_is_legal(replace(FACING_BET, stack=0))


def test_all_in_when_it_would_raise_a_closed_betting_round_is_not_allowed() -> None:
    error = _rejected(_action("ALL_IN"), NOT_REOPENED)
    assert (error.code, error.path) == ("raising_not_allowed", "/action")
    assert "raise to 80" in error.message


def test_all_in_above_the_pot_limit_maximum_is_rejected() -> None:
    error = _rejected(_action("ALL_IN"), POT_LIMIT)
    assert (error.code, error.path) == ("raise_above_maximum", "/action")


def test_all_in_below_a_minimum_cannot_come_from_engine_values_but_is_still_rejected() -> None:
    odd = replace(FACING_BET, min_raise_to=200, max_raise_to=300)
    assert _rejected(_action("ALL_IN"), odd).code == "raise_below_minimum"


def test_all_in_amount_when_given_must_not_exceed_the_stack() -> None:
    assert parse_action(_action("ALL_IN", 100), 5, FACING_BET) == AllIn()
    error = _rejected(_action("ALL_IN", 101))
    assert (error.code, error.path) == ("amount_above_stack", "/amount")


def test_legal_action_list_leaves_out_fold_when_folding_is_not_offered() -> None:
    assert legal_action_names(replace(UNOPENED, can_fold=False)) == ["CHECK", "RAISE", "ALL_IN"]


def test_legal_action_list_matches_the_legal_actions() -> None:
    assert legal_action_names(FACING_BET) == ["FOLD", "CALL", "RAISE", "ALL_IN"]
    assert legal_action_names(UNOPENED) == ["FOLD", "CHECK", "RAISE", "ALL_IN"]
    assert legal_action_names(NOT_REOPENED) == ["FOLD", "CALL"]
    assert legal_action_names(POT_LIMIT) == ["FOLD", "CALL", "RAISE"]


@pytest.mark.parametrize(
    "legal",
    [FACING_BET, UNOPENED, NOT_REOPENED, SHORT_CALL, POT_LIMIT, SHORT_RAISE],
)
def test_every_listed_action_is_accepted(legal: LegalActions) -> None:
    for name in legal_action_names(legal):
        amount = legal.min_raise_to if name == "RAISE" else None
        parse_action(_action(name, amount), 5, legal)


def test_action_from_reply_rejects_a_name_the_schema_would_have_caught() -> None:
    with pytest.raises(BotReplyError) as info:
        action_from_reply("BET", 10, FACING_BET)
    assert info.value.code == "unknown_action"
    with pytest.raises(BotReplyError) as info:
        action_from_reply("RAISE", None, FACING_BET)
    assert info.value.code == "schema_violation"


def test_parsing_an_action_for_a_draw_decision_is_our_bug() -> None:
    with pytest.raises(ArenaBugError):
        parse_action(_action("FOLD"), 5, DRAW)


# -- discard --------------------------------------------------------------------------------


def _discard(*texts: str, seq: int = 5) -> dict[str, Any]:
    return {"type": "discard", "seq": seq, "cards": [c.to_wire() for c in parse_cards(texts)]}


def test_discard_maps_wire_cards_to_an_engine_discard() -> None:
    assert parse_discard(_discard("7c", "2s"), 5, DRAW, HOLE) == Discard(tuple(parse_cards("7c2s")))
    assert parse_discard(_discard(), 5, DRAW, HOLE) == Discard(())


def test_discarding_a_card_not_held_is_rejected_at_its_path() -> None:
    with pytest.raises(BotReplyError) as info:
        parse_discard(_discard("7c", "Qh"), 5, DRAW, HOLE)
    assert (info.value.code, info.value.path) == ("card_not_in_hand", "/cards/1")
    assert "Qh" in info.value.message and "As Kd 7c 7h 2s" in info.value.message


def test_discarding_a_card_twice_is_rejected() -> None:
    with pytest.raises(BotReplyError) as info:
        parse_discard(_discard("7c", "7c"), 5, DRAW, HOLE)
    assert (info.value.code, info.value.path) == ("duplicate_discard", "/cards/1")


def test_discarding_more_than_allowed_is_rejected() -> None:
    with pytest.raises(BotReplyError) as info:
        parse_discard(_discard("7c", "7h", "2s", "Kd"), 5, DRAW, HOLE)
    assert (info.value.code, info.value.path) == ("too_many_discards", "/cards")
    assert "at most 3" in info.value.message


def test_house_rule_allows_a_fourth_discard_only_when_keeping_an_ace() -> None:
    house = DrawLimit.THREE_OR_FOUR_WITH_ACE
    four = replace(DRAW, max_discard_count=4)
    keeps_ace = parse_discard(_discard("Kd", "7c", "7h", "2s"), 5, four, HOLE, draw_limit=house)
    assert len(keeps_ace.cards) == 4
    with pytest.raises(BotReplyError) as info:
        parse_discard(_discard("As", "7c", "7h", "2s"), 5, four, HOLE, draw_limit=house)
    assert (info.value.code, info.value.path) == ("too_many_discards", "/cards")
    assert "Kd" in info.value.message and "not an ace" in info.value.message
    anything = parse_discard(_discard("As", "7c", "7h", "2s"), 5, four, HOLE)
    assert len(anything.cards) == 4
    three = parse_discard(_discard("As", "7c", "7h"), 5, four, HOLE, draw_limit=house)
    assert len(three.cards) == 3


def test_malformed_discard_names_the_bad_card_field() -> None:
    reply = {"type": "discard", "seq": 5, "cards": [{"rank": "T", "suit": "hearts"}]}
    with pytest.raises(BotReplyError) as info:
        parse_discard(reply, 5, DRAW, HOLE)
    assert (info.value.code, info.value.path) == ("schema_violation", "/cards/0/rank")


def test_discard_with_a_seq_never_sent_is_unknown_seq() -> None:
    with pytest.raises(BotReplyError) as info:
        parse_discard(_discard("7c", seq=6), 5, DRAW, HOLE)
    assert info.value.code == "unknown_seq"


def test_parsing_a_discard_for_a_betting_decision_is_our_bug() -> None:
    with pytest.raises(ArenaBugError):
        parse_discard(_discard("7c"), 5, FACING_BET, HOLE)


# -- ready ----------------------------------------------------------------------------------


def test_ready_gives_the_name_and_the_negotiated_version() -> None:
    ready = parse_ready({"type": "ready", "seq": 1, "name": "raiser", "version": "2.1"}, 1)
    assert ready == Ready("raiser", "2.1", 1)
    ready = parse_ready({"type": "ready", "seq": 1, "name": "r", "protocol_version": 1.0}, 1)
    assert ready.protocol_version == 1 and ready.version is None


def test_ready_with_a_version_not_offered_is_unsupported() -> None:
    with pytest.raises(BotReplyError) as info:
        parse_ready({"type": "ready", "seq": 1, "name": "r", "protocol_version": 2}, 1)
    assert (info.value.code, info.value.path) == ("unsupported_version", "/protocol_version")
    assert "2" in info.value.message


def test_ready_version_negotiation_uses_the_offered_versions() -> None:
    reply = {"type": "ready", "seq": 1, "name": "r", "protocol_version": 2}
    ready = parse_ready(reply, 1, supported_versions=(2, 1), preferred_version=2)
    assert ready.protocol_version == 2
    reply = {"type": "ready", "seq": 1, "name": "r"}
    assert (
        parse_ready(reply, 1, supported_versions=(2, 1), preferred_version=2).protocol_version == 2
    )


def test_ready_without_a_name_is_a_schema_violation() -> None:
    with pytest.raises(BotReplyError) as info:
        parse_ready({"type": "ready", "seq": 1}, 1)
    assert (info.value.code, info.value.path) == ("schema_violation", "/name")
    with pytest.raises(BotReplyError) as info:
        parse_ready({"type": "ready", "seq": 1, "name": ""}, 1)
    assert info.value.path == "/name"


def test_ready_with_a_seq_never_sent_is_unknown_seq() -> None:
    with pytest.raises(BotReplyError) as info:
        parse_ready({"type": "ready", "seq": 2, "name": "r"}, 1)
    assert info.value.code == "unknown_seq"


# -- the fast shape checks agree with JSON Schema --------------------------------------------

_CARD = {"rank": "10", "suit": "hearts"}
#: A mixed strategy's one entry: fold, surely.
_SURE_FOLD = {"action": "FOLD", "probability": 1}
ACTION_CORPUS: list[object] = [
    _action("FOLD"),
    _action("CHECK", 0),
    _action("CALL", 2),
    _action("RAISE", 10),
    _action("ALL_IN"),
    _action("RAISE", 10.0),
    _action("FOLD", None) | {"amount": None},
    _action("CALL", extra_field=[1, 2]),
    _action("RAISE"),
    _action("RAISE") | {"amount": None},
    _action("RAISE", -1),
    _action("RAISE", 1.5),
    _action("RAISE", "10"),
    _action("RAISE", True),
    _action("raise", 10),
    _action("BET", 10),
    {"type": "action", "seq": 5},
    # A mixed strategy: with an amount for its raise, with a bad amount, beside an action.
    {"type": "action", "seq": 5, "distribution": [_SURE_FOLD], "amount": 3},
    {"type": "action", "seq": 5, "distribution": [_SURE_FOLD], "amount": -1},
    {"type": "action", "seq": 5, "distribution": [_SURE_FOLD], "amount": "3"},
    {"type": "action", "seq": 5, "distribution": [_SURE_FOLD], "action": "FOLD"},
    {"type": "action", "action": "FOLD"},
    {"type": "action", "seq": 0, "action": "FOLD"},
    {"type": "action", "seq": -3, "action": "FOLD"},
    {"type": "action", "seq": "5", "action": "FOLD"},
    {"type": "action", "seq": 5.5, "action": "FOLD"},
    {"type": "action", "seq": False, "action": "FOLD"},
    {"type": "action", "seq": 5, "action": None},
    {"type": "action", "seq": 5, "action": ["FOLD"]},
    {"type": "Action", "seq": 5, "action": "FOLD"},
    {"seq": 5, "action": "FOLD"},
    {"type": "discard", "seq": 5, "cards": []},
    {},
    [],
    "FOLD",
    None,
    5,
]
DISCARD_CORPUS: list[object] = [
    {"type": "discard", "seq": 5, "cards": []},
    {"type": "discard", "seq": 5, "cards": [_CARD]},
    {"type": "discard", "seq": 5, "cards": [_CARD, _CARD]},  # duplicates are semantic
    {"type": "discard", "seq": 5, "cards": [_CARD | {"label": "Th"}]},
    {"type": "discard", "seq": 5.0, "cards": [_CARD] * 5},
    {"type": "discard", "seq": 5, "cards": [_CARD] * 6},
    {"type": "discard", "seq": 5, "cards": [{"rank": "T", "suit": "hearts"}]},
    {"type": "discard", "seq": 5, "cards": [{"rank": "10", "suit": "h"}]},
    {"type": "discard", "seq": 5, "cards": [{"rank": 10, "suit": "hearts"}]},
    {"type": "discard", "seq": 5, "cards": [{"rank": "10"}]},
    {"type": "discard", "seq": 5, "cards": [{"suit": "hearts"}]},
    {"type": "discard", "seq": 5, "cards": ["Th"]},
    {"type": "discard", "seq": 5, "cards": {"0": _CARD}},
    {"type": "discard", "seq": 5},
    {"type": "discard", "cards": []},
    {"type": "discard", "seq": 0, "cards": []},
    {"type": "action", "seq": 5, "cards": []},
    [],
    None,
]


@pytest.mark.parametrize("reply", ACTION_CORPUS)
def test_fast_action_check_agrees_with_the_schema(reply: object) -> None:
    assert action_shape_is_valid(reply) == validator_for("action").is_valid(reply)


@pytest.mark.parametrize("reply", DISCARD_CORPUS)
def test_fast_discard_check_agrees_with_the_schema(reply: object) -> None:
    assert discard_shape_is_valid(reply) == validator_for("discard").is_valid(reply)


def test_corpora_hold_both_good_and_bad_replies() -> None:
    assert 0 < sum(map(action_shape_is_valid, ACTION_CORPUS)) < len(ACTION_CORPUS)
    assert 0 < sum(map(discard_shape_is_valid, DISCARD_CORPUS)) < len(DISCARD_CORPUS)


_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=12),
    st.floats(min_value=-3, max_value=12, allow_nan=False),
    st.sampled_from(["", "action", "discard", "FOLD", "RAISE", "ALL_IN", "10", "hearts"]),
)
_VALUE = st.recursive(_SCALAR, lambda inner: st.lists(inner, max_size=3), max_leaves=5)
_ACTION_LIKE = st.fixed_dictionaries(
    {},
    optional={
        "type": st.one_of(st.just("action"), _SCALAR),
        "seq": st.one_of(st.integers(min_value=-2, max_value=9), _SCALAR),
        "action": st.one_of(st.sampled_from(["CHECK", "CALL", "FOLD", "RAISE", "ALL_IN"]), _SCALAR),
        "amount": st.one_of(st.integers(min_value=-5, max_value=500), _VALUE),
        "extra": _VALUE,
    },
)
_WIRE_CARD = st.fixed_dictionaries(
    {},
    optional={
        "rank": st.sampled_from(["2", "10", "T", "A", "a", 10]),
        "suit": st.sampled_from(["hearts", "spades", "h", "Spades", 3]),
        "x": _SCALAR,
    },
)
_DISCARD_LIKE = st.fixed_dictionaries(
    {},
    optional={
        "type": st.one_of(st.just("discard"), _SCALAR),
        "seq": st.one_of(st.integers(min_value=-2, max_value=9), _SCALAR),
        "cards": st.one_of(st.lists(st.one_of(_WIRE_CARD, _SCALAR), max_size=7), _SCALAR),
    },
)


@settings(max_examples=300)
@given(_ACTION_LIKE)
def test_fast_action_check_agrees_with_the_schema_on_random_replies(reply: dict[str, Any]) -> None:
    assert action_shape_is_valid(reply) == validator_for("action").is_valid(reply)


@settings(max_examples=300)
@given(_DISCARD_LIKE)
def test_fast_discard_check_agrees_with_the_schema_on_random_replies(reply: dict[str, Any]) -> None:
    assert discard_shape_is_valid(reply) == validator_for("discard").is_valid(reply)


def test_known_fields_keeps_the_fields_the_arena_reads_in_the_bots_order() -> None:
    reply = {"note": [[1]], "seq": 4, "type": "action", "amount": 6, "action": "RAISE", "x": 1}
    assert list(known_fields(reply, "action").items()) == [
        ("seq", 4),
        ("type", "action"),
        ("amount", 6),
        ("action", "RAISE"),
    ]
    discard = {"type": "discard", "seq": 2, "cards": [], "why": "pat"}
    assert known_fields(discard, "discard") == {"type": "discard", "seq": 2, "cards": []}
    ready = {"type": "ready", "seq": 1, "name": "x", "version": "2", "protocol_version": 1}
    assert known_fields(ready, "ready") is ready  # nothing to leave out: the same object
