"""The work done while bots think (:mod:`arena.match.prefetch`) is a speed switch only.

With ``MatchConfig(prefetch=False)`` nothing is done ahead and every task runs when it is
put off; the hand history must be the same bytes, and every bot must receive the same
lines in the same order (only how they are grouped into writes may differ), for every
stack format and both variants. Then :class:`Prefetch` and :class:`NoPrefetch` on their
own: what a step does, in which order.
"""

from __future__ import annotations

import gc
import random
import types
import weakref
from collections.abc import Callable, Generator
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from arena.bots.in_memory import BotOutput, Delayed, FakeClock
from arena.match.config import MatchConfig, StackPolicy
from arena.match.formats import ResetStacks, StackFormat
from arena.match.players import LiveBots
from arena.match.prefetch import MAX_PENDING_TASKS, NoPrefetch, Prefetch, StepByStep
from arena.match.results import MatchResult
from arena.match.run import run_match
from engine.config import GameConfig, Variant
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from engine.schedule import BlindSchedule
from engine.view import SeatView
from tests.arena.scripted import (
    Bot,
    calling_station,
    chooser,
    crasher,
    garbage,
    min_raiser,
    play,
    sessions,
    shover,
    sleeper,
)

# -- the same bytes with the switch on and off -------------------------------------------------


def thinking(bot: Bot, seconds: float = 0.01) -> Bot:
    """``bot``, answering each ``act`` and ``draw`` ``seconds`` later on the fake clock, so
    that the match has time to work while it waits."""

    def delayed(message: dict[str, Any]) -> BotOutput:
        output = bot(message)
        return Delayed(seconds, output) if message["type"] in ("act", "draw") else output

    return delayed


def _bots() -> list[Bot]:
    # A thinking random player, a slow calling station, a garbage writer (invalid replies)
    # and a crasher (crashes, restarts, then sitting out): every kind of decision record.
    return [thinking(chooser(7)), sleeper(0.3), garbage, crasher(on="act"), thinking(min_raiser)]


def _config(policy: StackPolicy, variant: Variant) -> MatchConfig:
    return MatchConfig(
        game=GameConfig(variant=variant),
        hand_count=None if policy is StackPolicy.FREEZEOUT else 12,
        seed=31,
        starting_stack=60,
        stack_policy=policy,
        schedule=BlindSchedule.doubling(1, 2, every_hands=4),
        restart_budget=2,
        match_id="prefetch",
    )


Writes = dict[int, list[list[bytes]]]


def _play_recording_writes(config: MatchConfig, out_dir: Path) -> tuple[MatchResult, Writes]:
    """Play the match; returns its result and every write each seat's bots received (a
    write is the list of its lines), over all the seat's processes."""
    clock = FakeClock()
    seats = sessions(_bots(), config, clock)
    writes: Writes = {index: [] for index in range(len(seats))}
    for index, (_, session) in enumerate(seats):
        real_factory = session.transport_factory

        def factory(real: Callable[[], Any] = real_factory, index: int = index) -> Any:
            transport = real()
            real_send = transport.send

            def send(data: bytes) -> None:
                writes[index].append(data.splitlines(keepends=True))
                real_send(data)

            transport.send = send
            return transport

        session.transport_factory = factory
    result = run_match(config, seats, out_dir, clock=clock)
    return result, writes


def _lines(writes: list[list[bytes]]) -> list[bytes]:
    return [line for write in writes for line in write]


TIMINGS = ("duration_s", "hands_per_second", "history_path")


