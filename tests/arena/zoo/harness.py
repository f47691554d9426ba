"""Shared by the zoo's tests: a short real match of a hostile bot against a calling station,
under the default sandbox layer, with the checks every zoo case makes.

:func:`play` runs the match and asserts what holds for every case: the match completes,
chips are conserved, no process with the match's marker is left (inside or outside the
arena's process tree), and the arena's memory stays bounded. The marker is a fresh token
put in every bot's environment (``ZOO_MARKER``): a process a bot starts inherits it, and
one that empties its environment is found by the marker the test puts in its arguments.

Memory bound: :data:`RSS_BOUND_BYTES` (100 MiB) over the arena's resident memory before
the match. A match of a few hands needs a few MiB; the arena keeps at most one line of
64 KiB per bot, a 256 KiB stderr tail and a capped fault ledger, so a bound far above that
and far below what the zoo sends (a 100 MB line, a stderr flood, a 2 GiB hog in the bot's
own process) fails only when the arena holds on to what a bot wrote.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import psutil

from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.sandbox.resources import DEFAULT_RESOURCES, ResourceLimits
from arena.bots.sandbox.select import SandboxLevel, choose, launcher_for
from arena.match.config import MatchConfig, new_secret_seed
from arena.match.results import MatchResult
from arena.match.run import open_sessions, run_match
from arena.session.policy import TimeLimits
from arena.session.watchdog import BotSession
from tests import TEST_BOTS

__all__ = [
    "RESOURCES",
    "RSS_BOUND_BYTES",
    "Played",
    "bot",
    "cheat_verdicts",
    "play",
    "processes_with",
    "wait_for_no_process_with",
]

#: Small limits, so that a hostile bot is stopped in well under a second or two.
RESOURCES: ResourceLimits = replace(
    DEFAULT_RESOURCES,
    memory_bytes=256 * 1024**2,
    processes=32,
    file_size_bytes=64 * 1024**2,
    cpu_seconds=2,
)

#: How much the arena's resident memory may grow over one zoo match (see the module).
RSS_BOUND_BYTES = 100 * 1024**2

#: How long the processes of a finished match may take to disappear.
GONE_DEADLINE_S = 10.0


def bot(folder: str, *args: str, env: dict[str, str] | None = None) -> BotManifest:
    """tests/bots/<folder>, with ``args`` as its script's arguments if given and ``env``
    added to its manifest's ``[env]``."""
    manifest = load_manifest(TEST_BOTS / folder / "bot.toml")
    if args:
        manifest = replace(manifest, command=(*manifest.command[:2], *args))
    if env:
        manifest = replace(manifest, env={**manifest.env, **env})
    return manifest


def station(marker: str) -> BotManifest:
    """The calling-station victim with ``marker`` in its arguments."""
    return bot("zoo_station", marker)


@dataclass(frozen=True, slots=True)
class Played:
    """A finished zoo match: its results, its sessions (seat order) and its layer."""

    result: MatchResult
    sessions: list[BotSession]
    level: SandboxLevel
    marker: str

    def faults(self, seat: int) -> list[dict[str, object]]:
        """The stored faults of ``seat``."""
        faults: list[dict[str, object]] = self.result.player(f"p{seat}").faults["faults"]
        return faults

    def codes(self, seat: int) -> set[str]:
        """The fault codes of ``seat``."""
        return {str(fault.get("code", "")) for fault in self.faults(seat)}

    def counts(self, seat: int) -> dict[str, int]:
        """How many faults of each kind ``seat`` has (zeros included)."""
        counts: dict[str, int] = self.result.player(f"p{seat}").faults["counts"]
        return counts

    def stderr(self, seat: int) -> str:
        """Every stderr tail the processes of ``seat`` left."""
        return "\n".join(info.stderr_tail for info in self.sessions[seat].exit_infos)


def play(
    manifests: Iterable[BotManifest],
    tmp_path: Path,
    *,
    hands: int = 3,
    level: SandboxLevel | None = None,
    resources: ResourceLimits = RESOURCES,
    marker: str | None = None,
    **config: object,
) -> Played:
    """Play ``hands`` hands between ``manifests`` (seat order) under ``level`` (default: the
    layer the arena picks when none is asked for), and check what every zoo case must hold.
    """
    marker = marker or f"zoo-{uuid.uuid4().hex}"
    chosen, _reasons = choose(level)
    launcher = launcher_for(chosen, resources)
    seated = [replace(m, env={**m.env, "ZOO_MARKER": marker}) for m in manifests]
    options: dict[str, object] = {
        "hand_count": hands,
        "seed": new_secret_seed(),
        "time_limits": TimeLimits(decision_s=0.3, startup_s=10.0),
        **config,
    }
    match_config = MatchConfig(**options)  # type: ignore[arg-type]
    arena = psutil.Process()
    rss_before = arena.memory_info().rss
    sessions = open_sessions(seated, match_config, launcher=launcher)
    try:
        result = run_match(match_config, sessions, tmp_path / "run")
    finally:
        for _name, session in sessions:
            session.close()
        launcher.close()
    rss_after = arena.memory_info().rss
    # The match completes: every hand is played, results exist, chips are conserved.
    assert result.hands_played == hands
    assert (tmp_path / "run" / "results.json").is_file()
    assert sum(player.chips_won for player in result.players) == 0
    # Nothing is left, in the arena's tree or outside it.
    left = wait_for_no_process_with(marker)
    assert not left, f"processes left after the match: {left}"
    grown = rss_after - rss_before
    assert grown < RSS_BOUND_BYTES, f"the arena grew by {grown // 1024**2} MiB"
    return Played(result, [session for _name, session in sessions], chosen, marker)


def processes_with(marker: str) -> list[str]:
    """Running processes (zombies aside) with ``marker`` in their arguments or environment."""
    found = []
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read()
            if stat[stat.rfind(b")") + 2 :].startswith(b"Z"):
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                command = file.read()
            with open(f"/proc/{entry}/environ", "rb") as file:
                environ = file.read()
        except OSError:
            continue
        if needle in command or needle in environ:
            words = command.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{entry} {words}")
    return found


def wait_for_no_process_with(marker: str, deadline_s: float = GONE_DEADLINE_S) -> list[str]:
    """Wait until no process carries ``marker``; what is still there at the deadline."""
    end = time.monotonic() + deadline_s
    while True:
        left = processes_with(marker)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.05)


def cheat_verdicts(stderr: str, name: str) -> list[str]:
    """The ``CHEAT <name>: ...`` verdicts in ``stderr``, each from ``success``/``failed`` on."""
    prefix = f"CHEAT {name}: "
    return [line[len(prefix) :] for line in stderr.splitlines() if line.startswith(prefix)]
