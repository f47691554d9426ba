"""Bot processes a test started, closed at its end whatever happens."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.bots.process import ProcessTransport


@pytest.fixture
def started() -> Iterator[list[ProcessTransport]]:
    """Transports the test started; closed at the end whatever happens."""
    transports: list[ProcessTransport] = []
    yield transports
    for transport in transports:
        transport.close(0.0)
