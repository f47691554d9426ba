"""The browser tests' fixture: headless Chromium (:func:`chromium.launched`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Chromium (the system's), closed at the end; the test is skipped where
    Playwright or a Chromium is not installed."""
    pytest.importorskip(
        "playwright.sync_api", reason="Playwright is not installed (pip install playwright)"
    )
    from tests.arena.server.browser.chromium import CHROMIUM, launched

    if CHROMIUM is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set ARENA_CHROMIUM)")
    with launched() as chromium:
        yield chromium
