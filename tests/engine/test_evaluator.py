"""engine.evaluator: known hands, the rules behind them, bad input, and treys as an oracle."""

from __future__ import annotations

import operator
import random
import re
import subprocess
import sys
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement

import pytest
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from engine._eval_tables import FIVE_NONFLUSH_CLASSES, FLUSH_CLASSES, NONFLUSH_CLASSES, fill_tables
from engine.cards import FULL_DECK, Card, parse_cards
from engine.evaluator import (
    HandCategory,
    HandRank,
    InvalidHandError,
    best_hand_indexes,
    category_of,
    compare_hands,
    evaluate,
    hand_description,
    rank_class,
)
from tests import REPO_ROOT

_TREYS_CARDS = [TreysCard.new(str(card)) for card in FULL_DECK]
_TREYS = TreysEvaluator()


def treys_class(cards: Sequence[Card]) -> int:
    """treys' class number (same 1..7462 convention) for 5, 6 or 7 cards."""
    converted = [_TREYS_CARDS[card] for card in cards]
    return int(_TREYS.evaluate(converted[:2], converted[2:]))


def random_hands(count: int, card_count: int, seed: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(FULL_DECK, card_count)) for _ in range(count)]


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def shown(five: Sequence[Card]) -> str:
    return " ".join(str(card) for card in five)


@pytest.fixture(scope="module")
def seven_card_sample() -> tuple[list[tuple[Card, ...]], list[int]]:
    """100,000 random 7-card hands and treys' class for each (treys is slow: compute once)."""
    hands = random_hands(100_000, 7, seed=7)
    return hands, [treys_class(hand) for hand in hands]


# --- known hands, one per category -------------------------------------------------------

CATEGORY_EXAMPLES = [
    # cards, category, description, best five in order
    ("As Ks Qs Js Ts 2d 3c", HandCategory.STRAIGHT_FLUSH, "royal flush", "As Ks Qs Js Ts"),
    ("9h 8h 7h 6h 5h Kd Kc", HandCategory.STRAIGHT_FLUSH, "straight flush, nine high", None),
    ("Ac Ad Ah As Kd 7c 2s", HandCategory.FOUR_OF_A_KIND, "four of a kind, aces", None),
    ("Qs Qh Qd 4c 4s 2d 9h", HandCategory.FULL_HOUSE, "full house, queens full of fours", None),
    ("Ad Jd 8d 4d 2d Kc Ks", HandCategory.FLUSH, "flush, ace high", "Ad Jd 8d 4d 2d"),
    ("6c 5d 4h 3s 2c Kd Kh", HandCategory.STRAIGHT, "straight, six high", "6c 5d 4h 3s 2c"),
    ("7c 7d 7h As 9c 4d 2h", HandCategory.THREE_OF_A_KIND, "three of a kind, sevens", None),
    ("Kc Kd 9h 9s Ac 4d 2h", HandCategory.TWO_PAIR, "two pair, kings and nines", "Kd Kc 9s 9h Ac"),
    ("Jc Jd 9h 7s Ac 4d 2h", HandCategory.ONE_PAIR, "one pair, jacks", "Jd Jc Ac 9h 7s"),
    ("Ac Qd 9h 7s 5c 4d 2h", HandCategory.HIGH_CARD, "high card, ace", "Ac Qd 9h 7s 5c"),
]


@pytest.mark.parametrize(("text", "category", "description", "best_five"), CATEGORY_EXAMPLES)
def test_each_category_has_its_description_and_best_five(
    text: str, category: HandCategory, description: str, best_five: str | None
) -> None:
    hand = evaluate(cards(text))
    assert hand.category is category
    assert hand.description == description
    assert category_of(hand.class_number) is category
    if best_five is not None:
        assert shown(hand.best_five) == best_five


def test_full_house_lists_the_trips_before_the_pair() -> None:
    hand = evaluate(cards("4c Qs 4s Qh 2d Qd 9h"))
    assert shown(hand.best_five) == "Qs Qh Qd 4s 4c"


def test_four_of_a_kind_takes_the_best_kicker_even_from_a_pair() -> None:
    hand = evaluate(cards("Ac Ad Ah As 9d 9c Ks"))
    assert shown(hand.best_five) == "As Ah Ad Ac Ks"


