"""The value function's betting term: its features, when it is at work, and that it is
zero-sum."""

from __future__ import annotations

import json
import pickle
from dataclasses import replace

import pytest

from arena.luck import ESTIMATOR, SHIPPED_VALUE, LuckValue, estimate_hand, estimator_name, value
from arena.luck.parameters import BETTING_WEIGHTS
from arena.luck.timeline import TableState
from arena.luck.value import ValueFunction, betting_features, betting_scale
from engine.cards import parse_cards
from tests.arena.luck.play import random_record

ACES, KINGS = tuple(parse_cards("As Ah")), tuple(parse_cards("Ks Kh"))


def _state(
    committed: tuple[int, ...], stacks: tuple[int, ...], live: tuple[bool, ...]
) -> TableState:
    hands = (ACES, KINGS, tuple(parse_cards("2c 7d")))[: len(committed)]
    return TableState(
        committed=committed,
        street=(0,) * len(committed),
        stacks=stacks,
        live=live,
        hands=hands,
        board=tuple(parse_cards("3c 8d Jh")),
        dead=(0,) * len(committed),
        out=frozenset(card for hand in hands for card in hand) | frozenset(parse_cards("3c 8d Jh")),
    )


def test_the_raised_feature_needs_chips_raised_and_chips_behind() -> None:
    raised = {"raised": 3.0}
    # Blinds and a call (two big blinds in all) raise nothing.
    assert betting_scale(_state((2, 2), (198, 198), (True, True)), raised, 2) == 0.0
    # Raised 20 - 4 = 16, both can still bet 150: 16 chips at work.
    assert betting_scale(_state((10, 10), (150, 190), (True, True)), raised, 2) == 48.0
    # An all-in player leaves nothing to bet against it; a lone player nobody to bet with.
    assert betting_scale(_state((10, 10), (0, 190), (True, True)), raised, 2) == 0.0
    assert betting_scale(_state((10, 10), (150, 190), (True, False)), raised, 2) == 0.0
    # The raise is capped by what two players still in can both bet.
    assert betting_scale(_state((100, 100), (8, 100), (True, True)), {"raised": 1.0}, 2) == 8.0


def test_the_features_count_public_chips_only() -> None:
    state = replace(
        _state((30, 10, 30), (150, 190, 90), (True, True, True)),
        street=(20, 0, 20),
        last_raised=50,
    )
    features = betting_features(state, 2)
    # to_call: the most a live seat is short of the bet.
    assert features == {"raised": 66, "to_call": 20, "last_raised": 50}
    # A seat short of the bet calls at most its stack; a folded seat is not asked.
    short = replace(state, stacks=(150, 5, 90))
    assert betting_features(short, 2)["to_call"] == 5
    assert betting_features(replace(state, live=(True, False, True)), 2)["to_call"] == 0
    # What the last round raised is capped by what two live seats can both still bet.
    assert betting_features(replace(state, last_raised=500), 2)["last_raised"] == 150
    # The cards change none of them.
    assert betting_features(replace(state, hands=((), (), ())), 2) == features
    # The scale is the weighted sum; a feature without a weight weighs nothing.
    assert betting_scale(state, {"raised": 0.5, "to_call": 2.0}, 2) == 33 + 40
    assert betting_scale(state, {}, 2) == 0.0


def test_a_weight_for_a_feature_that_does_not_exist_is_a_clear_error() -> None:
    state = _state((10, 10), (150, 190), (True, True))
    with pytest.raises(ValueError, match="'pot'"):
        betting_scale(state, {"raised": 1.0, "pot": 2.0}, 2)
    with pytest.raises(ValueError, match="'pot'"):
        ValueFunction(variant="holdem", unit=2, key=b"t", betting={3: {"pot": 1.0}})


