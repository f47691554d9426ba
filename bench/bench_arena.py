"""How fast the arena runs a match, next to a raw JSON-lines round trip between two processes.

Run: ``.venv/bin/python bench/bench_arena.py --hands 2000 --rounds 3`` (add
``--no-prefetch`` to measure the loop without its work-while-waiting).

1. A heads-up match between two ``python_calling_station`` bots (real processes, the real
   loop, history written): hands/s, decisions/s, the whole decision (match wall time per
   decision, everything included: engine, views, messages, watchdog, pipes, the bot, hand
   history) and the decision latency the watchdog measured (send to reply).
2. A raw round trip: this process writes the *same* ``act`` lines (the match's messages,
   made again in-process byte for byte) to a minimal Python echo process that parses each
   line and answers with a reply of the same size as the bots'; blocking pipes, no
   parsing on our side. Both sides read in large chunks, as the arena and the bots do
   (``os.read`` here, buffered ``sys.stdin`` in the echo), not a byte at a time. It is
   measured before and after the match and averaged, as the machine's speed drifts. This
   is the floor any arena pays.
3. The arena's cost per decision (whole decision minus raw round trip) and the ratio
   (target: at most 2.5x). Steps 1-2 run ``--rounds`` times (default 3); every round is
   printed and the round with the median ratio gives the figures (a shared machine's
   noise moves single rounds by 10% and more). Also the same match loop in-process, with
   bots that answer at once: the arena's own CPU per decision.
4. Time from launching a bot to its ``ready``.
5. What the luck estimator (``arena.luck``, ``MatchConfig.luck``) costs: the same match
   with it off, on in its own process (``arena.match.luck_process``, the switch
   ``USE_LUCK_PROCESS`` on) and on in the match's process (the switch off: the default),
   interleaved (off, on,
   in-process in the odd rounds, in-process, on, off in the even ones: the machine's drift
   falls on all three, before and after alike), ``--luck-hands`` hands
   each (default: ``--hands``, at most 500), over ``--luck-rounds`` rounds (default:
   ``--rounds``). Per round the wall time of each and its ratio to luck off (target:
   within 3%), their median and the mean's 95% interval; the arena's CPU, counted as every
   process of the host's but the bots' (this process, the host, and the estimator's, whose
   CPU is read when the match reaps it), off and on, apart and together; the estimator's
   share of the arena's CPU with luck on (target: under 10%), and of the host's with luck
   off; the estimator's CPU per hand in its process, alone (the luck-on match's recorded
   hands estimated again here, one after the other) and in the match's process (its
   steps timed where that match runs them: ``arena.luck.estimate_steps`` wrapped, as the
   loop calls it through the package); the host's garbage collector (from
   ``gc.callbacks``); and how often the host found nothing left to do and waited for a
   bot (its voluntary context switches per hand): the time there is to hide work in. The
   load average is printed before and after.
   ``--luck-only`` runs this step alone; ``--luck-opponent`` names another starter bot
   for its seat 1 (``python_hand_strength``: a player that leans, so the estimate has its
   made-hand term to compute).

Read the ratio with the machine's load in mind (the load average is printed). On an idle
machine the raw round trip is mostly two wake-ups from idle (about 80 us on a small VM);
when other processes keep the CPUs busy the same round trip takes about 35 us, while the
arena's decision does not get faster, so the ratio is then about 6x. The in-process loop
line is the arena's own CPU per decision, whatever the load.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Generator, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import arena.luck  # noqa: E402
from arena.bots.manifest import BotManifest, load_manifest  # noqa: E402
from arena.bots.startup import measure_startup  # noqa: E402
from arena.bots.transport import ExitInfo  # noqa: E402
from arena.luck import ESTIMATOR, HandLuck, LuckValue, estimate_hand  # noqa: E402
from arena.luck.leans import match_leans  # noqa: E402
from arena.match import luck_process  # noqa: E402
from arena.match.config import MatchConfig  # noqa: E402
from arena.match.run import open_sessions, run_match  # noqa: E402
from arena.session.watchdog import BotSession  # noqa: E402
from arena.stats.intervals import estimate  # noqa: E402
from arena.store.hand_log import read_hand_log  # noqa: E402
from engine.config import GameConfig  # noqa: E402
from engine.hand import Hand, SeatSetup  # noqa: E402
from engine.history import hand_to_history  # noqa: E402
from engine.table import hand_rng  # noqa: E402
from protocol.codec import decode, encode  # noqa: E402
from protocol.messages import RequestEncoder, hand_end, hand_start  # noqa: E402
from protocol.replies import parse_action  # noqa: E402
from protocol.request_encoder import EventTextCache  # noqa: E402

BOT = ROOT / "sample_bots" / "python_calling_station" / "bot.toml"
_SEQ = re.compile(rb'"seq":(\d+)')
STEPS = (
    "engine: seat view",
    "engine: deal, check, act",
    "protocol: act line",
    "protocol: decode+parse reply",
    "hand_start, hand_end",
    "hand history",
)

# The echo peer: what a minimal bot does per line (parse, answer), nothing else.
ECHO_SOURCE = r"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    sys.stdout.write(json.dumps({"type": "action", "seq": message["seq"], "action": "CALL"}) + "\n")
    sys.stdout.flush()
"""