def test_two_trips_make_a_full_house_of_the_higher_trips() -> None:
    hand = evaluate(cards("8c 8d 8h 3s 3c 3d Ks"))
    assert hand.description == "full house, eights full of threes"


def test_three_pairs_play_the_best_two_and_the_best_kicker() -> None:
    hand = evaluate(cards("Kc Kd 9h 9s 5c 5d 2h"))
    assert hand.description == "two pair, kings and nines"
    assert shown(hand.best_five) == "Kd Kc 9s 9h 5d"


def test_class_numbers_follow_cactus_kev() -> None:
    assert rank_class(cards("As Ks Qs Js Ts")) == 1
    assert rank_class(cards("5s 4s 3s 2s As")) == 10
    assert rank_class(cards("Ac Ad Ah As Kd")) == 11
    assert rank_class(cards("Qs Qh Qd 4c 4s")) == 200
    assert rank_class(cards("Ad Kd Qd Jd 9d")) == 323
    assert rank_class(cards("Ac Kd Qh Js Tc")) == 1600
    assert rank_class(cards("7c 5d 4h 3s 2c")) == 7462


# --- straights with the ace low --------------------------------------------------------


def test_wheel_is_a_five_high_straight_with_the_ace_last() -> None:
    hand = evaluate(cards("Ac 2d 3h 4s 5c"))
    assert hand.category is HandCategory.STRAIGHT
    assert hand.description == "straight, five high"
    assert shown(hand.best_five) == "5c 4s 3h 2d Ac"
    assert hand.class_number == 1609


def test_wheel_is_the_lowest_straight() -> None:
    assert evaluate(cards("Ac 2d 3h 4s 5c")) < evaluate(cards("2c 3d 4h 5s 6c"))


def test_a_six_above_the_wheel_makes_a_six_high_straight() -> None:
    hand = evaluate(cards("Ac 2d 3h 4s 5c 6d Kh"))
    assert hand.description == "straight, six high"
    assert shown(hand.best_five) == "6d 5c 4s 3h 2d"


def test_steel_wheel_is_a_five_high_straight_flush() -> None:
    hand = evaluate(cards("5h 4h 3h 2h Ah Ac Ad"))
    assert hand.category is HandCategory.STRAIGHT_FLUSH
    assert hand.description == "straight flush, five high"
    assert shown(hand.best_five) == "5h 4h 3h 2h Ah"
    assert hand.class_number == 10


def test_ace_does_not_wrap_around_kqa23() -> None:
    assert evaluate(cards("Qc Kd Ah 2s 3c")).category is HandCategory.HIGH_CARD


def test_flush_beats_the_straight_in_other_cards() -> None:
    hand = evaluate(cards("9c 8d 7c 6h 5c 2c Kc"))
    assert hand.category is HandCategory.FLUSH
    assert shown(hand.best_five) == "Kc 9c 7c 5c 2c"


def test_straight_flush_is_found_among_six_suited_cards() -> None:
    hand = evaluate(cards("9s 8s 7s 6s 5s 2s Ad"))
    assert hand.description == "straight flush, nine high"


# --- 6 cards, best five, and orderings -------------------------------------------------


def test_six_card_hand_ranks_its_best_five() -> None:
    six = cards("Kc Kd 9h 9s 4c 2d")
    assert rank_class(six) == min(rank_class(five) for five in combinations(six, 5))
    assert evaluate(six).description == "two pair, kings and nines"
    # Five of the six suited: rank_class takes its flush branch for six cards.
    flush = cards("Ah Jh 8h 5h 3h Kc")
    assert rank_class(flush) == min(rank_class(five) for five in combinations(flush, 5))
    assert evaluate(flush).description == "flush, ace high"


def test_best_five_alone_has_the_same_class() -> None:
    for card_count in (5, 6, 7):
        for hand in random_hands(1_000, card_count, seed=card_count):
            result = evaluate(hand)
            assert len(result.best_five) == 5
            assert set(result.best_five) <= set(hand)
            assert rank_class(result.best_five) == result.class_number
            assert evaluate(result.best_five) == result


