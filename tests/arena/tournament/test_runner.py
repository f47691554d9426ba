"""The runner's bookkeeping with matches faked in-process: exactly-once storing, resume,
failures, the sequential test's stopping rule and the displays. (The local pool's own
promises, a broken pool replaced among them, are in tests/arena/cluster/test_local.py.)"""

from __future__ import annotations

import io
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.cluster.job import MatchJob
from arena.stats.sprt import Sprt
from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome
from arena.store.sqlite import ResultsDatabase
from arena.tournament.config import TournamentConfig, build_config
from arena.tournament.display import LiveDisplay, PlainDisplay, QuietDisplay
from arena.tournament.plan import plan
from arena.tournament.runner import TournamentRun, TournamentRunner
from arena.tournament.sequential import SequentialTests
from arena.tournament.standings import build_standings
from tests.arena.tournament.helpers import FOLDER, HAND_STRENGTH, STATION


def _fake_outcome(job: MatchJob) -> MatchOutcome:
    """The seat holding 'python hand strength' wins 3 chips a hand, wherever it sits; with
    no such seat the button seat wins 1."""
    winners = [i for i, bot in enumerate(job.bots) if bot == "python hand strength"] or [0]
    count = job.config.hand_count or 1
    hands = []
    for number in range(1, count + 1):
        nets = [0] * len(job.bots)
        win = 3 if job.bots[winners[0]] == "python hand strength" else 1
        nets[winners[0]] = win
        nets[(winners[0] + 1) % len(job.bots)] = -win
        hands.append(HandSummary(number, 2, tuple(nets)))
    seats = tuple(
        SeatOutcome(i, bot, sum(h.nets[i] for h in hands), 1, count)
        for i, bot in enumerate(job.bots)
    )
    return MatchOutcome(job.match_id, seats, tuple(hands), "hand_count", None, 0.01)


class SyncExecutor:
    """A match executor that plays each job at once, in this process, two "at a time"."""

    concurrency = 2

    def __init__(self, calls: list[str], play: Callable[[MatchJob], MatchOutcome]) -> None:
        self.calls = calls
        self.play = play

    def submit(self, job: MatchJob) -> Future[MatchOutcome]:
        future: Future[MatchOutcome] = Future()
        self.calls.append(job.match_id)
        future.set_result(self.play(job))
        return future

    def close(self) -> None:
        """Nothing to release."""


class RecordingDisplay:
    def __init__(self) -> None:
        self.started: tuple[str, int, int] | None = None
        self.done: list[str] = []
        self.closed = False

    def start(self, name: str, total: int, done: int) -> None:
        self.started = (name, total, done)

    def match_done(self, spec: Any, outcome: MatchOutcome, *, total: int) -> None:
        self.done.append(outcome.match_id)

    def close(self) -> None:
        self.closed = True


def _config(tmp_path: Path, **overrides: object) -> TournamentConfig:
    values: dict[str, object] = {
        "bots": [str(FOLDER), str(STATION), str(HAND_STRENGTH)],
        "deals": 20,
        "block_deals": 10,
        "seed": 4,
        "out": str(tmp_path / "run"),
    }
    values.update(overrides)
    return build_config(overrides=values, base_dir=tmp_path)


def _run(
    config: TournamentConfig,
    db: ResultsDatabase,
    calls: list[str],
    *,
    play: Callable[[MatchJob], MatchOutcome] = _fake_outcome,
) -> tuple[TournamentRun, RecordingDisplay]:
    display = RecordingDisplay()
    runner = TournamentRunner(
        config,
        db,
        executor=SyncExecutor(calls, play),
        sandbox="none",
        out_dir=config.out_dir,
        display=display,
    )
    return runner.run(), display