def _json_line(record: object) -> str:
    """A record as the hand history writes it: compact JSON and a newline."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def in_process_costs(hand_count: int, seed: int) -> tuple[list[bytes], dict[str, float], int]:
    """Play the heads-up check/call match in-process, timing each step of a decision.

    Returns the encoded ``act`` lines (the raw round trip replays them, so it has the
    match's message sizes), seconds spent per step, and the number of decisions.
    """
    costs = dict.fromkeys(STEPS, 0.0)
    lines = []
    config = GameConfig(small_blind=1, big_blind=2)
    encoders = {0: RequestEncoder(), 1: RequestEncoder()}  # one per seat, as in the sessions
    seq = 0
    clock = time.perf_counter
    for number in range(1, hand_count + 1):
        seats = [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200)]
        started = clock()
        hand = Hand.start(
            config,
            seats,
            button_index=(number - 1) % 2,
            rng=hand_rng(seed, number),
            hand_number=number,
        )
        costs["engine: deal, check, act"] += clock() - started
        started = clock()
        for seat in (0, 1):
            encode(hand_start(hand.view(seat), hand_id=f"b-{number}"))
        costs["hand_start, hand_end"] += clock() - started
        while not hand.is_over:
            actor = hand.actor_index
            assert actor is not None
            seq += 1
            started = clock()
            view = hand.view(actor)
            costs["engine: seat view"] += clock() - started
            started = clock()
            line = encoders[actor].request(view, seq=seq, hand_id=f"b-{number}", time_limit_ms=5000)
            costs["protocol: act line"] += clock() - started
            lines.append(line)
            legal = hand.legal_actions()
            assert legal is not None
            name = "CHECK" if legal.can_check else "CALL"
            reply = json.dumps({"type": "action", "seq": seq, "action": name}).encode()
            started = clock()
            action = parse_action(decode(reply), seq, legal)
            costs["protocol: decode+parse reply"] += clock() - started
            started = clock()
            hand.act(action)  # the session validates and applies in one go (no dry run)
            costs["engine: deal, check, act"] += clock() - started
        started = clock()
        assert hand.result is not None
        encode(hand_end(hand.result, hand_id=f"b-{number}", player_ids={0: "p0", 1: "p1"}))
        costs["hand_start, hand_end"] += clock() - started
        started = clock()
        _json_line({"history": hand_to_history(hand, seed=f"{seed}:{number}")})
        costs["hand history"] += clock() - started
    return lines, costs, seq


class _InstantBot:
    """A transport whose bot answers every request at once with CALL (a call with
    nothing to call is a check), without a process: the match loop's own cost."""

    def __init__(self) -> None:
        self.replies: deque[bytes] = deque()
        self.is_alive = True

    def send(self, data: bytes) -> None:
        for line in data.splitlines():
            seq = _SEQ.search(line)
            if line.startswith(b'{"type":"hello"') and seq:
                self.replies.append(b'{"type":"ready","seq":%s,"name":"i"}' % seq.group(1))
            elif line.startswith(b'{"type":"act"') and seq:
                self.replies.append(b'{"type":"action","seq":%s,"action":"CALL"}' % seq.group(1))

    def has_output(self) -> bool:
        return False  # the waiting work runs in full, as with a bot slower than it

    def read_line(self, deadline: float) -> bytes | None:
        return self.replies.popleft() if self.replies else None

    def close(self, grace_s: float) -> ExitInfo:
        self.is_alive = False
        return ExitInfo(exit_code=0)


def in_process_loop_s(config: MatchConfig) -> float:
    """Seconds per decision of the real match loop with :class:`_InstantBot` bots."""
    event_texts = EventTextCache()  # shared by the seats, as open_sessions does
    sessions: list[tuple[str, BotSession]] = [
        (
            f"instant {index}",
            BotSession(
                _InstantBot, player_id=f"p{index}", seat_index=index, event_texts=event_texts
            ),
        )
        for index in range(2)
    ]
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        result = run_match(config, sessions, Path(out))
        return (time.perf_counter() - started) / result.decision_count


class _ChunkedLines:
    """Lines read from a pipe in chunks of up to 64 KiB, as the arena's transport reads.

    (``readline`` on an unbuffered pipe reads one byte per system call, which would make
    the floor look 10-12 microseconds higher than it is.)
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def readline(self) -> bytes:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line, self.buffer = self.buffer[: end + 1], self.buffer[end + 1 :]
                return line
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError("the echo process closed its output")
            self.buffer += chunk


def raw_round_trip_s(lines: list[bytes]) -> tuple[float, list[float]]:
    """Seconds per round trip (mean) and the samples, for ``lines`` through an echo process."""
    process = subprocess.Popen(
        [sys.executable, "-c", ECHO_SOURCE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
    )
    assert process.stdin is not None and process.stdout is not None
    replies = _ChunkedLines(process.stdout.fileno())
    samples = []
    try:
        # Warm up (imports, page faults) before timing.
        for line in lines[:50]:
            process.stdin.write(line)
            replies.readline()
        started = time.perf_counter()
        for line in lines:
            sent = time.perf_counter()
            process.stdin.write(line)
            replies.readline()
            samples.append(time.perf_counter() - sent)
        total = time.perf_counter() - started
    finally:
        process.stdin.close()
        process.wait(timeout=10)
    return total / len(lines), samples


@dataclass
class Round:
    """One round: the raw round trip, the match, the raw round trip again."""

    match_s: float
    decisions: int
    hands: int
    raw_s: float  # mean of the two raw measurements around the match
    raw_before_s: float
    raw_after_s: float
    raw_p50_s: float
    latency_p50_s: float
    history_bytes: int

    @property
    def whole_s(self) -> float:
        return self.match_s / self.decisions

    @property
    def ratio(self) -> float:
        return self.whole_s / self.raw_s


def play_round(manifest: BotManifest, config: MatchConfig, lines: list[bytes]) -> Round:
    """Measure the raw round trip, play the match, measure the raw round trip again."""
    raw_before_s, samples_before = raw_round_trip_s(lines)
    with tempfile.TemporaryDirectory() as out:
        out_dir = Path(out)
        started = time.perf_counter()
        result = run_match(config, open_sessions([manifest, manifest], config), out_dir)
        match_s = time.perf_counter() - started
        history_bytes = (out_dir / "hands.jsonl").stat().st_size
        hand_count = len(read_hand_log(out_dir / "hands.jsonl").hands)
    raw_after_s, samples_after = raw_round_trip_s(lines)
    latency_p50_ms = statistics.median(
        player.faults["latency"]["p50_ms"] for player in result.players
    )
    return Round(
        match_s=match_s,
        decisions=result.decision_count,
        hands=hand_count,
        raw_s=(raw_before_s + raw_after_s) / 2,
        raw_before_s=raw_before_s,
        raw_after_s=raw_after_s,
        raw_p50_s=statistics.median(samples_before + samples_after),
        latency_p50_s=latency_p50_ms / 1000,
        history_bytes=history_bytes,
    )


@dataclass
class LuckRound:
    """One round of the luck estimator's cost: the same match with luck off, on (the
    estimate in its own process) and on in the match's process (the switch
    ``arena.match.luck_process.USE_LUCK_PROCESS`` off, the default): each one's
    wall time and this process's CPU time (the host's: the bots are other processes),
    the estimator's process's CPU, the same hands estimated again here one after the
    other ("alone"), the estimator's steps where the in-process match runs them, the
    garbage collector's CPU, and how often the host waited for a bot."""

    off_s: float
    on_s: float
    inproc_s: float
    off_cpu_s: float
    on_cpu_s: float  # the host's alone: the estimator's process is estimator_cpu_s
    inproc_cpu_s: float
    estimator_cpu_s: float  # the estimator's process (luck on), from its os.wait4 usage
    alone_cpu_s: float
    in_match_cpu_s: float  # the in-process match's estimator steps, its collections apart
    off_gc_s: float
    on_gc_s: float
    inproc_gc_s: float
    off_waits: int  # times the host blocked (voluntary context switches), luck off
    on_waits: int
    inproc_waits: int
    decisions: int  # in each match (the same hands every time)

    @property
    def ratio(self) -> float:
        return self.on_s / self.off_s

    @property
    def inproc_ratio(self) -> float:
        return self.inproc_s / self.off_s

    @property
    def arena_cpu_s(self) -> float:
        """The arena's CPU with luck on: every process of the host's but the bots'."""
        return self.on_cpu_s + self.estimator_cpu_s

    @property
    def share(self) -> float:
        """The estimator's process's share of the arena's CPU with luck on."""
        return self.estimator_cpu_s / self.arena_cpu_s


