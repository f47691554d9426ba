"""The match loop with scripted in-memory bots (no processes, fake clock)."""

from __future__ import annotations

import inspect
import io
import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.bots.in_memory import BotOutput, Delayed, FakeClock
from arena.match.config import MatchConfig, MatchConfigError, MatchError, StackPolicy
from arena.match.formats import ResetStacks, format_for
from arena.match.log import GameLog, MatchLogFormatter, configure_logging, parse_level
from arena.match.loop import MatchRunner
from arena.match.progress import Progress
from arena.match.records import action_to_dict
from arena.match.results import MatchResult, PlayerResult
from arena.match.run import live_match, open_sessions, run_match
from arena.session.watchdog import BotSession, DecisionOutcome
from arena.store.jsonl import HandLogError, read_hand_log
from arena.tools.results_table import fault_summary, format_results_table, latency_ms
from engine.actions import Call, Discard, RaiseTo
from engine.config import DrawLimit, GameConfig, Variant
from engine.hand import Hand
from engine.schedule import BlindSchedule
from tests.arena.scripted import (
    calling_station,
    crasher,
    folder,
    garbage,
    min_raiser,
    never_ready,
    play,
    read_records,
    sessions,
    shover,
    sleeper,
)


def _hands(path: Path) -> list[dict[str, Any]]:
    return [r for r in read_records(path / "hands.jsonl") if r["type"] == "hand"]


def _assert_conserved(result: MatchResult) -> None:
    assert sum(player.chips_won for player in result.players) == 0


# ------------------------------------------------------------------- stack policies


def test_reset_policy_starts_every_hand_from_the_starting_stack(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=12, seed=3, starting_stack=150)
    result = play([calling_station, min_raiser, shover], config, tmp_path)
    assert result.hands_played == 12
    assert result.mode == "hands"
    for record in _hands(tmp_path):
        assert [seat["stack"] for seat in record["history"]["seats"]] == [150, 150, 150]
    _assert_conserved(result)
    assert all(player.hands_played == 12 for player in result.players)
    assert all(player.final_stack is None for player in result.players)
    assert (tmp_path / "results.json").is_file()
    assert MatchResult.read_json(tmp_path / "results.json").to_dict() == result.to_dict()


@pytest.mark.parametrize("variant", [Variant.HOLDEM, Variant.FIVE_CARD_DRAW])
def test_hands_dealt_ahead_change_nothing_in_the_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: Variant
) -> None:
    # With stacks reset, the match deals hand n+1 while a bot thinks in hand n. The hand
    # history must be byte for byte what dealing each hand when it is due gives.
    from engine.table import Table

    config = MatchConfig(hand_count=30, seed=11, game=GameConfig(variant=variant))

    def thinking(bot: Any) -> Any:
        # Replies 1 ms after each request (fake clock): the match works while it waits.
        return lambda m: Delayed(0.001, bot(m)) if m["type"] in ("act", "draw") else bot(m)

    bots = [thinking(calling_station), thinking(min_raiser), thinking(shover)]
    adopted: list[bool] = []
    start_hand = Table.start_hand

    def spy(table: Table, *args: Any, **kwargs: Any) -> Any:
        adopted.append(kwargs.get("dealt") is not None)
        return start_hand(table, *args, **kwargs)

    monkeypatch.setattr(Table, "start_hand", spy)
    play(bots, config, tmp_path / "ahead")
    assert len(adopted) == 30 and sum(adopted) == 29  # each but the first hand
    monkeypatch.setattr(ResetStacks, "deal_ahead", lambda self, *, after: None)
    play(bots, config, tmp_path / "plain")
    monkeypatch.undo()
    monkeypatch.setattr(Table, "is_next_hand", lambda self, hand: False)  # always stale
    play(bots, config, tmp_path / "stale")
    expected = (tmp_path / "plain" / "hands.jsonl").read_bytes()
    assert (tmp_path / "ahead" / "hands.jsonl").read_bytes() == expected
    assert (tmp_path / "stale" / "hands.jsonl").read_bytes() == expected


