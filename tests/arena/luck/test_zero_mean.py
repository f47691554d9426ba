"""Proof that every correction term averages to zero: on recorded hands, at every street,
every card the dealer could have dealt (and every action of a reported distribution) is
enumerated and the probability-weighted terms must sum to zero. The equities here are
exact (one or two board cards to come, five-card-draw showdowns).

The value function is checked with its frozen betting term, without it (the chips already
in only), and with large made-up weights on every feature that differ by street: with
those the average over a street's cards is not the value just before it, so a test that
passes with them checks the average the estimator computes, not the fair-game shortcut.
Every seat but one leans (:data:`LEANS`), so the made-hand term, which is no fair game over
the cards at all, is in every proof but the chips-only one."""

from __future__ import annotations

import functools
import itertools
from dataclasses import replace

import pytest

from arena.luck import estimate_hand
from arena.luck.equity import unseen_cards
from arena.luck.parameters import BETTING_WEIGHTS, SHIPPED_VALUE, LuckValue
from arena.luck.timeline import ChanceStep, TableState, walk_history
from arena.luck.value import ValueFunction, betting_features, betting_scale
from arena.luck.value_fit import fit_value, unit_row
from tests.arena.luck.play import random_record

#: Betting weights by board size and feature, large and different per street (see the
#: docstring).
MADE_UP = {
    0: {"raised": 2.5, "to_call": -1.5, "last_raised": 0.0},
    3: {"raised": -1.0, "to_call": 2.0, "last_raised": 1.2, "made_hand": 3.0},
    4: {"raised": 0.7, "to_call": 0.5, "last_raised": -2.0, "made_hand": -2.0},
    5: {"raised": 1.5, "to_call": -0.8, "last_raised": 3.0, "made_hand": 4.0},
}
#: Each position's lean (the made-hand term's weight per seat): seat 2 leans not at all.
LEANS = (1.0, 0.4, 0.0, 0.7)
#: The same by player id, as the estimator takes them.
LEANS_BY_ID = {f"p{position}": lean for position, lean in enumerate(LEANS)}


@functools.cache
def _fitted() -> LuckValue:
    """Weights fitted by the ladder's and the bench's fit (:mod:`arena.luck.value_fit`) on
    random heads-up hands (each its own unit, one group): not the shipped ones."""
    rows = [
        unit_row([(random_record(seed, stacks=(100, 100)), 0, LEANS_BY_ID)]) for seed in range(24)
    ]
    return fit_value([rows])


#: The weights each proof runs with, by name (see the docstring; "fitted": :func:`_fitted`).
WEIGHT_NAMES = ("frozen", "none", "made-up", "fitted")


def _weights(name: str) -> LuckValue | dict[int, dict[str, float]] | None:
    """The betting weights named ``name``, as :class:`ValueFunction` takes them."""
    given = {"frozen": BETTING_WEIGHTS, "none": None, "made-up": MADE_UP}
    return _fitted() if name == "fitted" else given[name]


def test_the_fitted_weights_of_the_proofs_are_not_the_shipped_ones() -> None:
    # The "fitted" proofs check a value the fit made (what the ladder plays with), so it
    # must differ from the shipped one and from none.
    assert _fitted() not in (SHIPPED_VALUE, LuckValue({}))


def _street_steps(
    variant: str, seat_count: int, board_size: int, weights: str = "frozen"
) -> list[tuple[ValueFunction, ChanceStep]]:
    """Street steps dealing the board to ``board_size`` cards, from random hands: two
    where chips were raised (and chips are behind), one of calling stations (no chips
    raised)."""
    found: list[tuple[ValueFunction, ChanceStep]] = []
    for policy, wanted in (("random", 2), ("call", 1)):
        count = 0
        for seed in range(400):
            record = random_record(seed, variant=variant, seat_count=seat_count, policy=policy)
            timeline = walk_history(record["history"])
            value = ValueFunction(
                variant=timeline.variant,
                unit=timeline.unit,
                key=timeline.key,
                exact=True,
                betting=_weights(weights),
                street_pots=timeline.street_pots,
                leans=LEANS[:seat_count],
            )
            for step in timeline.steps:
                if (
                    isinstance(step, ChanceStep)
                    and step.kind == "street"
                    and len(step.after.board) == board_size
                    and (
                        policy == "call"
                        or betting_features(step.before, timeline.unit)["raised"] > 0
                    )
                ):
                    found.append((value, step))
                    count += 1
            if count >= wanted:
                break
        assert count, f"no {policy} hand reached that street"
    return found


