"""Speed of the working tree against an earlier revision, measured in the same run.

    .venv/bin/python bench/compare_revisions.py --base 4bac6d1 [--rounds 5] [--quick]

The base revision is exported (``git archive``) into a temporary folder, removed at the end,
even on Ctrl-C. Then, every round, each benchmark (``bench_engine.py``, ``bench_arena.py``,
``bench_tournament.py``, ``bench_server.py``) runs once in the base tree and once in the
working tree ("head"), the side that goes first alternating from round to round: a change of
the machine's load then hits both sides alike. Each side runs its own tree's script (the
base's benchmark for the base's code) with the same Python, in its tree's folder, with
``PYTHONPATH`` set to its tree; before the rounds a probe shows where ``arena``, ``engine``
and ``protocol`` are imported from under exactly that setting, and the driver stops if any
of them comes from elsewhere (the editable install of the working tree must not win).

The key figures are read from each benchmark's output; per figure the driver prints the
median over the rounds for base and head, head/base (with the range of the per-round
ratios), the direction that is better, and whether head is within 5% of base or better. A
benchmark missing or failing in one tree is reported and the others go on. The exit code
is 0 whatever the figures say (a benchmark informs, it does not test); 1 when the driver
itself fails, 2 for a bad argument.

``--selfcheck`` compares HEAD with the working tree on a tiny ``bench_engine.py`` run and
fails unless figures were read from both trees; the test suite runs it.

``--instructions`` adds, after the rounds, what the load does not move: the instructions
that callgrind counts (user space) for one unit of work in each tree, the marginal
between two sizes of the same work (start-up and imports cancel out): per decision of
bench_arena's in-process loop, per hand of bench_tournament's round robin played
serially (``bench/instruction_probe.py`` runs both, in each tree with its own code). The
arena's processes forked during the work are counted (callgrind follows a fork; each
child's count starts at the fork), the bots' (other programs, started by ``exec``) are
not. The kernel's work (a fork, its copy-on-write faults) is not an instruction of ours:
read it beside the wall clock.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

# This folder first: revision_trees is found also when this file is loaded by its path.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from revision_trees import (
    ROOT,
    DriverError,
    Tree,
    describe_head,
    export_revision,
    probe_imports,
    resolve_revision,
    run_in_tree,
    warm_up,
)

#: Head is within this share of base, or better, to pass.
TOLERANCE = 0.05
#: The work counted by ``--instructions``, run in each tree (see its docstring).
PROBE_SCRIPT = Path(__file__).resolve().parent / "instruction_probe.py"
#: Callgrind counting every process of the arena's from its start, each fork from the fork
#: on (Python calls PyOS_AfterFork_Child first thing in a child).
CALLGRIND = ("valgrind", "--tool=callgrind", "--zero-before=PyOS_AfterFork_Child")


@dataclass(frozen=True, slots=True)
class Figure:
    """One key figure of a benchmark's output, found by ``pattern`` (first group)."""

    label: str
    pattern: re.Pattern[str]
    unit: str
    higher_is_better: bool


@dataclass(frozen=True, slots=True)
class Bench:
    """One benchmark script with its sizes and the figures read from its output."""

    name: str
    script: str
    quick_args: tuple[str, ...]
    full_args: tuple[str, ...]
    figures: tuple[Figure, ...]


def _figure(label: str, pattern: str, unit: str, *, higher_is_better: bool) -> Figure:
    return Figure(label, re.compile(pattern, re.MULTILINE), unit, higher_is_better)


