"""The match loop (:mod:`arena.match.loop`) with scripted in-memory bots (no processes, fake
clock): faults become default actions, our own bugs stop the match loudly, and the same
seed gives the same bytes."""

from __future__ import annotations

import inspect
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena import luck
from arena.bots.in_memory import BotOutput, FakeClock
from arena.match.config import MatchConfig, MatchError, StackPolicy
from arena.match.loop import MatchRunner
from arena.match.readiness import BotsNotReadyError
from arena.match.results import MatchResult
from arena.match.run import run_match
from arena.session.policy import TimeLimits
from arena.session.watchdog import BotSession, DecisionOutcome
from engine.actions import Call, RaiseTo
from engine.config import DrawLimit, GameConfig, Variant
from engine.deck import Deck
from engine.hand import Hand
from engine.table import hand_rng
from tests.arena.scripted import (
    assert_chips_conserved,
    calling_station,
    chooser,
    crasher,
    folder,
    garbage,
    hand_records,
    made_hand_raiser,
    match_leans,
    min_raiser,
    never_ready,
    play,
    read_records,
    sessions,
    shover,
    sleeper,
)
from tests.arena.session.harness import mixer


def test_timeout_folds_and_is_in_the_ledger(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=4, seed=1, time_limits=TimeLimits(decision_s=0.5))
    result = play([sleeper(2.0), calling_station], config, tmp_path)
    slow = result.player("p0")
    assert slow.faults["counts"]["timeout"] >= 1
    decisions = [d for r in hand_records(tmp_path) for d in r["decisions"] if d["seat_index"] == 0]
    assert decisions[0]["by"] == "policy" and decisions[0]["fault"] == "timeout"
    assert decisions[0]["action"] == {"action": "FOLD"}
    assert_chips_conserved(result)


def test_check_on_timeout_checks_when_checking_is_free(tmp_path: Path) -> None:
    config = MatchConfig(
        hand_count=2, seed=1, time_limits=TimeLimits(decision_s=0.5), check_on_timeout=True
    )
    play([calling_station, sleeper(2.0)], config, tmp_path)
    # Heads-up, seat 1 is the big blind in hand 1: it may check after the call.
    decisions = [d for d in hand_records(tmp_path)[0]["decisions"] if d["seat_index"] == 1]
    assert decisions[0]["fault"] == "timeout"
    assert decisions[0]["action"] == {"action": "CHECK"}


def test_garbage_replies_are_faults_and_the_seat_folds(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=3, seed=1)
    result = play([garbage, calling_station], config, tmp_path)
    decisions = [d for r in hand_records(tmp_path) for d in r["decisions"] if d["seat_index"] == 0]
    # Three attempts per decision, each one a recorded fault.
    assert result.player("p0").faults["counts"]["invalid_reply"] == 3 * len(decisions)
    decision = next(d for d in hand_records(tmp_path)[0]["decisions"] if d["seat_index"] == 0)
    assert decision["by"] == "policy" and decision["fault"] == "invalid_reply"


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
    assert [record["hand_number"] for record in hand_records(tmp_path)] == [1, 2, 3]


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


def test_five_card_draw_is_played_by_the_same_loop(tmp_path: Path) -> None:
    from engine.config import Variant

    config = MatchConfig(hand_count=4, seed=2, game=GameConfig(variant=Variant.FIVE_CARD_DRAW))
    result = play([calling_station, min_raiser, calling_station], config, tmp_path)
    assert_chips_conserved(result)
    phases = {d["phase"] for r in hand_records(tmp_path) for d in r["decisions"]}
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
    assert_chips_conserved(result)
    assert errors, "no seat ever held an ace in a draw: pick another seed"
    assert {error["code"] for error in errors} == {"too_many_discards"}
    assert all(error["attempts_left"] == 2 for error in errors)
    assert sum(p.faults["counts"]["invalid_reply"] for p in result.players) == len(errors)
    # Each rejected discard was asked again and the second answer (stand pat) applied.
    draws = [
        d for r in hand_records(tmp_path) for d in r["decisions"] if len(d.get("replies", [])) == 2
    ]
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
    assert_chips_conserved(result)
    assert rejected == [Call()]
    counts = [p.faults["counts"]["invalid_reply"] for p in result.players]
    assert sorted(counts) == [0, 1]


