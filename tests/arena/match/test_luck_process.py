"""The luck estimate in a process beside the match (:mod:`arena.match.luck_process`): the
same bytes as the match's own estimate, a process that never outlives its match, and a
failing process that costs the match nothing but a log line."""

from __future__ import annotations

import json
import logging
import marshal
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena.luck import ESTIMATOR, HandLuck, LuckError, LuckValue, estimate_hand
from arena.luck.timeline import walk_input
from arena.match import luck_process, luck_worker
from arena.match.config import MatchConfig, MatchError, StackPolicy
from arena.match.loop import MatchRunner
from arena.match.luck_process import LuckProcess
from engine.config import GameConfig, Variant
from tests.arena.scripted import (
    calling_station,
    capture_hand_records,
    chooser,
    crasher,
    made_hand_raiser,
    min_raiser,
    play,
    started_luck_processes,
)
from tests.arena.session.harness import mixer

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _short_matches_use_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """This module's matches use the process (the switch on: off by default) and are a
    few hands long: the process is made for them all the same (a real match that short
    estimates its hands itself: MIN_HANDS, tested below)."""
    monkeypatch.setattr(luck_process, "USE_LUCK_PROCESS", True)
    monkeypatch.setattr(luck_process, "MIN_HANDS", 1)


def _config(**changes: Any) -> MatchConfig:
    options: dict[str, Any] = {"hand_count": 5, "seed": 23, "luck": True}
    return MatchConfig(**{**options, **changes})


def _files(out: Path) -> tuple[bytes, dict[str, Any]]:
    """The hand history's bytes and the results as written (but where and how long)."""
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    for where in ("duration_s", "history_path"):  # the wall time, the folder
        results.pop(where, None)
    return (out / "hands.jsonl").read_bytes(), results


def _bots() -> list[Any]:
    return [mixer(), min_raiser]


def _in_process(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    config: MatchConfig,
    bots: Callable[[], list[Any]] = _bots,
) -> tuple[bytes, dict[str, Any]]:
    with monkeypatch.context() as patch:
        patch.setattr(luck_process, "USE_LUCK_PROCESS", False)
        play(bots(), config, tmp_path / "in-process")
    return _files(tmp_path / "in-process")