def test_no_hand_is_dealt_ahead_with_carried_stacks_or_a_timed_schedule() -> None:
    def ahead_of_the_first_hand(config: MatchConfig) -> Hand | None:
        stack_format = format_for(config, ["p0", "p1"], clock=FakeClock())
        return stack_format.deal_ahead(after=stack_format.deal())

    counted = BlindSchedule.doubling(1, 2, every_hands=1)
    assert ahead_of_the_first_hand(MatchConfig(stack_policy=StackPolicy.CARRY)) is None
    timed = MatchConfig(schedule=BlindSchedule.doubling(1, 2, every_seconds=60))
    assert ahead_of_the_first_hand(timed) is None
    assert ahead_of_the_first_hand(MatchConfig(hand_count=2, schedule=counted)) is not None
    # The last hand is being played: nothing comes after it.
    assert ahead_of_the_first_hand(MatchConfig(hand_count=1, schedule=counted)) is None


def test_results_measure_big_blinds_per_100_hands() -> None:
    config = MatchConfig(hand_count=10, seed=5, game=GameConfig(small_blind=5, big_blind=10))
    result = play([folder, min_raiser], config)
    _assert_conserved(result)
    for player in result.players:
        assert player.big_blinds_won == pytest.approx(player.chips_won / 10)
        assert player.big_blinds_per_100 == pytest.approx(player.chips_won / 10 * 10)
    ranked = result.ranked()
    assert ranked[0].chips_won >= ranked[1].chips_won
    assert ranked[0].place == 1


def test_carry_policy_eliminates_busted_bots_and_places_them() -> None:
    config = MatchConfig(hand_count=200, seed=11, stack_policy=StackPolicy.CARRY)
    result = play([shover, shover, shover], config)
    _assert_conserved(result)
    assert result.mode == "carry"
    assert result.ended_reason == "one_player_left"
    busted = [p for p in result.players if p.eliminated_in_hand is not None]
    assert len(busted) == 2
    assert {p.place for p in result.players} >= {1}
    winner = result.ranked()[0]
    assert winner.final_stack == 600 and winner.eliminated_in_hand is None
    assert all(p.final_stack == 0 for p in busted)


def test_carry_policy_stops_after_the_hand_count() -> None:
    config = MatchConfig(hand_count=5, seed=2, stack_policy=StackPolicy.CARRY)
    result = play([calling_station, folder], config)
    assert result.hands_played == 5
    assert result.ended_reason == "hand_count"
    assert sum(p.final_stack or 0 for p in result.players) == 400


def test_freezeout_plays_until_one_bot_holds_every_chip(tmp_path: Path) -> None:
    config = MatchConfig(
        hand_count=None,
        seed=4,
        starting_stack=100,
        stack_policy=StackPolicy.FREEZEOUT,
        schedule=BlindSchedule.doubling(1, 2, every_hands=2),
    )
    result = play([calling_station, min_raiser, calling_station, folder], config, tmp_path)
    _assert_conserved(result)
    assert result.ended_reason == "one_player_left"
    assert sorted(p.place for p in result.players if p.place is not None)[0] == 1
    assert sum(p.final_stack or 0 for p in result.players) == 400
    end = read_records(tmp_path / "hands.jsonl")[-1]
    assert end["type"] == "match_end" and end["standings"][0]["place"] == 1
    # Blinds double every 2 hands: hand 3 is played at 2/4.
    history = _hands(tmp_path)[2]["history"]
    assert (history["config"]["small_blind"], history["config"]["big_blind"]) == (2, 4)


def test_freezeout_capped_by_hand_count_places_survivors_by_chips() -> None:
    config = MatchConfig(hand_count=3, seed=4, stack_policy=StackPolicy.FREEZEOUT)
    result = play([calling_station, folder], config)
    assert result.hands_played == 3
    assert result.ended_reason == "max_hands"
    assert result.ranked()[0].final_stack is not None


# ------------------------------------------------------------------ faults and policy


def test_timeout_folds_and_is_in_the_ledger(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=4, seed=1, decision_timeout_s=0.5)
    result = play([sleeper(2.0), calling_station], config, tmp_path)
    slow = result.player("p0")
    assert slow.faults["counts"]["timeout"] >= 1
    decisions = [d for r in _hands(tmp_path) for d in r["decisions"] if d["seat_index"] == 0]
    assert decisions[0]["by"] == "policy" and decisions[0]["fault"] == "timeout"
    assert decisions[0]["action"] == {"action": "FOLD"}
    _assert_conserved(result)


