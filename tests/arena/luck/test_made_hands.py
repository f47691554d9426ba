"""The made-hand term (:mod:`arena.luck.made_hands`): what a made hand is, that the term
sums to zero and vanishes where nothing can be bet, and that a street's average is over
the new cards (every one, or an unbiased sample of flops)."""

from __future__ import annotations

import itertools
import random
import statistics
from collections import Counter
from dataclasses import replace

import pytest

from arena.luck import estimate_hand
from arena.luck.equity import unseen_cards
from arena.luck.made_hands import FLOPS, MadeHandTerm, _one_card_chance, board_category, is_made
from arena.luck.timeline import TableState
from arena.luck.value import ValueFunction
from engine.cards import Card, parse_cards
from tests.arena.luck.play import random_record


def _cards(text: str) -> tuple:  # type: ignore[type-arg]
    return tuple(parse_cards(text))


@pytest.mark.parametrize(
    ("hole", "board", "made"),
    [
        ("Ks 7d", "Kh 7c 2s", True),  # two pair, both pairs the hand's
        ("Ks Qd", "Kh 7c 7s", True),  # a pair in the hand and one on the board
        ("Ks Qd", "Ah Ad 7c 7s", False),  # two pair on the board: everyone has it
        ("9s 9d", "Ah Kd 2c", False),  # one pair: not made
        ("9s 9d", "9h Kd 2c", True),  # a set
        ("Qs Jd", "Th 9d 8c", True),  # a straight on the flop
        ("2h 3h", "Ah Kh 7h", True),  # a flush
        ("2c 3d", "Ah Ad Ac Kd Kh", False),  # the board's full house plays
        ("Ks 2d", "Ah Ad Ac Kd 7h", True),  # a better full house of the hand's
    ],
)
def test_a_made_hand_is_two_pair_or_better_above_the_boards_own(
    hole: str, board: str, made: bool
) -> None:
    assert is_made(_cards(hole), _cards(board)) is made


def test_the_boards_own_category_counts_its_groups() -> None:
    assert board_category(_cards("2c 2d 2h")).name == "THREE_OF_A_KIND"
    assert board_category(_cards("2c 2d 9h 9s")).name == "TWO_PAIR"
    assert board_category(_cards("2c 5d 9h Js")).name == "HIGH_CARD"
    assert board_category(_cards("2c 3c 4c 5c 6c")).name == "STRAIGHT_FLUSH"


def _state(**changes: object) -> TableState:
    state = TableState(
        committed=(10, 10, 4),
        street=(0, 0, 0),
        stacks=(90, 190, 96),
        live=(True, True, False),
        hands=(_cards("Ks 7d"), _cards("Qs Jd"), _cards("2c 3d")),
        board=_cards("Kh 7c 2s"),
        dead=(0, 0, 0),
        out=frozenset(_cards("Ks 7d Qs Jd 2c 3d Kh 7c 2s")),
    )
    return replace(state, **changes)  # type: ignore[arg-type]


def test_the_term_goes_to_the_made_hand_from_every_live_seat_and_sums_to_zero() -> None:
    term = MadeHandTerm((0.5, 1.0, 1.0), {3: 2.0}, b"k")
    values = [0.0, 0.0, 0.0]
    term.add(values, _state())
    # Seat 0 holds two pair and leans 0.5: 0.5 * 2.0 * min(pot 24, behind 90) = 24 chips,
    # half of it from each live seat; seat 1 has no made hand, the folded seat 2 nothing.
    assert values == [12.0, -12.0, 0.0]
    assert sum(values) == 0.0


def test_the_term_is_zero_where_nothing_can_be_bet_or_nobody_leans() -> None:
    term = MadeHandTerm((1.0, 1.0, 1.0), {3: 2.0, 4: 2.0, 5: 2.0}, b"k")
    for state in (
        _state(stacks=(0, 190, 96)),  # seat 0 all-in: nothing behind for two live seats
        _state(live=(True, False, False)),  # one seat live: the hand is over
        _state(board=()),  # before the flop no hand is made
    ):
        values = [0.0, 0.0, 0.0]
        term.add(values, state)
        if state.board:  # (before the flop, the flop's average is not 0: it may come)
            term.add_expected(values, state, 4)
        assert values == [0.0, 0.0, 0.0]
    assert not MadeHandTerm((0.0, 0.0), {3: 2.0}, b"k").active
    assert not MadeHandTerm((1.0, 1.0), {3: 0.0}, b"k").active
    assert MadeHandTerm((0.0, 0.2), {5: -1.0}, b"k").active