@pytest.mark.parametrize("variant", [Variant.HOLDEM, Variant.FIVE_CARD_DRAW])
@pytest.mark.parametrize("policy", list(StackPolicy))
def test_prefetch_on_or_off_gives_the_same_history_and_the_same_lines_to_every_bot(
    tmp_path: Path, policy: StackPolicy, variant: Variant, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The deck commitment's salt is random in every match: the same in both, here.
    monkeypatch.setattr("arena.match.fairness.new_salt", lambda: bytes(32))
    config = _config(policy, variant)
    on, on_writes = _play_recording_writes(config, tmp_path / "on")
    off, off_writes = _play_recording_writes(replace(config, prefetch=False), tmp_path / "off")
    history = (tmp_path / "on" / "hands.jsonl").read_bytes()
    assert history == (tmp_path / "off" / "hands.jsonl").read_bytes()
    for seat_index in on_writes:
        assert _lines(on_writes[seat_index]) == _lines(off_writes[seat_index]), seat_index
    # The match had faults to record, and the switch really switched: with prefetch on,
    # notifications were held and went out with the next line; off, one line per write.
    counts = [player.faults["counts"] for player in on.players]
    assert counts[2]["invalid_reply"] > 0 and counts[3]["crash"] > 0
    assert any(len(write) > 1 for writes in on_writes.values() for write in writes)
    assert all(len(write) == 1 for writes in off_writes.values() for write in writes)
    on_result = {k: v for k, v in on.to_dict().items() if k not in TIMINGS}
    assert on_result == {k: v for k, v in off.to_dict().items() if k not in TIMINGS}
    assert on.hands_played > 1


def test_a_match_with_prefetch_off_deals_no_hand_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dealt_ahead: list[int] = []
    real = ResetStacks.deal_ahead

    def spy(self: ResetStacks, *, after: Hand) -> Hand | None:
        dealt_ahead.append(after.hand_number)
        return real(self, after=after)

    monkeypatch.setattr(ResetStacks, "deal_ahead", spy)
    config = _config(StackPolicy.RESET, Variant.HOLDEM)
    _play_recording_writes(replace(config, prefetch=False), tmp_path / "off")
    assert dealt_ahead == []
    _play_recording_writes(config, tmp_path / "on")
    assert dealt_ahead  # the same match with prefetch on does deal ahead


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


@pytest.mark.parametrize("variant", [Variant.HOLDEM, Variant.FIVE_CARD_DRAW])
def test_the_luck_estimate_in_short_steps_writes_what_it_writes_at_once(
    tmp_path: Path, variant: Variant, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With prefetch the estimate runs a value at a time between the bots' replies (each
    # step putting the next first in line); off, each hand's estimate runs whole. The
    # records, their luck and their order are the same.
    monkeypatch.setattr("arena.match.fairness.new_salt", lambda: bytes(32))
    config = replace(_config(StackPolicy.RESET, variant), luck=True, score=None)
    on, _ = _play_recording_writes(config, tmp_path / "on")
    off, _ = _play_recording_writes(replace(config, prefetch=False), tmp_path / "off")
    history = (tmp_path / "on" / "hands.jsonl").read_bytes()
    assert history == (tmp_path / "off" / "hands.jsonl").read_bytes()
    assert history.count(b'"luck":{"estimator"') == on.hands_played > 1
    on_result = {k: v for k, v in on.to_dict().items() if k not in TIMINGS}
    assert on_result == {k: v for k, v in off.to_dict().items() if k not in TIMINGS}


def test_a_luck_estimate_in_steps_leaves_no_hand_record_to_the_garbage_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A step that put itself off through its own closure was a reference cycle holding
    # the hand's whole record: every hand's record then waited for a collection (one
    # every few hands) instead of being freed when its estimate was stored.
    monkeypatch.setattr("arena.match.fairness.new_salt", lambda: bytes(32))
    config = replace(_config(StackPolicy.RESET, Variant.HOLDEM), luck=True, score=None)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result, _ = _play_recording_writes(config, tmp_path / "on")
        gc.collect()
        # The hand records and the estimate's generators (by name: a thread of another
        # test sharing this process may leave generators of its own to the collector).
        kept = {
            thing.__qualname__ if isinstance(thing, types.GeneratorType) else type(thing).__name__
            for thing in gc.garbage
        }
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert result.hands_played > 1
    estimate = {"estimate_steps", "_action_term"}
    assert not kept & {"HandRecord", "DecisionRecord", *estimate}, sorted(kept)


# -- Prefetch and NoPrefetch on their own ----------------------------------------------------


def test_no_prefetch_runs_each_task_when_it_is_put_off() -> None:
    work = NoPrefetch()
    done: list[int] = []
    work.later(lambda: done.append(1))
    assert done == [1]
    work.soon(lambda: done.append(2))
    assert done == [1, 2]
    assert not work.is_enabled
    assert work.while_bot_thinks(_hand(), 0) is None
    assert work.take_hand_dealt_ahead() is None
    work.catch_up()
    assert done == [1, 2]


class FakeSession:
    """Records what the prefetch asked a seat's session to encode ahead."""

    def __init__(self, seat_index: int, calls: list[tuple[str, int, str]]) -> None:
        self.seat_index = seat_index
        self.calls = calls

    def prepare(self, view: SeatView) -> None:
        self.calls.append(("prepare", self.seat_index, ""))

    def prepare_hand_start(self, view: SeatView, *, hand_id: str) -> None:
        assert view.seat_index == self.seat_index
        self.calls.append(("prepare_hand_start", self.seat_index, hand_id))


class FakeBots:
    """The part of :class:`LiveBots` the prefetch uses: flush and the running sessions."""

    def __init__(self, calls: list[tuple[str, int, str]], *, down: int | None = None) -> None:
        self.calls = calls
        self.down = down

    def flush(self, *, except_seat: int | None = None) -> None:
        self.calls.append(("flush", -1 if except_seat is None else except_seat, ""))

    def session(self, seat_index: int) -> FakeSession | None:
        return None if seat_index == self.down else FakeSession(seat_index, self.calls)


class FakeFormat:
    """Deals ``ahead`` (or nothing) when asked for the next hand."""

    def __init__(self, ahead: Hand | None, calls: list[tuple[str, int, str]]) -> None:
        self.ahead = ahead
        self.calls = calls

    def deal_ahead(self, *, after: Hand) -> Hand | None:
        self.calls.append(("deal_ahead", after.hand_number, ""))
        return self.ahead


def _hand(hand_number: int = 1, seat_count: int = 3) -> Hand:
    seats = [SeatSetup(index, f"p{index}", 100) for index in range(seat_count)]
    deck = Deck.shuffled(random.Random(hand_number))
    return Hand.start(GameConfig(), seats, button_index=0, deck=deck, hand_number=hand_number)


def _prefetch(
    calls: list[tuple[str, int, str]], ahead: Hand | None, *, down: int | None = None
) -> Prefetch:
    bots = cast(LiveBots, FakeBots(calls, down=down))
    stack_format = cast(StackFormat, FakeFormat(ahead, calls))
    return Prefetch(bots, stack_format, match_id="m")


def test_steps_flush_then_encode_the_next_request_then_deal_ahead_then_run_tasks() -> None:
    calls: list[tuple[str, int, str]] = []
    hand = _hand()
    ahead = _hand(hand_number=2)
    work = _prefetch(calls, ahead)
    assert work.is_enabled
    work.later(lambda: calls.append(("task", 1, "")))
    work.later(lambda: calls.append(("task", 2, "")))
    actor = hand.actor_index
    assert actor is not None
    step = work.while_bot_thinks(hand, actor)
    results: list[bool] = []
    while len(results) < 20 and (not results or results[-1]):
        results.append(step())
    # The next seat after the actor that is still in the hand is encoded for.
    next_seat = (actor + 1) % 3
    assert calls == [
        ("flush", actor, ""),
        ("prepare", next_seat, ""),
        ("deal_ahead", 1, ""),
        ("prepare_hand_start", 0, "m-2"),
        ("prepare_hand_start", 1, "m-2"),
        ("prepare_hand_start", 2, "m-2"),
        ("task", 1, ""),
        ("task", 2, ""),
    ]
    assert results == [True] * 8 + [False]
    assert work.take_hand_dealt_ahead() is ahead
    assert work.take_hand_dealt_ahead() is None  # taken once


def test_a_step_skips_a_seat_whose_bot_is_down() -> None:
    calls: list[tuple[str, int, str]] = []
    work = _prefetch(calls, _hand(hand_number=2), down=1)
    hand = _hand()
    actor = hand.actor_index
    assert actor is not None
    step = work.while_bot_thinks(hand, actor)
    while step():
        pass
    assert ("prepare_hand_start", 1, "m-2") not in calls
    assert [c for c in calls if c[0] == "prepare_hand_start"] == [
        ("prepare_hand_start", 0, "m-2"),
        ("prepare_hand_start", 2, "m-2"),
    ]


def test_the_next_hand_is_dealt_ahead_once_per_hand_even_when_the_format_cannot() -> None:
    calls: list[tuple[str, int, str]] = []
    work = _prefetch(calls, None)
    hand = _hand()
    actor = hand.actor_index
    assert actor is not None
    for _ in range(2):  # two decisions of the same hand
        step = work.while_bot_thinks(hand, actor)
        while step():
            pass
    assert [c for c in calls if c[0] == "deal_ahead"] == [("deal_ahead", 1, "")]
    assert work.take_hand_dealt_ahead() is None
    step = work.while_bot_thinks(hand, actor)  # the next hand: tried again
    while step():
        pass
    assert [c for c in calls if c[0] == "deal_ahead"] == [("deal_ahead", 1, "")] * 2


def test_catch_up_runs_every_task_put_off_in_order() -> None:
    work = _prefetch([], None)
    done: list[int] = []
    for number in range(5):
        work.later(lambda number=number: done.append(number))  # type: ignore[misc]
    assert done == []  # put off until a bot thinks
    work.catch_up()
    assert done == [0, 1, 2, 3, 4]
    work.catch_up()
    assert done == [0, 1, 2, 3, 4]


def test_a_task_put_off_soon_runs_before_every_task_put_off_later() -> None:
    # How a long task (the luck estimate) runs in short steps without letting the tasks
    # of later hands overtake it.
    work = _prefetch([], None)
    done: list[str] = []
    work.later(lambda: done.append("later 1"))
    work.later(lambda: done.append("later 2"))
    work.soon(lambda: done.append("soon"))
    work.catch_up()
    assert done == ["soon", "later 1", "later 2"]


def test_a_task_in_steps_runs_through_when_too_many_tasks_wait() -> None:
    # The luck estimate puts its next step first in line: when bots answer before any
    # step of work ahead can run, the tasks beyond the most put off still all run (the
    # estimate to its end), so the tasks waiting never grow past the most.
    work = _prefetch([], None)
    done: list[str] = []

    def step(left: int) -> None:
        done.append(f"step {left}")
        if left:
            work.soon(lambda: step(left - 1))

    work.later(lambda: step(3))
    for number in range(MAX_PENDING_TASKS - 1):
        work.later(lambda number=number: done.append(f"task {number}"))  # type: ignore[misc]
    assert done == []
    work.later(lambda: done.append("one too many"))
    assert done == ["step 3", "step 2", "step 1", "step 0"]
    work.catch_up()
    assert done[-1] == "one too many"


def test_tasks_beyond_the_most_put_off_run_as_they_are_added() -> None:
    work = _prefetch([], None)
    done: list[int] = []
    for number in range(MAX_PENDING_TASKS):
        work.later(lambda number=number: done.append(number))  # type: ignore[misc]
    assert done == []
    work.later(lambda: done.append(MAX_PENDING_TASKS))
    assert done == [0]  # the oldest ran to make room
    work.later(lambda: done.append(MAX_PENDING_TASKS + 1))
    assert done == [0, 1]
    work.catch_up()
    assert done == list(range(MAX_PENDING_TASKS + 2))


class _Held:
    """Something a task's steps hold (weakly referable)."""


def test_a_task_in_steps_hands_its_value_on_and_is_freed_without_the_collector() -> None:
    work = _prefetch([], None)
    done: list[str] = []
    held = _Held()
    is_held = weakref.ref(held)

    def steps(holding: _Held) -> Generator[None, None, str]:
        for number in range(3):
            done.append(f"step {number}")
            yield
        return "value"

    work.later(lambda: done.append("later"))
    StepByStep(steps(held), done.append, work)()
    assert done == ["step 0"]  # the rest put off, first in line
    del held
    gc.disable()  # freed by reference counts alone: the steps make no cycle
    try:
        work.catch_up()
        assert done == ["step 0", "step 1", "step 2", "value", "later"]
        assert is_held() is None
    finally:
        gc.enable()