ENGINE_FIGURES = (
    # The table rows of our engine: "poker-arena   heads-up   3711   6.88 ...".
    _figure("hands/s heads-up", r"^poker-arena\s+heads-up\s+([\d.]+)\s", "hands/s",
            higher_is_better=True),
    _figure("hands/s 6-max", r"^poker-arena\s+6-max\s+([\d.]+)\s", "hands/s",
            higher_is_better=True),
)  # fmt: skip
BENCHES = (
    Bench(
        "engine",
        "bench_engine.py",
        ("--hands", "300", "--engines", "poker-arena"),
        ("--hands", "5000", "--engines", "poker-arena"),
        ENGINE_FIGURES,
    ),
    Bench(
        "arena",
        "bench_arena.py",
        ("--hands", "300", "--rounds", "1", "--starts", "2"),
        ("--hands", "2000", "--rounds", "1", "--starts", "2"),
        (
            # "whole decision   447.4 us  (wall time / decisions)", not the table's header.
            _figure("whole decision", r"^\s*whole decision\s+([\d.]+) us", "us",
                    higher_is_better=False),
            _figure("in-process loop", r"^\s*in-process loop\s+([\d.]+) us per decision", "us",
                    higher_is_better=False),
        ),
    ),
    Bench(
        "tournament",
        "bench_tournament.py",
        ("--quick",),
        ("--rounds", "1", "--matches", "20", "--hands", "50", "--memory-matches", "20"),
        (
            _figure("hands/s 1 worker", r"^\s*1 worker\s+([\d.]+) hands/s", "hands/s",
                    higher_is_better=True),
            _figure("hands/s 2 workers", r"^\s*2 workers\s+([\d.]+) hands/s", "hands/s",
                    higher_is_better=True),
        ),
    ),
    Bench(
        "server",
        "bench_server.py",
        ("--seconds", "15", "--clients", "20"),
        ("--seconds", "60", "--clients", "50"),
        (
            # "target p99 < 250 ms and no errors: met (p99 41 ms, 0 errors)": the whole load.
            _figure("p99 latency", r"^target p99 < 250 ms and no errors: .*\(p99 (\d+) ms", "ms",
                    higher_is_better=False),
        ),
    ),
)  # fmt: skip
SELFCHECK_BENCH = Bench(
    "engine",
    "bench_engine.py",
    ("--hands", "20", "--engines", "poker-arena"),
    ("--hands", "20", "--engines", "poker-arena"),
    ENGINE_FIGURES,
)


@dataclass(frozen=True, slots=True)
class Probe:
    """One work of ``--instructions``: ``instruction_probe.py MODE SIZE`` at two sizes."""

    label: str
    mode: str
    unit: str
    full_sizes: tuple[int, int]
    quick_sizes: tuple[int, int]


PROBES = (
    Probe("bench_arena.py in-process loop", "loop", "decision", (100, 300), (10, 30)),
    # Hands per match: 20 matches each; the per-match work (bots' starts) cancels out.
    Probe("bench_tournament.py serial", "tournament", "hand", (5, 15), (1, 3)),
)


@dataclass
class Samples:
    """Every figure's value by round, and the failure, of one benchmark on one side."""

    values: dict[str, dict[int, float]] = field(default_factory=dict)
    failure: str | None = None


def parse_figures(figures: Sequence[Figure], output: str) -> dict[str, float]:
    """The figures found in a benchmark's output, by label (a figure not found is left out).

    >>> parse_figures(ENGINE_FIGURES, "poker-arena   heads-up    3711    6.88")
    {'hands/s heads-up': 3711.0}
    """
    found: dict[str, float] = {}
    for figure in figures:
        match = figure.pattern.search(output)
        if match:
            found[figure.label] = float(match.group(1))
    return found


def slower_share(figure: Figure, base: float, head: float) -> float:
    """How much slower head is than base, as a share (negative: faster).

    >>> round(slower_share(ENGINE_FIGURES[0], 100.0, 97.0), 3)
    0.03
    """
    if figure.higher_is_better:
        return 1 - head / base
    return head / base - 1


