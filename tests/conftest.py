"""Shared fixtures: no test may leave a child process running or log at ERROR unexpectedly."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import psutil
import pytest


def _children() -> set[int]:
    return {child.pid for child in psutil.Process(os.getpid()).children(recursive=True)}


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    """Fail the test if it leaves a child process behind (and kill what it left)."""
    before = _children()
    yield
    leftover = []
    for pid in _children() - before:
        try:
            proc = psutil.Process(pid)
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue
            leftover.append(f"{pid} {' '.join(proc.cmdline())}")
            proc.kill()
        except psutil.NoSuchProcess:
            continue
    assert not leftover, f"test left processes running: {leftover}"


class _ErrorCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def no_unexpected_error_logs(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that logs at ERROR unless it is marked ``allow_error_logs``."""
    collector = _ErrorCollector()
    root = logging.getLogger()
    root.addHandler(collector)
    try:
        yield
    finally:
        root.removeHandler(collector)
    if request.node.get_closest_marker("allow_error_logs") is None:
        messages = [record.getMessage() for record in collector.records]
        assert not messages, f"unexpected ERROR log records: {messages}"
