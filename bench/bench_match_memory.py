"""How a long match's memory grows: RSS and tracemalloc every tenth of the hands.

Run: ``.venv/bin/python bench/bench_match_memory.py`` (100,000 hands; ``--hands N`` to
change, ``--quick`` for a small run, ``--processes`` for two real ``python_random`` bots
instead of in-process ones, ``--no-tracemalloc`` for a run about four times faster with
the RSS alone).

One heads-up match is played through the real loop (``run_match``: sessions, watchdog,
fault ledgers, prefetch, ``hands.jsonl`` written to a temporary folder). The in-process
bots answer every request at once with CALL, so the match is as fast as the arena itself
and its memory is the arena's alone. At every tenth of the hands the process's resident
set size (psutil) and the memory Python's allocator holds for live objects (tracemalloc,
started before the match) are printed, then the slope of each (least squares) in MiB per
100,000 hands. The first tenth is left out of the slope: bounded memos (event texts, hand
descriptions, JSON texts) fill there, so a short run shows their warm-up, not growth. A
match that keeps nothing per hand has slopes near 0; one latency kept per decision in a
list cost about 33 MiB per 100,000 hands.

tracemalloc slows the match about fivefold: 100,000 hands take some 10 minutes with it
and 2 without (in-process bots, a small machine).

Figures only: nothing is asserted (a shared machine's memory and speed vary).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots.manifest import load_manifest  # noqa: E402
from arena.bots.transport import ExitInfo  # noqa: E402
from arena.match.config import MatchConfig  # noqa: E402
from arena.match.progress import Progress  # noqa: E402
from arena.match.run import open_sessions, run_match  # noqa: E402
from arena.session.watchdog import BotSession  # noqa: E402
from protocol.request_encoder import EventTextCache  # noqa: E402

RANDOM_BOT = ROOT / "sample_bots" / "python_random" / "bot.toml"
QUICK_HANDS = 500
MIB = 1024 * 1024
_SEQ = re.compile(rb'"seq":(\d+)')


class _InstantBot:
    """A transport whose bot answers every request at once with CALL (a call with nothing
    to call is a check) and exits at ``match_end``: no process, nothing kept per hand."""

    def __init__(self) -> None:
        self.replies: deque[bytes] = deque()
        self.is_alive = True

    def send(self, data: bytes) -> None:
        for line in data.splitlines():
            seq = _SEQ.search(line)
            if line.startswith(b'{"type":"act"') and seq:
                self.replies.append(b'{"type":"action","seq":%s,"action":"CALL"}' % seq.group(1))
            elif line.startswith(b'{"type":"hello"') and seq:
                self.replies.append(b'{"type":"ready","seq":%s,"name":"instant"}' % seq.group(1))
            elif line.startswith(b'{"type":"match_end"'):
                self.is_alive = False

    def has_output(self) -> bool:
        return bool(self.replies)

    def read_line(self, deadline: float) -> bytes | None:
        return self.replies.popleft() if self.replies else None

    def close(self, grace_s: float) -> ExitInfo:
        self.is_alive = False
        return ExitInfo(exit_code=0)


@dataclass(frozen=True, slots=True)
class Sample:
    """The memory after ``hands`` hands."""

    hands: int
    seconds: float
    rss_bytes: int
    traced_bytes: int | None


class MemoryTrace(Progress):
    """Takes a :class:`Sample` at every tenth of the match instead of drawing a bar."""

    def __init__(self, total: int, *, is_tracing: bool) -> None:
        super().__init__(total, is_tty=False)
        self.samples: list[Sample] = []
        self._is_tracing = is_tracing
        self._process = psutil.Process()
        self._next = max(1, total // 10)
        self._every = self._next
        self._began = time.perf_counter()

    def update(self, done: int, note: str = "") -> None:
        if done < self._next:
            return
        self._next += self._every
        traced = tracemalloc.get_traced_memory()[0] if self._is_tracing else None
        sample = Sample(
            done, time.perf_counter() - self._began, self._process.memory_info().rss, traced
        )
        self.samples.append(sample)
        traced_text = "-" if traced is None else f"{traced / MIB:8.2f}"
        print(
            f"  {done:9d}  {sample.rss_bytes / MIB:9.1f}  {traced_text:>10}  {sample.seconds:8.1f}",
            flush=True,
        )

    def close(self) -> None:
        """Nothing to end: every line is complete."""


def slope_mib_per_100k(points: list[tuple[int, int]]) -> float:
    """The least-squares slope of ``(hands, bytes)`` points in MiB per 100,000 hands,
    leaving out the first point (the warm-up) when there are three or more."""
    if len(points) >= 3:
        points = points[1:]
    if len(points) < 2:
        return 0.0
    hands = [float(x) for x, _ in points]
    sizes = [y / MIB for _, y in points]
    return statistics.linear_regression(hands, sizes).slope * 100_000


def instant_sessions(count: int) -> list[tuple[str, BotSession]]:
    """``count`` seats of :class:`_InstantBot`, sharing one cache of event texts."""
    event_texts = EventTextCache()
    return [
        (
            f"instant {index}",
            BotSession(
                _InstantBot, player_id=f"p{index}", seat_index=index, event_texts=event_texts
            ),
        )
        for index in range(count)
    ]


def main() -> None:
    """Play the match and print the trace."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000, help="hands (100000)")
    parser.add_argument("--quick", action="store_true", help=f"a small run ({QUICK_HANDS} hands)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", action="store_true", help="two python_random bot processes")
    parser.add_argument(
        "--no-tracemalloc", action="store_true", help="RSS only (tracemalloc slows the match)"
    )
    args = parser.parse_args()
    hand_count = QUICK_HANDS if args.quick else args.hands
    if hand_count < 1:
        parser.error(f"--hands must be at least 1, got {hand_count}")
    config = MatchConfig(hand_count=hand_count, seed=args.seed)
    if args.processes:
        manifest = load_manifest(RANDOM_BOT)
        sessions = open_sessions([manifest, manifest], config)
        bots = f"2 x {manifest.name} (processes)"
    else:
        sessions = instant_sessions(2)
        bots = "2 in-process bots that call at once"
    is_tracing = not args.no_tracemalloc
    print(f"one heads-up match, {hand_count} hands, {bots}, seed {args.seed}")
    print(f"  {'hands':>9}  {'RSS MiB':>9}  {'traced MiB':>10}  {'seconds':>8}")
    trace = MemoryTrace(hand_count, is_tracing=is_tracing)
    if is_tracing:
        tracemalloc.start(1)
    try:
        with tempfile.TemporaryDirectory() as out:
            result = run_match(config, sessions, Path(out), progress=trace)
    finally:
        if is_tracing:
            tracemalloc.stop()
    samples = trace.samples
    print(
        f"{result.hands_played} hands, {result.decision_count} decisions in "
        f"{result.duration_s:.1f} s"
    )
    rss = slope_mib_per_100k([(s.hands, s.rss_bytes) for s in samples])
    print(f"  RSS slope            {rss:8.2f} MiB per 100,000 hands")
    if is_tracing:
        traced = [(s.hands, s.traced_bytes or 0) for s in samples]
        print(f"  tracemalloc slope    {slope_mib_per_100k(traced):8.2f} MiB per 100,000 hands")
    for player in result.players:
        latency = player.faults.get("latency", {})
        print(
            f"  {player.name}: latency p50 {latency.get('p50_ms', 0.0)} ms, "
            f"p99 {latency.get('p99_ms', 0.0)} ms, {latency.get('count', 0)} replies"
        )


if __name__ == "__main__":
    main()