def test_the_betting_term_moves_value_to_the_better_hand_and_sums_to_zero() -> None:
    state = _state((10, 10, 10), (150, 190, 90), (True, True, True))
    chips_only = ValueFunction(variant="holdem", unit=2, key=b"t", betting=None).value(state)
    flop = {"raised": 2.0, "to_call": 0.5}
    weights = {0: {}, 3: flop, 4: {}, 5: {}}
    value = ValueFunction(variant="holdem", unit=2, key=b"t", betting=weights)
    betting = value.value(state)
    edges = value.equity_edges(state)
    assert sum(edges.values()) == pytest.approx(0.0, abs=1e-12)
    scale = betting_scale(state, flop, 2)
    assert betting == pytest.approx([c + edges[p] * scale for p, c in enumerate(chips_only)])
    assert betting[0] > chips_only[0] and sum(betting) == pytest.approx(0.0, abs=1e-9)


def test_with_one_seat_live_there_is_no_equity_edge() -> None:
    value = ValueFunction(variant="holdem", unit=2, key=b"t")
    assert value.equity_edges(_state((10, 10), (150, 190), (True, False))) == {}


def test_five_card_draw_has_no_betting_term() -> None:
    value = ValueFunction(variant="five_card_draw", unit=2, key=b"t", betting={0: {"behind": 5.0}})
    assert value.betting is None


def _with_pot(state: TableState, each: int) -> TableState:
    return replace(state, committed=(each, each), stacks=(200 - each, 200 - each))


def test_every_state_on_a_street_reads_the_boards_its_pot_as_played_sets() -> None:
    # A hypothetical all-in is valued with the street's sample (set by the pot the hand
    # reached on it), not with one of its own: its equity is the small pot's, bit for bit.
    # (Three hands: two hands' pre-flop equities are exact, from the table.)
    small = _state((2, 2, 2), (198, 198, 198), (True, True, True))
    small = replace(small, board=(), out=frozenset(card for hand in small.hands for card in hand))
    shove = replace(small, committed=(200, 200, 200), stacks=(0, 0, 0))
    played = ValueFunction(variant="holdem", unit=2, key=b"t", street_pots={0: 6})
    assert played.equity_edges(shove) == played.equity_edges(small)
    # Without the street's pot each state samples by its own pot: the all-in reads more
    # boards, so its equity differs.
    alone = ValueFunction(variant="holdem", unit=2, key=b"t")
    assert alone.equity_edges(shove) != alone.equity_edges(small)
    # The street's own pot: the all-in's sample is the one a pot that size reads.
    big = ValueFunction(variant="holdem", unit=2, key=b"t", street_pots={0: 600})
    assert big.equity_edges(small) == alone.equity_edges(shove)


def test_a_streets_value_carries_over_only_when_nothing_changed_and_the_betting_agrees() -> None:
    before = _state((2, 2), (198, 198), (True, True))
    weights = {0: {}, 3: {"raised": 2.0}, 4: {"raised": 1.0}, 5: {"raised": 1.0}}
    value = ValueFunction(variant="holdem", unit=2, key=b"t", betting=weights)
    # Nothing raised: no betting part, whatever the weights.
    assert value.carries_over(before, before, 4)
    # What the last round raised is still at work after a street checked through: the
    # same only with the same weight on both streets.
    last = {0: {}, 3: {"last_raised": 0.1}, 4: {"last_raised": 0.2}, 5: {"last_raised": 0.2}}
    after_a_raise = replace(before, last_raised=10)
    value_last = ValueFunction(variant="holdem", unit=2, key=b"t", betting=last)
    assert not value_last.carries_over(after_a_raise, after_a_raise, 4)
    river = replace(after_a_raise, board=tuple(parse_cards("3c 8d Jh 2s")))
    assert value_last.carries_over(river, river, 5)
    # A chip put in, or a fold, between them: the pots or the seats differ.
    assert not value.carries_over(before, _with_pot(before, 3), 4)
    assert not value.carries_over(before, replace(before, live=(True, False)), 4)
    # Chips raised: the betting part is the same only with the same weight.
    raised = _state((10, 10), (150, 190), (True, True))
    assert not value.carries_over(raised, raised, 4)
    assert ValueFunction(variant="holdem", unit=2, key=b"t", betting=weights).carries_over(
        replace(raised, board=tuple(parse_cards("3c 8d Jh 2s"))),
        replace(raised, board=tuple(parse_cards("3c 8d Jh 2s"))),
        5,
    )
    chips_only = ValueFunction(variant="holdem", unit=2, key=b"t", betting=None)
    assert chips_only.carries_over(raised, raised, 4)
    # Whenever it says so, the two values are the same numbers.
    assert value.value(before) == value.street_expectation(before, 4)


