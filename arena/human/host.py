"""Hosting a game with a person: build the bots, seat the person among them, play, write
the run folder. The use case behind ``arena play``, callable from Python without a
command line::

    result = host_game(config, manifests, Path("runs/p1"), launcher=launcher,
                       front_end=TerminalFrontEnd(), seat_index=0)

A bot whose build failed cannot start: the game is refused before it begins
(:class:`arena.match.host.BuildFailedError`), as for a match.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.bots.launcher import Launcher
from arena.bots.manifest import BotManifest
from arena.human.seat import DEFAULT_HUMAN_NAME, FrontEnd, HumanSeat
from arena.human.table import PersonDecider, player_names, table_sessions
from arena.match.config import MatchConfig
from arena.match.host import build_or_refuse
from arena.match.results import MatchResult
from arena.match.run import run_match, seat_factories

__all__ = ["host_game"]


def host_game(
    config: MatchConfig,
    manifests: Sequence[BotManifest],
    out_dir: Path,
    *,
    launcher: Launcher,
    front_end: FrontEnd,
    seat_index: int = 0,
    name: str = DEFAULT_HUMAN_NAME,
    timeout_s: float | None = None,
) -> MatchResult:
    """Play the game: the bots of ``manifests`` in order, the person at ``seat_index``
    with ``timeout_s`` per decision (None: no limit). Raises what :func:`host_match`
    raises, and :class:`arena.human.seat.LeftTableError` when the person leaves."""
    build_or_refuse(manifests, launcher=launcher)
    seat = HumanSeat(
        front_end,
        name=name,
        names=player_names([manifest.name for manifest in manifests], seat_index=seat_index),
    )
    factories = seat_factories(manifests, launcher=launcher)
    bots = [
        (manifest.name, factory) for manifest, factory in zip(manifests, factories, strict=True)
    ]
    sessions = table_sessions(bots, config, seat, seat_index=seat_index, timeout_s=timeout_s)
    # The person also sees the rest of each hand after their last decision in it.
    return run_match(
        config,
        sessions,
        out_dir,
        wrap_decider=lambda inner: PersonDecider(inner, seat, seat_index=seat_index),
    )
