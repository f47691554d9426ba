"""A duplicate block's seed is withheld until the block is over (:mod:`arena.match.fairness`).

The seatings of a block deal the same cards. A bot that keeps state from one seating to the
next (the worst case: these in-memory bots share a Python dict, as a bot under ``--sandbox
none`` could share a file) must learn nothing from ``match_end`` about the cards or the
arena's draws of the seating still to come, and its author must still be able to check the
deal once the seed is published.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.bots.in_memory import BotExit, BotOutput, FakeClock
from arena.match.config import MatchConfig, MatchConfigError
from arena.match.fairness import DeckCommitment, commitment_of, withheld_salt
from arena.match.replay import replay_file
from arena.match.run import run_match
from arena.session.draws import StrategyDraws
from arena.settings.catalog import Format
from arena.tournament.config import BotEntry, TournamentConfig
from arena.tournament.plan import MatchSpec, plan
from tests import REPO_ROOT
from tests.arena.scripted import (
    Bot,
    calling_station,
    chooser,
    exits_on_match_end,
    min_raiser,
    play,
    read_records,
    sessions,
)
from tests.arena.session.harness import mixer

TOURNAMENT_SEED = 2**200 + 99  # a secret tournament seed's size


def _doc_functions() -> dict[str, Any]:
    """``deal`` and ``check_deal`` from PROTOCOL.md's "Checking the deal", as authors run
    them."""
    text = (REPO_ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    start = text.index("\n## Checking the deal\n")
    section = text[start : text.index("\n## ", start + 1)]
    (block,) = re.findall(r"^```python\n(.*?)^```$", section, re.M | re.S)
    namespace: dict[str, Any] = {}
    exec(compile(block, "PROTOCOL.md", "exec"), namespace)  # our own document's code
    return namespace


DOC = _doc_functions()


def _heads_up_block() -> tuple[TournamentConfig, list[MatchSpec]]:
    bots = (BotEntry("cheat", Path("/bots/cheat.toml")), BotEntry("honest", Path("/bots/h.toml")))
    tournament = TournamentConfig(bots=bots, format=Format.ROUND_ROBIN, deals=20, block_deals=20)
    specs = plan(tournament, TOURNAMENT_SEED)
    assert [spec.arrangement for spec in specs] == [0, 1]  # one block: the pair, then swapped
    assert specs[0].seed == specs[1].seed
    return tournament, specs


def _predicted_holes(seed: str, hand_start: dict[str, Any]) -> dict[int, list[dict[str, str]]]:
    """Every seat's hole cards as the document's ``deal`` gives them from ``seed``."""
    cards = DOC["deal"](seed, hand_start["hand_number"])
    seats = sorted(s["seat_index"] for s in hand_start["table_state"] if s["status"] != "OUT")
    first = next((k for k, seat in enumerate(seats) if seat > hand_start["button_seat"]), 0)
    order = seats[first:] + seats[:first]
    return {seat: cards[k :: len(order)][:2] for k, seat in enumerate(order)}


class SeedThief:
    """A bot that keeps what ``match_end`` tells and, in the next match, deals every hand
    again from it to read its opponent's hole cards."""

    def __init__(self) -> None:
        self.memory: dict[str, Any] = {}  # survives from one match to the next
        self.guesses: list[tuple[int, list[dict[str, str]]]] = []  # (hand, opponent's)
        self.received: list[dict[str, Any]] = []  # this match's messages (its log)

    def bot(self) -> Bot:
        self.received = []
        play = calling_station

        def reply(message: dict[str, Any]) -> BotOutput:
            self.received.append(message)
            if message["type"] == "hello":
                self.memory["seat"] = message["seat_index"]
            if message["type"] == "hand_start" and "seed" in self.memory:
                holes = _predicted_holes(self.memory["seed"], message)
                opponent = next(seat for seat in holes if seat != self.memory["seat"])
                self.guesses.append((message["hand_number"], holes[opponent]))
            if message["type"] == "match_end":
                if "deck_seed" in message:
                    self.memory["seed"] = message["deck_seed"]
                raise BotExit(0)  # a well-behaved exit, once it has kept what it could
            return play(message)

        return reply


def _play(config: MatchConfig, bots: list[Bot]) -> dict[int, list[dict[str, Any]]]:
    """Play ``config``; every message each seat received, decoded."""
    clock = FakeClock()
    seats = sessions(bots, config, clock, exit_on_match_end=False)
    received: dict[int, list[dict[str, Any]]] = {index: [] for index in range(len(seats))}
    for index, (_, session) in enumerate(seats):
        real_factory = session.transport_factory

        def factory(real: Callable[[], Any] = real_factory, index: int = index) -> Any:
            transport = real()
            real_send = transport.send

            def send(data: bytes) -> None:
                received[index].extend(json.loads(line) for line in data.splitlines())
                real_send(data)

            transport.send = send
            return transport

        session.transport_factory = factory
    run_match(config, seats, None, clock=clock)
    return received


