"""The suite's own machinery: a test marked ``no_cover`` runs without coverage's tracer,
on one core and on many (tests/conftest.py pauses it where pytest-cov's pause does not)."""

from __future__ import annotations

import sys

import pytest


@pytest.mark.no_cover
def test_a_no_cover_test_runs_without_coverage_s_tracer() -> None:
    # None without coverage; with it, the tracer (coverage's CTracer or PyTracer) must
    # have been taken off for this test, or the long property tests pay for it again.
    tracer = sys.gettrace()
    assert "coverage" not in type(tracer).__module__, f"still traced by {tracer!r}"
