"""Scripted in-memory bots and session helpers for the match, replay and CLI tests.

Each bot is a function ``message -> reply`` run by :class:`arena.bots.in_memory.InMemoryTransport`
on a :class:`arena.bots.in_memory.FakeClock`, so timeouts cost no real time.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from arena.bots.in_memory import BotExit, BotOutput, Delayed, FakeClock, InMemoryTransport
from arena.luck import leans as luck_leans
from arena.luck.made_hands import is_made
from arena.match.config import MatchConfig
from arena.match.luck_process import LuckProcess
from arena.match.records import HandRecord
from arena.match.results import MatchResult
from arena.match.run import run_match
from arena.session.watchdog import BotSession
from arena.store.jsonl import JsonLinesStore
from engine.cards import Card
from protocol.cards import card_from_wire
from protocol.request_encoder import EventTextCache
from tests import REPO_ROOT

Bot = Callable[[dict[str, Any]], BotOutput]

REPO = REPO_ROOT
SAMPLE_BOTS = REPO / "sample_bots"
HOSTILE_BOTS = REPO / "tests" / "bots"


def ready(message: dict[str, Any], name: str) -> dict[str, Any]:
    """The ``ready`` reply to ``hello``."""
    return {"type": "ready", "seq": message["seq"], "name": name, "protocol_version": 1}


def passive(message: dict[str, Any]) -> dict[str, Any]:
    """Check when free, else call (a calling station's move)."""
    action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
    return {"type": "action", "seq": message["seq"], "action": action}


def calling_station(message: dict[str, Any]) -> BotOutput:
    """Checks when it can, calls otherwise; stands pat in a draw."""
    kind = message["type"]
    if kind == "hello":
        return ready(message, "station")
    if kind == "act":
        return passive(message)
    if kind == "draw":
        return {"type": "discard", "seq": message["seq"], "cards": []}
    return None


def _raise_min(message: dict[str, Any]) -> BotOutput:
    return {
        "type": "action",
        "seq": message["seq"],
        "action": "RAISE",
        "amount": message["min_raise_to"],
    }


def min_raiser(message: dict[str, Any]) -> BotOutput:
    """Raises the minimum whenever it may, else checks or calls."""
    if message["type"] == "hello":
        return ready(message, "raiser")
    if message["type"] == "act" and "RAISE" in message["legal_actions"]:
        return _raise_min(message)
    return calling_station(message)


def made_hand_raiser(message: dict[str, Any]) -> BotOutput:
    """Raises the minimum on about half the streets where its cards make a made hand on
    the board (two pair or better above the board's own:
    :func:`arena.luck.made_hands.is_made`; those whose board's card numbers add up to an
    even number), else checks or calls: a bot whose lean
    (:class:`arena.luck.leans.BettingLeans`) becomes more than 0 and moves with every
    made street it has (so that a hand counted in its own lean shows)."""
    if message["type"] == "hello":
        return ready(message, "made-hand raiser")
    if message["type"] == "act" and "RAISE" in message["legal_actions"]:
        board = _cards(message["community_cards"])
        made = len(board) >= 3 and is_made(_cards(message["hole_cards"]), board)
        if made and sum(board) % 2 == 0:
            return _raise_min(message)
    return calling_station(message)


def _cards(wire: list[Any]) -> tuple[Card, ...]:
    cards = tuple(card_from_wire(card) for card in wire)
    assert all(card is not None for card in cards), wire
    return cast(tuple[Card, ...], cards)


def shover(message: dict[str, Any]) -> BotOutput:
    """Goes all-in whenever it may (busts someone quickly)."""
    if message["type"] == "hello":
        return ready(message, "shover")
    if message["type"] == "act" and "ALL_IN" in message["legal_actions"]:
        return {"type": "action", "seq": message["seq"], "action": "ALL_IN"}
    return calling_station(message)


def folder(message: dict[str, Any]) -> BotOutput:
    """Folds whenever it may, else checks."""
    if message["type"] == "hello":
        return ready(message, "folder")
    if message["type"] == "act":
        action = "FOLD" if "FOLD" in message["legal_actions"] else "CHECK"
        return {"type": "action", "seq": message["seq"], "action": action}
    return None


def sleeper(seconds: float) -> Bot:
    """Answers every ``act`` after ``seconds`` (on the fake clock)."""

    def bot(message: dict[str, Any]) -> BotOutput:
        if message["type"] == "act":
            return Delayed(seconds, passive(message))
        return calling_station(message)

    return bot


def garbage(message: dict[str, Any]) -> BotOutput:
    """Answers every ``act`` with text that is not JSON."""
    if message["type"] == "act":
        return b"I fold, I think?\n"
    return calling_station(message)


def crasher(*, on: str = "act", exit_code: int = 3) -> Bot:
    """Exits when it receives the first message of type ``on`` (each process anew)."""

    def bot(message: dict[str, Any]) -> BotOutput:
        if message["type"] == on:
            raise BotExit(exit_code)
        return calling_station(message)

    return bot


def chooser(seed: int) -> Bot:
    """Picks a random legal action (a random raise size, a random discard) from its own
    ``random.Random(seed)``: the same seed, the same choices."""
    rng = random.Random(seed)

    def bot(message: dict[str, Any]) -> BotOutput:
        kind = message["type"]
        if kind == "hello":
            return ready(message, f"random{seed}")
        if kind == "act":
            legal = message["legal_actions"]
            pick = rng.choice(legal)
            reply = {"type": "action", "seq": message["seq"], "action": pick}
            if pick == "RAISE":
                reply["amount"] = rng.randint(message["min_raise_to"], message["max_raise_to"])
            return reply
        if kind == "draw":
            cards = message.get("hole_cards", [])
            keep = [c for c in cards if rng.random() < 0.6]
            discard = [c for c in cards if c not in keep][:3]
            return {"type": "discard", "seq": message["seq"], "cards": discard}
        return None

    return bot


def never_ready(message: dict[str, Any]) -> BotOutput:
    """Never answers ``hello``: a startup failure every time."""
    return None


def exits_on_match_end(bot: Bot) -> Bot:
    """``bot``, exiting (code 0) when it gets ``match_end``, as a well-behaved process does;
    an in-memory bot that does not is killed after the grace, an ``ignored_match_end``."""

    def polite(message: dict[str, Any]) -> BotOutput:
        if message["type"] == "match_end":
            raise BotExit(0)
        return bot(message)

    return polite


def sessions(
    bots: Sequence[Bot],
    config: MatchConfig,
    clock: FakeClock,
    *,
    exit_on_match_end: bool = True,
) -> list[tuple[str, BotSession]]:
    """One in-memory session per bot, with the config's limits and policy; they share one
    cache of event texts, as the sessions of a real match do. With ``exit_on_match_end``
    every bot exits at ``match_end`` (:func:`exits_on_match_end`)."""

    def factory(bot: Bot) -> Callable[[], InMemoryTransport]:
        if exit_on_match_end:
            bot = exits_on_match_end(bot)
        return lambda: InMemoryTransport(bot, clock=clock)

    event_texts = EventTextCache()
    out = []
    for index, bot in enumerate(bots):
        session = BotSession(
            factory(bot),
            player_id=f"p{index}",
            seat_index=index,
            clock=clock,
            limits=config.time_limits,
            max_invalid_attempts=config.max_invalid_attempts,
            check_when_free=config.check_on_timeout,
            restart_budget=config.restart_budget,
            hung_after_timeouts=config.hung_after_timeouts,
            event_texts=event_texts,
        )
        out.append(("", session))
    return out


def play(
    bots: Sequence[Bot],
    config: MatchConfig,
    out_dir: Path | None = None,
) -> MatchResult:
    """Run a match between in-memory bots on a fake clock."""
    clock = FakeClock()
    return run_match(config, sessions(bots, config, clock), out_dir, clock=clock)


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every JSON line of a hand history."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def hand_records(out_dir: Path) -> list[dict[str, Any]]:
    """The ``hand`` records of the hand history in ``out_dir``."""
    return [r for r in read_records(out_dir / "hands.jsonl") if r["type"] == "hand"]


def match_leans(hands: Sequence[dict[str, Any]]) -> list[dict[str, float]]:
    """The players' leans a match estimates each of ``hands`` with (its hand records, in
    the order played): those of the hands before it (:class:`arena.luck.leans.BettingLeans`)."""
    return [leans for _, leans in luck_leans.match_leans(hands)]


def assert_chips_conserved(result: MatchResult) -> None:
    """No chip was made or lost over the match."""
    assert sum(player.chips_won for player in result.players) == 0


def capture_hand_records(monkeypatch: Any) -> list[HandRecord]:
    """The list every match's store will append each hand record it is given to (as the
    record object, before it is written), from now until ``monkeypatch`` undoes it."""
    records: list[HandRecord] = []
    store_hand = JsonLinesStore.add_hand

    def add_hand(store: JsonLinesStore, record: HandRecord) -> None:
        records.append(record)
        store_hand(store, record)

    monkeypatch.setattr(JsonLinesStore, "add_hand", add_hand)
    return records


def started_luck_processes(monkeypatch: Any) -> list[int]:
    """The ids of the estimator's processes the matches start from now on (until
    ``monkeypatch`` undoes it)."""
    pids: list[int] = []
    real_start = LuckProcess._start

    def start(self: LuckProcess, first: dict[str, Any]) -> None:
        real_start(self, first)
        assert self.pid is not None
        pids.append(self.pid)

    monkeypatch.setattr(LuckProcess, "_start", start)
    return pids