@pytest.mark.parametrize("board_size", [4, 5])
def test_a_streets_average_is_over_every_card_that_could_come(board_size: int) -> None:
    before = _state(board=_cards("Kh 7c 2s 9d")[: board_size - 1])
    before = replace(before, out=before.out | frozenset(before.board))
    term = MadeHandTerm((1.0, 0.7, 0.0), {4: 3.0, 5: -1.5}, b"k")
    total = [0.0, 0.0, 0.0]
    cards = unseen_cards(before.out)
    for card in cards:
        after = replace(before, board=(*before.board, card), out=before.out | {card})
        values = [0.0, 0.0, 0.0]
        term.add(values, after)
        total = [t + v / len(cards) for t, v in zip(total, values, strict=True)]
    expected = [0.0, 0.0, 0.0]
    term.add_expected(expected, before, board_size)
    assert total == pytest.approx(expected, abs=1e-12)
    assert any(expected)


def test_the_flops_sample_is_an_unbiased_estimate_of_the_chance_over_every_flop() -> None:
    before = _state(board=())
    hole = before.hands[1]
    exact = MadeHandTerm((1.0, 1.0, 0.0), {3: 1.0}, b"k", exact=True)
    truth = exact.made_chance(before, hole, 3)
    flops = list(itertools.combinations(unseen_cards(before.out), 3))
    assert truth == pytest.approx(sum(is_made(hole, f) for f in flops) / len(flops))
    # Each hand's own stream gives another sample of FLOPS flops; over many hands their
    # mean is the exact chance (within 4 standard errors; fixed keys, so no flake).
    sampled = [
        MadeHandTerm((1.0, 1.0, 0.0), {3: 1.0}, b"hand %d" % n).made_chance(before, hole, 3)
        for n in range(200)
    ]
    error = statistics.stdev(sampled) / len(sampled) ** 0.5
    assert abs(statistics.fmean(sampled) - truth) < 4 * error
    assert len({round(s * FLOPS) for s in sampled}) > 3  # the samples differ


def test_without_leans_the_estimate_is_the_value_without_the_term() -> None:
    for seed in range(8):
        record = random_record(seed, seat_count=3, mixed=seed % 2 == 0)
        plain = estimate_hand(record)
        assert estimate_hand(record, None, {}) == plain
        assert estimate_hand(record, None, {"p0": 0.0, "nobody": 1.0}) == plain


def test_leans_move_the_estimate_and_keep_it_zero_sum() -> None:
    moved = 0
    for seed in range(12):
        record = random_record(seed, seat_count=3, stacks=(200,))
        leaning = estimate_hand(record, None, {"p0": 1.0, "p1": 0.3})
        assert sum(leaning.adjusted) == pytest.approx(sum(leaning.raw), abs=1e-9)
        moved += leaning.adjusted != estimate_hand(record).adjusted
    assert moved


def test_a_value_function_for_draw_poker_has_no_made_hand_term() -> None:
    value = ValueFunction(variant="five_card_draw", unit=2, key=b"k", leans=(1.0, 1.0))
    assert value.made is None


def test_a_one_card_street_tests_each_rank_once_with_the_same_chance() -> None:
    # Cards of one rank whose suit can make no flush give the same answer: the chance over
    # the turn or river is counted rank by rank, and must be the plain count over cards.
    rng = random.Random(4)
    flushes = 0
    for _ in range(300):
        cards = rng.sample(range(52), 2 + rng.choice((3, 4)))
        hole, board = tuple(Card(c) for c in cards[:2]), tuple(Card(c) for c in cards[2:])
        pool = [Card(c) for c in range(52) if c not in cards]
        plain = sum(is_made(hole, (*board, card)) for card in pool) / len(pool)
        assert _one_card_chance(hole, board, pool) == plain
        flushes += max(Counter(c & 3 for c in cards).values()) >= 4
    assert flushes  # some states could make a flush: their suits were told apart
