"""The starter bots end to end: each passes ``check-bot``, draws sensibly, and stays a
short, stand-alone program (the import rule is in test_architecture.py); ``arena demo``
plays them all, the same match every time."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.bots.build import run_build
from arena.bots.manifest import load_manifest
from arena.bots.process import ProcessTransport
from arena.checkbot import check_bot
from arena.cli import main
from arena.match.replay import replay_file
from arena.session.policy import TimeLimits
from engine.actions import Discard, LegalActions
from engine.cards import parse_cards
from engine.config import GameConfig
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from protocol.codec import encode
from protocol.messages import act_request, draw_request
from protocol.replies import parse_discard
from protocol.strategy import strategy_from_reply
from tests import REPO_ROOT

SAMPLES = REPO_ROOT / "sample_bots"
LIMITS = TimeLimits(decision_s=2.0, startup_s=10.0, match_end_grace_s=2.0)

NEEDS = {"js_tight": ("node",), "c": ("make", "gcc")}
HAND = tuple(parse_cards("As 7c Ad 5h 2s"))
BOT_DIRS = ["python_random", "python_calling_station", "python_hand_strength", "js_tight", "c"]


def needs_tools(name: str) -> None:
    missing = [tool for tool in NEEDS.get(name, ()) if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")


def test_every_sample_bot_folder_has_a_manifest_and_is_listed() -> None:
    folders = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir() and p.name != "build")
    assert folders == sorted(BOT_DIRS)
    names = {load_manifest(SAMPLES / folder / "bot.toml").name for folder in folders}
    assert len(names) == len(folders)  # names tell the bots apart in results
    readme = (SAMPLES / "README.md").read_text()
    assert all(f"`{folder}/`" in readme for folder in folders)


@pytest.mark.parametrize("name", BOT_DIRS)
def test_each_sample_bot_passes_check_bot(name: str) -> None:
    needs_tools(name)
    report = check_bot(SAMPLES / name / "bot.toml", limits=LIMITS)
    assert report.passed, report.format()


@pytest.fixture
def transports() -> Iterator[list[ProcessTransport]]:
    started: list[ProcessTransport] = []
    yield started
    for transport in started:
        transport.close(0.0)


def draw_case() -> tuple[dict[str, Any], LegalActions]:
    """A five-card-draw ``draw`` request for A A 7 5 2 with up to 3 discards."""
    hand = Hand.start(
        GameConfig(small_blind=1, big_blind=2),
        [SeatSetup(0, "bot", 200), SeatSetup(1, "other", 200)],
        button_index=0,
        deck=Deck.shuffled(random.Random(1)),
    )
    view = hand.view(0)
    assert view.legal_actions is not None
    legal = dataclasses.replace(view.legal_actions, can_draw=True, max_discard_count=3)
    view = dataclasses.replace(view, hole_cards=HAND, legal_actions=legal, phase="DRAW")
    return draw_request(view, seq=2, hand_id="d1", time_limit_ms=2000), legal


@pytest.mark.parametrize("name", BOT_DIRS)
def test_each_sample_bot_discards_the_cards_that_pair_nothing(
    name: str, transports: list[ProcessTransport]
) -> None:
    needs_tools(name)
    manifest = load_manifest(SAMPLES / name / "bot.toml")
    assert run_build(manifest).is_ok
    transport = ProcessTransport.start(manifest)
    transports.append(transport)
    message, legal = draw_case()
    transport.send(encode({"type": "hello", "seq": 1, "protocol_version": 1}))
    transport.send(encode({"type": "something_new", "seq": 99}))  # unknown: ignored
    transport.send(encode(message))
    soon = time.monotonic() + 5.0
    ready = json.loads(transport.read_line(soon) or b"{}")
    assert ready["type"] == "ready"
    reply = json.loads(transport.read_line(soon) or b"{}")
    assert parse_discard(reply, 2, legal, HAND) == Discard(tuple(parse_cards("2s 5h 7c")))
    # Every bot leaves at the end of its input, and cleanly.
    assert transport.close(grace_s=5.0).exit_code == 0


# -- the hand-strength bot's arithmetic ------------------------------------------------------


def load_bot(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"sample_{name}", SAMPLES / name / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wire(text: str) -> list[dict[str, str]]:
    return [card.to_wire() for card in parse_cards(text)]


@pytest.mark.parametrize(
    ("cards", "score"),
    [("As Ah", 20), ("As Ks", 12), ("Ks Qd", 8), ("7c 2d", -1), ("5h 5d", 5), ("Ts 9s", 8)],
)
def test_chen_scores_match_the_published_examples(cards: str, score: int) -> None:
    bot = load_bot("python_hand_strength")
    first, second = wire(cards)
    assert bot.chen_score(first, second) == score


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        ("As Kd 9h 7c 3s", 0),
        ("As Ad 9h 7c 3s", 1),
        ("As Ad 9h 9c 3s", 2),
        ("As Ad Ah 9c 3s", 3),
        ("As 2d 3h 4c 5s", 4),
        ("2s 7s 9s Js Ks", 5),
        ("As Ad Ah 9c 9s", 6),
        ("As Ad Ah Ac 3s", 7),
        ("9s Ts Js Qs Ks 2d 2h", 8),
    ],
)
def test_the_made_hand_categories(cards: str, category: int) -> None:
    assert load_bot("python_hand_strength").category(wire(cards)) == category


def test_the_hand_strength_bot_raises_strong_hands_and_folds_bad_prices() -> None:
    bot = load_bot("python_hand_strength")
    request: dict[str, Any] = {
        "seq": 5,
        "legal_actions": ["FOLD", "CALL", "RAISE", "ALL_IN"],
        "hole_cards": wire("As Ah"),
        "community_cards": [],
        "to_call": 1,
        "pot_total": 3,
        "current_bet": 2,
        "min_raise_to": 4,
        "max_raise_to": 200,
    }
    assert bot.choose_action(request) == {
        "type": "action",
        "seq": 5,
        "action": "RAISE",
        "amount": 5,
    }
    request.update(hole_cards=wire("7c 2d"), to_call=50, pot_total=60)
    assert bot.choose_action(request)["action"] == "FOLD"
    # A pair that is all on the board is nobody's strength.
    request.update(hole_cards=wire("7c 2d"), community_cards=wire("Ks Kd 9h"), to_call=30)
    assert bot.win_chance(request) == pytest.approx(0.15)


@pytest.mark.parametrize(
    "runs_wanted",
    # Twice in make test-long, to compare; once in make test (a demo is among the suite's
    # longest steps; the engine's and the tournament's own tests check determinism).
    [1, pytest.param(2, marks=pytest.mark.slow)],
)
@pytest.mark.usefixtures("one_pool_worker")  # its twenty matches one after the other
def test_the_demo_plays_every_starter_bot_and_is_the_same_competition_every_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], runs_wanted: int
) -> None:
    expected = {"python random", "python calling station", "python hand strength"}
    if shutil.which("node"):
        expected.add("js tight")
    if shutil.which("make") and shutil.which("gcc"):
        expected.add("c pairs")
    # Every starter bot is deterministic (the random one reports its strategy and the arena
    # draws from the match seed), so the demo's standings and hand histories are the same
    # from run to run: the slow case runs the demo twice and compares.
    runs = []
    for run in ("first", "second")[:runs_wanted]:
        folder = tmp_path / run
        argv = ["demo", "--deals", "6", "--out", str(folder), "--no-progress"]
        assert main(argv) == 0
        histories = {
            path.relative_to(folder): path.read_bytes()
            for path in sorted(folder.glob("matches/*/hands.jsonl"))
        }
        runs.append(((folder / "standings.json").read_text(), histories))
    assert len(runs) == runs_wanted and all(run == runs[0] for run in runs)
    out = capsys.readouterr().out
    assert "bb/100" in out and "crosstable" in out and "results.sqlite" in out
    standings = json.loads(runs[0][0])
    rows = standings["leaderboard"]["rows"]
    assert {row["bot"] for row in rows} == expected
    assert sum(row["chips_won"] for row in rows) == 0
    # Every pair plays the six deals twice, the seats swapped.
    pairs = len(expected) * (len(expected) - 1) // 2
    assert standings["matches_counted"] == 2 * pairs and standings["hands"] == 12 * pairs
    assert standings["faults"] == {}
    files = sorted((tmp_path / "first" / "matches").glob("*/hands.jsonl"))
    assert len(files) == 2 * pairs
    assert all(replay_file(file).is_ok for file in files[:2])


# -- the random bot's reported mixed strategy ------------------------------------------------


def random_bot_requests(count: int, seed: int) -> Iterator[tuple[dict[str, Any], LegalActions]]:
    """The ``act`` requests (and their legal actions) of ``count`` hands of the random bot
    against itself, each action drawn from its own report: short stacks too, so that calls
    and raises run into the all-in."""
    bot = load_bot("python_random")
    rng = random.Random(seed)
    for number in range(count):
        stacks = (rng.choice([3, 9, 40, 200]), rng.choice([5, 25, 200]))
        hand = Hand.start(
            GameConfig(small_blind=1, big_blind=2),
            [SeatSetup(0, "a", stacks[0]), SeatSetup(1, "b", stacks[1])],
            button_index=number % 2,
            deck=Deck.shuffled(random.Random(seed * 1000 + number)),
        )
        while not hand.is_over:
            view = hand.view(hand.legal_actions().seat_index)  # type: ignore[union-attr]
            request = act_request(view, seq=1, hand_id="h", time_limit_ms=1000)
            legal = view.legal_actions
            assert legal is not None
            yield request, legal
            strategy = strategy_from_reply(bot.report(request)["distribution"], legal)
            hand.act(strategy.draw(rng.random()))


def test_the_random_bot_reports_a_valid_distribution_at_every_decision() -> None:
    # The arena's own check (legal moves, each named once, summing to 1) accepts every
    # report, including the short-stack spots where a call or a raise is the all-in.
    bot = load_bot("python_random")
    merged = 0
    for request, legal in random_bot_requests(60, seed=5):
        reply = bot.report(request)
        assert set(reply) == {"type", "seq", "distribution"}
        strategy = strategy_from_reply(reply["distribution"], legal)
        assert sum(p for _, p in strategy.entries) == pytest.approx(1.0)
        named = [entry["action"] for entry in reply["distribution"]]
        expected = {"FOLD", "CHECK", "CALL", "RAISE", "ALL_IN"} & set(request["legal_actions"])
        if "CHECK" in expected:
            expected.discard("FOLD")  # never a fold when checking is free
        merged += set(named) != expected
        assert set(named) <= expected
    assert merged > 0  # the short stacks did make moves coincide with the all-in


def test_the_random_bot_plays_every_kind_equally_and_all_in_one_time_in_twenty() -> None:
    bot = load_bot("python_random")
    request = {
        "seq": 4,
        "seat_index": 0,
        "legal_actions": ["FOLD", "CALL", "RAISE", "ALL_IN"],
        "current_bet": 2,
        "to_call": 1,
        "min_raise_to": 4,
        "max_raise_to": 200,
        "player_stack": 199,
        "table_state": [{"seat_index": 0, "current_bet": 1}],
    }
    entries = {(e["action"], e.get("amount")): e["probability"] for e in bot.strategy(request)}
    kind = 0.95 / 3 + 0.05 / 4
    assert entries == pytest.approx(
        {
            ("FOLD", None): kind,
            ("CALL", None): kind,
            ("RAISE", 4): kind / 3,
            ("RAISE", 8): kind / 3,
            ("RAISE", 12): kind / 3,
            ("ALL_IN", None): 0.05 / 4,
        }
    )
    # A raise to the whole stack is the all-in: named once, under ALL_IN.
    request.update(max_raise_to=8, player_stack=7)
    entries = {(e["action"], e.get("amount")): e["probability"] for e in bot.strategy(request)}
    assert entries == pytest.approx(
        {
            ("FOLD", None): kind,
            ("CALL", None): kind,
            ("RAISE", 4): kind / 2,
            ("ALL_IN", None): kind / 2 + 0.05 / 4,
        }
    )


def test_the_random_bot_with_draw_draws_its_report_and_repeats_with_its_seed() -> None:
    bot = load_bot("python_random")
    requests = [request for request, _ in random_bot_requests(10, seed=8)]
    first = [bot.draw(request, random.Random(3)) for request in requests]
    assert first == [bot.draw(request, random.Random(3)) for request in requests]
    for request, reply in zip(requests, first, strict=True):
        offered = [(e["action"], e.get("amount")) for e in bot.strategy(request)]
        assert (reply["action"], reply.get("amount")) in offered


def test_the_random_bots_manifest_says_it_is_not_seeded_and_runs_it_reporting() -> None:
    manifest = load_manifest(SAMPLES / "python_random" / "bot.toml")
    assert list(manifest.command[1:]) == ["bot.py"]  # no --draw: the arena draws
    text = (SAMPLES / "python_random" / "bot.toml").read_text()
    assert "Seeded: no" in text


def test_check_bot_sees_the_random_bot_report_every_decision() -> None:
    report = check_bot(SAMPLES / "python_random" / "bot.toml", limits=LIMITS, hand_count=8, seed=2)
    hands = report.hands
    assert hands is not None and hands.is_clean and report.passed
    # Every reply of the played hands was a report: none came as a single action.
    assert hands.distribution_count == hands.latency.count >= 8