def test_best_five_does_not_depend_on_the_order_of_the_cards() -> None:
    rng = random.Random(3)
    # The 9 of the kicker can be either of two suits: the choice must still be stable.
    hand = cards("Ac Ad Ah 9s 9c 4d 2h")
    first = evaluate(hand)
    for _ in range(20):
        rng.shuffle(hand)
        assert evaluate(hand).best_five == first.best_five


def test_better_hand_compares_greater_and_splits_compare_equal() -> None:
    spades = evaluate(cards("As Ks Qs Js 9s"))
    hearts = evaluate(cards("Ah Kh Qh Jh 9h"))
    straight = evaluate(cards("Ac Kd Qh Js Tc"))
    assert spades == hearts
    assert hash(spades) == hash(hearts)
    assert spades > straight
    assert spades >= hearts
    assert straight < spades
    assert straight <= spades
    assert not spades < hearts
    assert max([straight, spades]) is spades


def test_hand_rank_does_not_compare_with_other_types() -> None:
    hand = evaluate(cards("As Ks Qs Js 9s"))
    assert hand != 323
    for compare in (operator.lt, operator.le, operator.gt, operator.ge):
        with pytest.raises(TypeError):
            compare(hand, 1)


def test_hand_rank_is_a_frozen_value() -> None:
    hand = evaluate(cards("As Ks Qs Js 9s"))
    with pytest.raises(AttributeError):
        hand.class_number = 1  # type: ignore[misc]
    assert isinstance(hand, HandRank)


def test_compare_hands_says_which_is_better() -> None:
    pair = cards("Jc Jd 9h 7s Ac 4d 2h")
    trips = cards("7c 7d 7h As 9c 4d 2h")
    assert compare_hands(trips, pair) == 1
    assert compare_hands(pair, trips) == -1
    assert compare_hands(cards("As Ks Qs Js 9s"), cards("Ah Kh Qh Jh 9h")) == 0


def test_best_hand_indexes_returns_every_hand_of_a_split_pot() -> None:
    board = cards("Ac Kd Qh Js 2c")
    hands = [[*board, *cards(hole)] for hole in ("Tc 3d", "Td 4h", "9c 9d", "2d 2h")]
    assert best_hand_indexes(hands) == [0, 1]
    assert best_hand_indexes(hands[2:]) == [1]
    assert best_hand_indexes([]) == []


def test_category_of_maps_class_boundaries() -> None:
    assert category_of(1) is HandCategory.STRAIGHT_FLUSH
    assert category_of(10) is HandCategory.STRAIGHT_FLUSH
    assert category_of(11) is HandCategory.FOUR_OF_A_KIND
    assert category_of(1599) is HandCategory.FLUSH
    assert category_of(1600) is HandCategory.STRAIGHT
    assert category_of(6186) is HandCategory.HIGH_CARD
    assert category_of(7462) is HandCategory.HIGH_CARD
    for bad in (0, 7463):
        with pytest.raises(InvalidHandError, match=str(bad)):
            category_of(bad)


def test_categories_order_and_read_as_words() -> None:
    assert HandCategory.STRAIGHT_FLUSH > HandCategory.FOUR_OF_A_KIND > HandCategory.HIGH_CARD
    assert HandCategory.THREE_OF_A_KIND.label == "three of a kind"


def test_plain_ints_and_iterables_work_like_cards() -> None:
    hand = cards("Qs Qh Qd 4c 4s 2d 9h")
    ints = [int(card) for card in hand]
    assert rank_class(ints) == rank_class(hand) == rank_class(iter(hand))  # type: ignore[arg-type]
    assert rank_class(tuple(ints[:5])) == rank_class(hand[:5])
    assert evaluate(ints) == evaluate(hand)
    assert all(type(card) is Card for card in evaluate(ints).best_five)


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 1, 4, 8, 52])
def test_wrong_number_of_cards_is_rejected(count: int) -> None:
    hand = list(FULL_DECK[:count])
    for function in (evaluate, rank_class):
        with pytest.raises(InvalidHandError, match=f"got {count}"):
            function(hand)


def test_duplicate_card_is_rejected_naming_it() -> None:
    for text in ("As As Kd Qh Jc", "As Kd Qh Jc 9c As", "2c 3d 4h 5s 7c 8d 2c"):
        with pytest.raises(InvalidHandError, match=r"duplicate card (As|2c) in "):
            evaluate(cards(text))