def test_every_match_is_stored_once_and_a_second_run_plays_nothing(tmp_path: Path) -> None:
    config = _config(tmp_path)
    calls: list[str] = []
    with ResultsDatabase(tmp_path / "r.sqlite") as db:
        run, display = _run(config, db, calls)
        assert sorted(calls) == sorted(spec.match_id for spec in run.specs) and len(calls) == 12
        assert display.closed and display.started == ("tournament", 12, 0)
        assert db.tournament(run.tournament.id).is_finished
        first = build_standings(config, run).to_dict()
        again, display = _run(config, db, calls)
        assert len(calls) == 12 and again.resumed_matches == 12 and display.done == []
        assert build_standings(config, again).to_dict() == first
    rows = {row["bot"]: row for row in first["leaderboard"]["rows"]}
    assert rows["python hand strength"]["rank"] == 1
    assert rows["python hand strength"]["mbb_per_hand"]["mean"] == 1500.0
    assert first["seed"] == 4 and first["is_finished"]


def test_a_failed_match_stops_new_matches_and_is_tried_again_next_run(tmp_path: Path) -> None:
    config = _config(tmp_path)
    calls: list[str] = []

    def fail_third(job: MatchJob) -> MatchOutcome:
        outcome = _fake_outcome(job)
        if len(calls) == 3:
            return MatchOutcome(job.match_id, outcome.seats, (), "error", None, 0.0, "no bot")
        return outcome

    with ResultsDatabase(tmp_path / "r.sqlite") as db:
        run, _display = _run(config, db, calls, play=fail_third)
        assert [o.error for o in run.failures] == ["no bot"] and not run.is_complete
        # Three at a time (two workers and one waiting): the third failed, nothing after it.
        assert len(calls) == 3
        assert not db.tournament(run.tournament.id).is_finished
        standings = build_standings(config, run).to_dict()
        assert standings["seed"] is None and not standings["is_finished"]  # still secret
        again, _display = _run(config, db, calls)
        assert again.is_complete and again.resumed_matches == 2
        assert len(calls) == 3 + 10


def _hu_outcome(match_id: str, bots: tuple[str, str], net: int, hands: int = 4) -> MatchOutcome:
    summaries = tuple(HandSummary(n, 2, (net, -net)) for n in range(1, hands + 1))
    seats = (
        SeatOutcome(0, bots[0], net * hands, 1, hands),
        SeatOutcome(1, bots[1], -net * hands, 2, hands),
    )
    return MatchOutcome(match_id, seats, summaries, "hand_count", None, 0.0)


def test_sequential_test_decides_only_on_the_unbroken_run_of_finished_blocks(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, bots=[str(FOLDER), str(STATION)], deals=30, block_deals=10)
    specs = plan(config, 4)
    tests = SequentialTests(Sprt(0.0, 50.0), specs)
    by_block: dict[int, list[Any]] = {}
    for spec in specs:
        by_block.setdefault(spec.block_index, []).append(spec)
    # Block 1 finishes first: no decision may be taken before block 0 is complete.
    for spec in by_block[1]:
        tests.add(spec, _hu_outcome(spec.match_id, (spec.bots[0], spec.bots[1]), 0))
    (pair,) = tests.pairs
    assert pair.decided_at is None and pair.result is None
    for spec in by_block[0]:
        # The station's seat wins 2 chips a hand from the folder: a strong, varied signal.
        net = 2 if spec.bots[0] == "python calling station" else -2
        tests.add(spec, _hu_outcome(spec.match_id, (spec.bots[0], spec.bots[1]), net))
    assert pair.result is not None
    assert all(tests.is_needed(spec) for spec in by_block[0])
    if pair.decided_at is not None:
        assert not any(tests.is_needed(spec) for spec in by_block[2])


def test_without_a_sequential_test_every_block_counts(tmp_path: Path) -> None:
    config = _config(tmp_path, bots=[str(FOLDER), str(STATION)])
    specs = plan(config, 4)
    tests = SequentialTests(None, specs)
    for spec in specs:
        tests.add(spec, _hu_outcome(spec.match_id, (spec.bots[0], spec.bots[1]), 1))
        failed = MatchOutcome(spec.match_id, (), (), "error", None, 0.0, "x")
        tests.add(spec, failed)  # a failed match is never added to its block
    assert all(tests.is_needed(spec) for spec in specs)
    assert all(pair.result is None for pair in tests.pairs)


