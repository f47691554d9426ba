"""Hostile bots as real processes against the watchdog, playing real hands and whole matches.

Most tests seat one hostile bot (tests/bots/) as seat 0 against an in-memory calling
station, with short limits, and check the fault ledger, that the hand goes on, that
chips are conserved, and (through conftest.py) that no process is left behind. The last
ones play whole matches of hostile bots with :func:`arena.match.run.run_match`, and replay
their histories.
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena.bots.in_memory import BotOutput, InMemoryTransport
from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.process import ProcessTransport, process_factory
from arena.match.config import MatchConfig
from arena.match.replay import replay_file
from arena.match.results import MatchResult
from arena.match.run import open_sessions, run_match
from arena.session.faults import FaultKind
from arena.session.policy import TimeLimits
from arena.session.watchdog import BotSession
from engine.config import GameConfig
from engine.hand import Hand, SeatSetup
from protocol.messages import hand_end, hand_start, match_end
from tests import TEST_BOTS
from tests.arena.scripted import HOSTILE_BOTS, SAMPLE_BOTS, read_records

BOTS = TEST_BOTS
CONFIG = GameConfig(small_blind=1, big_blind=2)
LIMITS = TimeLimits(decision_s=0.3, startup_s=5.0, match_end_grace_s=0.5)
PLAYER_IDS = {0: "hostile", 1: "station"}
HELLO: dict[str, Any] = {"player_id": "p", "seat_index": 0, "game": CONFIG.to_dict()}


def hostile(name: str, *args: str) -> BotManifest:
    """The manifest of tests/bots/<name>, with other script arguments if given."""
    manifest = load_manifest(BOTS / name / "bot.toml")
    return replace(manifest, command=(*manifest.command[:2], *args)) if args else manifest


def calling_station(message: dict[str, Any]) -> BotOutput:
    if message["type"] == "hello":
        return {"type": "ready", "seq": message["seq"], "name": "station"}
    if message["type"] == "act":
        action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
        return {"type": "action", "seq": message["seq"], "action": action}
    return None


@contextmanager
def table(
    manifest: BotManifest, *, limits: TimeLimits = LIMITS, **options: Any
) -> Iterator[list[BotSession]]:
    """Seat 0: the hostile bot as a process; seat 1: an in-memory calling station."""
    transports: list[ProcessTransport] = []
    sessions = [
        BotSession(
            process_factory(manifest, on_start=transports.append),
            player_id=PLAYER_IDS[0],
            seat_index=0,
            limits=limits,
            **options,
        ),
        BotSession(
            lambda: InMemoryTransport(calling_station),
            player_id=PLAYER_IDS[1],
            seat_index=1,
            limits=limits,
        ),
    ]
    try:
        yield sessions
    finally:
        for session in sessions:
            session.close()
        for transport in transports:  # belt and braces: every process ever started
            transport.close(0.0)


def start(sessions: list[BotSession]) -> None:
    for session in sessions:
        session.start({**HELLO, "seat_index": session.seat_index})


def play_hand(
    sessions: list[BotSession], number: int, stacks: dict[int, int] | None = None
) -> Hand:
    """One hand, the hostile bot on the button; bots not running are folded by decide()."""
    stacks = stacks or {0: 200, 1: 200}
    seats = [SeatSetup(i, PLAYER_IDS[i], stacks[i]) for i in (0, 1)]
    hand = Hand.start(CONFIG, seats, button_index=0, rng=random.Random(number), hand_number=number)
    hand_id = f"h{number}"
    for session in sessions:
        session.notify(hand_start(hand.view(session.seat_index), hand_id=hand_id))
    while not hand.is_over:
        actor = hand.actor_index
        assert actor is not None
        hand.act(sessions[actor].decide(hand.view(actor), hand_id=hand_id).action)
    result = hand.result
    assert result is not None
    for session in sessions:
        session.notify(hand_end(result, hand_id=hand_id, player_ids=PLAYER_IDS))
    assert sum(hand.stacks.values()) == sum(stacks.values())  # chips are conserved
    return hand


def kinds(session: BotSession) -> dict[FaultKind, int]:
    return {kind: n for kind, n in session.ledger.counts().items() if n}


# -- hangs ----------------------------------------------------------------------------------


def test_a_hanging_bot_times_out_folds_and_is_gone_after_the_match() -> None:
    with table(hostile("hang", "act")) as sessions:
        start(sessions)
        hand = play_hand(sessions, 1)
        (timeout,) = sessions[0].ledger.of_kind(FaultKind.TIMEOUT)
        assert timeout.latency_ms is not None and 300 <= timeout.latency_ms < 1500
        assert hand.stacks[0] == 199  # folded its small blind
        transport = sessions[0].transport
        assert isinstance(transport, ProcessTransport)
        info = sessions[0].finish(match_end([], hands_played=1))
        assert info is not None and info.exit_code == 0  # it exits when its input ends
        assert _zombie(transport.pid)


def _zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_bot_that_ignores_match_end_is_killed_after_the_grace() -> None:
    with table(hostile("hang", "match_end")) as sessions:
        start(sessions)
        play_hand(sessions, 1)
        began = time.monotonic()
        info = sessions[0].finish(match_end([], hands_played=1))
        assert info is not None and info.is_killed and info.signal == signal.SIGKILL
        assert 0.4 < time.monotonic() - began < 3.0


def test_a_bot_that_never_sends_ready_is_a_startup_failure() -> None:
    limits = replace(LIMITS, startup_s=0.3)
    with table(hostile("hang", "startup"), limits=limits) as sessions:
        assert sessions[0].start(HELLO) is None
        (fault,) = sessions[0].ledger.faults
        assert fault.code == "startup_timeout"
        assert not sessions[0].is_alive


def test_a_deaf_bot_times_out_without_blocking_the_arena() -> None:
    with table(hostile("hang", "deaf")) as sessions:
        start(sessions)
        began = time.monotonic()
        play_hand(sessions, 1)
        assert time.monotonic() - began < 3.0
        assert kinds(sessions[0]) == {FaultKind.TIMEOUT: 1}


# -- crashes --------------------------------------------------------------------------------


@pytest.mark.parametrize("street", ["PRE_FLOP", "FLOP", "TURN", "RIVER"])
def test_a_crash_on_any_street_folds_the_seat_and_the_hand_goes_on(street: str) -> None:
    with table(hostile("crasher", street, "exit")) as sessions:
        start(sessions)
        hand = play_hand(sessions, 1)
        (crash,) = sessions[0].ledger.of_kind(FaultKind.CRASH)
        assert crash.exit_code == 3 and crash.hand_number == 1
        assert f"crashing at {street}" in crash.detail
        # What it committed stays in the pot: the station wins it.
        assert hand.stacks[0] < 200 and hand.result is not None
        assert hand.result.ended_reason == "FOLD"
        assert not sessions[0].is_alive


@pytest.mark.parametrize(
    ("how", "exit_code", "signal_number"),
    [("signal", None, int(signal.SIGKILL)), ("close", None, None)],
)
def test_a_crash_by_signal_or_closed_stdout_is_recorded(
    how: str, exit_code: int | None, signal_number: int | None
) -> None:
    with table(hostile("crasher", "FLOP", how)) as sessions:
        start(sessions)
        play_hand(sessions, 1)
        (crash,) = sessions[0].ledger.of_kind(FaultKind.CRASH)
        assert (crash.exit_code, crash.signal) == (exit_code, signal_number)


def test_a_crashed_bot_is_restarted_between_hands_until_the_budget_is_spent() -> None:
    with table(hostile("crasher", "PRE_FLOP"), restart_budget=1) as sessions:
        start(sessions)
        stacks = play_hand(sessions, 1).stacks
        assert sessions[0].restart() is True  # between hands, by the match loop
        stacks = play_hand(sessions, 2, stacks).stacks
        assert sessions[0].restart() is False
        assert sessions[0].is_sitting_out
        # Sitting out: dealt in, posts its blind, folded without being asked.
        hand = play_hand(sessions, 3, stacks)
        assert hand.stacks[0] == stacks[0] - 1
        assert kinds(sessions[0]) == {FaultKind.CRASH: 2, FaultKind.RESTART: 1}


def test_a_crash_on_hand_start_is_found_and_recorded() -> None:
    with table(hostile("crasher", "hand_start")) as sessions:
        start(sessions)
        play_hand(sessions, 1)
        (crash,) = sessions[0].ledger.of_kind(FaultKind.CRASH)
        assert crash.exit_code == 3


# -- garbage --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("text", "invalid_json"),
        ("json_list", "not_an_object"),
        ("no_seq", "bad_seq"),
        ("unknown_action", "unknown_action"),
        ("illegal", "raise_below_minimum"),
        ("bad_amount", "schema_violation"),
        ("binary", "invalid_utf8"),
        ("long", "line_too_long"),
        ("empty", "invalid_json"),
    ],
)
def test_garbage_is_rejected_three_times_then_folded(mode: str, code: str) -> None:
    with table(hostile("garbage", mode)) as sessions:
        start(sessions)
        hand = play_hand(sessions, 1)
        faults = sessions[0].ledger.of_kind(FaultKind.INVALID_REPLY)
        assert [fault.code for fault in faults] == [code] * 3
        assert [fault.seq for fault in faults] == [2, 3, 4]
        assert hand.stacks[0] == 199
        assert sessions[0].is_alive  # a bad reply is not a crash


def test_a_bot_that_recovers_after_an_error_plays_on() -> None:
    with table(hostile("garbage", "text", "once")) as sessions:
        start(sessions)
        play_hand(sessions, 1)
        ledger = sessions[0].ledger
        assert kinds(sessions[0]) == {
            FaultKind.INVALID_REPLY: ledger.count(FaultKind.INVALID_REPLY)
        }
        assert ledger.latency_stats().count >= 2 * ledger.count(FaultKind.INVALID_REPLY)


# -- wrong seqs -----------------------------------------------------------------------------


def test_a_stale_seq_is_dropped_and_the_decision_times_out() -> None:
    with table(hostile("stale", "always")) as sessions:
        start(sessions)
        play_hand(sessions, 1)
        assert kinds(sessions[0]) == {FaultKind.STALE_REPLY: 1, FaultKind.TIMEOUT: 1}
        (stale,) = sessions[0].ledger.of_kind(FaultKind.STALE_REPLY)
        assert stale.seq == 1


def test_a_stale_seq_followed_by_the_right_one_is_accepted() -> None:
    with table(hostile("stale", "then_valid")) as sessions:
        start(sessions)
        play_hand(sessions, 1)
        counts = kinds(sessions[0])
        assert set(counts) == {FaultKind.STALE_REPLY}


def test_a_seq_never_sent_is_an_invalid_reply() -> None:
    with table(hostile("stale", "future")) as sessions:
        start(sessions)
        play_hand(sessions, 1)
        faults = sessions[0].ledger.of_kind(FaultKind.INVALID_REPLY)
        assert [fault.code for fault in faults] == ["unknown_seq"] * 3


def test_lines_nobody_asked_for_are_dropped_and_recorded() -> None:
    with table(hostile("unsolicited")) as sessions:
        start(sessions)
        stacks = play_hand(sessions, 1).stacks
        play_hand(sessions, 2, stacks)
        # hand_start and hand_end of hand 1 and hand_start of hand 2 at least.
        assert sessions[0].ledger.count(FaultKind.UNSOLICITED_LINE) >= 3
        assert set(kinds(sessions[0])) == {FaultKind.UNSOLICITED_LINE}


# -- floods, trees, time --------------------------------------------------------------------


def test_a_flooding_bot_neither_blocks_nor_fills_memory() -> None:
    # The bot's reply comes after its 2 MB of stale lines, which the arena reads and drops
    # first: on a loaded machine that takes longer than the other tests' 0.3 s decision
    # (seen: a timeout at a load of 11 on two cores). A blocked reader would still run out
    # of the longer limit.
    limits = TimeLimits(decision_s=5.0, startup_s=10.0, match_end_grace_s=0.5)
    with table(hostile("flood", "4", "2"), limits=limits) as sessions:
        start(sessions)
        hand = play_hand(sessions, 1)
        assert hand.result is not None
        counts = kinds(sessions[0])
        assert FaultKind.TIMEOUT not in counts and FaultKind.INVALID_REPLY not in counts
        assert counts[FaultKind.STALE_REPLY] > 100
        info = sessions[0].finish(match_end([], hands_played=1))
        assert info is not None and info.stderr_dropped_bytes > 3_000_000
        (dropped,) = sessions[0].ledger.of_kind(FaultKind.DROPPED_OUTPUT)
        assert dropped.dropped_bytes == info.dropped_bytes
        assert sessions[0].ledger.dropped_output_bytes == info.dropped_bytes
        stored = len(sessions[0].ledger.faults)
        assert stored <= 3 * sessions[0].ledger.max_entries_per_kind


def test_a_bot_leaving_a_grandchild_behind_has_its_whole_tree_killed() -> None:
    for mode in ("group", "setsid"):
        with table(hostile("forker", mode)) as sessions:
            start(sessions)
            transport = sessions[0].transport
            assert isinstance(transport, ProcessTransport)
            deadline = time.monotonic() + 5
            while "grandchild" not in transport.stderr_log.text():
                assert time.monotonic() < deadline
                time.sleep(0.01)
            grandchild = int(transport.stderr_log.text().split()[1])
            play_hand(sessions, 1)
            sessions[0].finish(match_end([], hands_played=1))
            assert _zombie(grandchild) or not psutil.pid_exists(grandchild)


def test_the_time_bank_lets_a_slow_bot_run_over_once() -> None:
    limits = replace(LIMITS, decision_s=0.3, time_bank_s=0.3)
    with table(hostile("slow", "0.5"), limits=limits) as sessions:
        start(sessions)
        hand = play_hand(sessions, 1)
        ledger = sessions[0].ledger
        # First decision: 0.2 s over, from the bank; the next one cannot be covered.
        assert ledger.count(FaultKind.TIMEOUT) >= 1
        assert ledger.latency_stats().count >= 1
        assert ledger.latency_stats().max_ms >= 450
        assert sessions[0].time_bank_left_s == 0.0
        assert hand.result is not None


# -- whole matches --------------------------------------------------------------------------


def _bot(folder: str, *args: str) -> BotManifest:
    manifest = load_manifest(HOSTILE_BOTS / folder / "bot.toml")
    if args:
        manifest = replace(manifest, command=(*manifest.command[:2], *args))
    return manifest


def _station() -> BotManifest:
    return load_manifest(SAMPLE_BOTS / "python_calling_station" / "bot.toml")


def _play(manifests: list[BotManifest], config: MatchConfig, out_dir: Path) -> MatchResult:
    result = run_match(config, open_sessions(manifests, config), out_dir)
    assert result.hands_played == config.hand_count
    assert sum(player.chips_won for player in result.players) == 0  # chips conserved
    for record in read_records(out_dir / "hands.jsonl"):
        if record["type"] == "hand":
            history = record["history"]["result"]
            start = sum(history["starting_stacks"].values())
            assert (
                sum(history["final_stacks"].values())
                == start
                == config.starting_stack * len(history["starting_stacks"])
            )
    return result


def _counts(result: MatchResult, player_id: str) -> dict[str, int]:
    counts: dict[str, int] = result.player(player_id).faults["counts"]
    return counts


def test_crashes_on_every_street_are_faults_and_the_match_completes(tmp_path: Path) -> None:
    streets = ["hand_start", "PRE_FLOP", "FLOP", "TURN", "RIVER", "hand_end"]
    manifests = [_station(), *(_bot("crasher", street, "exit") for street in streets)]
    manifests.append(_bot("crasher", "PRE_FLOP", "signal"))
    config = MatchConfig(
        hand_count=6, seed=7, time_limits=TimeLimits(decision_s=1.0), restart_budget=2
    )
    result = _play(manifests, config, tmp_path)
    for index in range(1, len(manifests)):
        counts = _counts(result, f"p{index}")
        assert counts["crash"] >= 1, (manifests[index].command, counts)
        assert counts["restart"] <= 2
    assert _counts(result, "p0")["crash"] == 0
    # The pre-flop crasher died in every process it had: its budget is spent.
    assert result.player("p2").is_sitting_out
    assert replay_file(tmp_path / "hands.jsonl").is_ok


def test_hanging_garbage_stale_and_flooding_bots_are_recorded(tmp_path: Path) -> None:
    manifests = [
        _station(),
        _bot("hang", "act"),
        _bot("garbage", "text"),
        _bot("garbage", "illegal", "once"),
        _bot("stale", "always"),
        _bot("flood", "1", "0.1"),
        _bot("unsolicited"),
    ]
    config = MatchConfig(
        hand_count=5, seed=3, time_limits=TimeLimits(decision_s=0.25, startup_s=5.0)
    )
    result = _play(manifests, config, tmp_path)
    assert _counts(result, "p1")["timeout"] >= 1
    assert _counts(result, "p2")["invalid_reply"] >= 3
    assert _counts(result, "p3")["invalid_reply"] >= 1
    stale = _counts(result, "p4")
    assert stale["stale_reply"] >= 1 and stale["timeout"] >= 1
    assert _counts(result, "p5")["stale_reply"] >= 1
    assert _counts(result, "p6")["unsolicited_line"] >= 1
    # 1 MB of stderr is over the 256 KiB log cap: the rest is counted, not kept.
    assert result.player("p5").faults["dropped_output_bytes"] > 0
    assert replay_file(tmp_path / "hands.jsonl").is_ok


def test_a_bot_that_never_starts_sits_out_and_the_match_still_runs(tmp_path: Path) -> None:
    manifests = [_station(), _bot("hang", "startup"), _station()]
    config = MatchConfig(
        hand_count=3,
        seed=1,
        time_limits=TimeLimits(startup_s=0.3),
        restart_budget=1,
        allow_absent_bots=True,
    )
    result = _play(manifests, config, tmp_path)
    assert _counts(result, "p1")["startup_failure"] == 2  # the start and one restart
    assert result.player("p1").is_sitting_out