def test_a_luck_value_holds_every_weight_and_is_named_by_its_weights() -> None:
    value = LuckValue({3: {"to_call": 1.25}})
    assert value.weights[3] == {
        "raised": 0.0,
        "to_call": 1.25,
        "last_raised": 0.0,
        "made_hand": 0.0,
    }
    assert value.weights[0] == {"raised": 0.0, "to_call": 0.0, "last_raised": 0.0, "made_hand": 0.0}
    assert value.made == {0: 0.0, 3: 0.0, 4: 0.0, 5: 0.0}
    assert LuckValue({4: {"made_hand": 2.5}}).made[4] == 2.5
    # Equal weights are one value (one hash, one estimator name), whoever wrote them.
    same = LuckValue({3: {"to_call": 1.25, "raised": 0}, 5: {}})
    assert same == value and hash(same) == hash(value) and same.digest == value.digest
    assert value != LuckValue({3: {"to_call": 1.5}}) and value != value.weights
    assert LuckValue.from_dict(json.loads(json.dumps(value.to_dict()))) == value
    assert pickle.loads(pickle.dumps(value)) == value  # (it rides to a match's process)
    assert repr(value) == f"LuckValue(#{value.digest})"
    with pytest.raises(AttributeError, match="immutable"):
        value.digest = "x"


def test_the_shipped_value_keeps_the_shipped_estimator_name_and_another_value_has_its_own() -> None:
    assert SHIPPED_VALUE.weights == BETTING_WEIGHTS
    assert estimator_name(SHIPPED_VALUE) == estimator_name() == ESTIMATOR
    assert ESTIMATOR == "chance-equity/6#a9dbe1f4"  # the published name did not move
    other = estimator_name(LuckValue({}))
    assert other.startswith("chance-equity/6#") and other != ESTIMATOR


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([1.0], "betting weights must be a mapping by street"),
        ({2: {}}, r"not streets \(board sizes\): \[2\]"),
        ({0: [1.0]}, "street 0's weights must be a mapping"),
        ({4: {"raised": float("nan")}}, "street 4's 'raised' weight is not a number: nan"),
        ({4: {"raised": True}}, "street 4's 'raised' weight is not a number: True"),
        ({4: {"pot": 1.0}}, "not value weights: .'pot'."),
        ({4: {"made_hand": "x"}}, "street 4's 'made_hand' weight is not a number: 'x'"),
    ],
)
def test_bad_betting_weights_are_named(weights: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LuckValue(weights)  # type: ignore[arg-type]


def test_the_value_function_weighs_the_betting_term_by_a_luck_value_as_by_its_weights() -> None:
    state = _state((10, 10), (150, 190), (True, True))
    weights = {0: {"raised": 1.5}, 3: {}, 4: {}, 5: {}}
    by_value = ValueFunction(variant="holdem", unit=2, key=b"t", betting=LuckValue(weights))
    by_mapping = ValueFunction(variant="holdem", unit=2, key=b"t", betting=weights)
    assert by_value.value(state) == by_mapping.value(state)


def test_the_pots_kept_from_hand_to_hand_are_bounded_and_change_no_estimate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The showdown pots are kept across hands (the same few recur); the memory is bounded
    # by emptying it when full, which must not change a single number.
    records = [random_record(seed, seat_count=3, mixed=True) for seed in range(12)]
    value._SHOWDOWN_POTS.clear()
    roomy = [estimate_hand(record) for record in records]
    monkeypatch.setattr(value, "_SHOWDOWN_POTS_KEPT", 2)
    value._SHOWDOWN_POTS.clear()
    cramped = []
    for record in records:
        cramped.append(estimate_hand(record))
        assert len(value._SHOWDOWN_POTS) <= 2
    assert cramped == roomy