def _dealt(state: TableState, cards: tuple) -> TableState:  # type: ignore[type-arg]
    return replace(state, board=state.board + cards, out=state.out | frozenset(cards))


@pytest.mark.parametrize("weights", WEIGHT_NAMES)
@pytest.mark.parametrize(("seat_count", "board_size"), [(2, 5), (3, 5), (2, 4), (4, 4)])
def test_the_board_terms_average_to_zero_over_every_card_that_could_have_come(
    seat_count: int, board_size: int, weights: str
) -> None:
    # E over the street's cards of v(after) is the street expectation the estimator
    # subtracts, so its term v(after) - expectation has mean zero.
    made_terms = 0
    for value, step in _street_steps("holdem", seat_count, board_size, weights):
        expected = value.street_expectation(step.before, board_size)
        pool = unseen_cards(step.before.out)
        dealt = len(step.after.board) - len(step.before.board)
        outcomes = list(itertools.combinations(pool, dealt))
        total = [0.0] * len(expected)
        for cards in outcomes:
            for position, v in enumerate(value.value(_dealt(step.before, cards))):
                total[position] += v / len(outcomes)
        assert total == pytest.approx(expected, abs=1e-9)
        if sum(step.after.live) >= 2:
            assert value.value(step.after) != pytest.approx(expected)  # the cards mattered
        if weights == "none":  # the chips already in are a fair game over the cards
            assert expected == value.value(step.before)
        else:
            assert value.made is not None
            made_terms += any(value.made_expectation(step.before, board_size))
    # The made-hand term is in the proof (one card may not make a made hand: not always).
    assert made_terms or weights == "none"


def test_with_betting_weights_that_change_by_street_the_shortcut_would_be_biased() -> None:
    # The value just before a street is not the average over its cards once the betting
    # term's weights change with the street: the estimator must not use it.
    differs = 0
    for value, step in _street_steps("holdem", 2, 4, "made-up"):
        expected = value.street_expectation(step.before, 4)
        differs += value.value(step.before) != pytest.approx(expected, abs=1e-6)
    assert differs


@pytest.mark.slow
def test_the_flop_term_averages_to_zero_over_every_flop() -> None:
    step = _street_steps("holdem", 2, 3)[0][1]
    expected_by_flop = []
    pool = unseen_cards(step.before.out)
    exact = ValueFunction(variant="holdem", unit=2, key=b"exact", exact=True)
    for flop in itertools.combinations(pool, 3):
        expected_by_flop.append(exact.value(_dealt(step.before, flop)))
    mean = [sum(v[p] for v in expected_by_flop) / len(expected_by_flop) for p in range(2)]
    # The exact pre-flop equity: every completion of the board from the same pool, put
    # into the betting term with the flop's weights.
    board_total = [0.0, 0.0]
    boards = list(itertools.combinations(pool, 5))
    chips = ValueFunction(variant="holdem", unit=2, key=b"exact", exact=True, betting=None)
    for board in boards:
        for position, v in enumerate(chips.value(_dealt(step.before, board))):
            board_total[position] += v / len(boards)
    equity = board_total[0] + step.before.committed[0]  # seat 0's share of the pot
    edge = equity / sum(step.before.committed) - 0.5
    scale = betting_scale(step.before, BETTING_WEIGHTS[3], 2)
    expected = [board_total[0] + edge * scale, board_total[1] - edge * scale]
    assert mean == pytest.approx(expected, abs=1e-9)
    # What the estimator subtracts, with the pre-flop table's exact equity, is that average.
    assert exact.street_expectation(step.before, 3) == pytest.approx(expected, abs=1e-9)


def test_the_made_hand_terms_flop_average_is_over_every_flop() -> None:
    # The made-hand term is no fair game over the cards: the flop's average must be its
    # average over every flop the dealer could deal (exact mode enumerates them; the
    # estimator's 64 sampled flops are an unbiased estimate of it, test_made_hands).
    checked = 0
    for value, step in _street_steps("holdem", 2, 3, "made-up"):
        assert value.made is not None
        flops = list(itertools.combinations(unseen_cards(step.before.out), 3))
        total = [0.0, 0.0]
        for flop in flops:
            for position, v in enumerate(value.made_value(_dealt(step.before, flop))):
                total[position] += v / len(flops)
        expected = value.made_expectation(step.before, 3)
        assert total == pytest.approx(expected, abs=1e-9)
        checked += any(expected)
    assert checked


