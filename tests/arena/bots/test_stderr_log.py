"""The capped stderr log: head and tail kept, what falls between counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.stderr_log import CappedLog


def test_capped_log_keeps_everything_under_the_cap_and_saves(tmp_path: Path) -> None:
    log = CappedLog(cap_bytes=100)
    log.write(b"hello ")
    log.write("wörld".encode())
    assert (log.text(), log.dropped_bytes, log.total_bytes) == ("hello wörld", 0, 12)
    path = log.save(tmp_path / "logs" / "bot.stderr")
    assert path.read_bytes() == "hello wörld".encode()
    assert log.tail_text(3) == "rld"


def test_capped_log_counts_what_falls_between_head_and_tail() -> None:
    log = CappedLog(cap_bytes=10)
    for _ in range(100):
        log.write(b"0123456789")
    assert log.total_bytes == 1000 and log.dropped_bytes == 990
    assert log.data() == b"01234\n[... 990 bytes dropped ...]\n56789"
    with pytest.raises(ValueError, match="at least 2"):
        CappedLog(cap_bytes=1)