def test_rank_class_rejects_impossible_duplicates() -> None:
    # Five of one rank or a flush of fewer than five ranks: no table holds these.
    for text in (
        "As As As As As",
        "As As As As As Kd Qd",
        "As As As As As Ks Qs",
        "As As Ah Ah Ad Ad",
    ):
        with pytest.raises(InvalidHandError, match="duplicate card"):
            rank_class(cards(text))


@pytest.mark.parametrize("bad", [52, -1, "As", None, 2.0, True])
def test_value_that_is_not_a_card_is_rejected_naming_it(bad: object) -> None:
    hand = [*cards("Kd Qh Jc 9c"), bad]
    with pytest.raises(InvalidHandError, match="not a card: " + re.escape(repr(bad))):
        evaluate(hand)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [52, -1, "As", None])
def test_fast_path_rejects_values_outside_the_deck(bad: object) -> None:
    # rank_class skips the full check, but its tables hold only the 52 cards: -1 does not
    # quietly index from the end. (A float equal to a card index is not caught there.)
    for card_count in (5, 6, 7):
        hand = [*FULL_DECK[20 : 20 + card_count - 1], bad]
        with pytest.raises(InvalidHandError, match="not a card: " + re.escape(repr(bad))):
            rank_class(hand)  # type: ignore[arg-type]


def test_non_iterable_is_rejected() -> None:
    with pytest.raises(InvalidHandError, match="expected 5, 6 or 7 cards, got 42"):
        evaluate(42)  # type: ignore[arg-type]
    with pytest.raises(InvalidHandError):
        rank_class(42)  # type: ignore[arg-type]


def test_invalid_hand_error_is_a_value_error_with_a_code() -> None:
    with pytest.raises(ValueError) as caught:
        evaluate(cards("As Kd"))
    assert isinstance(caught.value, InvalidHandError)
    assert caught.value.code == "bad_hand"


# --- tables and the oracle ------------------------------------------------------------


def test_rank_key_sums_are_unique_for_every_rank_multiset() -> None:
    # A collision would have merged two entries: each table holds one per multiset
    # of ranks with at most four of each (6,175 / 18,395 / 49,205) and per flush mask.
    fill_tables()
    assert len(FIVE_NONFLUSH_CLASSES) == 6_175
    assert len(NONFLUSH_CLASSES[6]) == 18_395
    assert len(NONFLUSH_CLASSES[7]) == 49_205
    assert len(FLUSH_CLASSES) == 1_287 + 1_716 + 1_716


def test_agrees_with_treys_on_random_seven_card_hands(
    seven_card_sample: tuple[list[tuple[Card, ...]], list[int]],
) -> None:
    hands, expected = seven_card_sample
    assert [rank_class(hand) for hand in hands] == expected


def test_orders_random_hand_pairs_like_treys(
    seven_card_sample: tuple[list[tuple[Card, ...]], list[int]],
) -> None:
    hands, classes = seven_card_sample
    # 100,000 pairs: each hand against the next one (and the last against the first).
    for index, hand in enumerate(hands):
        other_index = (index + 1) % len(hands)
        mine, theirs = classes[index], classes[other_index]
        expected = (mine < theirs) - (mine > theirs)
        assert compare_hands(hand, hands[other_index]) == expected
    # HandRank's own ordering on a smaller share (evaluate() is the slow, checked path).
    for index in range(0, 4_000, 2):
        first, second = evaluate(hands[index]), evaluate(hands[index + 1])
        assert (first > second) == (classes[index] < classes[index + 1])
        assert (first == second) == (classes[index] == classes[index + 1])


@pytest.mark.parametrize("card_count", [5, 6])
def test_agrees_with_treys_on_random_five_and_six_card_hands(card_count: int) -> None:
    hands = random_hands(20_000, card_count, seed=card_count)
    assert [rank_class(hand) for hand in hands] == [treys_class(hand) for hand in hands]


