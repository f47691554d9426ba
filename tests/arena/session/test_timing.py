"""What a decision's time is (:mod:`arena.session.timing`): the wall clock, or the bot's
CPU time with a wall-clock backstop; the timers alone on a fake clock and meter, and a
session charging a bot that waits for a core only for what it computed."""

from __future__ import annotations

import pytest

from arena.bots.in_memory import Delayed, InMemoryTransport
from arena.session.policy import TimeBasis, TimeLimits
from arena.session.timing import CpuTimer, WallTimer, cpu_meter, decision_timer
from engine.actions import Call
from tests.arena.session.harness import Harness, facing_bet_view, reply, script


class Meter:
    """CPU seconds that move only when told."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self) -> float:
        return self.seconds


class Clock:
    def __init__(self) -> None:
        self.now = 10.0

    def __call__(self) -> float:
        return self.now


def test_the_wall_timer_has_one_slice_of_budget_and_grace() -> None:
    clock = Clock()
    timer = WallTimer(clock, budget_s=1.0, grace_s=0.05)
    clock.now += 0.4
    assert (timer.deadline(), timer.is_over()) == (11.05, True)
    assert timer.used_s() == pytest.approx(0.4)


def test_the_cpu_timer_charges_cpu_time_in_slices_until_the_backstop() -> None:
    clock, meter = Clock(), Meter()
    meter.seconds = 5.0  # what the bot used before this request is not charged
    timer = CpuTimer(clock, meter, budget_s=1.0, grace_s=0.0, wall_backstop=3.0)
    assert timer.deadline() == 11.0  # at most one CPU second per second
    clock.now, meter.seconds = 11.0, 5.25  # waited for a core most of the time
    assert not timer.is_over() and timer.used_s() == 0.25
    assert timer.deadline() == 11.75
    clock.now, meter.seconds = 12.9, 5.5
    assert timer.deadline() == 13.0  # the backstop comes first
    clock.now = 13.0
    assert timer.is_over()  # 3 s of wall clock for 1 s of time, whatever was computed
    clock.now, meter.seconds = 11.0, 6.5
    assert timer.is_over() and timer.deadline() == 11.0  # used up


def test_the_basis_is_chosen_by_the_limits_and_a_meterless_bot_keeps_the_wall() -> None:
    clock, meter = Clock(), Meter()

    class Metered:
        def cpu_seconds(self) -> float:
            return meter()

    cpu = TimeLimits(decision_s=1.0, time_basis=TimeBasis.CPU)
    assert isinstance(decision_timer(cpu, 0.5, clock, Metered()), CpuTimer)  # type: ignore[arg-type]
    assert isinstance(decision_timer(TimeLimits(), 0.0, clock, Metered()), WallTimer)  # type: ignore[arg-type]
    in_memory = InMemoryTransport(lambda message: None, clock=clock)
    assert cpu_meter(in_memory) is None
    assert isinstance(decision_timer(cpu, 0.0, clock, in_memory), WallTimer)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"time_basis": "cpu"}, "time basis 'cpu': must be wall or cpu"),
        ({"wall_backstop": 0.5}, "wall_backstop must be at least 1"),
        ({"wall_backstop": float("nan")}, "wall_backstop must be at least 1"),
    ],
)
def test_bad_time_settings_name_the_value(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        TimeLimits(**kwargs)  # type: ignore[arg-type]


def test_a_time_basis_is_parsed_or_named_in_the_error() -> None:
    assert TimeBasis.parse("wall") is TimeBasis.WALL
    with pytest.raises(ValueError, match="time basis 'cpus': must be wall or cpu"):
        TimeBasis.parse("cpus")


def test_a_wall_clock_timeout_says_no_reply_within_the_limit() -> None:
    clock = Clock()
    timer = WallTimer(clock, budget_s=1.5, grace_s=0.05)
    clock.now += 1.55
    assert timer.ran_out(1000) == "no reply within 1000 ms"
    assert timer.ran_out(1000, request=4) == "no reply to request 4 within 1000 ms"


def test_a_cpu_timeout_names_the_cpu_time_used_and_its_limit() -> None:
    clock, meter = Clock(), Meter()
    timer = CpuTimer(clock, meter, budget_s=0.1, grace_s=0.0, wall_backstop=3.0)
    clock.now, meter.seconds = 10.2, 0.112
    assert timer.is_over()
    assert timer.ran_out(100) == "used 112 ms of CPU time, limit 100 ms"
    assert timer.ran_out(100, request=3) == "request 3 used 112 ms of CPU time, limit 100 ms"


def test_a_cpu_timeout_with_a_time_bank_names_the_bank_apart() -> None:
    clock, meter = Clock(), Meter()
    timer = CpuTimer(clock, meter, budget_s=0.15, grace_s=0.0, wall_backstop=3.0)
    meter.seconds = 0.16
    assert timer.ran_out(100) == "used 160 ms of CPU time, limit 100 ms and 50 ms of time bank"


def test_a_cpu_timeout_at_the_backstop_names_the_wall_clock_backstop() -> None:
    clock, meter = Clock(), Meter()
    timer = CpuTimer(clock, meter, budget_s=0.1, grace_s=0.0, wall_backstop=3.0)
    clock.now, meter.seconds = 10.3, 0.01  # a bot that sleeps computes nothing
    assert timer.is_over()
    assert timer.ran_out(100) == "no reply within 300 ms (wall-clock backstop of the CPU basis)"
    assert timer.ran_out(100, request=2) == (
        "no reply to request 2 within 300 ms (wall-clock backstop of the CPU basis)"
    )


class QuarterCoreHarness(Harness):
    """A bot that gets a quarter of a core: its CPU time is a quarter of the wall clock."""

    share = 4.0

    def factory(self) -> InMemoryTransport:
        transport = super().factory()
        start = self.clock()
        transport.cpu_seconds = lambda: (self.clock() - start) / self.share  # type: ignore[attr-defined]
        return transport


class FullCoreHarness(QuarterCoreHarness):
    """A bot that computes all the time it is given: CPU time is the wall clock."""

    share = 1.0


@pytest.mark.parametrize(
    ("harness_type", "fault_words", "error_words"),
    [
        (
            FullCoreHarness,
            "used 1000 ms of CPU time, limit 1000 ms; FOLD applied",
            "request 2 used 1000 ms of CPU time, limit 1000 ms; FOLD was applied",
        ),
        (
            QuarterCoreHarness,  # 3 s of wall clock are 0.75 s of CPU time
            "no reply within 3000 ms (wall-clock backstop of the CPU basis); FOLD applied",
            "no reply to request 2 within 3000 ms (wall-clock backstop of the CPU basis);"
            " FOLD was applied",
        ),
    ],
)
def test_a_timeout_on_the_cpu_basis_says_which_time_ran_out(
    harness_type: type[QuarterCoreHarness], fault_words: str, error_words: str
) -> None:
    harness = harness_type(
        script(lambda m: None),
        limits=TimeLimits(decision_s=1.0, grace_s=0.0, time_basis=TimeBasis.CPU),
    )
    session = harness.start()
    assert session.decide(facing_bet_view(), hand_id="h1").fault == "timeout"
    (fault,) = session.ledger.faults
    assert fault.detail == fault_words
    (error,) = harness.sent_of("error")
    assert error["message"] == error_words


@pytest.mark.parametrize(
    ("basis", "backstop", "fault"),
    [
        (TimeBasis.WALL, 3.0, "timeout"),  # 2 s of wall clock for a 1 s decision
        (TimeBasis.CPU, 3.0, None),  # 0.5 s of CPU time: the bot was waiting for a core
        (TimeBasis.CPU, 1.5, "timeout"),  # the backstop: 1.5 s of wall clock at most
    ],
)
def test_a_bot_waiting_for_a_core_is_charged_only_what_it_computed(
    basis: TimeBasis, backstop: float, fault: str | None
) -> None:
    harness = QuarterCoreHarness(
        script(lambda m: Delayed(2.0, reply(m, "CALL"))),
        limits=TimeLimits(decision_s=1.0, grace_s=0.0, time_basis=basis, wall_backstop=backstop),
    )
    session = harness.start()
    outcome = session.decide(facing_bet_view(), hand_id="h1")
    assert outcome.fault == fault
    if fault is None:
        assert outcome.action == Call() and outcome.latency_ms == pytest.approx(2000.0)
