"""A reported mixed strategy: the distribution's shape, its legality, its sum, and the draw."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.actions import AllIn, Call, Fold, LegalActions, RaiseTo
from protocol.errors import BotReplyError, ErrorCode
from protocol.replies import action_shape_is_valid, parse_action, parse_action_reply
from protocol.schema import validator_for
from protocol.strategy import MAX_ENTRIES, SUM_TOLERANCE, MixedStrategy
from tests.protocol.situations import FACING_BET

UNOPENED = replace(FACING_BET, current_bet=0, can_check=True, can_call=False, call_amount=0)
SHORT_CALL = replace(FACING_BET, stack=2, current_bet=30, call_amount=30, can_raise=False)


def _entry(action: str, probability: Any, amount: Any = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"action": action, "probability": probability}
    if amount is not None:
        entry["amount"] = amount
    return entry


def _reply(*entries: dict[str, Any], seq: int = 5, **extra: Any) -> dict[str, Any]:
    return {"type": "action", "seq": seq, "distribution": list(entries), **extra}


def _rejected(reply: object, legal: LegalActions = FACING_BET) -> BotReplyError:
    with pytest.raises(BotReplyError) as info:
        parse_action_reply(reply, 5, legal)
    return info.value


def test_a_distribution_gives_the_legal_actions_with_their_probabilities_in_order() -> None:
    reply = _reply(_entry("CALL", 0.6), _entry("RAISE", 0.3, 10), _entry("FOLD", 0.1))
    strategy = parse_action_reply(reply, 5, FACING_BET)
    assert strategy == MixedStrategy(((Call(), 0.6), (RaiseTo(10), 0.3), (Fold(), 0.1)))


def test_probabilities_within_the_tolerance_are_normalised_to_sum_to_one() -> None:
    reply = _reply(_entry("CALL", 0.5), _entry("FOLD", 0.5 + SUM_TOLERANCE / 2))
    strategy = parse_action_reply(reply, 5, FACING_BET)
    assert isinstance(strategy, MixedStrategy)
    assert math.fsum(p for _, p in strategy.entries) == pytest.approx(1.0, abs=1e-15)
    assert strategy.entries[0][1] < 0.5


def test_probabilities_that_do_not_sum_to_one_are_rejected_naming_the_sum() -> None:
    error = _rejected(_reply(_entry("CALL", 0.5), _entry("FOLD", 0.4)))
    assert (error.code, error.path) == (ErrorCode.PROBABILITY_SUM, "/distribution")
    assert "sum to 0.9" in error.message and "seat 3" in error.message


def test_an_entry_of_probability_zero_is_ignored_even_when_it_is_illegal() -> None:
    reply = _reply(_entry("CHECK", 0), _entry("CALL", 1), _entry("RAISE", 0, 1))
    assert parse_action_reply(reply, 5, FACING_BET) == MixedStrategy(((Call(), 1.0),))


def test_an_illegal_entry_is_rejected_with_the_engines_code_at_its_path() -> None:
    error = _rejected(_reply(_entry("CALL", 0.5), _entry("RAISE", 0.5, 3)))
    assert (error.code, error.path) == (ErrorCode.RAISE_BELOW_MINIMUM, "/distribution/1/amount")
    assert "raise to 3 below minimum 4" in error.message
    error = _rejected(_reply(_entry("CHECK", 1)))
    assert (error.code, error.path) == (ErrorCode.CANNOT_CHECK, "/distribution/0/action")


@pytest.mark.parametrize(
    ("entries", "legal"),
    [
        ((_entry("CALL", 0.5), _entry("CALL", 0.5)), FACING_BET),
        ((_entry("CHECK", 0.5), _entry("CALL", 0.5)), UNOPENED),  # nothing to call: a check
        ((_entry("RAISE", 0.5, 100), _entry("ALL_IN", 0.5)), FACING_BET),  # the whole stack
        ((_entry("CALL", 0.5), _entry("ALL_IN", 0.5)), SHORT_CALL),  # a call for less
        ((_entry("FOLD", 0.5), _entry("FOLD", 0.5)), FACING_BET),
    ],
)
def test_two_entries_for_the_same_move_are_a_duplicate(
    entries: tuple[dict[str, Any], ...], legal: LegalActions
) -> None:
    error = _rejected(_reply(*entries), legal)
    assert (error.code, error.path) == (ErrorCode.DUPLICATE_ACTION, "/distribution/1")
    assert "entries 0 and 1" in error.message


def test_raises_to_different_totals_are_different_moves() -> None:
    reply = _reply(_entry("RAISE", 0.5, 4), _entry("RAISE", 0.25, 8), _entry("ALL_IN", 0.25))
    strategy = parse_action_reply(reply, 5, FACING_BET)
    assert isinstance(strategy, MixedStrategy)
    assert [action for action, _ in strategy.entries] == [RaiseTo(4), RaiseTo(8), AllIn()]


@pytest.mark.parametrize(
    ("reply", "path"),
    [
        (_reply(_entry("CALL", -0.5), _entry("FOLD", 1.5)), "/distribution/0/probability"),
        (_reply(_entry("CALL", "1")), "/distribution/0/probability"),
        (_reply(_entry("CALL", True)), "/distribution/0/probability"),
        (_reply({"action": "CALL"}), "/distribution/0/probability"),
        ({"type": "action", "seq": 5, "distribution": ["CALL"]}, "/distribution/0"),
        (_reply(_entry("RAISE", 1)), "/distribution/0/amount"),
        (_reply(_entry("RAISE", 1, 4.5)), "/distribution/0/amount"),
        (_reply(), "/distribution"),
        ({"type": "action", "seq": 5, "distribution": {"CALL": 1}}, "/distribution"),
        (_reply(_entry("CALL", 1), action="CALL"), "/distribution"),
        ({"type": "action", "seq": 5}, "/action"),
        (_reply(*[_entry("CALL", 0)] * (MAX_ENTRIES + 1)), "/distribution"),
    ],
)
def test_a_malformed_distribution_is_a_schema_violation_at_its_path(
    reply: dict[str, Any], path: str
) -> None:
    error = _rejected(reply)
    assert (error.code, error.path) == (ErrorCode.SCHEMA_VIOLATION, path)
    assert not validator_for("action").is_valid(reply)


def test_too_many_entries_are_rejected_naming_the_count_and_the_cap() -> None:
    error = _rejected(_reply(*[_entry("CALL", 0)] * (MAX_ENTRIES + 1)))
    assert f"{MAX_ENTRIES + 1} entries, at most {MAX_ENTRIES}" in error.message


def test_an_unknown_action_name_in_an_entry_has_its_own_code() -> None:
    error = _rejected(_reply(_entry("call", 1)))
    assert (error.code, error.path) == (ErrorCode.UNKNOWN_ACTION, "/distribution/0/action")
    assert "'call'" in error.message


def test_the_one_action_parser_refuses_a_distribution() -> None:
    with pytest.raises(BotReplyError) as info:
        parse_action(_reply(_entry("CALL", 1)), 5, FACING_BET)
    assert (info.value.code, info.value.path) == (ErrorCode.SCHEMA_VIOLATION, "/distribution")
    assert parse_action({"type": "action", "seq": 5, "action": "CALL"}, 5, FACING_BET) == Call()


def test_a_draw_falls_on_the_entry_whose_share_holds_it() -> None:
    strategy = MixedStrategy(((Call(), 0.6), (RaiseTo(10), 0.3), (Fold(), 0.1)))
    assert [strategy.draw(u) for u in (0.0, 0.59, 0.6, 0.89, 0.9, 0.999)] == [
        Call(),
        Call(),
        RaiseTo(10),
        RaiseTo(10),
        Fold(),
        Fold(),
    ]


def test_a_draw_past_the_rounded_total_falls_on_the_last_entry() -> None:
    strategy = MixedStrategy(((Call(), 0.3), (Fold(), 0.3 - 1e-12)))
    assert strategy.draw(0.9999) == Fold()


@settings(max_examples=200)
@given(st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=6))
def test_any_weights_normalised_by_the_bot_are_accepted_and_drawn_in_range(
    weights: list[float],
) -> None:
    total = math.fsum(weights)
    if total == 0:
        return
    names = ["FOLD", "CALL", "ALL_IN", "RAISE", "RAISE", "RAISE"]
    entries = [
        _entry(name, weight / total, 4 + index if name == "RAISE" else None)
        for index, (name, weight) in enumerate(zip(names, weights, strict=False))
    ]
    strategy = parse_action_reply(_reply(*entries), 5, FACING_BET)
    assert isinstance(strategy, MixedStrategy)
    assert all(probability > 0 for _, probability in strategy.entries)
    for u in (0.0, 0.5, 1 - 2**-53):
        assert strategy.draw(u) in [action for action, _ in strategy.entries]


_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=12),
    st.floats(min_value=-3, max_value=12, allow_nan=False),
    st.sampled_from(["", "CALL", "RAISE", "FOLD", "call"]),
)
_ENTRY_LIKE = st.fixed_dictionaries(
    {},
    optional={
        "action": st.one_of(st.sampled_from(["CHECK", "CALL", "FOLD", "RAISE", "ALL_IN"]), _SCALAR),
        "amount": st.one_of(st.integers(min_value=-2, max_value=120), _SCALAR),
        "probability": st.one_of(st.floats(min_value=-0.5, max_value=1.5), _SCALAR),
        "note": _SCALAR,
    },
)
_DISTRIBUTION_REPLY = st.fixed_dictionaries(
    {
        "type": st.just("action"),
        "seq": st.one_of(st.just(5), _SCALAR),
        "distribution": st.one_of(st.lists(st.one_of(_ENTRY_LIKE, _SCALAR), max_size=4), _SCALAR),
    },
    optional={"action": _SCALAR, "amount": _SCALAR},
)


@settings(max_examples=300)
@given(_DISTRIBUTION_REPLY)
def test_fast_distribution_check_agrees_with_the_schema(reply: dict[str, Any]) -> None:
    assert action_shape_is_valid(reply) == validator_for("action").is_valid(reply)


@settings(max_examples=300)
@given(_DISTRIBUTION_REPLY)
@example({"type": "action", "seq": 5, "distribution": None, "action": "CALL"})
def test_parsing_any_distribution_raises_nothing_but_the_bots_fault(reply: dict[str, Any]) -> None:
    try:
        parsed = parse_action_reply(reply, 5, FACING_BET)
    except BotReplyError:
        return
    if reply["distribution"] is None:
        # A null distribution counts as absent (as a null amount does): the reply's one
        # action is what it plays.
        assert not isinstance(parsed, MixedStrategy)
        return
    assert isinstance(parsed, MixedStrategy)
    assert math.fsum(p for _, p in parsed.entries) == pytest.approx(1.0)


def test_a_null_distribution_is_no_distribution_as_a_null_amount_is_no_amount() -> None:
    # Serialisers often write an absent optional field as null: such a bot never meant one.
    reply = {"type": "action", "seq": 5, "action": "CALL", "distribution": None}
    assert validator_for("action").is_valid(reply) and action_shape_is_valid(reply)
    assert parse_action_reply(reply, 5, FACING_BET) == Call()
    error = _rejected({"type": "action", "seq": 5, "distribution": None})
    assert (error.code, error.path) == (ErrorCode.SCHEMA_VIOLATION, "/action")