class _CpuMeter:
    """CPU time (``time.process_time``) added up over the intervals it is told about."""

    def __init__(self) -> None:
        self.total_s = 0.0
        self._started: list[float] = []

    @property
    def is_running(self) -> bool:
        return bool(self._started)

    def start(self) -> None:
        self._started.append(time.process_time())

    def stop(self) -> None:
        self.total_s += time.process_time() - self._started.pop()


@contextmanager
def _gc_cpu(meter: _CpuMeter, *, within: _CpuMeter, overlap: _CpuMeter) -> Iterator[None]:
    """Add the collector's CPU to ``meter`` while the block runs, and to ``overlap`` the
    part of it spent while ``within`` runs (a collection that the estimator's allocations
    set off inside one of its steps: counted once, as the collector's)."""
    nested: list[bool] = []

    def callback(phase: str, info: Mapping[str, int]) -> None:
        if phase == "start":
            meter.start()
            nested.append(within.is_running)
            if nested[-1]:
                overlap.start()
        else:
            meter.stop()
            if nested.pop():
                overlap.stop()

    gc.callbacks.append(callback)
    try:
        yield
    finally:
        gc.callbacks.remove(callback)


@contextmanager
def _estimator_cpu(meter: _CpuMeter) -> Iterator[None]:
    """Add the CPU of every step of the luck estimator the match runs to ``meter``
    while the block runs (the loop calls ``arena.luck.estimate_steps`` through the
    package, so wrapping it there times each step where the match runs it)."""
    steps = arena.luck.estimate_steps

    def timed(
        record: Mapping[str, object],
        luck_value: LuckValue | None = None,
        leans: Mapping[str, float] | None = None,
    ) -> Generator[None, None, HandLuck]:
        inner = steps(record, luck_value, leans)
        while True:
            meter.start()
            try:
                next(inner)
            except StopIteration as done:
                luck: HandLuck = done.value
                return luck
            finally:
                meter.stop()
            yield

    arena.luck.estimate_steps = timed
    try:
        yield
    finally:
        arena.luck.estimate_steps = steps