def verdict(figure: Figure, base: float, head: float) -> str:
    """One line's ending: how head compares, and whether it is within the tolerance.

    >>> verdict(ENGINE_FIGURES[0], 100.0, 97.0)
    'head 3.0% slower: within 5%'
    >>> verdict(ENGINE_FIGURES[0], 100.0, 110.0)
    'head 10.0% faster: within 5% (better)'
    """
    share = slower_share(figure, base, head)
    if share <= 0:
        return f"head {-share:.1%} faster: within {TOLERANCE:.0%} (better)"
    status = "within" if share <= TOLERANCE else "NOT within"
    return f"head {share:.1%} slower: {status} {TOLERANCE:.0%}"


def run_bench(python: str, tree: Tree, bench: Bench, args: Sequence[str], timeout: float) -> (
    tuple[dict[str, float], str | None]
):  # fmt: skip
    """One run of ``bench`` in ``tree``: the figures read, and the failure if any."""
    script = tree.path / "bench" / bench.script
    if not script.is_file():
        return {}, f"bench/{bench.script} does not exist in this tree"
    try:
        completed = run_in_tree([python, str(script), *args], tree.path, timeout)
    except subprocess.TimeoutExpired:
        return {}, f"timed out after {timeout:g} s"
    if completed.returncode != 0:
        last = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        return {}, f"exit code {completed.returncode}: {last}"
    found = parse_figures(bench.figures, completed.stdout)
    if not found:
        return {}, "none of its figures found in its output (has its format changed?)"
    return found, None


def play_rounds(
    python: str,
    trees: tuple[Tree, Tree],
    benches: Sequence[Bench],
    *,
    rounds: int,
    quick: bool,
    timeout: float,
) -> dict[tuple[str, str], Samples]:
    """Every round, every benchmark on both sides, the first side alternating by round."""
    samples = {(bench.name, tree.side): Samples() for bench in benches for tree in trees}
    for round_index in range(rounds):
        order = trees if round_index % 2 == 0 else (trees[1], trees[0])
        notes = []
        for bench in benches:
            args = bench.quick_args if quick else bench.full_args
            for tree in order:
                entry = samples[(bench.name, tree.side)]
                if entry.failure is not None:
                    continue  # failed once: it would fail again, and costs time
                started = time.monotonic()
                found, failure = run_bench(python, tree, bench, args, timeout)
                notes.append(f"{bench.name} {tree.side} {time.monotonic() - started:.1f} s")
                if failure is not None:
                    entry.failure = failure
                    print(f"  {bench.script} in {tree.side}: {failure}", flush=True)
                for label, value in found.items():
                    entry.values.setdefault(label, {})[round_index] = value
        print(f"round {round_index + 1}/{rounds}: {', '.join(notes)}", flush=True)
    return samples


def figure_line(figure: Figure, name: str, base: dict[int, float], head: dict[int, float]) -> (
    tuple[str, str]
):  # fmt: skip
    """The table's row of a figure measured on both sides, and its verdict line."""
    base_median = statistics.median(base.values())
    head_median = statistics.median(head.values())
    # Head/base within each round: the spread says how noisy the machine was.
    ratios = [head[index] / base[index] for index in base.keys() & head.keys() if base[index]]
    spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "-"
    better = "higher" if figure.higher_is_better else "lower"
    base_text, head_text = f"{base_median:.1f} {figure.unit}", f"{head_median:.1f} {figure.unit}"
    row = (
        f"{name:<38} {base_text:>14} {head_text:>14}"
        f" {head_median / base_median:>8.3f}x  {spread:>11}  {better}"
    )
    ok = slower_share(figure, base_median, head_median) <= TOLERANCE
    return row, f"  {'ok  ' if ok else 'SLOW'}  {name}: {verdict(figure, base_median, head_median)}"


