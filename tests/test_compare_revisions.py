"""bench/compare_revisions.py (with bench/revision_trees.py): the figures it reads, the
verdicts, the import probe, bad arguments, failing benchmarks, and an interrupted run (its
temporary tree and processes gone). Its whole run on two trees is tests/test_bench.py's
self-check."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import psutil
import pytest

from tests import REPO_ROOT

SCRIPT = REPO_ROOT / "bench" / "compare_revisions.py"


def load_driver() -> ModuleType:
    """bench/ is not a package: load the script by path, as its own module."""
    spec = importlib.util.spec_from_file_location("compare_revisions", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


driver = load_driver()
trees = sys.modules["revision_trees"]  # its helper module, imported by the driver

# Excerpts of the three benchmarks' outputs, as they print them.
ENGINE_OUTPUT = """\
engine        table       hands/s  actions/hand  p50 us/action  p99 us/action
poker-arena   heads-up       3711          6.88            8.5           76.7
pokerkit      heads-up        457          6.59           40.7         3329.1
poker-arena   6-max          2510         13.92            6.0           80.7
"""
ARENA_OUTPUT = """\
  round   whole decision   raw round trip (before, after)   whole / raw
      1       450.0 us       70.7 us ( 73.8,  67.7)           6.33 x
median round
  whole decision          447.4 us  (wall time / decisions)
  in-process loop         297.7 us per decision  (the real loop, in-process bots)
"""
TOURNAMENT_OUTPUT = """\
  speed-up 2w / 1w      0.91 x  median of 1 rounds (min 0.91, max 0.91)
  1 worker                  57 hands/s    5.72 matches/s  0.62 cores busy (medians)
  2 workers                 52 hands/s    5.18 matches/s  0.80 cores busy (medians)
"""


def bench(name: str) -> Any:
    """The driver's benchmark named ``name``."""
    return next(entry for entry in driver.BENCHES if entry.name == name)


@pytest.mark.parametrize(
    ("name", "output", "expected"),
    [
        ("engine", ENGINE_OUTPUT, {"hands/s heads-up": 3711.0, "hands/s 6-max": 2510.0}),
        ("arena", ARENA_OUTPUT, {"whole decision": 447.4, "in-process loop": 297.7}),
        ("tournament", TOURNAMENT_OUTPUT, {"hands/s 1 worker": 57.0, "hands/s 2 workers": 52.0}),
    ],
)
def test_each_benchmarks_key_figures_are_read_from_its_output(
    name: str, output: str, expected: dict[str, float]
) -> None:
    # The arena's round row (450.0) and table header must not be taken for the median line.
    assert driver.parse_figures(bench(name).figures, output) == expected


def test_a_figure_missing_from_the_output_is_left_out() -> None:
    found = driver.parse_figures(bench("engine").figures, ENGINE_OUTPUT.splitlines()[1])
    assert found == {"hands/s heads-up": 3711.0}


def test_the_verdict_follows_the_direction_that_is_better() -> None:
    hands, whole_decision = bench("engine").figures[0], bench("arena").figures[0]
    assert driver.verdict(hands, 100.0, 97.0) == "head 3.0% slower: within 5%"
    assert driver.verdict(hands, 100.0, 94.0) == "head 6.0% slower: NOT within 5%"
    assert driver.verdict(whole_decision, 100.0, 106.0) == "head 6.0% slower: NOT within 5%"
    assert driver.verdict(whole_decision, 100.0, 90.0) == "head 10.0% faster: within 5% (better)"


def fake_tree(folder: Path, bench_source: str | None = None) -> Path:
    """A tree with empty project packages and, if given, a bench/bench_engine.py."""
    for name in trees.PACKAGES:
        (folder / name).mkdir()
        (folder / name / "__init__.py").write_text("", encoding="utf-8")
    if bench_source is not None:
        (folder / "bench").mkdir()
        (folder / "bench" / "bench_engine.py").write_text(bench_source, encoding="utf-8")
    return folder


def test_the_probe_finds_each_trees_own_packages(tmp_path: Path) -> None:
    line = driver.probe_imports(sys.executable, driver.Tree("base", fake_tree(tmp_path)))
    assert line == f"imports  base: arena, engine, protocol from {tmp_path.resolve()}"


def test_the_probe_stops_the_driver_when_imports_come_from_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without PYTHONPATH the installed project (editable: the checkout) wins over the tree.
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    monkeypatch.setattr(trees, "tree_environment", lambda tree: environment)
    with pytest.raises(driver.DriverError, match=r"base tree .*: import"):
        driver.probe_imports(sys.executable, driver.Tree("base", fake_tree(tmp_path)))


@pytest.mark.parametrize(
    ("source", "failure"),
    [
        (None, "bench/bench_engine.py does not exist in this tree"),
        ("raise SystemExit('broken on purpose')", "exit code 1: broken on purpose"),
        ("print('a new format')", "none of its figures found in its output"),
    ],
)
def test_a_benchmark_missing_or_failing_in_a_tree_is_reported(
    tmp_path: Path, source: str | None, failure: str
) -> None:
    tree = driver.Tree("base", fake_tree(tmp_path, source))
    found, reason = driver.run_bench(sys.executable, tree, bench("engine"), [], 60)
    assert found == {}
    assert reason.startswith(failure)