def test_agrees_with_treys_on_flushes() -> None:
    # Flushes are rare in random hands; make sure each length sees plenty of them.
    rng = random.Random(11)
    for card_count in (5, 6, 7):
        for _ in range(2_000):
            suit = rng.randrange(4)
            suited = rng.randint(5, card_count)
            suited_cards = [Card.of(rank, suit) for rank in rng.sample(range(13), suited)]
            others = [card for card in FULL_DECK if card.suit_index != suit]
            hand = suited_cards + rng.sample(others, card_count - suited)
            rng.shuffle(hand)
            assert rank_class(hand) == treys_class(hand)


def test_descriptions_from_rank_counts_equal_evaluate_for_every_class() -> None:
    classes = set()
    for ranks in combinations_with_replacement(range(13), 5):
        if max(ranks.count(rank) for rank in ranks) > 4:
            continue
        # Each repeat of a rank in the next suit: never a flush unless all ranks differ.
        suits = [ranks[:k].count(rank) for k, rank in enumerate(ranks)]
        if len(set(ranks)) == 5:
            suits[0] = 1
        hands = [[Card.of(rank, suit) for rank, suit in zip(ranks, suits, strict=True)]]
        if len(set(ranks)) == 5:
            hands.append([Card.of(rank, 2) for rank in ranks])  # the flush (or straight flush)
        for cards in hands:
            class_number = rank_class(cards)
            classes.add(class_number)
            assert hand_description(cards, class_number) == evaluate(cards).description
    assert len(classes) == 7462


def test_descriptions_of_six_and_seven_cards_equal_evaluate() -> None:
    rng = random.Random(3)
    tricky = [
        "As Ks Qs Js Ts 9s 8s",  # royal flush among seven suited cards
        "9h 8h 7h 6h 5h 4h Ah",  # straight flush, nine high, with a seventh heart
        "5d 4d 3d 2d Ad Kc Qc",  # steel wheel
        "Ac 2d 3h 4s 5c 6d 9h",  # six-high straight
        "Ac 2d 3h 4s 5c Kd 9h",  # wheel
        "Kc Kd Kh 7s 7c 7d 2h",  # two sets of trips: kings full of sevens
        "Qc Qd Qh 8s 8c 3d 3h",  # trips and two pairs: queens full of eights
        "9c 9d 5h 5s 2c 2d Ah",  # three pairs
        "Ac Kc 9c 7c 4c 2c 3h",  # six-card flush
        "Tc Td Th Ts 9c 9d 9h",  # quads and trips
    ]
    hands = [parse_cards(text) for text in tricky]
    hands += [rng.sample(FULL_DECK, rng.choice((5, 6, 7))) for _ in range(20000)]
    for cards in hands:
        assert hand_description(cards, rank_class(cards)) == evaluate(cards).description


_FRESH_PROCESS = """
import engine._eval_tables as tables
from engine.evaluator import InvalidHandError, rank_class
assert not tables.FIVE_NONFLUSH_CLASSES and not tables.NONFLUSH_CLASSES[7], "filled at import"
try:
    print("ranked:", rank_class(FIRST))
except InvalidHandError:
    print("refused")
print(rank_class([48, 44, 40, 36, 32, 0, 5]), len(tables.NONFLUSH_CLASSES[7]))
tables.fill_tables()  # a second fill changes nothing
print(len(tables.FIVE_NONFLUSH_CLASSES), len(tables.FLUSH_CLASSES))
"""


@pytest.mark.parametrize(
    ("first", "answer"),
    [("[1, 2, 3]", "refused"), ("[0, 0, 4, 8, 12]", "refused"),
     ("iter([0, 4, 8, 12, 17])", "ranked: 1608"), ("[0, 4, 8, 12, 17]", "ranked: 1608")],
)  # fmt: skip
def test_the_tables_are_filled_at_the_first_hand_ranked_not_at_import(
    first: str, answer: str
) -> None:
    # Most processes that import the engine rank no hand (a pool worker, the command line):
    # importing costs them nothing. A first hand that is bad (too few cards, a duplicate)
    # is refused, and a good one ranked (from a list or an iterator), as they are later.
    done = subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS.replace("FIRST", first)],
        capture_output=True, text=True, check=False, cwd=REPO_ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # The royal flush in spades (class 1) with the seven-card table filled, then the sizes.
    assert done.stdout.splitlines() == [answer, "1 49205", "6175 4719"]
