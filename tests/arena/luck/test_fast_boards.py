"""The fast sampled boards are the plain sampler's, and the estimator gives the same
numbers with them on or off."""

from __future__ import annotations

import random

import pytest

from arena.luck import equity, estimate_hand, fast_boards, fast_ranks
from arena.luck.equity import BoardSampler, sample_subsets
from arena.luck.fast_ranks import BoardSums
from engine.cards import FULL_DECK
from engine.seeds import StreamRandom
from tests.arena.luck.play import random_record


@pytest.mark.parametrize("pool_size", [45, 47, 48, 52])
def test_the_shuffle_read_from_the_digest_is_the_streams(pool_size: int) -> None:
    cards = FULL_DECK[52 - pool_size :]
    for number in range(30):
        key = b"key %d" % number
        plain = sample_subsets(StreamRandom(key), list(cards), pool_size, 1)[0]
        assert tuple(fast_boards.shuffled(key, cards)) == plain


def test_the_shuffle_reads_a_longer_digest_when_its_first_bytes_run_out() -> None:
    # One byte at first: every later byte comes from a digest made longer (and a longer
    # digest starts with the shorter one, so the cards are the same).
    for number in range(10):
        key = b"short %d" % number
        plain = sample_subsets(StreamRandom(key), list(FULL_DECK), 52, 1)[0]
        assert tuple(fast_boards.shuffled(key, FULL_DECK, first_bytes=1)) == plain


@pytest.mark.parametrize("size", [2, 5])
def test_the_fast_sampler_gives_the_plain_samplers_completions_and_sums(size: int) -> None:
    pool = FULL_DECK[7:]
    plain = BoardSampler(b"hand", pool, size)
    fast = BoardSampler(b"hand", pool, size, fast=True)
    boards = plain.first(300)
    assert fast.first(300) == boards
    assert [fast.board(index) for index in range(300)] == boards
    # The sums read through the design are the ones added card by card, in pieces too.
    assert fast.key_sums(0, 100) + fast.key_sums(100, 300) == BoardSums(boards).sums


@pytest.mark.parametrize("fast_ranker", [True, False])
@pytest.mark.parametrize("variant", ["holdem", "five_card_draw"])
def test_the_estimate_is_identical_with_the_fast_boards_on_or_off(
    variant: str, fast_ranker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Mixed strategies and stacks up to 100 big blinds: hypothetical all-ins sample up to
    # 1,024 boards before the flop, where flushes need a sampled completion's cards.
    monkeypatch.setattr(fast_ranks, "USE_FAST_RANKS", fast_ranker)
    rng = random.Random(33)
    records = [
        random_record(rng.randrange(10**6), variant=variant, seat_count=2 + n % 4, mixed=True)
        for n in range(16)
    ]
    fast = [estimate_hand(record).adjusted for record in records]
    monkeypatch.setattr(fast_boards, "USE_FAST_BOARDS", False)
    assert [estimate_hand(record).adjusted for record in records] == fast


def test_prepare_makes_the_sample_designs_of_its_players_hands_and_no_others() -> None:
    # Three hands out: 46 cards unseen before the flop, 43 on it; one player or more
    # than the deck deals have no samples to prepare.
    equity._design.cache_clear()
    equity.prepare(3)
    assert equity._design.cache_info().currsize == 2
    equity.prepare(1)
    equity.prepare(30)
    assert equity._design.cache_info().currsize == 2
    sampler = equity.BoardSampler(b"k", FULL_DECK[6:], 5)
    sampler.first(32)
    assert equity._design.cache_info().hits >= 1  # the pre-flop design was ready
