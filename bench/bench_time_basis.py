"""Time that is fair under load: the same match alone and beside two CPU hogs, its
decisions charged on the wall clock and in the bots' CPU time.

Run: ``.venv/bin/python bench/bench_time_basis.py`` (``--hands N``, ``--think-ms M``,
``--timeout-ms T``; about half a minute with the defaults; ``--quick`` for the test suite).

Two honest bots play heads-up under the strongest sandbox that works here (with a cgroup,
each bot is held to one core). Each computes for ``--think-ms`` of CPU time before every
reply, well within the decision time ``--timeout-ms``. The match is played four times:
alone and with bots of other matches spinning beside it in the same sandbox (as many as
the machine has cores: the thinking bots now wait for a core), each on the ``wall`` basis
(today's default) and on the ``cpu`` basis (:mod:`arena.session.timing`: the bot's CPU
time, with a wall-clock backstop of three times the decision time). Printed per run: the
timeouts, and the p50 and p99 of the reply latency (wall clock, as the results report it;
0 when no reply came).

What to expect: alone, neither basis times out. Beside the hogs, the bots get part of a
core, their replies take longer on the wall clock, and the ``wall`` basis times honest
bots out; the ``cpu`` basis does not, as long as the wait stays under the backstop.

One run on a 2-core machine with a load average of 10 (other work beside the benchmark):

    alone        wall  timeouts   0  latency p50   89.7 ms  p99  151.0 ms
    alone        cpu   timeouts   0  latency p50   55.7 ms  p99  139.6 ms
    beside hogs  wall  timeouts  10  latency p50  132.3 ms  p99  132.3 ms
    beside hogs  cpu   timeouts   0  latency p50  211.6 ms  p99  315.2 ms

Figures only: nothing is asserted (a shared machine's load varies).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots.manifest import load_manifest  # noqa: E402
from arena.bots.process import ProcessTransport  # noqa: E402
from arena.bots.sandbox.select import choose, launcher_for  # noqa: E402
from arena.match.config import MatchConfig, new_secret_seed  # noqa: E402
from arena.match.run import open_sessions, run_match  # noqa: E402
from arena.session.policy import TimeBasis, TimeLimits  # noqa: E402

THINKER = textwrap.dedent(
    """
    import json, sys, time

    THINK_S = float(sys.argv[1]) / 1000

    def think():
        start = time.process_time()
        while time.process_time() - start < THINK_S:
            pass

    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply = {"type": "ready", "seq": message["seq"], "name": "thinker"}
        elif kind == "act":
            think()
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            reply = {"type": "action", "seq": message["seq"], "action": action}
        elif kind == "match_end":
            break
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\\n")
        sys.stdout.flush()
    """
)


def _thinker(folder: Path, think_ms: float) -> Path:
    folder.mkdir(mode=0o755)
    (folder / "think_bot.py").write_text(THINKER)
    (folder / "bot.toml").write_text(
        f'name = "thinker"\ncommand = ["{{python}}", "think_bot.py", "{think_ms}"]\n'
    )
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755)
    return folder / "bot.toml"


def play(
    manifest: Path, basis: TimeBasis, *, hands: int, timeout_ms: float
) -> tuple[int, list[float]]:
    """Timeouts and the p50/p99 latency (ms) of one match."""
    level, _ = choose(None)
    launcher = launcher_for(level)
    bots = [dataclasses.replace(load_manifest(manifest), name=f"thinker-{i}") for i in (1, 2)]
    limits = TimeLimits(decision_s=timeout_ms / 1000, time_basis=basis)
    config = MatchConfig(hand_count=hands, seed=new_secret_seed(), time_limits=limits)
    sessions = open_sessions(bots, config, launcher=launcher)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-time-basis-") as out:
            result = run_match(config, sessions, Path(out) / "run")
    finally:
        for _name, session in sessions:
            session.close()
        launcher.close()
    timeouts = sum(len([f for f in s.ledger.faults if f.kind == "timeout"]) for _n, s in sessions)
    stats = [session.ledger.latency_stats() for _name, session in sessions]
    quantiles = [max(stat.p50_ms for stat in stats), max(stat.p99_ms for stat in stats)]
    assert result.hands_played == hands
    return timeouts, quantiles


def main() -> None:
    """Play the four matches and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--think-ms", type=float, default=30.0)
    parser.add_argument("--timeout-ms", type=float, default=100.0)
    parser.add_argument(
        "--quick", action="store_true", help="the test suite's small run: 2 hands, one hog"
    )
    args = parser.parse_args()
    if args.quick:
        args.hands = 2
    logging.getLogger("arena").setLevel(logging.ERROR)  # the timeouts are counted below
    level, _ = choose(None)
    cores = os.cpu_count() or 2
    print(
        f"sandbox {level}; {args.hands} hands; each bot thinks {args.think_ms:g} ms of CPU "
        f"per decision; decision time {args.timeout_ms:g} ms; {cores} cores"
    )
    spinner = load_manifest(ROOT / "tests" / "bots" / "sandbox_spinner" / "bot.toml")
    spinner = dataclasses.replace(spinner, command=(*spinner.command[:2], "start", "300"))
    hog_launcher = launcher_for(level)
    with tempfile.TemporaryDirectory(prefix="bench-thinker-") as folder:
        Path(folder).chmod(0o755)
        manifest = _thinker(Path(folder) / "thinker", args.think_ms)
        for load in ("alone", "beside hogs"):
            # Spinning bots of other matches, in the same sandbox (each held to one core
            # where there are cgroups), as many as there are cores.
            count = 0 if load == "alone" else 1 if args.quick else cores
            hogs = [ProcessTransport.start(spinner, launcher=hog_launcher) for _ in range(count)]
            try:
                for basis in (TimeBasis.WALL, TimeBasis.CPU):
                    started = time.monotonic()
                    timeouts, (p50, p99) = play(
                        manifest, basis, hands=args.hands, timeout_ms=args.timeout_ms
                    )
                    took = time.monotonic() - started
                    print(
                        f"{load:12} {basis:5} timeouts {timeouts:3}  latency p50 {p50:6.1f} ms  "
                        f"p99 {p99:6.1f} ms  ({took:.1f} s)"
                    )
            finally:
                for hog in hogs:
                    hog.close(0.0)
    hog_launcher.close()


if __name__ == "__main__":
    main()