def _started(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ids of the estimator's processes the matches start from now on."""
    return started_luck_processes(monkeypatch)


def _is_gone(pid: int) -> bool:
    """Ended: no such process, or a zombie nobody here can reap (an orphan's)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.parametrize(
    ("config", "bots"),
    [
        # A bot that reports its mixed strategy (the action term).
        (_config(), _bots),
        (_config(), lambda: [mixer(), calling_station]),
        # A bot whose lean counts (it raises its made hands): the leans the match counts
        # travel with each hand.
        (_config(hand_count=20), lambda: [made_hand_raiser, calling_station]),
        # Betting weights other than the shipped ones (a ladder's value fit): the process
        # estimates with the match's weights, not its own module's.
        (_config(luck_value=LuckValue({0: {"raised": 0.5}, 3: {"to_call": 1.0}})), _bots),
        # Five-card draw: the draws' terms (the chooser discards), three seats.
        (
            _config(game=GameConfig(variant=Variant.FIVE_CARD_DRAW)),
            lambda: [chooser(4), mixer(), chooser(5)],
        ),
        # A freezeout: hands that deal some seats out, by the match's seats.
        (
            _config(hand_count=None, stack_policy=StackPolicy.FREEZEOUT, starting_stack=20),
            lambda: [chooser(1), chooser(2), chooser(3)],
        ),
    ],
)
def test_the_files_are_the_same_bytes_with_the_process_or_without_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    config: MatchConfig,
    bots: Callable[[], list[Any]],
) -> None:
    # Bots made afresh for each match: a scripted bot may keep state from hand to hand.
    expected = _in_process(tmp_path, monkeypatch, config, bots)
    pids = _started(monkeypatch)
    play(bots(), config, tmp_path / "process")
    assert len(pids) == 1, "the estimate was not made in the process"
    assert _files(tmp_path / "process") == expected
    assert _is_gone(pids[0])


def test_without_the_prefetch_each_hand_is_estimated_when_it_ends_in_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing is put off without the prefetch: each hand is recorded when it ends (a
    # replay compares each record with the hand being replayed then), so no process.
    expected = _in_process(tmp_path, monkeypatch, _config(prefetch=False))
    pids = _started(monkeypatch)
    play(_bots(), _config(prefetch=False), tmp_path / "process")
    assert pids == []
    assert _files(tmp_path / "process") == expected


def test_a_match_that_waits_for_every_estimate_writes_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No lag allowed: every hand sent waits for its answer (the bound on what is held).
    expected = _in_process(tmp_path, monkeypatch, _config())
    monkeypatch.setattr(luck_process, "MAX_LAG", 0)
    play(_bots(), _config(), tmp_path / "process")
    assert _files(tmp_path / "process") == expected


def test_the_process_ends_with_a_match_stopped_by_our_bug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_finish = MatchRunner._finish_hand

    def finish_then_break(self: MatchRunner, hand: Any, *args: Any) -> None:
        real_finish(self, hand, *args)
        if hand.hand_number == 3:
            raise MatchError("our bug after hand 3")

    monkeypatch.setattr(MatchRunner, "_finish_hand", finish_then_break)
    pids = _started(monkeypatch)
    with pytest.raises(MatchError, match="our bug"):
        play(_bots(), _config(), tmp_path)
    assert len(pids) == 1 and _is_gone(pids[0])
    # The hands played went through the process and are on disk with their estimates.
    lines = (tmp_path / "hands.jsonl").read_text(encoding="utf-8").splitlines()
    hands = [json.loads(line) for line in lines[1:]]
    assert [hand["hand_number"] for hand in hands] == [1, 2, 3]
    assert all("luck" in hand for hand in hands)


def test_the_process_ends_with_a_match_where_a_bot_crashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bot's fault is no stop for the match: its default actions play on to the end, and
    # the estimates still come back for every hand.
    pids = _started(monkeypatch)
    result = play([crasher(), calling_station], _config(restart_budget=0), tmp_path)
    assert result.player("p0").faults["counts"]
    assert len(pids) == 1 and _is_gone(pids[0])
    hands = [json.loads(line) for line in (tmp_path / "hands.jsonl").read_text().splitlines()]
    assert all("luck" in hand for hand in hands if hand["type"] == "hand")


_PARENT = """
import sys, time
from arena.match.luck_process import LuckProcess
estimates = LuckProcess("killed")
estimates._start({})  # what the first hand sent does
print(estimates.pid, flush=True)
time.sleep(60)
"""


def test_the_process_ends_when_the_match_is_killed() -> None:
    # SIGKILL leaves the match no time to stop it: the end of its input does.
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT], stdout=subprocess.PIPE, cwd=ROOT, text=True
    )
    assert parent.stdout is not None
    with parent.stdout:
        pid = int(parent.stdout.readline())
    assert not _is_gone(pid)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while not _is_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _is_gone(pid)


def _ends(read_fd: int, write_fd: int, luck_value: LuckValue | None) -> None:
    """A worker that ends at once."""


def _babbles(read_fd: int, write_fd: int, luck_value: LuckValue | None) -> None:
    """A worker that answers what is not a dump."""
    os.read(read_fd, 1 << 16)
    os.write(write_fd, luck_worker.frame(b"not a dump") * 2)


def _lists(read_fd: int, write_fd: int, luck_value: LuckValue | None) -> None:
    """A worker that answers what is not an estimate."""
    os.read(read_fd, 1 << 16)
    os.write(write_fd, luck_worker.frame(marshal.dumps([1])))


def _hangs(read_fd: int, write_fd: int, luck_value: LuckValue | None) -> None:
    """A worker that never answers."""
    time.sleep(30)


@pytest.mark.parametrize("worker", [_ends, _babbles, _lists, _hangs])
def test_a_failing_process_costs_the_match_nothing_but_a_log_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    worker: Callable[[int, int], None],
) -> None:
    expected = _in_process(tmp_path, monkeypatch, _config())
    monkeypatch.setattr(luck_worker, "serve", worker)  # what the forked child runs
    monkeypatch.setattr(luck_process, "STALL_S", 0.2)
    pids = _started(monkeypatch)
    with caplog.at_level(logging.WARNING):
        play(_bots(), _config(), tmp_path / "process")
    assert _files(tmp_path / "process") == expected
    assert any("LUCK | the estimator's process failed" in r.getMessage() for r in caplog.records)
    assert len(pids) == 1 and _is_gone(pids[0])


def test_a_hand_the_estimator_refuses_meets_the_same_error_as_in_the_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    got: list[HandLuck] = []
    estimates = LuckProcess("refused")
    try:
        estimates.submit({"history": 1}, got.append)
        with pytest.raises(LuckError, match="hand record without a history: 1"):
            estimates.drain()
    finally:
        estimates.close()
    assert got == [] and estimates.failure is None and estimates.cpu_s > 0
    estimates.close()  # again: nothing to do


def _hands(tmp_path: Path) -> list[dict[str, Any]]:
    """The hand records of a short match with a mixing bot, as the hand history has them."""
    play(_bots(), _config(luck=False), tmp_path / "hands")
    lines = (tmp_path / "hands" / "hands.jsonl").read_text(encoding="utf-8").splitlines()
    return [record for record in map(json.loads, lines) if record["type"] == "hand"]


def _inputs(tmp_path: Path) -> list[dict[str, Any]]:
    """What the match sends of those hands (decisions without a distribution emptied, the
    history's keys the estimate reads)."""
    inputs = []
    for record in _hands(tmp_path):
        decisions = [d if "distribution" in d else {} for d in record["decisions"]]
        inputs.append({"decisions": decisions, "history": walk_input(record["history"])})
    return inputs


def test_what_is_sent_is_estimated_as_the_whole_record_bit_for_bit(tmp_path: Path) -> None:
    records = _hands(tmp_path)
    assert any("distribution" in d for r in records for d in r["decisions"])
    for record, sent in zip(records, _inputs(tmp_path), strict=True):
        assert estimate_hand(sent) == estimate_hand(record)


def test_the_match_estimates_on_what_the_estimate_reads_bit_for_bit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In its own process the match estimates on record_input (the decisions without a
    # reported distribution left empty), not the record's whole dict: the same numbers.
    records = capture_hand_records(monkeypatch)
    play(_bots(), _config(), tmp_path / "match")
    decisions = [d for record in records for d in record.decisions]
    assert any(d.distribution is None for d in decisions)
    assert any(d.distribution is not None for d in decisions)
    for record in records:
        whole = estimate_hand(record.to_dict())
        assert estimate_hand(luck_process.record_input(record)) == whole
        assert estimate_hand(luck_process.estimate_input(record)) == whole


def test_the_worker_answers_each_hand_in_order_with_the_estimate_or_the_refusal(
    tmp_path: Path,
) -> None:
    hand = _inputs(tmp_path)[0]
    hands_read, hands_written = os.pipe()
    answers_read, answers_written = os.pipe()
    sent = [marshal.dumps(hand), marshal.dumps({"history": 1})]
    os.write(hands_written, b"".join(map(luck_worker.frame, sent)))
    os.close(hands_written)
    luck_worker.serve(hands_read, answers_written)  # returns at the end of its input
    os.close(hands_read)
    os.close(answers_written)
    with os.fdopen(answers_read, "rb") as answers:
        got = answers.read()
    (first, _), (second, _) = luck_worker.frames(got)
    expected = estimate_hand(hand)
    # The very floats: a dump keeps them exactly.
    assert marshal.loads(first) == (ESTIMATOR, expected.raw, expected.adjusted)
    assert marshal.loads(second) == "LuckError: hand record without a history: 1"


def test_a_batchs_answers_are_handed_on_at_the_next_hand_not_the_next_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The records wait for their estimates: handed on as soon as they are back, fewer of
    # them are held (and walked by the collector) than if they waited a whole batch more.
    monkeypatch.setattr(luck_process, "BATCH_HANDS", 2)
    hands = _inputs(tmp_path)[:3]
    got: list[HandLuck] = []
    estimates = LuckProcess("prompt")
    try:
        estimates.submit(hands[0], got.append)
        estimates.submit(hands[1], got.append)  # a full batch: written
        # Both answers written by the worker at once (one read, one write): wait for them.
        assert select.select([estimates._from_child], [], [], 30)[0]
        estimates.submit(hands[2], got.append)  # held: its batch is not full
        assert got == [estimate_hand(hand) for hand in hands[:2]]
        estimates.drain()
        assert got == [estimate_hand(hand) for hand in hands]
    finally:
        estimates.close()


def test_answers_are_handed_on_in_order_when_handing_one_on_sends_a_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Handing an estimate on can send a hand (the match runs its next task at once when
    # too many wait: the next hand's estimate), which reads answers again: those must be
    # handed on after the ones read before, or the hand history's lines come out of
    # order. Reads of two answers at a time make the nested read find some.
    hands = _inputs(tmp_path)[:4]
    assert all(len(hand["history"]["seats"]) == 2 for hand in hands)  # one answer size
    expected = [estimate_hand(hand) for hand in hands]
    answer_size = len(luck_worker.answer(marshal.dumps(hands[0])))
    monkeypatch.setattr(luck_process, "BATCH_HANDS", 4)
    monkeypatch.setattr(luck_process, "_CHUNK", 2 * answer_size)
    got: list[HandLuck] = []
    estimates = LuckProcess("nested")

    def then(hand_luck: HandLuck) -> None:
        got.append(hand_luck)
        if len(got) == 1:
            estimates.submit(hands[0], got.append)  # reads the next two answers

    try:
        for hand in hands:
            estimates.submit(hand, then)  # the fourth fills the batch: written
        # All four answered in one write (one read of the batch): wait for them.
        assert select.select([estimates._from_child], [], [], 30)[0]
        while len(got) < 4:
            estimates.submit(hands[0], got.append)  # reads two, hands them on
        assert got[:4] == expected
    finally:
        estimates.close()


def test_after_a_failure_each_hand_is_estimated_at_once_in_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hands = _inputs(tmp_path)
    monkeypatch.setattr(luck_worker, "serve", _ends)
    got: list[HandLuck] = []
    estimates = LuckProcess("fails")
    estimates.submit(hands[0], got.append)
    estimates.drain()  # the process ended: the hand is estimated here
    assert estimates.failure is not None and estimates.pid is None
    estimates.submit(hands[1], got.append)  # no process any more: at once
    assert got == [estimate_hand(hand) for hand in hands[:2]]


def test_a_process_that_reads_nothing_never_blocks_the_match_and_is_killed_at_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # More than a pipe holds: what the process has not read waits in the match.
    one = _inputs(tmp_path)
    hands = one * (2 * luck_process._PIPE_BYTES // sum(len(marshal.dumps(h)) for h in one) + 1)
    monkeypatch.setattr(luck_worker, "serve", _hangs)
    monkeypatch.setattr(luck_process, "CLOSE_S", 0.1)
    monkeypatch.setattr(luck_process, "MAX_LAG", len(hands))  # no waiting for answers
    estimates = LuckProcess("deaf")
    for hand in hands:
        estimates.submit(hand, lambda luck: None)
    pid = estimates.pid
    assert pid is not None
    estimates.close()  # it does not end at the end of its input: killed
    assert _is_gone(pid)


def test_a_process_reaped_by_the_system_is_closed_all_the_same(tmp_path: Path) -> None:
    # A process that ignores SIGCHLD (a referee's zygote does) has its children reaped
    # by the kernel: nothing is left to wait for, and closing must not fail.
    hand = _inputs(tmp_path)[0]
    got: list[HandLuck] = []
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        estimates = LuckProcess("ignored")
        estimates.submit(hand, got.append)
        estimates.drain()
        pid = estimates.pid
        estimates.close()
    finally:
        signal.signal(signal.SIGCHLD, previous)
    assert got == [estimate_hand(hand)]
    assert pid is not None and _is_gone(pid) and estimates.cpu_s == 0.0


@pytest.mark.parametrize(("hand_count", "made"), [(4, 0), (5, 1), (None, 1)])
def test_a_match_shorter_than_min_hands_estimates_its_hands_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hand_count: int | None, made: int
) -> None:
    # The process's start and end cost more than it saves in a short match; a freezeout
    # (no hand count) may be long, so it gets one. The files are the same either way.
    monkeypatch.setattr(luck_process, "MIN_HANDS", 5)
    changes: dict[str, Any] = {"hand_count": hand_count}
    if hand_count is None:
        changes.update(stack_policy=StackPolicy.FREEZEOUT, starting_stack=20)
    config = _config(**changes)
    expected = _in_process(tmp_path, monkeypatch, config)
    pids = _started(monkeypatch)
    play(_bots(), config, tmp_path / "process")
    assert len(pids) == made
    assert _files(tmp_path / "process") == expected