def test_same_seed_gives_byte_identical_histories(tmp_path: Path) -> None:
    first = _in_memory_history(tmp_path / "a", 77)
    second = _in_memory_history(tmp_path / "b", 77)
    assert first == second
    assert _in_memory_history(tmp_path / "c", 78) != first


def test_each_hand_is_dealt_from_the_match_seed_and_its_number(tmp_path: Path) -> None:
    play([calling_station, folder], MatchConfig(hand_count=4, seed=12), tmp_path)
    hands = [r for r in read_records(tmp_path / "hands.jsonl") if r["type"] == "hand"]
    for record in hands:
        number = record["hand_number"]
        expected = [str(card) for card in Deck.shuffled(hand_rng(12, number)).order]
        assert record["history"]["deck"] == expected
        assert record["history"]["seed"] == f"12:{number}"


def _in_memory_history(out_dir: Path, seed: int) -> bytes:
    config = MatchConfig(hand_count=25, seed=seed, stack_policy=StackPolicy.CARRY)
    play([min_raiser, calling_station, folder, calling_station], config, out_dir)
    return (out_dir / "hands.jsonl").read_bytes()


# -- a hung bot -----------------------------------------------------------------------------


def mute(message: dict[str, Any]) -> BotOutput:
    """Says ready, then never answers a request: hung from the first decision."""
    return calling_station(message) if message["type"] == "hello" else None


def test_three_timeouts_in_a_row_mean_hung_and_a_restart(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=5, seed=3, time_limits=TimeLimits(decision_s=1.0))
    result = play([mute, calling_station], config, tmp_path)
    counts = result.player("p0").faults["counts"]
    assert (counts["timeout"], counts["hung"], counts["restart"]) == (5, 1, 1)
    (hung,) = [f for f in result.player("p0").faults["faults"] if f["kind"] == "hung"]
    assert hung["hand_number"] == 3 and hung["code"] == "hung"
    # Heads-up the mute bot acts once per hand (and folds): hands 1-3 time out, it is
    # killed in hand 3, restarted before hand 4 and asked again there (not hung yet at 5).
    decisions = [
        next(d for d in hand["decisions"] if d["seat_index"] == 0)
        for hand in hand_records(tmp_path)
    ]
    assert [(d["by"], d["fault"]) for d in decisions] == [("policy", "timeout")] * 5
    assert not result.player("p0").is_sitting_out
    assert_chips_conserved(result)


def test_a_hung_bot_costs_at_most_k_timeouts_per_restart_then_sits_out(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=100, seed=8)  # 5 s per decision, 3 restarts, K = 3
    clock = FakeClock()
    result = run_match(
        config, sessions([mute, calling_station], config, clock), tmp_path, clock=clock
    )
    assert result.hands_played == 100
    player = result.player("p0")
    counts = player.faults["counts"]
    budget, k = config.restart_budget, config.hung_after_timeouts
    assert counts["timeout"] == (budget + 1) * k == 12
    assert (counts["hung"], counts["restart"]) == (budget + 1, budget)
    assert player.is_sitting_out
    # The whole match waited for those 12 timeouts and nothing else.
    assert clock() <= (budget + 1) * k * (config.time_limits.decision_s + 0.05) + 1e-6
    sitting = [hand["sitting_out"] for hand in hand_records(tmp_path)]
    assert sitting[: budget * k + k] == [[]] * 12 and sitting[12:] == [[0]] * 88
    assert_chips_conserved(result)


# -- bots that cannot be started ------------------------------------------------------------


def test_a_bot_that_never_says_ready_stops_the_match_before_the_first_hand(
    tmp_path: Path,
) -> None:
    config = MatchConfig(hand_count=3, seed=1, time_limits=TimeLimits(startup_s=0.5))
    seats = sessions([calling_station, never_ready], config, FakeClock())
    with pytest.raises(BotsNotReadyError) as info:
        run_match(config, seats, tmp_path)
    assert info.value.code == "bots_not_ready"
    (absent,) = info.value.absent
    assert (absent.seat_index, absent.player_id, absent.name, absent.code) == (
        1,
        "p1",
        "p1",
        "startup_timeout",
    )
    message = str(info.value)
    assert (
        "\n" not in message and "'p1' (seat 1): startup_timeout: no ready within 500 ms" in message
    )
    # No hand was dealt or written, and every bot was stopped, the ready one included.
    assert not (tmp_path / "hands.jsonl").exists() and not (tmp_path / "results.json").exists()
    assert all(session.transport is None for _, session in seats)


