"""Hosting one match: build the bots, seat them, play, write the run folder. The use case
behind ``arena match``, callable from Python without a command line::

    result = host_match(config, manifests, Path("runs/m1"), launcher=launcher)

A bot whose build failed cannot start: the match is refused before anything is played
(:class:`BuildFailedError`), so that a program left by an earlier build is never played in
its place. With ``config.allow_absent_bots`` such a bot sits out instead, as a bot that
cannot be started does, and its old program is not started either.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.bots.build import BuiltBot, build_bots
from arena.bots.launcher import Launcher
from arena.bots.manifest import BotManifest
from arena.match.config import MatchConfig
from arena.match.progress import Progress
from arena.match.results import MatchResult
from arena.match.run import open_sessions, run_match

__all__ = ["BuildFailedError", "build_or_refuse", "host_match"]


class BuildFailedError(RuntimeError):
    """Some bot's build failed, so it cannot start; ``failed`` lists them (seat order)."""

    code = "build_failed"

    def __init__(self, failed: Sequence[tuple[int, BuiltBot]]) -> None:
        self.failed = tuple(failed)
        # Each reason with the end of the build's output (the compiler's error), which
        # says what to fix; the next bot's reason starts on a line of its own.
        reasons = ";\n".join(
            f"{bot.manifest.name!r} (seat {seat}): {bot.result.reason} ({bot.manifest.path})"
            + bot.result.quoted_output()
            for seat, bot in failed
        )
        noun = "bot" if len(failed) == 1 else "bots"
        super().__init__(f"{len(failed)} {noun} cannot start, the build failed: {reasons}")


def build_or_refuse(
    manifests: Sequence[BotManifest], *, launcher: Launcher, allow_failed: bool = False
) -> dict[int, str]:
    """Build every bot; raise :class:`BuildFailedError` when a build failed, unless
    ``allow_failed``: then return why, by seat, for the bots that must sit out."""
    built = build_bots(((m.name, m) for m in manifests), launcher=launcher)
    failed = [(seat, bot) for seat, bot in enumerate(built) if not bot.result.is_ok]
    if failed and not allow_failed:
        raise BuildFailedError(failed)
    return {seat: f"its build failed: {bot.result.reason}" for seat, bot in failed}


def host_match(
    config: MatchConfig,
    manifests: Sequence[BotManifest],
    out_dir: Path,
    *,
    launcher: Launcher,
    progress: Progress | None = None,
) -> MatchResult:
    """Build the bots, play the match and write ``out_dir``; returns the result.

    Raises :class:`BuildFailedError` (a build failed and absent bots are not allowed) and
    :class:`arena.match.readiness.BotsNotReadyError` (a bot could not be started).
    """
    refused = build_or_refuse(manifests, launcher=launcher, allow_failed=config.allow_absent_bots)
    sessions = open_sessions(manifests, config, launcher=launcher, refused=refused)
    return run_match(config, sessions, out_dir, progress=progress)