def test_the_draw_term_averages_to_zero_over_every_replacement() -> None:
    checked = 0
    for seed in range(60):
        record = random_record(seed, variant="five_card_draw", seat_count=3, policy="call")
        timeline = walk_history(record["history"])
        value = ValueFunction(variant=timeline.variant, unit=timeline.unit, key=timeline.key)
        for step in timeline.steps:
            if not (isinstance(step, ChanceStep) and step.kind == "draw"):
                continue
            assert step.position is not None
            before, after = step.before, step.after
            drawn = [c for c in after.hands[step.position] if c not in before.hands[step.position]]
            if len(drawn) > 2:
                continue
            kept = tuple(c for c in after.hands[step.position] if c not in drawn)
            options = list(itertools.combinations(unseen_cards(before.out), len(drawn)))
            total = [0.0] * len(after.live)
            for cards in options:
                hands = list(after.hands)
                hands[step.position] = kept + cards
                state = replace(after, hands=tuple(hands))
                for position, v in enumerate(value.value(state)):
                    total[position] += v / len(options)
            expected = value.draw_expectation(before, after, step.position)
            assert total == pytest.approx(expected, abs=1e-9)
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize("weights", WEIGHT_NAMES)
def test_the_action_term_averages_to_zero_under_the_reported_distribution(
    weights: str,
) -> None:
    # Replace the drawn action by each action of the distribution in turn: weighted by the
    # distribution, the adjusted results equal those of the hand with no distribution.
    # The shipped weights as the estimator's default; any other passed as its value.
    chosen = _weights(weights)
    luck_value = (
        None
        if weights == "frozen"
        else chosen
        if isinstance(chosen, LuckValue)
        else LuckValue(chosen or {})
    )
    checked = 0
    for seed in range(16):
        record = random_record(seed, seat_count=3, mixed=True)
        for index, decision in enumerate(record["decisions"]):
            distribution = decision.get("distribution")
            if not distribution:
                continue
            plain = {**record, "decisions": [dict(d) for d in record["decisions"]]}
            del plain["decisions"][index]["distribution"]
            others = [d for i, d in enumerate(record["decisions"]) if i != index]
            baseline = estimate_hand(
                {
                    **record,
                    "decisions": [
                        {k: v for k, v in d.items() if k != "distribution"} if i == index else d
                        for i, d in enumerate(record["decisions"])
                    ],
                },
                luck_value,
                LEANS_BY_ID,
            )
            weighted = [0.0] * len(baseline.adjusted)
            for entry in distribution:
                decisions = [dict(d) for d in record["decisions"]]
                decisions[index]["action"] = entry["action"]
                adjusted = estimate_hand(
                    {**record, "decisions": decisions}, luck_value, LEANS_BY_ID
                ).adjusted
                for position, a in enumerate(adjusted):
                    weighted[position] += entry["probability"] * a
            assert weighted == pytest.approx(list(baseline.adjusted), abs=1e-9)
            assert others is not None
            checked += 1
            break
    assert checked >= 6


@pytest.mark.parametrize("weights", WEIGHT_NAMES)
@pytest.mark.parametrize(
    ("variant", "seat_count"), [("holdem", 3), ("holdem", 2), ("five_card_draw", 3)]
)
def test_the_deal_term_averages_to_zero_over_every_way_to_seat_the_dealt_hands(
    variant: str, seat_count: int, weights: str
) -> None:
    # Every deal is as likely as the same hands given to the seats in another order, so
    # averaging v over the permutations of one deal's hands is averaging over deals: it
    # must give the estimator's expectation (an equal share of each pot it may win).
    # Heads-up hold'em's values before the flop are the pre-flop table's exact equities.
    for seed in range(3):
        record = random_record(seed, variant=variant, seat_count=seat_count)
        timeline = walk_history(record["history"])
        value = ValueFunction(
            variant=timeline.variant,
            unit=timeline.unit,
            key=timeline.key,
            betting=_weights(weights),
            leans=LEANS[:seat_count],
        )
        step = next(s for s in timeline.steps if isinstance(s, ChanceStep) and s.kind == "deal")
        after = step.after
        orders = list(itertools.permutations(after.hands))
        total = [0.0] * len(after.live)
        for hands in orders:
            for position, v in enumerate(value.value(replace(after, hands=hands))):
                total[position] += v / len(orders)
        assert total == pytest.approx(value.dealt_expectation(after), abs=1e-9)