def test_every_bot_that_cannot_be_started_is_named_with_its_reason() -> None:
    config = MatchConfig(hand_count=3, seed=1, time_limits=TimeLimits(startup_s=0.5))
    with pytest.raises(BotsNotReadyError) as info:
        play([never_ready, calling_station, crasher(on="hello", exit_code=4)], config)
    assert [(bot.seat_index, bot.code) for bot in info.value.absent] == [
        (0, "startup_timeout"),
        (2, "exited"),
    ]
    assert "exit code 4" in info.value.absent[1].detail
    assert str(info.value).startswith("2 bots not ready at the start of the match: 'p0' (seat 0)")


def test_with_absent_bots_allowed_the_match_plays_on_without_them(tmp_path: Path) -> None:
    config = MatchConfig(
        hand_count=3,
        seed=1,
        time_limits=TimeLimits(startup_s=0.5),
        restart_budget=0,
        allow_absent_bots=True,
    )
    result = play([never_ready, calling_station], config, tmp_path)
    assert result.hands_played == 3 and result.player("p0").is_sitting_out
    assert result.player("p0").faults["counts"]["startup_failure"] == 1
    assert_chips_conserved(result)


def test_a_bot_that_fails_after_starting_never_stops_the_match() -> None:
    config = MatchConfig(hand_count=3, seed=1, restart_budget=0)
    result = play([crasher(on="hand_start"), calling_station], config)
    assert result.hands_played == 3 and result.player("p0").is_sitting_out


# -- the luck estimator in the loop ---------------------------------------------------------
# The luck estimator in a match (``MatchConfig.luck``): every hand record carries its
# estimate, the stored numbers are what the estimator gives on the stored record, the
# results carry each bot's adjusted result beside the raw one, and with luck off nothing is
# computed or written.


def _config(**changes: object) -> MatchConfig:
    options: dict[str, object] = {"hand_count": 6, "seed": 17, "luck": True}
    return MatchConfig(**{**options, **changes})  # type: ignore[arg-type]


def test_each_hand_record_carries_the_estimate_of_the_record_as_stored(tmp_path: Path) -> None:
    result = play([chooser(3), min_raiser, calling_station], _config(), tmp_path)
    records = hand_records(tmp_path)
    assert len(records) == 6
    for record, leans in zip(records, match_leans(records), strict=True):
        stored = record["luck"]
        assert stored["estimator"] == luck.ESTIMATOR == result.estimator
        # Recomputed from the line read back (with the leans of the hands before it): the
        # very same floats, not close ones.
        assert luck.luck_record(luck.estimate_hand(record, None, leans)) == stored
        assert list(record) == ["type", "hand_number", "hand_id", "sitting_out", "decisions",
                                "luck", "history"]  # fmt: skip


def test_the_results_carry_each_hands_and_each_bots_adjusted_result(tmp_path: Path) -> None:
    result = play([chooser(3), shover, calling_station], _config(hand_count=5), tmp_path)
    records = {record["hand_number"]: record for record in hand_records(tmp_path)}
    assert [hand.hand_number for hand in result.hands] == sorted(records)
    for hand in result.hands:
        assert hand.adjusted == tuple(records[hand.hand_number]["luck"]["adjusted"])
        assert hand.big_blind == 2 and sum(hand.nets) == 0
    for player in result.players:
        adjusted = sum((hand.adjusted or ())[player.seat_index] for hand in result.hands)
        assert player.adjusted_big_blinds_won == pytest.approx(adjusted / 2)
        assert player.big_blinds_won == sum(h.nets[player.seat_index] for h in result.hands) / 2
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert written["estimator"] == luck.ESTIMATOR
    for entry, player in zip(written["players"], result.players, strict=True):
        assert player.adjusted_big_blinds_won is not None
        assert entry["adjusted_big_blinds_won"] == round(player.adjusted_big_blinds_won, 4)
        assert entry["luck_big_blinds"] == round(
            player.big_blinds_won - player.adjusted_big_blinds_won, 4
        )
    again = MatchResult.read_json(tmp_path / "results.json")
    assert again.estimator == luck.ESTIMATOR
    assert [p.adjusted_big_blinds_won for p in again.players] == [
        round(p.adjusted_big_blinds_won or 0.0, 4) for p in result.players
    ]


