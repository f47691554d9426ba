"""The transport interface's pieces (:mod:`arena.bots.transport`)."""

from __future__ import annotations

from arena.bots.transport import describe_exit


def test_exits_are_described_plainly() -> None:
    assert describe_exit(None, None) == "exit status unknown"
    assert describe_exit(None, 200) == "killed by signal 200 (unknown)"
