"""The table of exact heads-up pre-flop equities: its classes, its counts and its use."""

from __future__ import annotations

import itertools
import random
from array import array
from bisect import bisect_left
from pathlib import Path

import numpy as np
import pytest

from arena.luck import equity, preflop
from arena.luck.equity import pot_shares
from arena.luck.fast_ranks import dense_classes
from arena.luck.parameters import PARAMETERS
from arena.luck.timeline import TableState
from arena.luck.value import ValueFunction
from engine._eval_tables import CARD_KEYS, FIRST_CARD_KEYS, FLUSH_BITS, RANK_SHIFT
from engine.cards import FULL_DECK, Card
from engine.evaluator import rank_class

Hole = tuple[Card, Card]


def _random_hands(rng: random.Random) -> tuple[Hole, Hole]:
    a, b, c, d = rng.sample(FULL_DECK, 4)
    return (a, b), (c, d)


def _relabel(hole: Hole, suits: tuple[int, ...]) -> Hole:
    a, b = hole
    return Card((a & ~3) | suits[a & 3]), Card((b & ~3) | suits[b & 3])


def test_a_class_is_the_same_for_every_renaming_of_the_suits_and_order_of_the_cards() -> None:
    rng = random.Random(5)
    for _ in range(40):
        first, second = _random_hands(rng)
        key, swapped = preflop.class_key(first, second)
        for suits in itertools.permutations(range(4)):
            one, other = _relabel(first, suits), _relabel(second, suits)
            assert preflop.class_key(one[::-1], other) == (key, swapped)
            # The other way round, the other hand is the class's first (unless the two
            # orders are one class: then the hands are alike and share evenly).
            back_key, back_swapped = preflop.class_key(other, one)
            assert back_key == key and (back_swapped != swapped or not swapped)


def test_hands_that_no_renaming_of_suits_makes_alike_are_different_classes() -> None:
    ace, king = Card.parse("As"), Card.parse("Kh")
    queens = (Card.parse("Qs"), Card.parse("Qh"))
    suited = preflop.class_key((ace, Card.parse("Ks")), queens)[0]
    assert preflop.class_key((ace, king), queens)[0] != suited


def test_the_table_holds_every_class_once_with_its_counts_and_its_published_digest() -> None:
    keys, wins, ties = preflop.load_table()
    assert len(keys) == 47_008  # the classes of the 812,175 pairs of hands
    assert list(keys) == sorted(set(keys))
    assert all(w + t <= preflop.BOARDS for w, t in zip(wins, ties, strict=True))
    assert preflop.table_digest() == PARAMETERS["heads_up_preflop_sha256"]
    rng = random.Random(9)
    for _ in range(300):  # a pair of hands' class is one of the table's
        key = preflop.class_key(*_random_hands(rng))[0]
        assert keys[bisect_left(keys, key)] == key


def _counted(first: Hole, second: Hole) -> tuple[int, int]:
    """``first``'s wins and ties against ``second`` over every board, counted here: the
    boards' card-key sums in numpy, each seven cards' class from the evaluator's
    (non-flush classes by the rank-key sum, every flush by ``rank_class``)."""
    live = [card for card in FULL_DECK if card not in first + second]
    boards = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(48), 5)),
        dtype=np.int64,
        count=preflop.BOARDS * 5,
    ).reshape(-1, 5)
    sums = np.asarray([CARD_KEYS[card] for card in live], dtype=np.int64)[boards].sum(axis=1)
    seven = np.frombuffer(dense_classes(), dtype=np.uint16)
    classes = []
    for hole in (first, second):
        totals = sums + FIRST_CARD_KEYS[hole[0]] + CARD_KEYS[hole[1]]
        ranks = seven[totals >> RANK_SHIFT].astype(np.int64)
        for index in np.flatnonzero(totals & FLUSH_BITS):
            ranks[index] = rank_class((*hole, *(live[i] for i in boards[index])))
        classes.append(ranks)
    return int((classes[0] < classes[1]).sum()), int((classes[0] == classes[1]).sum())


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("Ah", "Kh"), ("Qs", "Qc")),  # a suited hand against a pair: flushes on both sides
        (("7d", "6d"), ("7h", "6h")),  # mostly ties, each with its own flushes
    ],
)
def test_a_class_counts_what_every_board_gives(
    first: tuple[str, str], second: tuple[str, str]
) -> None:
    one = (Card.parse(first[0]), Card.parse(first[1]))
    other = (Card.parse(second[0]), Card.parse(second[1]))
    wins, ties = _counted(one, other)
    share = preflop.first_share(one, other)
    assert share == (wins + 0.5 * ties) / preflop.BOARDS
    # The other way round, from the same row of the table.
    assert preflop.first_share(other, one) == (preflop.BOARDS - wins - ties + 0.5 * ties) / (
        preflop.BOARDS
    )