def test_check_on_timeout_checks_when_checking_is_free(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=2, seed=1, decision_timeout_s=0.5, check_on_timeout=True)
    play([calling_station, sleeper(2.0)], config, tmp_path)
    # Heads-up, seat 1 is the big blind in hand 1: it may check after the call.
    decisions = [d for d in _hands(tmp_path)[0]["decisions"] if d["seat_index"] == 1]
    assert decisions[0]["fault"] == "timeout"
    assert decisions[0]["action"] == {"action": "CHECK"}


def test_garbage_replies_are_faults_and_the_seat_folds(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=3, seed=1)
    result = play([garbage, calling_station], config, tmp_path)
    decisions = [d for r in _hands(tmp_path) for d in r["decisions"] if d["seat_index"] == 0]
    # Three attempts per decision, each one a recorded fault.
    assert result.player("p0").faults["counts"]["invalid_reply"] == 3 * len(decisions)
    decision = next(d for d in _hands(tmp_path)[0]["decisions"] if d["seat_index"] == 0)
    assert decision["by"] == "policy" and decision["fault"] == "invalid_reply"


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
    first = next(d for d in _hands(tmp_path)[0]["decisions"] if d["seat_index"] == 0)
    assert (first["by"], first["fault"], first["action"]) == ("policy", "crash", {"action": "FOLD"})


