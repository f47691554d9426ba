"""The secret deck (:mod:`arena.match.fairness`): the seed stays secret until ``match_end``,
the commitment binds it, and a bot can check the deal as ``protocol/PROTOCOL.md`` shows.

The check is the document's own Python, taken out of "Checking the deal" and run on every
line a seat received in real in-memory matches, so the recipe cannot drift from the dealer.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.bots.in_memory import FakeClock
from arena.match.config import (
    DEFAULT_MATCH_ID,
    MatchConfig,
    MatchConfigError,
    StackPolicy,
    new_secret_seed,
)
from arena.match.fairness import SALT_BYTES, DeckCommitment, commitment_of, new_salt
from arena.match.run import run_match
from engine.config import GameConfig, Variant
from protocol.schema import find_issue
from tests import REPO_ROOT
from tests.arena.scripted import Bot, calling_station, chooser, folder, min_raiser, sessions

BIG_SEED = 2**255 + 12345  # a secret seed's size: 77 digits, easy to find in a line

Received = dict[int, list[bytes]]


def _doc_check() -> Callable[[list[dict[str, Any]]], bool]:
    """``check_deal`` from PROTOCOL.md's "Checking the deal" section, run as a bot would."""
    text = (REPO_ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    start = text.index("\n## Checking the deal\n")
    section = text[start : text.index("\n## ", start + 1)]
    blocks = re.findall(r"^```python\n(.*?)^```$", section, re.M | re.S)
    assert len(blocks) == 1, "the section has one Python snippet"
    namespace: dict[str, Any] = {}
    exec(compile(blocks[0], "PROTOCOL.md", "exec"), namespace)  # our own document's code
    check: Callable[[list[dict[str, Any]]], bool] = namespace["check_deal"]
    return check


CHECK_DEAL = _doc_check()


def _play_recording(bots: list[Bot], config: MatchConfig, out_dir: Path | None = None) -> Received:
    """Play the match; returns every line each seat's bot received, in order."""
    clock = FakeClock()
    seats = sessions(bots, config, clock)
    received: Received = {index: [] for index in range(len(seats))}
    for index, (_, session) in enumerate(seats):
        real_factory = session.transport_factory

        def factory(real: Callable[[], Any] = real_factory, index: int = index) -> Any:
            transport = real()
            real_send = transport.send

            def send(data: bytes) -> None:
                received[index].extend(data.splitlines())
                real_send(data)

            transport.send = send
            return transport

        session.transport_factory = factory
    run_match(config, seats, out_dir, clock=clock)
    return received


def _messages(lines: list[bytes]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def _bots(count: int) -> list[Bot]:
    # Heads-up and three seats: random players and a caller. Five seats: a freezeout that
    # lasts (a folder and patient players), down to seats 0 and 3 for its last hands.
    if count == 5:
        return [calling_station, min_raiser, chooser(3), folder, min_raiser]
    return [chooser(3), calling_station, chooser(9)][:count]


MATCHES = {
    "holdem heads-up": MatchConfig(hand_count=30, seed=BIG_SEED),
    "holdem five seats, freezeout": MatchConfig(
        hand_count=None, seed=BIG_SEED + 1, starting_stack=60, stack_policy=StackPolicy.FREEZEOUT
    ),
    "draw three seats": MatchConfig(
        game=GameConfig(variant=Variant.FIVE_CARD_DRAW), hand_count=30, seed=BIG_SEED + 2
    ),
}
SEATS = {"holdem heads-up": 2, "holdem five seats, freezeout": 5, "draw three seats": 3}


@pytest.fixture(scope="module")
def received() -> dict[str, Received]:
    """Every line each seat received, per match of :data:`MATCHES` (played once)."""
    return {name: _play_recording(_bots(SEATS[name]), config) for name, config in MATCHES.items()}


# -- the commitment ---------------------------------------------------------------------------


def test_the_commitment_is_sha256_of_the_salt_then_the_seed_text() -> None:
    salt = bytes(range(SALT_BYTES))
    expected = hashlib.sha256(salt + str(BIG_SEED).encode()).hexdigest()
    assert DeckCommitment(BIG_SEED, salt).commitment == expected == commitment_of(BIG_SEED, salt)


def test_a_wrong_salt_or_seed_does_not_match_the_commitment() -> None:
    deck = DeckCommitment(BIG_SEED)
    assert commitment_of(BIG_SEED, deck.salt) == deck.commitment
    assert commitment_of(BIG_SEED + 1, deck.salt) != deck.commitment
    assert commitment_of(BIG_SEED, bytes(SALT_BYTES)) != deck.commitment


def test_every_commitment_has_a_fresh_salt() -> None:
    salts = {DeckCommitment(7).salt for _ in range(20)} | {new_salt()}
    assert len(salts) == 21 and all(len(salt) == SALT_BYTES for salt in salts)
    # The same small seed, committed twice, gives two commitments nobody can match to it
    # without the salt.
    assert DeckCommitment(7).commitment != DeckCommitment(7).commitment


def test_the_repr_shows_neither_the_seed_nor_the_salt() -> None:
    deck = DeckCommitment(BIG_SEED)
    text = repr(deck)
    assert str(BIG_SEED) not in text and deck.salt.hex() not in text
    assert text == f"DeckCommitment(commitment={deck.commitment[:8]}...)"


@pytest.mark.parametrize(
    ("seed", "salt", "message"),
    [
        ("7", bytes(32), "seed must be an integer, got '7'"),
        (True, bytes(32), "seed must be an integer, got True"),
        (7, b"short", "salt must be 32 bytes, got b'short'"),
        (7, "00" * 32, "salt must be 32 bytes, got '00"),
    ],
)
def test_a_bad_seed_or_salt_is_named(seed: Any, salt: Any, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        DeckCommitment(seed, salt)


# -- the secret seed and the ids -------------------------------------------------------------


def test_a_secret_seed_has_256_random_bits() -> None:
    seeds = {new_secret_seed() for _ in range(20)}
    assert len(seeds) == 20
    assert all(0 <= seed < 2**256 for seed in seeds)
    assert max(seeds) >= 2**200  # not a small number in disguise


def test_the_default_match_id_is_not_made_from_the_seed() -> None:
    assert MatchConfig(seed=BIG_SEED).match_id == DEFAULT_MATCH_ID == "match"
    assert MatchConfig(seed=1).match_id == MatchConfig(seed=2).match_id
    assert MatchConfig(seed=1, match_id="final").match_id == "final"
    with pytest.raises(MatchConfigError, match="match_id must be a string, got 5"):
        MatchConfig(match_id=5)  # type: ignore[arg-type]


def test_the_same_seed_gives_the_same_history_whatever_the_salt(tmp_path: Path) -> None:
    # The salt is random in every match and stays out of the hand history.
    config = MatchConfig(hand_count=8, seed=BIG_SEED)
    _play_recording(_bots(2), config, tmp_path / "a")
    _play_recording(_bots(2), config, tmp_path / "b")
    history = (tmp_path / "a" / "hands.jsonl").read_bytes()
    assert history == (tmp_path / "b" / "hands.jsonl").read_bytes()
    assert b'"match_id":"match"' in history


# -- what the bots receive --------------------------------------------------------------------


def test_no_line_before_match_end_carries_the_seed(received: dict[str, Received]) -> None:
    for name, config in MATCHES.items():
        seed_text = str(config.seed).encode()
        assert sum(len(lines) for lines in received[name].values()) > 100, name
        for seat_index, lines in received[name].items():
            messages = _messages(lines)
            assert messages[-1]["type"] == "match_end", (name, seat_index)
            for line in lines[:-1]:
                assert seed_text not in line, (name, seat_index, line[:200])
                assert seed_text[:12] not in line, (name, seat_index, line[:200])
            # Only match_end tells it, in its own field.
            end = messages[-1]
            assert end["deck_seed"] == seed_text.decode()
            reveal = {k: v for k, v in end.items() if k != "deck_seed"}
            assert seed_text not in json.dumps(reveal).encode()


def test_hand_ids_are_the_match_id_and_the_hand_number(received: dict[str, Received]) -> None:
    for message in _messages(received["holdem heads-up"][0]):
        if "hand_id" in message:
            assert message["hand_id"] == f"match-{message['hand_number']}"


def test_hello_and_match_end_carry_valid_deck_fields(received: dict[str, Received]) -> None:
    for name in MATCHES:
        commitments = set()
        for lines in received[name].values():
            messages = _messages(lines)
            hello, end = messages[0], messages[-1]
            # (The standings are left out: with stacks reset, a loser's "chips" can be below
            # zero, which the schema refuses; a matter of the standings, not of the deck.)
            assert find_issue(hello) is None and find_issue(end | {"standings": []}) is None
            commitments.add(hello["deck_commitment"])
            salt = bytes.fromhex(end["deck_salt"])
            assert commitment_of(int(end["deck_seed"]), salt) == hello["deck_commitment"]
        assert len(commitments) == 1, name  # every seat got the same commitment


# -- the check of PROTOCOL.md, as a bot does it --------------------------------------------------


def test_the_documented_check_passes_for_every_seat_of_real_matches(
    received: dict[str, Received],
) -> None:
    shown_hands = 0
    for name in MATCHES:
        for seat_index, lines in received[name].items():
            messages = _messages(lines)
            assert CHECK_DEAL(messages), (name, seat_index)
            shown_hands += sum(len(m["shown_hands"]) for m in messages if m["type"] == "hand_end")
    assert shown_hands > 0  # opponents' cards shown at showdown were checked too


def _changed(messages: list[dict[str, Any]], change: Callable[[dict[str, Any]], bool]) -> bool:
    """The check of ``messages`` after ``change`` altered the first message it accepts."""
    altered = copy.deepcopy(messages)
    assert any(change(message) for message in altered), "nothing to change"
    return CHECK_DEAL(altered)


OTHER_CARD = {"rank": "A", "suit": "spades"}
ANOTHER_CARD = {"rank": "2", "suit": "clubs"}


def _swap_card(cards: list[dict[str, str]]) -> None:
    cards[-1] = OTHER_CARD if cards[-1] != OTHER_CARD else ANOTHER_CARD


@pytest.mark.parametrize("name", list(MATCHES))
def test_the_documented_check_fails_when_one_hole_card_is_changed(
    received: dict[str, Received], name: str
) -> None:
    messages = _messages(received[name][0])

    def change(message: dict[str, Any]) -> bool:
        if message["type"] != "hand_start":
            return False
        _swap_card(message["hole_cards"])
        return True

    assert not _changed(messages, change)


def test_the_documented_check_fails_when_a_board_or_shown_card_is_changed(
    received: dict[str, Received],
) -> None:
    messages = _messages(received["holdem five seats, freezeout"][0])

    def board(message: dict[str, Any]) -> bool:
        if message["type"] != "hand_end" or len(message["board"]) < 5:
            return False
        _swap_card(message["board"])
        return True

    def shown(message: dict[str, Any]) -> bool:
        if message["type"] != "hand_end" or not message["shown_hands"]:
            return False
        _swap_card(message["shown_hands"][-1]["cards"])
        return True

    assert not _changed(messages, board)
    assert not _changed(messages, shown)


@pytest.mark.parametrize("name", list(MATCHES))
def test_the_documented_check_fails_when_the_seed_is_changed(
    received: dict[str, Received], name: str
) -> None:
    messages = _messages(received[name][1])
    other = str(MATCHES[name].seed + 1)

    def seed_only(message: dict[str, Any]) -> bool:
        if message["type"] == "match_end":
            message["deck_seed"] = other
        return bool(message["type"] == "match_end")

    assert not _changed(messages, seed_only)  # the commitment does not match

    # An arena that committed to another seed from the start: the commitment matches the
    # reveal, but that seed does not deal the cards the bot saw.
    salt = bytes(SALT_BYTES)

    def forged(message: dict[str, Any]) -> bool:
        if message["type"] == "hello":
            message["deck_commitment"] = commitment_of(int(other), salt)
        if message["type"] == "match_end":
            message.update(deck_seed=other, deck_salt=salt.hex())
        return bool(message["type"] == "match_end")

    assert not _changed(messages, forged)


def test_the_documented_check_fails_when_the_salt_is_changed(
    received: dict[str, Received],
) -> None:
    messages = _messages(received["holdem heads-up"][0])

    def salt(message: dict[str, Any]) -> bool:
        if message["type"] == "match_end":
            message["deck_salt"] = "00" * SALT_BYTES
        return bool(message["type"] == "match_end")

    assert not _changed(messages, salt)