def report(benches: Sequence[Bench], samples: dict[tuple[str, str], Samples]) -> list[str]:
    """Print the table and the verdicts; returns the figures not measured on both sides."""
    print()
    print(
        f"{'figure':<38} {'base median':>14} {'head median':>14} {'head/base':>9}"
        f"  {'per round':>11}  better"
    )
    verdicts, missing = [], []
    for bench in benches:
        sides = {side: samples[(bench.name, side)] for side in ("base", "head")}
        for figure in bench.figures:
            name = f"{bench.script} {figure.label}"
            values = {side: entry.values.get(figure.label, {}) for side, entry in sides.items()}
            if values["base"] and values["head"]:
                row, line = figure_line(figure, name, values["base"], values["head"])
                print(row)
                verdicts.append(line)
                continue
            reasons = [
                f"{side}: {sides[side].failure or 'figure not in its output'}"
                for side in ("base", "head")
                if not values[side]
            ]
            verdicts.append(f"  n/a   {name}: {'; '.join(reasons)}")
            missing.append(name)
    print()
    print(f"head (working tree) against base, medians of the rounds; within {TOLERANCE:.0%}:")
    for line in verdicts:
        print(line)
    return missing


def callgrind_total(folder: Path) -> int:
    """The instructions of every process callgrind counted into ``folder`` (one file
    each, ``summary: N``: what was counted, from the fork on in a forked child; its
    ``totals`` line is no count there, it also sums the inclusive costs of the calls
    that were running at the fork)."""
    total = 0
    files = sorted(folder.glob("callgrind.*"))
    for path in files:
        found = re.search(r"^summary: (\d+)$", path.read_text(errors="replace"), re.MULTILINE)
        if found is None:
            raise DriverError(f"no summary line in {path.name}: callgrind did not finish it")
        total += int(found.group(1))
    if not files:
        raise DriverError("callgrind wrote no output")
    return total


def count_instructions(
    python: str, tree: Tree, probe: Probe, size: int, timeout: float
) -> tuple[int, int]:
    """Run ``probe`` at ``size`` in ``tree`` under callgrind: (instructions, units)."""
    if shutil.which(CALLGRIND[0]) is None:
        raise DriverError("--instructions needs valgrind (its callgrind tool), not found")
    with tempfile.TemporaryDirectory(prefix="compare-callgrind-") as out:
        command = [
            *CALLGRIND,
            f"--callgrind-out-file={out}/callgrind.%p",
            python,
            str(PROBE_SCRIPT),
            probe.mode,
            str(size),
        ]
        try:
            completed = run_in_tree(command, tree.path, timeout)
        except subprocess.TimeoutExpired as exc:
            raise DriverError(f"{probe.label} in {tree.side} timed out") from exc
        units = re.search(r"^units (\d+)$", completed.stdout, re.MULTILINE)
        if completed.returncode != 0 or units is None:
            last = (completed.stderr.strip().splitlines() or ["no output"])[-1]
            raise DriverError(f"{probe.label} in {tree.side} failed: {last}")
        return callgrind_total(Path(out)), int(units.group(1))


def marginal(small: tuple[int, int], big: tuple[int, int]) -> float:
    """Instructions per unit between two sizes of one work: (instructions, units) each.

    >>> marginal((1_000, 10), (3_000, 30))
    100.0
    """
    (small_count, small_units), (big_count, big_units) = small, big
    if big_units <= small_units:
        raise DriverError(f"the bigger run played {big_units} units, not more than {small_units}")
    return (big_count - small_count) / (big_units - small_units)