def test_bot_that_fails_to_restart_is_dead_until_its_budget_is_spent(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=4, seed=1, restart_budget=2, startup_timeout_s=0.5)
    result = play([crasher(on="hello"), calling_station], config, tmp_path)
    kinds = [
        next(d["by"] for d in hand["decisions"] if d["seat_index"] == 0)
        for hand in _hands(tmp_path)
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
    hands = _hands(tmp_path)
    assert hands[-1]["sitting_out"] == [0]
    blinds = [
        e
        for e in hands[-1]["history"]["events"]
        if e["type"] == "blind_posted" and e["seat_index"] == 0
    ]
    assert blinds, "a sitting-out seat still posts its blind"
    decision = next(d for d in hands[-1]["decisions"] if d["seat_index"] == 0)
    assert decision["by"] == "sitting_out"
    _assert_conserved(result)
    assert "sitting out" in format_results_table(result)


def test_bot_that_never_starts_sits_out_the_whole_match() -> None:
    config = MatchConfig(hand_count=3, seed=1, restart_budget=0, startup_timeout_s=0.5)
    result = play([never_ready, calling_station], config)
    player = result.player("p0")
    assert player.faults["counts"]["startup_failure"] == 1
    assert player.is_sitting_out and player.name == "p0"
    _assert_conserved(result)


def test_an_illegal_action_from_our_own_code_stops_the_match_loudly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken_decide(self: BotSession, view: Any, *, hand_id: str, **_: Any) -> DecisionOutcome:
        return DecisionOutcome(RaiseTo(10_000))

    monkeypatch.setattr(BotSession, "decide", broken_decide)
    clock = FakeClock()
    config = MatchConfig(hand_count=2)
    seats = sessions([calling_station, calling_station], config, clock)
    with pytest.raises(MatchError, match="illegal action RAISE 10000"):
        run_match(config, seats, clock=clock)
    assert not any(session.is_alive for _, session in seats)


def test_hands_played_before_our_bug_are_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A hand's record is written while the next hand's first bot thinks; when the match
    # stops on our bug before that, the record is still written on the way out.
    real_finish = MatchRunner._finish_hand

    def finish_then_break(self: MatchRunner, hand: Any, *args: Any) -> None:
        real_finish(self, hand, *args)
        if hand.hand_number == 3:
            raise MatchError("our bug after hand 3")

    monkeypatch.setattr(MatchRunner, "_finish_hand", finish_then_break)
    config = MatchConfig(hand_count=5, seed=2)
    clock = FakeClock()
    seats = sessions([calling_station, calling_station], config, clock)
    with pytest.raises(MatchError, match="our bug after hand 3"):
        run_match(config, seats, tmp_path, clock=clock)
    assert [record["hand_number"] for record in _hands(tmp_path)] == [1, 2, 3]


def test_every_hand_conserves_chips_or_the_match_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.hand import Hand

    real_result = inspect.getattr_static(Hand, "result").fget

    def leaking_result(hand: Hand) -> Any:
        result = real_result(hand)
        if result is None:
            return None
        return replace(result, final_stacks={seat: 1 for seat in result.final_stacks})

    monkeypatch.setattr(Hand, "result", property(leaking_result))
    config = MatchConfig(hand_count=2)
    clock = FakeClock()
    seats = sessions([calling_station, folder], config, clock)
    with pytest.raises(MatchError, match="chips not conserved"):
        run_match(config, seats, clock=clock)


# ------------------------------------------------------------------------- config


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hand_count": 0}, "hand_count must be a positive integer, got 0"),
        ({"hand_count": None}, "hand_count is required"),
        ({"seed": "x"}, "seed must be an integer, got 'x'"),
        ({"starting_stack": 0}, "starting_stack must be a positive integer, got 0"),
        ({"decision_timeout_s": 0}, "decision_timeout_s must be a positive number, got 0"),
        ({"time_bank_s": -1}, "time_bank_s must be a non-negative number, got -1"),
        ({"max_invalid_attempts": 0}, "max_invalid_attempts must be at least 1, got 0"),
        ({"restart_budget": -1}, "restart_budget must be a non-negative integer, got -1"),
    ],
)
def test_bad_match_config_names_the_bad_value(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(MatchConfigError, match=message):
        MatchConfig(**changes)


def test_match_config_round_trips_through_json_form() -> None:
    config = MatchConfig(
        hand_count=None,
        seed=9,
        stack_policy=StackPolicy.FREEZEOUT,
        schedule=BlindSchedule.doubling(1, 2, every_hands=3),
        check_on_timeout=True,
    )
    assert config.match_id == "seed9"
    assert MatchConfig.from_dict(config.to_dict()) == config


@pytest.mark.parametrize("count", [1, 11])
def test_a_match_needs_two_to_ten_bots(count: int) -> None:
    config = MatchConfig()
    with pytest.raises(MatchConfigError, match=f"2 to 10 bots, got {count}"):
        live_match(config, [("", None)] * count)


def test_open_sessions_makes_one_unstarted_session_per_manifest() -> None:
    from arena.bots.manifest import load_manifest
    from tests.arena.scripted import SAMPLE_BOTS

    manifest = load_manifest(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
    config = MatchConfig(decision_timeout_s=0.25, restart_budget=1)
    opened = open_sessions([manifest, manifest], config)
    assert [name for name, _ in opened] == [manifest.name, manifest.name]
    session = opened[1][1]
    assert (session.player_id, session.seat_index, session.restart_budget) == ("p1", 1, 1)
    assert session.limits.decision_s == 0.25 and not session.is_alive


def test_action_to_dict_records_discards() -> None:
    from engine.cards import parse_cards

    discard = Discard(tuple(parse_cards("As 7d")))
    assert action_to_dict(discard) == {"action": "DISCARD", "cards": ["As", "7d"]}


# ---------------------------------------------------------------------------- logs


def test_log_lines_follow_seed_002s_format() -> None:
    stream = io.StringIO()
    remove = configure_logging("debug", stream=stream, game_id="seed1")
    try:
        play([min_raiser, calling_station, garbage], MatchConfig(hand_count=2, seed=1))
    finally:
        remove()
    lines = stream.getvalue().splitlines()
    kinds = {line.split("] ", 2)[2].split(" |")[0] for line in lines}
    assert {"HAND_START", "ACTION", "ERROR", "POT_UPDATE", "HAND_COMPLETE"} <= kinds
    first = lines[0]
    assert first.startswith("[20") and "] [seed1] " in first
    assert any("ERROR | Hand: 1, Player: p2, Error: INVALID_REPLY" in line for line in lines)
    assert any("Action: RAISE, Amount: 4" in line for line in lines)
    assert any(" BOT | " in line for line in lines)  # the watchdog's details at debug


def test_log_level_filters_lines_and_log_file_receives_them(tmp_path: Path) -> None:
    log_file = tmp_path / "logs" / "match.log"
    remove = configure_logging("warning", log_file=log_file, timestamps=False)
    try:
        play([garbage, calling_station], MatchConfig(hand_count=1, seed=1))
    finally:
        remove()
    text = log_file.read_text()
    assert "ERROR | Hand: 1, Player: p0" in text
    assert "HAND_START" not in text and "BOT |" not in text


def test_log_helpers() -> None:
    assert parse_level("off") > logging.CRITICAL
    with pytest.raises(ValueError, match="log level 'loud' is not one of"):
        parse_level("loud")
    stream = io.StringIO()
    remove = configure_logging(logging.INFO, stream=stream, timestamps=False)
    try:
        log = GameLog("g")
        log.hand_complete(3, [("p0", 5), ("p1", 5)], reason="SHOWDOWN")
        log.error(None, "p1", "startup_failure", "no ready")
        log.hand_start(4, player_count=2, small_blind=1, big_blind=2, ante=1, button_seat=0)
        log.action(4, "p0", 0, "FOLD")  # below INFO: dropped
    finally:
        remove()
    assert stream.getvalue().splitlines() == [
        "[g] HAND_COMPLETE | Hand: 3, Winners: [p0 5, p1 5], Reason: SHOWDOWN",
        "[g] ERROR | Player: p1, Error: STARTUP_FAILURE, Details: no ready",
        "[g] HAND_START | Hand: 4, Players: 2, Blinds: 1/2, Ante: 1, Button: 0",
    ]
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hi", None, None)
    assert MatchLogFormatter(timestamps=False, default_game_id="m").format(record) == "[m] BOT | hi"


def test_action_log_line_notes_who_chose() -> None:
    stream = io.StringIO()
    remove = configure_logging("debug", stream=stream, timestamps=False)
    try:
        GameLog("g").action(1, "p0", 0, "FOLD", note="policy")
    finally:
        remove()
    assert (
        stream.getvalue() == "[g] ACTION | Hand: 1, Player: p0, Seat: 0, Action: FOLD, By: policy\n"
    )


# ------------------------------------------------------------- progress and report


def test_progress_bar_on_a_terminal_redraws_in_place() -> None:
    stream = io.StringIO()
    now = [0.0]
    bar = Progress(20, stream=stream, is_tty=True, clock=lambda: now[0])
    for done in range(1, 21):
        now[0] += 0.05
        bar.update(done)
    bar.close()
    text = stream.getvalue()
    assert text.count("\r") < 20  # throttled
    assert "20/20 hands" in text and text.endswith("\n")
    assert "[##############################]" in text


def test_progress_without_a_total_counts_hands() -> None:
    stream = io.StringIO()
    bar = Progress(None, stream=stream, is_tty=False)
    for done in range(1, 201):
        bar.update(done, "3 left")
    bar.close()
    assert stream.getvalue().splitlines() == ["hand 100 3 left", "hand 200 3 left"]
    tty = io.StringIO()
    unknown = Progress(None, stream=tty, is_tty=True, clock=lambda: 1.0)
    unknown.update(7, "2 left")
    assert "7 hands" in tty.getvalue() and "2 left" in tty.getvalue()
    assert not Progress(5, stream=io.StringIO()).is_tty  # a StringIO is not a terminal


def test_progress_is_used_by_the_match() -> None:
    stream = io.StringIO()
    clock = FakeClock()
    config = MatchConfig(hand_count=10)
    run_match(
        config,
        sessions([calling_station, folder], config, clock),
        progress=Progress(10, stream=stream, is_tty=False),
        clock=clock,
    )
    assert stream.getvalue().splitlines()[-1] == "hand 10/10 (100%)"


def test_results_table_and_helpers() -> None:
    player = PlayerResult("p0", "x", 0, 0, 0, 0.0)
    assert player.big_blinds_per_100 == 0.0
    assert fault_summary({}) == "-" and fault_summary({"counts": {"timeout": 0}}) == "-"
    assert latency_ms({"latency": {"count": 0}}, "p50") is None
    assert latency_ms({"latency": {"count": 1, "p50_ms": "x"}}, "p50") is None
    result = MatchResult("m", 1, "freezeout", 0, (player,))
    assert result.hands_per_second == 0.0
    assert "freezeout" in format_results_table(result)
    with pytest.raises(KeyError, match="no player 'p9'"):
        result.player("p9")
    assert MatchResult.from_dict(result.to_dict()) == result


def test_hand_log_reader_rejects_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    with pytest.raises(HandLogError, match="cannot read"):
        read_hand_log(path)
    path.write_bytes(b"\xff\n")
    with pytest.raises(HandLogError, match="not UTF-8"):
        read_hand_log(path)
    path.write_text("{nope\n")
    with pytest.raises(HandLogError, match=r"h\.jsonl:1: not JSON"):
        read_hand_log(path)
    path.write_text('{"type": "hand"}\n')
    with pytest.raises(HandLogError, match="unexpected record type 'hand'"):
        read_hand_log(path)
    path.write_text("\n")
    with pytest.raises(HandLogError, match="empty hand history"):
        read_hand_log(path)
    path.write_text('{"type": "match", "format": 99}\n')
    with pytest.raises(HandLogError, match="format 99 is not 1"):
        read_hand_log(path)


def test_hand_log_is_flushed_hand_by_hand(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=3, seed=8)
    result = play([calling_station, min_raiser], config, tmp_path)
    log = read_hand_log(tmp_path / "hands.jsonl")
    assert [hand["hand_number"] for hand in log] == [1, 2, 3]
    assert log.footer is not None and log.footer["hands_played"] == 3
    assert log.header["players"][1]["name"] == "raiser"
    assert result.history_path == str(tmp_path / "hands.jsonl")


def test_replace_keeps_config_valid() -> None:
    config = replace(MatchConfig(), hand_count=7)
    assert config.hand_count == 7


def test_five_card_draw_is_played_by_the_same_loop(tmp_path: Path) -> None:
    from engine.config import Variant

    config = MatchConfig(hand_count=4, seed=2, game=GameConfig(variant=Variant.FIVE_CARD_DRAW))
    result = play([calling_station, min_raiser, calling_station], config, tmp_path)
    _assert_conserved(result)
    phases = {d["phase"] for r in _hands(tmp_path) for d in r["decisions"]}
    assert "DRAW" in phases


def ace_dumper(message: dict[str, Any]) -> BotOutput:
    """In a draw, first throws away four cards including its ace (the house rule forbids
    it: only the ace may be kept when drawing four), then stands pat when told why."""
    if message["type"] == "draw":
        cards = message["hole_cards"]
        aces = [card for card in cards if card["rank"] == "A"]
        if aces and message["attempt"] == 1 and message["max_discards"] == 4:
            kept = next(card for card in cards if card["rank"] != "A")
            thrown = [card for card in cards if card is not kept]
            return {"type": "discard", "seq": message["seq"], "cards": thrown}
        return {"type": "discard", "seq": message["seq"], "cards": []}
    return calling_station(message)


def test_a_discard_the_house_rule_forbids_is_an_invalid_reply_and_asked_again(
    tmp_path: Path,
) -> None:
    game = GameConfig(variant=Variant.FIVE_CARD_DRAW, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)
    config = MatchConfig(hand_count=30, seed=1, game=game)
    clock = FakeClock()
    seats = sessions([ace_dumper, ace_dumper], config, clock)
    errors: list[dict[str, Any]] = []
    for _, session in seats:
        real_factory = session.transport_factory

        def factory(real: Any = real_factory) -> Any:
            transport = real()
            real_send = transport.send

            def send(data: bytes) -> None:
                errors.extend(m for m in map(json.loads, data.splitlines()) if m["type"] == "error")
                real_send(data)

            transport.send = send
            return transport

        session.transport_factory = factory
    result = run_match(config, seats, tmp_path, clock=clock)
    assert result.hands_played == 30
    _assert_conserved(result)
    assert errors, "no seat ever held an ace in a draw: pick another seed"
    assert {error["code"] for error in errors} == {"too_many_discards"}
    assert all(error["attempts_left"] == 2 for error in errors)
    assert sum(p.faults["counts"]["invalid_reply"] for p in result.players) == len(errors)
    # Each rejected discard was asked again and the second answer (stand pat) applied.
    draws = [d for r in _hands(tmp_path) for d in r["decisions"] if len(d.get("replies", [])) == 2]
    assert len(draws) == len(errors)
    assert all(
        d["by"] == "bot" and d["action"] == {"action": "DISCARD", "cards": []} for d in draws
    )


def test_an_action_the_engine_rejects_is_never_handed_to_the_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Should the protocol's checks ever let through what the engine rejects, the session
    # hands it to the engine first (which applies it or changes nothing): the bot gets an
    # error with the engine's code and a new ask.
    from engine.errors import IllegalActionError
    from engine.hand import Hand

    real_act = Hand.act
    rejected: list[Any] = []

    def strict_act(self: Hand, action: Any, **kwargs: Any) -> Any:
        if action == Call() and not rejected:
            rejected.append(action)
            raise IllegalActionError("not_your_turn", "a rule the protocol does not know")
        return real_act(self, action, **kwargs)

    monkeypatch.setattr(Hand, "act", strict_act)
    config = MatchConfig(hand_count=3, seed=1)
    result = play([calling_station, calling_station], config)
    _assert_conserved(result)
    assert rejected == [Call()]
    counts = [p.faults["counts"]["invalid_reply"] for p in result.players]
    assert sorted(counts) == [0, 1]


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