@contextmanager
def _estimator_process_cpu(meter: _CpuMeter) -> Iterator[None]:
    """Add the CPU of each estimator's process the block's matches stop to ``meter``
    (:class:`~arena.match.luck_process.LuckProcess` reads it when it reaps the process)."""
    close = luck_process.LuckProcess.close

    def counted(self: luck_process.LuckProcess) -> None:
        close(self)
        meter.total_s += self.cpu_s
        self.cpu_s = 0.0  # counted once, whatever calls close again

    luck_process.LuckProcess.close = counted  # type: ignore[method-assign]
    try:
        yield
    finally:
        luck_process.LuckProcess.close = close  # type: ignore[method-assign]


#: The three matches of a round: luck off, on in its process, on in the match's process.
LUCK_VARIANTS = ((False, True), (True, True), (True, False))


def luck_rounds(
    manifest: BotManifest, config: MatchConfig, rounds: int, opponent: BotManifest | None = None
) -> list[LuckRound]:
    """``rounds`` rounds of the match with the luck estimator off, on in its own process,
    and on in the match's process: in that order in the odd rounds and the other way
    round in the even ones (a drift of the machine's speed across a round then falls on
    luck off before luck on as often as after it). One match with luck on is played
    first, untimed: what a process makes once (the evaluator's tables, the estimator's
    tables, the bots' first start) is not in any round. ``opponent`` sits in seat 1
    (default: ``manifest`` again)."""
    bots = [manifest, opponent or manifest]
    with tempfile.TemporaryDirectory() as out:
        warm = replace(config, luck=True, score=None)
        run_match(warm, open_sessions(bots, warm), Path(out))
    pairs = []
    for number in range(rounds):
        times: dict[tuple[bool, bool], tuple[float, float]] = {}
        estimator, collector, overlap = _CpuMeter(), _CpuMeter(), _CpuMeter()
        process_cpu = _CpuMeter()
        gc_s: dict[tuple[bool, bool], float] = {}
        waits: dict[tuple[bool, bool], int] = {}
        records: list[Mapping[str, object]] = []
        default = luck_process.USE_LUCK_PROCESS
        order = LUCK_VARIANTS if number % 2 == 0 else LUCK_VARIANTS[::-1]
        for variant in order:
            luck, in_its_process = variant
            with tempfile.TemporaryDirectory() as out:
                on_or_off = replace(config, luck=luck, score=None)
                collector.total_s = 0.0
                luck_process.USE_LUCK_PROCESS = in_its_process
                blocked = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
                started, cpu = time.perf_counter(), time.process_time()
                with (
                    _gc_cpu(collector, within=estimator, overlap=overlap),
                    _estimator_cpu(estimator),
                    _estimator_process_cpu(process_cpu),
                ):
                    result = run_match(on_or_off, open_sessions(bots, on_or_off), Path(out))
                times[variant] = (time.perf_counter() - started, time.process_time() - cpu)
                luck_process.USE_LUCK_PROCESS = default
                gc_s[variant] = collector.total_s
                waits[variant] = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw - blocked
                if luck and in_its_process:
                    records = list(read_hand_log(Path(out) / "hands.jsonl").hands)
        cpu = time.process_time()
        for record, leans in match_leans(records):  # estimated again as the match did
            estimate_hand(record, None, leans)
        alone = time.process_time() - cpu
        off, on, inproc = LUCK_VARIANTS
        pairs.append(
            LuckRound(
                off_s=times[off][0],
                on_s=times[on][0],
                inproc_s=times[inproc][0],
                off_cpu_s=times[off][1],
                on_cpu_s=times[on][1],
                inproc_cpu_s=times[inproc][1],
                estimator_cpu_s=process_cpu.total_s,
                alone_cpu_s=alone,
                in_match_cpu_s=estimator.total_s - overlap.total_s,
                off_gc_s=gc_s[off],
                on_gc_s=gc_s[on],
                inproc_gc_s=gc_s[inproc],
                off_waits=waits[off],
                on_waits=waits[on],
                inproc_waits=waits[inproc],
                decisions=result.decision_count,
            )
        )
    return pairs


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per match (2000)")
    parser.add_argument("--rounds", type=int, default=3, help="match rounds (3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--starts", type=int, default=10, help="bot starts to time (10)")
    parser.add_argument(
        "--no-prefetch",
        action="store_true",
        help="the match without work done while bots think (arena.match.prefetch)",
    )
    parser.add_argument(
        "--luck-hands",
        type=int,
        default=None,
        help="hands per match of the luck estimator's cost (default: --hands, at most 500)",
    )
    parser.add_argument(
        "--luck-rounds",
        type=int,
        default=None,
        help="interleaved off/on pairs of the luck estimator's cost (default: --rounds)",
    )
    parser.add_argument(
        "--luck-only", action="store_true", help="run step 5 (the luck estimator's cost) alone"
    )
    parser.add_argument(
        "--luck-opponent",
        default="python_calling_station",
        help="step 5's seat 1: a folder of sample_bots/ (default python_calling_station)",
    )
    args = parser.parse_args()

    manifest = load_manifest(BOT)
    config = MatchConfig(hand_count=args.hands, seed=args.seed, prefetch=not args.no_prefetch)
    luck_hands = args.luck_hands if args.luck_hands is not None else min(args.hands, 500)
    luck_rounds_count = args.luck_rounds if args.luck_rounds is not None else args.rounds
    if not args.luck_only:
        report_match(manifest, config, args)
    load_before = os.getloadavg()
    opponent = load_manifest(ROOT / "sample_bots" / args.luck_opponent / "bot.toml")
    luck = luck_rounds(
        manifest, replace(config, hand_count=luck_hands), luck_rounds_count, opponent
    )
    bots = f" ({manifest.name} v {opponent.name})"
    report_luck(luck, luck_hands, load_before, os.getloadavg(), bots)


