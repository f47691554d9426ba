"""Each hand's generator: a SHAKE-256 stream keyed by the match seed and the hand number.

The recipe test rebuilds decks with ``hashlib`` alone (as a bot does after the match), so
the documented recipe and the engine cannot drift apart.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from engine.cards import FULL_DECK
from engine.deck import Deck, shuffle_in_place
from engine.seeds import DECK_DOMAIN, StreamRandom, hand_key, hand_rng, hand_seed

BIG_SEED = 2**256 - 189  # as large as a secret seed gets


def recipe_deck(seed: int | str, hand_number: int) -> list[str]:
    """A hand's deck from the recipe alone: no engine, only ``hashlib``."""
    key = b"poker-arena deck v1|" + str(seed).encode() + b"|" + str(hand_number).encode()
    stream = hashlib.shake_256(key).digest(4096)
    cards = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
    position = 0
    for i in range(51, 0, -1):
        bound = i + 1
        mask = (1 << bound.bit_length()) - 1
        j = stream[position] & mask
        position += 1
        while j >= bound:
            j = stream[position] & mask
            position += 1
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deck_text(deck: Deck) -> list[str]:
    return [str(card) for card in deck.order]


class GetrandbitsOnly(random.Random):
    """Hands ``shuffle_in_place`` only a stream's ``getrandbits`` (its generic path)."""

    def __init__(self, inner: StreamRandom) -> None:
        self.inner = inner
        super().__init__(0)

    def getrandbits(self, k: int, /) -> int:
        return self.inner.getrandbits(k)


def test_the_same_seed_and_hand_number_give_the_same_deck() -> None:
    for hand_number in (1, 2, 99):
        first = Deck.shuffled(hand_rng(BIG_SEED, hand_number)).order
        assert first == Deck.shuffled(hand_rng(BIG_SEED, hand_number)).order
        assert sorted(first) == list(FULL_DECK)


def test_other_hand_numbers_or_seeds_give_other_decks() -> None:
    decks = {Deck.shuffled(hand_rng(7, n)).order for n in range(1, 51)}
    decks |= {Deck.shuffled(hand_rng(seed, 1)).order for seed in range(8, 58)}
    assert len(decks) == 100


def test_the_documented_recipe_deals_every_deck_of_the_engine() -> None:
    seeds: list[int | str] = [0, 1, 42, -5, BIG_SEED, "match-1", *range(1000, 1020)]
    for seed in seeds:
        for hand_number in (1, 2, 3, 17, 500):
            assert deck_text(Deck.shuffled(hand_rng(seed, hand_number))) == recipe_deck(
                seed, hand_number
            ), f"seed {seed}, hand {hand_number}"


def test_the_shuffle_reads_a_stream_byte_by_byte_as_its_getrandbits_does() -> None:
    for hand_number in range(1, 30):
        fast = list(FULL_DECK)
        shuffle_in_place(fast, hand_rng(3, hand_number))
        generic = list(FULL_DECK)
        shuffle_in_place(generic, GetrandbitsOnly(hand_rng(3, hand_number)))
        assert fast == generic
    # A shorter list too (the five-card-draw reshuffle of the muck).
    for size in (2, 9, 30):
        fast = list(FULL_DECK[:size])
        shuffle_in_place(fast, StreamRandom(b"muck"))
        generic = list(FULL_DECK[:size])
        shuffle_in_place(generic, GetrandbitsOnly(StreamRandom(b"muck")))
        assert fast == generic
    assert fast != list(FULL_DECK[:30])  # it did shuffle


def test_more_than_256_items_take_wider_draws_from_the_stream() -> None:
    # 300 items need 9-bit draws: two bytes each, big-endian, low 9 bits kept.
    items = list(range(300))
    shuffle_in_place(items, StreamRandom(b"wide"))  # type: ignore[arg-type]  # ints show the order
    stream = hashlib.shake_256(b"wide").digest(4096)
    expected, position = list(range(300)), 0
    for i in range(299, 0, -1):
        bits = (i + 1).bit_length()
        while True:
            size = (bits + 7) // 8
            j = int.from_bytes(stream[position : position + size], "big") & ((1 << bits) - 1)
            position += size
            if j <= i:
                break
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected


def test_hand_keys_name_the_domain_the_seed_and_the_hand_number() -> None:
    assert hand_key(BIG_SEED, 12) == DECK_DOMAIN + f"{BIG_SEED}|12".encode()
    assert hand_seed(BIG_SEED, 12) == f"{BIG_SEED}:12"


def test_the_stream_is_shake_256_of_the_key_read_past_its_first_block() -> None:
    stream = StreamRandom(b"key")
    read = bytes(stream.next_byte() for _ in range(1000))  # several extensions
    assert read == hashlib.shake_256(b"key").digest(1000)


def test_draws_follow_the_recipe() -> None:
    data = hashlib.shake_256(b"draws").digest(32)
    stream = StreamRandom(b"draws")
    assert stream.getrandbits(0) == 0  # reads nothing
    assert stream.getrandbits(3) == data[0] & 0b111
    assert stream.getrandbits(8) == data[1]
    assert stream.getrandbits(12) == int.from_bytes(data[2:4], "big") & 0xFFF
    assert stream.random() == (int.from_bytes(data[4:11], "big") & (2**53 - 1)) / 2**53
    assert stream.getrandbits(1) == data[11] & 1


def test_random_methods_work_on_a_stream() -> None:
    stream = hand_rng(1, 1)
    assert 0.0 <= stream.random() < 1.0
    assert 1 <= stream.randint(1, 6) <= 6
    assert stream.choice("abc") in "abc"
    assert stream.getrandbits(200) < 2**200


def test_a_stream_refuses_keys_that_are_not_bytes() -> None:
    with pytest.raises(TypeError, match="must be bytes, got 'seed'"):
        StreamRandom("seed")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got None"):
        hand_rng(1, 1).seed()


def test_a_stream_refuses_negative_draws() -> None:
    with pytest.raises(ValueError, match="non-negative, got -1"):
        hand_rng(1, 1).getrandbits(-1)


def test_a_stream_has_no_state_to_save_or_restore() -> None:
    stream = hand_rng(1, 1)
    with pytest.raises(TypeError, match="no state to save"):
        stream.getstate()
    with pytest.raises(TypeError, match="no state to restore"):
        stream.setstate(())


def test_seeding_again_restarts_the_stream() -> None:
    stream = StreamRandom(b"a")
    first = stream.getrandbits(64)
    stream.seed(b"a")
    assert stream.getrandbits(64) == first
    assert stream.key == b"a"