@pytest.mark.slow
def test_random_classes_count_what_every_board_gives() -> None:
    rng = random.Random(3)
    for _ in range(8):
        first, second = _random_hands(rng)
        wins, ties = _counted(first, second)
        assert preflop.first_share(first, second) == (wins + 0.5 * ties) / preflop.BOARDS


def _state(hands: tuple[tuple[Card, ...], ...], live: tuple[bool, ...]) -> TableState:
    count = len(hands)
    dealt = frozenset(card for hand in hands for card in hand)
    return TableState(
        committed=(2,) * count,
        street=(0,) * count,
        stacks=(100,) * count,
        live=live,
        hands=hands,
        board=(),
        dead=(0,) * count,
        out=dealt,
    )


def test_a_heads_up_pot_before_the_flop_is_valued_at_the_tables_exact_equity() -> None:
    hands = ((Card.parse("Ah"), Card.parse("Kh")), (Card.parse("Qs"), Card.parse("Qc")))
    state = _state(hands, (True, True))
    value = ValueFunction(variant="holdem", unit=2, key=b"t", betting=None)
    share = preflop.first_share(*hands)
    assert value.value(state) == [4 * share - 2, 4 * (1.0 - share) - 2]


def test_three_hands_dealt_are_still_sampled_one_folded_or_not() -> None:
    # With a third hand dealt its cards are out of the deck: the table (two hands, 48
    # cards left) does not hold that equity, so the boards are sampled.
    hands = (
        (Card.parse("Ah"), Card.parse("Kh")),
        (Card.parse("Qs"), Card.parse("Qc")),
        (Card.parse("Qh"), Card.parse("Qd")),
    )
    value = ValueFunction(variant="holdem", unit=2, key=b"t", betting=None)
    state = _state(hands, (True, True, False))
    chips = value.value(state)
    table = preflop.first_share(*hands[:2])
    assert chips[0] != 6 * table - 2
    shares = pot_shares(value._member_ranks(state, [0, 1], 6), [0, 1])
    assert chips[:2] == [6 * shares[0] - 2, 6 * shares[1] - 2]


def test_the_shares_kept_are_bounded_and_a_missing_class_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hands = [_random_hands(random.Random(seed)) for seed in range(5)]
    roomy = [preflop.first_share(*pair) for pair in hands]
    monkeypatch.setattr(preflop, "_SHARES_KEPT", 2)
    preflop._SHARES.clear()
    assert [preflop.first_share(*pair) for pair in hands] == roomy
    assert len(preflop._SHARES) <= 2
    preflop._SHARES.clear()
    empty = (array("I"), array("I"), array("I"))
    monkeypatch.setattr(preflop, "load_table", lambda: empty)
    with pytest.raises(LookupError, match="no pre-flop class 0x"):
        preflop.first_share(*hands[0])
    preflop._SHARES.clear()


def test_a_table_that_is_not_the_published_one_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    other = tmp_path / "table.bin"
    other.write_bytes(preflop.TABLE_FILE.read_bytes()[:-12])
    monkeypatch.setattr(preflop, "TABLE_FILE", other)
    preflop.load_table.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="not the published table"):
            preflop.load_table()
    finally:
        preflop.load_table.cache_clear()


def test_prepare_makes_the_pre_flop_sample_design_only_where_pre_flop_is_sampled() -> None:
    # Two players' pre-flop equities are the table's: only the flop's design is made
    # (the 46 cards left after three hands make the pre-flop one for three players).
    equity._design.cache_clear()
    equity.prepare(2)
    assert equity._design.cache_info().currsize == 1
    equity.prepare(3)
    assert equity._design.cache_info().currsize == 3