def instruction_rows(
    python: str, trees: tuple[Tree, Tree], *, quick: bool, timeout: float
) -> list[str]:
    """Each probe's instructions per unit in both trees: the table's rows."""
    rows = []
    for probe in PROBES:
        per_unit = {}
        for tree in trees:
            counts = [
                count_instructions(python, tree, probe, size, timeout)
                for size in (probe.quick_sizes if quick else probe.full_sizes)
            ]
            per_unit[tree.side] = marginal(counts[0], counts[1])
            print(f"  {probe.label} in {tree.side}: {counts}", flush=True)
        name = f"{probe.label} per {probe.unit}"
        base, head = per_unit["base"], per_unit["head"]
        rows.append(f"{name:<44} {base / 1000:>12.1f}k {head / 1000:>12.1f}k {head / base:>9.3f}x")
    return rows


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, every bad value one error line naming it."""

    def positive(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
        return value

    def bench_names(text: str) -> tuple[str, ...]:
        names = tuple(name.strip() for name in text.split(",") if name.strip())
        known = [bench.name for bench in BENCHES]
        unknown = [name for name in names if name not in known]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"{text!r}: choose from {', '.join(known)} (comma-separated)"
            )
        return names

    parser = argparse.ArgumentParser(
        prog="compare_revisions.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--base", help="the revision to compare with (a commit, tag, branch)")
    parser.add_argument("--rounds", type=positive, default=5, help="interleaved rounds (5)")
    parser.add_argument("--quick", action="store_true", help="small benchmark sizes")
    parser.add_argument(
        "--benches",
        type=bench_names,
        default=tuple(bench.name for bench in BENCHES),
        help="comma-separated subset of: engine, arena, tournament, server (all)",
    )
    parser.add_argument(
        "--python", default=sys.executable, help="the interpreter of both sides (this one)"
    )
    parser.add_argument(
        "--timeout", type=positive, default=1800, help="seconds one benchmark run may take"
    )
    parser.add_argument(
        "--selfcheck",
        action="store_true",
        help="HEAD against the working tree, one tiny bench_engine.py round; fails unless"
        " figures are read from both trees",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions per decision and per hand with callgrind (needs"
        " valgrind; the counts do not move with the load)",
    )
    args = parser.parse_args(argv)
    if args.selfcheck:
        args.base = args.base or "HEAD"
    elif args.base is None:
        parser.error("--base is required (the revision to compare with), e.g. --base HEAD~1")
    return args


def compare(args: argparse.Namespace) -> int:
    """Export the base, probe both trees, play the rounds, report; the exit code."""
    commit = resolve_revision(args.base)
    if args.selfcheck:
        benches: Sequence[Bench] = (SELFCHECK_BENCH,)
        rounds, quick = 1, True
    else:
        benches = [bench for bench in BENCHES if bench.name in args.benches]
        rounds, quick = args.rounds, args.quick
    folder = Path(tempfile.mkdtemp(prefix="compare-base-"))
    try:
        export_revision(commit, folder)
        trees = (Tree("base", folder), Tree("head", ROOT))
        print(f"base {args.base} ({commit[:12]}) exported to {folder}")
        print(f"head the working tree {ROOT} ({describe_head()})")
        print(
            f"python {args.python}; {rounds} rounds, {'quick' if quick else 'full'} sizes;"
            " the first side alternates by round"
        )
        for tree in trees:
            print(probe_imports(args.python, tree))
            warm_up(args.python, tree)
        print(f"load average (1 min) {os.getloadavg()[0]:.2f} before", flush=True)
        samples = play_rounds(
            args.python, trees, benches, rounds=rounds, quick=quick, timeout=args.timeout
        )
        print(f"load average (1 min) {os.getloadavg()[0]:.2f} after")
        missing = report(benches, samples)
        if args.instructions:
            print()
            print("instructions (callgrind; marginal between two sizes; the bots not counted)")
            rows = instruction_rows(args.python, trees, quick=quick, timeout=args.timeout)
            print(f"{'work':<44} {'base':>13} {'head':>13} {'head/base':>9}")
            for row in rows:
                print(row)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"removed {folder}")
    if args.selfcheck:
        if missing:
            print(f"selfcheck FAILED: no figures from both trees for {', '.join(missing)}")
            return 1
        print("selfcheck ok: figures read from both trees; each tree imported its own code")
    return 0


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM unwinds like Ctrl-C, so that the base tree is removed."""
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison; 0 whatever the figures, 1 if the driver fails, 2 for bad usage."""
    args = parse_arguments(argv)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return compare(args)
    except DriverError as error:
        print(f"compare_revisions.py: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("compare_revisions.py: interrupted (the base tree was removed)", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