def test_the_report_names_why_a_figure_has_no_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    engine = bench("engine")
    base = driver.Samples(failure="bench/bench_engine.py does not exist in this tree")
    head = driver.Samples(values={"hands/s heads-up": {0: 3000.0}, "hands/s 6-max": {0: 2000.0}})
    missing = driver.report([engine], {("engine", "base"): base, ("engine", "head"): head})
    assert missing == ["bench_engine.py hands/s heads-up", "bench_engine.py hands/s 6-max"]
    assert "n/a   bench_engine.py hands/s 6-max: base: bench/bench_engine.py does not exist" in (
        capsys.readouterr().out
    )


def test_the_report_gives_medians_ratio_and_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    arena = bench("arena")
    base = driver.Samples(values={"whole decision": {0: 400.0, 1: 420.0, 2: 410.0}})
    head = driver.Samples(values={"whole decision": {0: 440.0, 1: 430.0, 2: 450.0}})
    driver.report([arena], {("arena", "base"): base, ("arena", "head"): head})
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("bench_arena.py whole"))
    assert row.split()[3:9] == ["410.0", "us", "440.0", "us", "1.073x", "1.02-1.10"]
    assert "SLOW  bench_arena.py whole decision: head 7.3% slower: NOT within 5%" in out
    assert "n/a   bench_arena.py in-process loop: base: figure not in its output;" in out


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--base", "no-such-revision-x"], "'no-such-revision-x'"),
        (["--base", "HEAD", "--rounds", "zero"], "'zero'"),
        (["--base", "HEAD", "--benches", "engine,dealer"], "'engine,dealer'"),
        ([], "--base is required"),
    ],
)
def test_a_bad_argument_is_one_error_line_naming_it(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = driver.main(argv)
    except SystemExit as exit_:  # argparse's usage error
        code = exit_.code
    assert code in (1, 2)
    # argparse's usage lines aside, one line says what is wrong.
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(errors) == 1 and named in errors[0], errors


def test_an_interrupted_comparison_removes_its_tree_and_its_processes() -> None:
    # SIGTERM while bench_tournament.py runs with its worker pool: the driver stops that
    # benchmark's whole process group and removes the exported base tree.
    command = [sys.executable, str(SCRIPT), "--base", "HEAD", "--quick", "--rounds", "1"]
    command += ["--benches", "tournament"]
    with subprocess.Popen(
        command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        exported = re.search(r"exported to (\S+)$", process.stdout.readline())
        assert exported, "the driver did not say where it exported the base"
        descendants = wait_for_the_pool(psutil.Process(process.pid))
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr
    assert not Path(exported.group(1)).exists()
    assert not [child for child in descendants if is_alive(child)]


def is_alive(process: psutil.Process) -> bool:
    """Running, not a zombie waiting for its (possibly non-reaping) new parent."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_for_the_pool(driver_process: psutil.Process) -> list[psutil.Process]:
    """The driver's descendants once bench_tournament.py has started children of its own."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        descendants = driver_process.children(recursive=True)
        for candidate in descendants:
            try:
                if "bench_tournament.py" in " ".join(candidate.cmdline()) and (
                    candidate.children()
                ):
                    return descendants
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.1)
    pytest.fail("bench_tournament.py never started its pool")


# ------------------------------------------------------------------ --instructions


def test_callgrind_total_sums_the_file_of_every_process(tmp_path: Path) -> None:
    # One file per process: the probe's and each fork's (the luck estimator's). A fork's
    # file has a totals line larger than its count (it sums the inclusive costs of the
    # calls running at the fork): the summary is what it counted.
    for pid, count, totals in ((101, 5_000, 5_000), (102, 70, 900), (103, 30, 800)):
        text = f"events: Ir\nsummary: {count}\nfn=x\n1 {count}\ntotals: {totals}\n"
        (tmp_path / f"callgrind.{pid}").write_text(text, encoding="utf-8")
    assert driver.callgrind_total(tmp_path) == 5_100


@pytest.mark.parametrize(
    ("files", "message"),
    [({}, "callgrind wrote no output"), ({"callgrind.7": "events: Ir\n"}, "no summary line")],
)
def test_callgrind_output_without_a_summary_stops_the_driver(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    # A process killed before callgrind wrote its summary would be counted as zero.
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(driver.DriverError, match=message):
        driver.callgrind_total(tmp_path)


def test_the_marginal_needs_more_units_in_the_bigger_run() -> None:
    # Start-up and imports cancel out: only the extra units' instructions remain.
    assert driver.marginal((9_000, 10), (12_000, 40)) == 100.0
    with pytest.raises(driver.DriverError, match="not more than 10"):
        driver.marginal((9_000, 10), (12_000, 10))


def test_the_probe_refuses_a_bad_mode_or_size() -> None:
    for args in (["poker", "3"], ["loop", "0"], ["loop"]):
        completed = subprocess.run(
            [sys.executable, str(driver.PROBE_SCRIPT), *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert completed.returncode == 2
        assert "usage: instruction_probe.py {loop,tournament} COUNT" in completed.stdout


@pytest.mark.slow  # two runs of the match loop under callgrind (about 40 s)
def test_instructions_per_decision_are_counted_in_the_tree() -> None:
    tree = driver.Tree("head", REPO_ROOT)
    probe = next(probe for probe in driver.PROBES if probe.mode == "loop")
    small = driver.count_instructions(sys.executable, tree, probe, 2, 600)
    big = driver.count_instructions(sys.executable, tree, probe, 6, 600)
    assert big[1] > small[1] > 0  # decisions played
    # Each decision of the real loop costs tens of thousands of instructions at least.
    assert driver.marginal(small, big) > 10_000