def test_with_luck_off_nothing_is_computed_and_the_files_are_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(record: object) -> object:
        raise AssertionError("the estimator ran with luck off")

    monkeypatch.setattr(luck, "estimate_hand", never)
    result = play([chooser(3), calling_station], _config(luck=False), tmp_path)
    assert all("luck" not in record for record in hand_records(tmp_path))
    assert result.estimator is None and all(hand.adjusted is None for hand in result.hands)
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert "estimator" not in written and "luck" not in written["config"]
    assert all("adjusted_big_blinds_won" not in entry for entry in written["players"])


@pytest.mark.parametrize(
    ("bots", "hand_count"),
    [
        (lambda: [chooser(5), min_raiser], 6),
        # Enough hands for the made-hand raiser's lean to count: the leans are the same
        # whether the estimates are put off or not.
        (lambda: [made_hand_raiser, calling_station], 20),
    ],
)
def test_the_estimate_is_the_same_with_the_prefetch_on_or_off(
    tmp_path: Path, bots: Any, hand_count: int
) -> None:
    play(bots(), _config(prefetch=True, hand_count=hand_count), tmp_path / "on")
    play(bots(), _config(prefetch=False, hand_count=hand_count), tmp_path / "off")
    assert (tmp_path / "on" / "hands.jsonl").read_bytes() == (
        tmp_path / "off" / "hands.jsonl"
    ).read_bytes()


def test_a_freezeout_counts_a_busted_seat_zero_in_the_hands_it_is_not_dealt(
    tmp_path: Path,
) -> None:
    config = _config(hand_count=None, stack_policy=StackPolicy.FREEZEOUT, starting_stack=20)
    result = play([chooser(1), chooser(2), chooser(3)], config, tmp_path)
    records = {record["hand_number"]: record for record in hand_records(tmp_path)}
    short = [
        hand for hand in result.hands if len(records[hand.hand_number]["history"]["seats"]) < 3
    ]
    assert short, "no hand after a bust: the test needs one"
    for hand in short:
        dealt = {seat["seat_index"] for seat in records[hand.hand_number]["history"]["seats"]}
        assert hand.adjusted is not None
        for seat_index in set(range(3)) - dealt:
            assert hand.adjusted[seat_index] == 0.0 == hand.nets[seat_index]
        adjusted = records[hand.hand_number]["luck"]["adjusted"]
        assert [hand.adjusted[i] for i in sorted(dealt)] == adjusted


def test_a_reported_distribution_is_in_the_record_the_estimate_reads(tmp_path: Path) -> None:
    play([mixer(), calling_station], _config(hand_count=4), tmp_path)
    records = hand_records(tmp_path)
    mixed = [
        d for r in records for d in r["decisions"] if d["by"] == "bot" and d["seat_index"] == 0
    ]
    assert mixed and all(decision["distribution"] for decision in mixed)
    all_leans = match_leans(records)
    for record, leans in zip(records, all_leans, strict=True):
        # The action term reads the distribution: the stored estimate is that of the record
        # with it, and differs from the record's estimate without it where the bot mixed.
        assert luck.luck_record(luck.estimate_hand(record, None, leans)) == record["luck"]
    assert any(
        luck.estimate_hand(record, None, leans).adjusted
        != luck.estimate_hand(
            {**record, "decisions": [_without_distribution(d) for d in record["decisions"]]},
            None,
            leans,
        ).adjusted
        for record, leans in zip(records, all_leans, strict=True)
    )


def _without_distribution(decision: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in decision.items() if key != "distribution"}
