"""Every benchmark still runs: each is started once with the smallest sizes and must end
with exit code 0 and print its figures. (Speed itself is never asserted: the figures are
read by people, next to the peers measured in the same run.)"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests import REPO_ROOT

SMALL_RUNS = {
    "bench_arena.py": ["--hands", "30", "--rounds", "1", "--starts", "1"],
    "bench_coverage.py": ["--quick"],
    "bench_dask.py": ["--quick"],
    "bench_engine.py": ["--hands", "20"],
    "bench_evaluator.py": ["--count", "2000", "--repeat", "1"],
    "bench_ladder.py": ["--quick"],
    "bench_luck.py": ["--quick"],
    "bench_protocol.py": ["--repeat", "1", "--min-seconds", "0.01"],
    "bench_report.py": ["--quick"],
    "bench_match_memory.py": ["--quick"],
    "bench_results_db.py": ["--quick"],
    "bench_time_basis.py": ["--quick"],
    "bench_tournament.py": ["--quick"],
    "bench_server.py": ["--quick"],
    "bench_ladder_server.py": ["--quick"],
    "bench_ladder_scale.py": ["--sizes", "4:40", "--claims", "5", "--refits", "1",
                              "--clients", "2", "--seconds", "2"],
    "bench_ladder_workers.py": ["--quick"],
}  # fmt: skip
#: Small runs still too long for `make test` (each starts live sites, clusters or
#: tournaments of real matches: 10 to 60 s of a core): `make test-long` runs them.
SLOW_SMALL_RUNS = {
    "bench_ladder_server.py",
    "bench_ladder_scale.py",
    "bench_ladder_workers.py",
    "bench_server.py",
    "bench_dask.py",
    "bench_match_memory.py",
    "bench_tournament.py",
}


@pytest.mark.parametrize(
    "script",
    [
        pytest.param(name, marks=[pytest.mark.slow] if name in SLOW_SMALL_RUNS else [])
        for name in sorted(SMALL_RUNS)
    ],
)
def test_benchmark_runs_with_small_sizes(script: str) -> None:
    completed = _run_bench([sys.executable, str(REPO_ROOT / "bench" / script), *SMALL_RUNS[script]])
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.strip(), f"{script} printed nothing"


def _run_bench(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run a bench in a session of its own; past ``timeout`` stop the whole session, as
    ``timeout`` would (SIGTERM, which the benches clean up on, then SIGKILL): a bench's
    live site and workers must not outlive a bench killed alone (they once did)."""
    bench = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = bench.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(bench.pid, signal.SIGTERM)  # the session this test started, by id
        with contextlib.suppress(subprocess.TimeoutExpired):
            bench.communicate(timeout=15)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(bench.pid, signal.SIGKILL)  # whatever of it is left
        bench.communicate()
        pytest.fail(f"{args[1]} did not end within {timeout:.0f} s")
    return subprocess.CompletedProcess(args, bench.returncode, out, err)


def test_every_benchmark_has_a_small_run() -> None:
    scripts = {path.name for path in (REPO_ROOT / "bench").glob("bench_*.py")}
    assert scripts == set(SMALL_RUNS)


def test_the_arena_benchmark_runs_without_prefetch() -> None:
    args = [*SMALL_RUNS["bench_arena.py"], "--no-prefetch"]
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "bench_arena.py"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "whole / raw" in completed.stdout


def test_the_revision_comparison_reads_figures_from_both_trees() -> None:
    # --selfcheck: HEAD exported to a temporary folder against the working tree, one tiny
    # bench_engine.py run each; it fails unless both trees gave figures (more in
    # tests/test_compare_revisions.py).
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "compare_revisions.py"), "--selfcheck"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-2000:]
    origins = dict(re.findall(r"^imports  (base|head): .* from (.+)$", completed.stdout, re.M))
    assert Path(origins["head"]) == REPO_ROOT
    base = Path(origins["base"])
    assert not base.is_relative_to(REPO_ROOT)
    assert not base.exists()  # removed at the end
    assert "selfcheck ok" in completed.stdout


@pytest.mark.slow  # starts a live site, as bench_server's small run does
def test_the_server_benchmark_without_workers_browses_and_ends_at_its_seconds() -> None:
    # No worker gives a verdict: the bench once waited for one forever. Now it uploads
    # nothing and ends after --seconds.
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / "bench_server.py"), "--quick",
         "--workers", "0", "--seconds", "2"],
        capture_output=True, text=True, timeout=120, cwd=REPO_ROOT, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "no worker: nothing uploaded" in completed.stdout
    assert "target p99 < 250 ms" in completed.stdout


@pytest.mark.slow  # starts a live site, as bench_server's small run does
def test_sigterm_stops_the_server_benchmark_and_its_live_site() -> None:
    # SIGTERM (as `timeout` sends) must clean up as Ctrl-C does: the site's server and its
    # workers, started by the bench, end with it (they once stayed running).
    bench = subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "bench" / "bench_server.py"), "--quick",
         "--workers", "0", "--seconds", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT,
    )  # fmt: skip
    try:
        assert bench.stdout is not None
        line = bench.stdout.readline()
        while line and "clients for" not in line:  # the site is up and browsed
            line = bench.stdout.readline()
        assert line, bench.stderr.read() if bench.stderr else ""
        started = psutil.Process(bench.pid).children(recursive=True)
        assert any("server" in " ".join(child.cmdline()) for child in started)
        bench.send_signal(signal.SIGTERM)
        bench.communicate(timeout=60)
        _gone, alive = psutil.wait_procs(started, timeout=10)
        assert alive == []
        assert bench.returncode != 0  # cut short, not a finished run
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()


def test_a_bench_past_its_time_is_stopped_with_what_it_started(tmp_path: Path) -> None:
    # A stand-in bench that starts a child (as a bench starts a live site) and hangs.
    marker = tmp_path / "child.pid"
    script = (
        "import pathlib, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"pathlib.Path({str(marker)!r}).write_text(str(child.pid))\n"
        "time.sleep(120)\n"
    )
    with pytest.raises(pytest.fail.Exception, match="did not end within 2 s"):
        _run_bench([sys.executable, "-c", script], timeout=2)
    child = int(marker.read_text())
    with contextlib.suppress(psutil.NoSuchProcess):
        assert psutil.Process(child).status() == psutil.STATUS_ZOMBIE  # ended, not reaped