def _play_block(*, withheld: bool) -> tuple[SeedThief, list[dict[int, list[dict[str, Any]]]]]:
    """Both seatings of the block, the thief first in seat 0 then in seat 1."""
    tournament, specs = _heads_up_block()
    thief = SeedThief()
    played = []
    for spec in specs:
        config = spec.match_config(tournament)
        if not withheld:  # the arena as it was: every match_end told the seed
            config = dataclasses.replace(config, seed_shared=False)
        bots = [thief.bot(), exits_on_match_end(chooser(5))]
        played.append(_play(config, bots if spec.arrangement == 0 else bots[::-1]))
    return thief, played


def test_a_seed_thief_learns_no_card_of_the_swapped_seating() -> None:
    # Rule: a seed another match still deals from is never told, so a bot that stores
    # everything match_end says has nothing to deal the next seating's cards from.
    thief, played = _play_block(withheld=True)
    for received in played:
        for messages in received.values():
            (end,) = [m for m in messages if m["type"] == "match_end"]
            assert "deck_seed" not in end and "deck_salt" not in end
    assert thief.guesses == []
    assert "seed" not in thief.memory


def test_without_the_withholding_the_same_thief_reads_every_opponent_card() -> None:
    # The control: with match_end telling the seed, as before, the thief's guesses of its
    # opponent's hole cards in the swapped seating are all right. (So the test above
    # fails when the seed is told.)
    thief, played = _play_block(withheld=False)
    opponent_holes = {
        m["hand_number"]: m["hole_cards"] for m in played[1][0] if m["type"] == "hand_start"
    }
    assert len(thief.guesses) == 20
    assert all(opponent_holes[hand] == cards for hand, cards in thief.guesses)


def test_an_author_checks_a_withheld_deal_once_the_seed_is_published() -> None:
    # What each party can check: the bot's log holds hello's commitment and the cards it
    # saw; the seed published after the block opens the commitment (its salt is made
    # from it) and deals every card again, with the document's own code.
    _, played = _play_block(withheld=True)
    _, specs = _heads_up_block()
    published = str(specs[0].seed)
    for received in played:
        for messages in received.values():
            assert DOC["check_deal"](messages, published_seed=published)
            assert not DOC["check_deal"](messages, published_seed=str(specs[0].seed + 1))
    hello = next(m for m in played[0][0] if m["type"] == "hello")
    assert hello["deck_commitment"] == commitment_of(specs[0].seed, withheld_salt(specs[0].seed))


def test_the_seatings_of_a_block_draw_apart_from_mixed_strategies() -> None:
    # Rule: the draws are keyed by the match's id as well as the shared seed, so what a
    # bot learned of a draw in one seating (whether it fell below one half, say) tells it
    # nothing of the same decision's draw in the other. Keyed by the seed alone, as
    # before, the two would be equal.
    tournament, specs = _heads_up_block()
    first, swapped = (spec.match_config(tournament) for spec in specs)
    one = StrategyDraws(first.seed, match_key=first.draw_key)
    other = StrategyDraws(swapped.seed, match_key=swapped.draw_key)
    decisions = [(hand, index) for hand in range(1, 101) for index in range(4)]
    agree = sum((one.uniform(*d) < 0.5) == (other.uniform(*d) < 0.5) for d in decisions)
    assert 160 <= agree <= 240  # 400 fair coins: 200 expected, 4 standard deviations
    seed_only = StrategyDraws(first.seed)
    assert all(seed_only.uniform(*d) == StrategyDraws(swapped.seed).uniform(*d) for d in decisions)
    assert first.draw_key == specs[0].match_id != swapped.draw_key == specs[1].match_id


def test_a_shared_seed_is_written_in_the_match_config_for_replay() -> None:
    tournament, specs = _heads_up_block()
    config = specs[0].match_config(tournament)
    assert config.seed_shared
    assert config.to_dict()["seed_shared"] is True
    assert MatchConfig.from_dict(config.to_dict()) == config
    plain = dataclasses.replace(config, seed_shared=False)
    assert "seed_shared" not in plain.to_dict() and plain.draw_key is None


def test_a_withheld_commitment_reveals_nothing_and_needs_a_match_id() -> None:
    deck = DeckCommitment.withheld(7)
    assert deck.is_withheld and deck.revealed is None
    assert DeckCommitment(7, withheld_salt(7)).revealed == (7, withheld_salt(7))
    with pytest.raises(MatchConfigError, match="seed_shared needs a match_id"):
        MatchConfig(seed=7, seed_shared=True)
    with pytest.raises(MatchConfigError, match="seed_shared must be true or false"):
        MatchConfig(seed=7, match_id="m", seed_shared=1)  # type: ignore[arg-type]


def test_replay_draws_a_shared_seed_match_again_with_its_match_key(tmp_path: Path) -> None:
    # The hand history says the seed is shared, so replay keys the draws as the match did
    # (keyed by the seed alone, the mixed bot's draws would not come out the same).
    config = MatchConfig(hand_count=8, seed=77, match_id="b1-swap", seed_shared=True)
    play([mixer(), min_raiser, calling_station], config, tmp_path)
    path = tmp_path / "hands.jsonl"
    header = read_records(path)[0]
    assert header["config"]["seed_shared"] is True
    assert replay_file(path).is_ok
    mixed = [
        decision
        for record in read_records(path)
        if record["type"] == "hand"
        for decision in record["decisions"]
        if decision["by"] == "bot" and "distribution" in decision["replies"][-1]
    ]
    assert len(mixed) >= 8
