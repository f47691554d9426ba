"""The black-box security check (:mod:`tests.arena.server.blackbox`): a live site tried over
HTTP only, each of issue 31's findings it can reach, with 0 failures."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests import REPO_ROOT


@pytest.mark.slow  # two live sites, validations and ladder games: a few minutes
def test_the_black_box_check_finds_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.arena.server.blackbox"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    report = done.stdout + done.stderr[-3000:]
    total = re.search(r"total: (\d+) probes, (\d+) held, (\d+) failed", done.stdout)
    assert total is not None, report
    probes, held, failed = map(int, total.groups())
    # Every line a probe, none FAILED; a check that ran no probe would prove nothing.
    assert (failed, done.returncode) == (0, 0), report
    assert probes == held == done.stdout.count("| held") and probes >= 20, report
