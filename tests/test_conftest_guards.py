"""The guards in conftest.py really fail a test that misbehaves."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).parent / "conftest.py").read_text(encoding="utf-8")


def test_a_test_that_leaves_a_child_process_fails(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        """
        import subprocess, sys

        def test_leaks():
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*test left processes running*"])


@pytest.mark.allow_error_logs  # the inner run's records reach this process's root logger too
def test_a_test_that_logs_an_unexpected_error_fails(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        """
        import logging
        import pytest

        def test_logs():
            logging.getLogger("x").error("boom")

        @pytest.mark.allow_error_logs
        def test_allowed():
            logging.getLogger("x").error("expected")
        """
    )
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "-p", "no:asyncio", "-o", "markers=allow_error_logs: ok"
    )
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*unexpected ERROR log records*boom*"])
