"""The work that ``compare_revisions.py --instructions`` counts, run in one tree.

    python bench/instruction_probe.py loop HANDS
    python bench/instruction_probe.py tournament DEALS

Run with the tree as the current folder (and as ``PYTHONPATH``): the tree's own
``bench/`` modules are imported, so the same probe measures any revision whose
benchmarks offer what it calls (``bench_arena.in_process_loop_s``,
``tournament_runs.bench_config``). It prints one line, ``units N``: the decisions played
(``loop``) or the hands played (``tournament``), by which the driver divides the
instructions counted under callgrind.

* ``loop``: bench_arena's in-process loop (the real match loop, bots that answer at once,
  no processes), heads-up, ``HANDS`` hands, seed 1, the evaluator's tables filled first
  (a revision that fills them at import has done so before the match too).
* ``tournament``: bench_tournament's round robin of five trivial bots (20 matches of
  ``DEALS`` hands, its default settings, luck on), played in this process one match after
  the other instead of in a pool; the bots are processes of their own, the luck
  estimator's too where the revision forks one (the driver counts those forks).
"""

from __future__ import annotations

import sys
import tempfile
from concurrent.futures import Future
from pathlib import Path
from typing import Any

# The tree's benchmarks (the current folder's), before this file's own folder.
sys.path.insert(0, str(Path.cwd() / "bench"))

MODES = ("loop", "tournament")


def loop_decisions(hands: int) -> int:
    """Play the in-process loop; the decisions it played."""
    import bench_arena as imported  # the tree's

    from arena.match.config import MatchConfig

    bench_arena: Any = imported  # its run_match is patched below
    try:
        from engine._eval_tables import fill_tables
    except ImportError:  # a revision that fills them at import
        pass
    else:
        fill_tables()
    # bench_arena reports the loop's mean time per decision: count the decisions here.
    played: list[int] = []
    run_match = bench_arena.run_match

    def counted(*args: Any, **kwargs: Any) -> Any:
        result = run_match(*args, **kwargs)
        played.append(result.decision_count)
        return result

    bench_arena.run_match = counted
    try:
        bench_arena.in_process_loop_s(MatchConfig(hand_count=hands, seed=1))
    finally:
        bench_arena.run_match = run_match
    return played[0]


class SerialExecutor:
    """Plays each submitted match at once, in this process (no pool to start or count)."""

    concurrency = 1

    def __init__(self, play: Any) -> None:
        self._play = play

    def submit(self, job: Any) -> Future[Any]:
        """Play ``job`` now; a future that is already done."""
        done: Future[Any] = Future()
        done.set_result(self._play(job))
        return done

    def close(self, kill: bool = False) -> None:
        """Nothing to stop."""


def tournament_hands(deals: int) -> int:
    """Play the tournament benchmark's round robin serially; the hands played."""
    import tournament_runs  # the tree's

    from arena.store.sqlite import ResultsDatabase
    from arena.tournament.runner import TournamentRunner
    from arena.tournament.worker import play_match

    config = tournament_runs.bench_config(
        matches=tournament_runs.MATCHES_PER_BLOCK, hands=deals, seed=1, sandbox="none"
    )
    display = tournament_runs.BenchDisplay(None)
    with tempfile.TemporaryDirectory(prefix="instruction-probe-") as temp:
        folder = Path(temp)
        db = ResultsDatabase(folder / "results.sqlite")
        try:
            runner = TournamentRunner(
                config,
                db,
                executor=SerialExecutor(play_match),
                sandbox="none",
                out_dir=folder / "run",
                display=display,
            )
            runner.run()
        finally:
            db.close()
    if display.failures:
        raise SystemExit("a match failed:\n" + "\n".join(display.failures))
    return display.hands


def main(argv: list[str]) -> int:
    """Run one probe; print ``units N``."""
    if len(argv) != 2 or argv[0] not in MODES or not argv[1].isdigit() or int(argv[1]) < 1:
        print(f"usage: instruction_probe.py {{{','.join(MODES)}}} COUNT (a whole number >= 1)")
        return 2
    mode, count = argv[0], int(argv[1])
    units = loop_decisions(count) if mode == "loop" else tournament_hands(count)
    print(f"units {units}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
