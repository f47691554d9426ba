"""Live bots as the decider of a match (:mod:`arena.match.players`): a dead bot is folded and
restarted between hands, a spent restart budget sits the seat out, and notifications ride along
with the next line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.bots.in_memory import FakeClock
from arena.match.config import MatchConfig
from arena.match.console import table_text
from arena.match.results_table import results_table
from arena.match.run import run_match
from arena.session.policy import TimeLimits
from tests.arena.scripted import (
    assert_chips_conserved,
    calling_station,
    crasher,
    hand_records,
    never_ready,
    play,
    sessions,
)


def test_dead_bot_is_folded_then_restarted_between_hands(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=3, seed=1, restart_budget=5)
    result = play([crasher(on="act"), calling_station, calling_station], config, tmp_path)
    counts = result.player("p0").faults["counts"]
    assert counts["crash"] == 3
    assert counts["restart"] == 2  # before hands 2 and 3
    assert not result.player("p0").is_sitting_out
    assert result.ended_reason == "hand_count"


def test_bot_dying_between_decisions_is_found_by_its_session(tmp_path: Path) -> None:
    # It dies when told the hand started; its next decision records the crash and folds.
    config = MatchConfig(hand_count=2, seed=1, restart_budget=5)
    play([crasher(on="hand_start"), calling_station], config, tmp_path)
    first = next(d for d in hand_records(tmp_path)[0]["decisions"] if d["seat_index"] == 0)
    assert (first["by"], first["fault"], first["action"]) == ("policy", "crash", {"action": "FOLD"})


def test_bot_that_fails_to_restart_is_dead_until_its_budget_is_spent(tmp_path: Path) -> None:
    config = MatchConfig(
        hand_count=4,
        seed=1,
        restart_budget=2,
        time_limits=TimeLimits(startup_s=0.5),
        allow_absent_bots=True,
    )
    result = play([crasher(on="hello"), calling_station], config, tmp_path)
    kinds = [
        next(d["by"] for d in hand["decisions"] if d["seat_index"] == 0)
        for hand in hand_records(tmp_path)
    ]
    # The failed start is retried before hand 1 and hand 2; then the budget is spent.
    assert kinds == ["dead", "sitting_out", "sitting_out", "sitting_out"]
    counts = result.player("p0").faults["counts"]
    assert counts["startup_failure"] == 3 and counts["restart"] == 2


def test_exhausted_restart_budget_sits_out_but_still_posts_blinds(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=6, seed=1, restart_budget=1)
    result = play([crasher(on="act"), calling_station], config, tmp_path)
    player = result.player("p0")
    assert player.is_sitting_out
    assert player.faults["counts"]["restart"] == 1
    hands = hand_records(tmp_path)
    assert hands[-1]["sitting_out"] == [0]
    blinds = [
        e
        for e in hands[-1]["history"]["events"]
        if e["type"] == "blind_posted" and e["seat_index"] == 0
    ]
    assert blinds, "a sitting-out seat still posts its blind"
    decision = next(d for d in hands[-1]["decisions"] if d["seat_index"] == 0)
    assert decision["by"] == "sitting_out"
    assert_chips_conserved(result)
    assert "sitting out" in table_text(results_table(result))


def test_bot_that_never_starts_sits_out_the_whole_match() -> None:
    config = MatchConfig(
        hand_count=3,
        seed=1,
        restart_budget=0,
        time_limits=TimeLimits(startup_s=0.5),
        allow_absent_bots=True,
    )
    result = play([never_ready, calling_station], config)
    player = result.player("p0")
    assert player.faults["counts"]["startup_failure"] == 1
    assert player.is_sitting_out and player.name == "p0"
    assert_chips_conserved(result)


def test_notifications_ride_along_with_the_next_line_in_order(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=4, seed=6)
    clock = FakeClock()
    seats = sessions([calling_station, calling_station], config, clock)
    writes: dict[int, list[list[str]]] = {0: [], 1: []}
    for index, (_, session) in enumerate(seats):
        real_factory = session.transport_factory

        def factory(real: Any = real_factory, index: int = index) -> Any:
            transport = real()
            real_send = transport.send

            def send(data: bytes) -> None:
                writes[index].append([json.loads(line)["type"] for line in data.splitlines()])
                real_send(data)

            transport.send = send
            return transport

        session.transport_factory = factory
    run_match(config, seats, tmp_path, clock=clock)
    for index in (0, 1):
        batches = writes[index]
        types = [kind for batch in batches for kind in batch]
        # Every bot sees every hand start, its requests, the hand end, in that order.
        assert types[0] == "hello" and types[-1] == "match_end"
        hands = " ".join(types[1:-1]).split("hand_start")[1:]
        assert len(hands) == 4
        assert all(hand.strip().endswith("hand_end") for hand in hands)
        # No write carries a hand_end alone: it goes with the next hand_start or match_end.
        assert ["hand_end"] not in batches
        assert batches[-1] == ["hand_end", "match_end"]
    # The first to act got its hand_start in the same write as its first request.
    assert any(batch[-2:] == ["hand_start", "act"] for i in (0, 1) for batch in writes[i])