def _spec_and_outcome(tmp_path: Path) -> tuple[Any, MatchOutcome, MatchOutcome]:
    config = _config(tmp_path, bots=[str(FOLDER), str(STATION)])
    spec = plan(config, 4)[0]
    good = _hu_outcome(spec.match_id, (spec.bots[0], spec.bots[1]), 1)
    bad = MatchOutcome(spec.match_id, good.seats, (), "error", None, 0.0, "bot missing")
    return spec, good, bad


def test_plain_display_prints_a_line_per_match_with_the_speed(tmp_path: Path) -> None:
    spec, good, bad = _spec_and_outcome(tmp_path)
    out = io.StringIO()
    ticks = iter([0.0, 2.0, 4.0])
    display = PlainDisplay(out, clock=lambda: next(ticks))
    display.start("t", 4, 1)
    display.match_done(spec, good, total=4)
    display.match_done(spec, bad, total=4)
    display.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "t: 4 matches, 1 already finished"
    assert lines[1].startswith(f"[2/4] {spec.match_id}: folder +4, python calling station -4")
    assert lines[1].endswith("(4 hands, 0.0 s) 2 hands/s")
    assert lines[2].startswith(f"[3/4] {spec.match_id}: FAILED: bot missing")


def test_quiet_display_shows_only_failures(tmp_path: Path) -> None:
    spec, good, bad = _spec_and_outcome(tmp_path)
    out = io.StringIO()
    display = QuietDisplay(out)
    display.start("t", 2, 0)
    display.match_done(spec, good, total=2)
    display.match_done(spec, bad, total=2)
    display.close()
    assert out.getvalue() == f"{spec.match_id}: FAILED: bot missing\n"


def test_live_display_draws_a_bar_and_prints_failures_above_it(tmp_path: Path) -> None:
    spec, good, bad = _spec_and_outcome(tmp_path)
    out = io.StringIO()
    display = LiveDisplay(Console(file=out, force_terminal=True, width=120))
    display.start("weekly", 2, 0)
    display.match_done(spec, good, total=2)
    display.match_done(spec, bad, total=2)
    display.close()
    text = out.getvalue()
    assert "weekly" in text and "2/2" in text and "hands/s" in text
    assert "FAILED: bot missing" in text


def test_sequential_tests_keep_no_outcome_once_a_block_is_complete(tmp_path: Path) -> None:
    # Memory stays flat over a long tournament: without a test nothing is kept, and with
    # one a complete block is reduced to one number per deal.
    config = _config(tmp_path, bots=[str(FOLDER), str(STATION)], deals=40, block_deals=10)
    specs = plan(config, 4)
    plain = SequentialTests(None, specs)
    tested = SequentialTests(Sprt(-10_000.0, 10_000.0), specs)  # wide: never decides here
    for spec in specs:
        nets = [(n % 3 - 1) * (spec.arrangement + 2) for n in range(1, 5)]  # deals differ
        hands = tuple(HandSummary(n, 2, (net, -net)) for n, net in enumerate(nets, start=1))
        seats = (
            SeatOutcome(0, spec.bots[0], sum(nets), 1, 4),
            SeatOutcome(1, spec.bots[1], -sum(nets), 2, 4),
        )
        outcome = MatchOutcome(spec.match_id, seats, hands, "hand_count", None, 0.0)
        assert plain.add(spec, outcome) is False
        tested.add(spec, outcome)
    (plain_pair,) = plain.pairs
    (pair,) = tested.pairs
    assert plain_pair.waiting == {} and plain_pair.values == []
    assert pair.waiting == {} and pair.units == {}
    assert pair.tested_blocks == 4 and len(pair.values) == 4 * 4  # 4 deals a block here
    assert tested.unneeded_matches == 0 and pair.decided_at is None
