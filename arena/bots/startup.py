"""How long a bot takes from ``exec`` to its ``ready``: :func:`measure_startup`.

The one place in this package that speaks a protocol message: each start sends a
``hello`` (:func:`protocol.messages.hello`, heads-up hold'em) and waits for a line that
is a ``ready``, so the time covers the bot's whole start (interpreter, imports, its own
set-up), not just the ``exec``.

>>> timing = StartupTiming("x", (0.010, 0.030, 0.020))
>>> timing.median_s, timing.max_s
(0.02, 0.03)
>>> timing.to_dict()
{'bot': 'x', 'starts': 3, 'median_ms': 20.0, 'min_ms': 10.0, 'max_ms': 30.0}
"""

from __future__ import annotations

import contextlib
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.launcher import Launcher
from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.process import ProcessTransport
from engine.config import GameConfig
from protocol import messages
from protocol.codec import decode, encode

__all__ = ["StartupTiming", "measure_startup"]


@dataclass(frozen=True, slots=True)
class StartupTiming:
    """How long a bot took from launch to its ``ready``, over several starts (seconds)."""

    bot_name: str
    samples_s: tuple[float, ...]

    @property
    def median_s(self) -> float:
        """The median start-up time."""
        return statistics.median(self.samples_s)

    @property
    def max_s(self) -> float:
        """The slowest start-up."""
        return max(self.samples_s)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form in milliseconds."""
        return {
            "bot": self.bot_name,
            "starts": len(self.samples_s),
            "median_ms": round(self.median_s * 1000, 3),
            "min_ms": round(min(self.samples_s) * 1000, 3),
            "max_ms": round(self.max_s * 1000, 3),
        }


def measure_startup(
    manifest: BotManifest | str | Path,
    *,
    repeats: int = 5,
    launcher: Launcher | None = None,
    timeout_s: float = 10.0,
) -> StartupTiming:
    """Start the bot ``repeats`` times and time exec-to-``ready`` each time.

    Each start sends a ``hello`` and waits for a line that is a ``ready``; the process is
    closed (and killed if needed) before the next start. Raises ``RuntimeError`` when a
    start gives no ``ready`` within ``timeout_s``.
    """
    if not isinstance(manifest, BotManifest):
        manifest = load_manifest(manifest)
    hello = messages.hello(
        seq=1,
        player_id="p0",
        seat_index=0,
        config=GameConfig(),  # heads-up no-limit hold'em, blinds 1/2
        seat_count=2,
        starting_stack=200,
        hand_count=1,
        time_limits=messages.TimeLimits(
            startup_ms=int(timeout_s * 1000), decision_ms=5000, time_bank_ms=0
        ),
    )
    samples: list[float] = []
    for _ in range(repeats):
        started = time.monotonic()
        transport = ProcessTransport.start(manifest, launcher=launcher)
        try:
            transport.send(encode(hello))
            deadline = started + timeout_s
            while True:
                line = transport.read_line(deadline)
                if line is None:
                    raise RuntimeError(f"bot {manifest.name!r} sent no ready in {timeout_s} s")
                # A banner or any other line before the ready is not the ready.
                with contextlib.suppress(Exception):
                    if decode(line).get("type") == "ready":
                        break
            samples.append(time.monotonic() - started)
        finally:
            transport.close(grace_s=1.0)
    return StartupTiming(manifest.name, tuple(samples))
