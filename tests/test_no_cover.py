"""The suite's own machinery: a test marked ``no_cover`` runs without coverage's tracer,
on one core and on many (tests/conftest.py pauses it where pytest-cov's pause does not),
and so do its fixtures (a property test's sample is dealt in one)."""

from __future__ import annotations

import sys
from typing import Any

import pytest


def _not_coverage(tracer: Any) -> bool:
    """None without coverage; with it, the tracer (coverage's CTracer or PyTracer) must
    have been taken off, or the long property tests pay for it again."""
    return "coverage" not in type(tracer).__module__


@pytest.mark.no_cover
def test_a_no_cover_test_runs_without_coverage_s_tracer() -> None:
    tracer = sys.gettrace()
    assert _not_coverage(tracer), f"still traced by {tracer!r}"


@pytest.fixture
def tracer_in_setup() -> Any:
    """The tracer while this fixture is made (in the test's setup)."""
    return sys.gettrace()


@pytest.mark.no_cover
def test_a_no_cover_test_s_fixtures_are_made_without_coverage_s_tracer(
    tracer_in_setup: Any, request: pytest.FixtureRequest
) -> None:
    if request.config.pluginmanager.has_plugin("_cov_contexts"):
        pytest.skip("under --cov-context=test the setup stays traced (pytest-cov names it)")
    assert _not_coverage(tracer_in_setup), f"its fixture was traced by {tracer_in_setup!r}"