def report_match(manifest: BotManifest, config: MatchConfig, args: argparse.Namespace) -> None:
    """Steps 1 to 4: run them and print their figures."""
    lines, costs, step_decisions = in_process_costs(args.hands, args.seed)
    loop_s = in_process_loop_s(config)
    mean_line = sum(len(line) for line in lines) / len(lines)
    load_before = os.getloadavg()[0]
    rounds = [play_round(manifest, config, lines) for _ in range(args.rounds)]
    load_after = os.getloadavg()[0]
    timing = measure_startup(manifest, repeats=args.starts)

    # The round with the median ratio speaks for the run; every round is shown.
    typical = sorted(rounds, key=lambda r: r.ratio)[len(rounds) // 2]
    us = 1e6
    print(
        f"heads-up match, 2 x {manifest.name}, {typical.hands} hands, seed {args.seed}, "
        f"{len(rounds)} rounds (raw round trip, match, raw round trip)"
    )
    print(f"  load average (1 min) {load_before:.2f} before, {load_after:.2f} after")
    print("  round   whole decision   raw round trip (before, after)   whole / raw")
    for number, r in enumerate(rounds, 1):
        print(
            f"  {number:5d}   {r.whole_s * us:9.1f} us     {r.raw_s * us:6.1f} us "
            f"({r.raw_before_s * us:5.1f}, {r.raw_after_s * us:5.1f})"
            f"          {r.ratio:5.2f} x"
        )
    print("median round")
    print(f"  wall time            {typical.match_s:8.2f} s (bots started and stopped included)")
    print(f"  hands/s              {typical.hands / typical.match_s:8.0f}")
    print(
        f"  decisions/s          {typical.decisions / typical.match_s:8.0f}"
        f"  ({typical.decisions} decisions)"
    )
    print(f"  whole decision       {typical.whole_s * us:8.1f} us  (wall time / decisions)")
    print(
        f"  watchdog latency p50 {typical.latency_p50_s * us:8.1f} us  (act sent -> reply parsed)"
    )
    print(f"  hand history         {typical.history_bytes / typical.hands:8.0f} bytes/hand")
    print(f"raw JSON-lines round trip, same {len(lines)} act lines (mean {mean_line:.0f} bytes)")
    print(f"  mean                 {typical.raw_s * us:8.1f} us")
    print(f"  p50                  {typical.raw_p50_s * us:8.1f} us")
    print("arena")
    print(f"  cost per decision    {(typical.whole_s - typical.raw_s) * us:8.1f} us  (whole - raw)")
    print(
        f"  of which watchdog    {(typical.latency_p50_s - typical.raw_p50_s) * us:8.1f} us"
        "  (latency p50 - raw p50: poll and read, decode, parse)"
    )
    print(
        f"  in-process loop      {loop_s * us:8.1f} us per decision"
        "  (the real loop, in-process bots that answer at once)"
    )
    print("  in-process steps per decision (same hands, no processes):")
    for step in STEPS:
        print(f"    {step:28s} {costs[step] / step_decisions * us:7.1f} us")
    print(f"    {'total':28s} {sum(costs.values()) / step_decisions * us:7.1f} us")
    ratios = sorted(r.ratio for r in rounds)
    verdict = "within" if typical.ratio <= 2.5 else "OVER"
    print(
        f"  whole / raw          {typical.ratio:8.2f} x  median of {len(rounds)} rounds "
        f"(min {ratios[0]:.2f}, max {ratios[-1]:.2f}); {verdict} the 2.5x target"
    )
    print(f"bot start to ready ({timing.bot_name}, {len(timing.samples_s)} starts)")
    print(f"  median               {timing.median_s * 1000:8.1f} ms")
    print(f"  max                  {timing.max_s * 1000:8.1f} ms")


def report_luck(
    luck: list[LuckRound],
    luck_hands: int,
    load_before: tuple[float, float, float],
    load_after: tuple[float, float, float],
    bots: str = "",
) -> None:
    """Step 5's figures (``bots``: who played, as printed)."""
    print(
        f"luck estimator ({ESTIMATOR}), the same match{bots} off, on (in its own process) and"
        f" on in the match's process (the switch off), {luck_hands} hands, {len(luck)}"
        " interleaved rounds"
    )
    print(
        "  load average (1, 5, 15 min) "
        + ", ".join(f"{load:.2f}" for load in load_before)
        + " before, "
        + ", ".join(f"{load:.2f}" for load in load_after)
        + " after"
    )
    ms = 1000 / luck_hands
    print(
        "  round   wall: off      on (on/off)          in-process (/off)"
        "   CPU per hand: off host; on host + estimator; in-process host"
    )
    for number, r in enumerate(luck, 1):
        print(
            f"  {number:5d}   {r.off_s:7.2f} s  {r.on_s:7.2f} s ({r.ratio:5.3f} x)"
            f"   {r.inproc_s:7.2f} s ({r.inproc_ratio:5.3f} x)"
            f"   {r.off_cpu_s * ms:5.3f}; {r.on_cpu_s * ms:5.3f} + {r.estimator_cpu_s * ms:5.3f};"
            f" {r.inproc_cpu_s * ms:5.3f} ms"
        )
    for label, ratios in (
        ("on / off wall time", [r.ratio for r in luck]),
        ("in-process / off", [r.inproc_ratio for r in luck]),
    ):
        mean = estimate(ratios)
        verdict = "within" if mean.high <= 1.03 else "not shown within"
        print(
            f"  {label:20s} {statistics.median(ratios):8.3f} x  median of {len(luck)} rounds;"
            f" mean {mean.mean:.3f} x [{mean.low:.3f}, {mean.high:.3f}] (95%); {verdict} the"
            " 3% target"
        )

    def median_ms(values: list[float]) -> float:
        return statistics.median(values) * ms

    host_off = median_ms([r.off_cpu_s for r in luck])
    host_on = median_ms([r.on_cpu_s for r in luck])
    process = median_ms([r.estimator_cpu_s for r in luck])
    # Off the critical path, luck on adds the host's own extra work to the wall time, not
    # the estimator's CPU; on it, the wall time grows by about the estimator's CPU.
    added = estimate([(r.on_s - r.off_s) * ms for r in luck])
    print(
        f"  wall time added      {median_ms([r.on_s - r.off_s for r in luck]):8.3f} ms per hand"
        f" with luck on (median; mean {added.mean:.3f} [{added.low:.3f}, {added.high:.3f}]"
        f" (95%)), against the estimator's {process:.3f} ms of CPU per hand in its process"
    )
    arena_on = median_ms([r.arena_cpu_s for r in luck])
    host_inproc = median_ms([r.inproc_cpu_s for r in luck])
    print(
        "  the arena's CPU per hand (every process of the host's but the bots', medians):"
        f" luck off {host_off:.3f} ms; luck on {arena_on:.3f} ms = the host {host_on:.3f} +"
        f" the estimator's process {process:.3f} ({arena_on / host_off:.2f}x luck off, the"
        f" host alone {host_on / host_off:.2f}x); in the match's process {host_inproc:.3f} ms"
        f" ({host_inproc / host_off:.2f}x)"
    )
    shares = [r.share for r in luck]
    share = estimate(shares)
    verdict = "under" if share.high < 0.10 else "not shown under"
    of_off = [r.estimator_cpu_s / r.off_cpu_s for r in luck]
    print(
        f"  estimator's share    {statistics.median(shares):8.1%}  of the arena's CPU with luck"
        f" on (median; mean {share.mean:.1%} [{share.low:.1%}, {share.high:.1%}] (95%));"
        f" {verdict} the 10% target; {statistics.median(of_off):.1%} of the host's CPU with"
        " luck off"
    )
    alone = median_ms([r.alone_cpu_s for r in luck])
    in_match = median_ms([r.in_match_cpu_s for r in luck])
    in_match_shares = [r.in_match_cpu_s / r.off_cpu_s for r in luck]
    print(
        f"  estimator CPU per hand: in its process {process:.3f} ms (process start and end"
        f" included), alone {alone:.3f} ms (the same hands estimated again here, one after"
        f" the other), in the match's process {in_match:.3f} ms (its steps timed where the"
        f" match runs them, switch off: {statistics.median(in_match_shares):.1%} of the host's"
        " CPU with luck off)"
    )
    gc_ms = [
        median_ms([r.off_gc_s for r in luck]),
        median_ms([r.on_gc_s for r in luck]),
        median_ms([r.inproc_gc_s for r in luck]),
    ]
    print(
        f"  host's collector     {gc_ms[0]:.3f} ms per hand luck off, {gc_ms[1]:.3f} on,"
        f" {gc_ms[2]:.3f} in-process (median)"
    )
    # Time to hide work in: how often the host found nothing left to do and waited.
    decisions = statistics.median(r.decisions for r in luck) / luck_hands
    waits = [
        statistics.median(values) / luck_hands
        for values in zip(*((r.off_waits, r.on_waits, r.inproc_waits) for r in luck), strict=True)
    ]
    print(
        f"  the host waited      {waits[0]:8.2f} times per hand with luck off, {waits[1]:.2f}"
        f" on, {waits[2]:.2f} in-process (voluntary context switches, median;"
        f" {decisions:.1f} decisions per hand)"
    )


if __name__ == "__main__":
    main()
