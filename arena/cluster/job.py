"""A match to play somewhere: the job an executor runs, and the outcome of one that failed.

A :class:`MatchJob` holds plain values only, so it can cross to another process or machine;
the function that plays it (the tournament's
:func:`~arena.tournament.worker.play_match`) is given to the executor by its host.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.match.config import MatchConfig
from arena.store.outcome import MatchOutcome, SeatOutcome
from arena.store.run_folder import RunFolder

__all__ = ["MATCHES_DIR", "MatchJob", "failed_outcome"]

#: The folder of a tournament that holds one folder per match.
MATCHES_DIR = RunFolder.MATCHES


@dataclass(frozen=True, slots=True)
class MatchJob:
    """Everything a worker needs to play one match (picklable).

    ``bots`` are the tournament's names for the seats in seat order and ``manifests`` their
    manifest files; ``sandbox`` is a :class:`SandboxLevel` value with ``resource_limits``
    the overrides of the sandbox's resource limits (the time limits are the config's);
    files go to ``tournament_dir / matches / match_id``.
    ``working_dirs`` (by seat, when given) replace the manifests' folders: the host built
    each bot once into a folder of the run, and every match starts from that build.
    ``expose``: the host's paths the strict sandbox shows every bot read-only.
    """

    match_id: str
    config: MatchConfig
    bots: tuple[str, ...]
    manifests: tuple[Path, ...]
    sandbox: str
    tournament_dir: Path
    resource_limits: tuple[tuple[str, int], ...] = ()
    working_dirs: tuple[Path | None, ...] = ()
    expose: tuple[Path, ...] = ()

    @property
    def match_dir(self) -> Path:
        """Where the match's files go."""
        return self.tournament_dir / MATCHES_DIR / self.match_id


def failed_outcome(
    job: MatchJob, error: str, *, duration_s: float, ended_reason: str = "error"
) -> MatchOutcome:
    """The outcome of ``job``'s match when it could not be played to its end: stored as
    failed, not counted, played again by the next run."""
    return MatchOutcome(
        match_id=job.match_id,
        seats=tuple(
            SeatOutcome(seat_index=index, bot=name, chips_won=0, place=0, hands_played=0)
            for index, name in enumerate(job.bots)
        ),
        hands=(),
        ended_reason=ended_reason,
        hands_path=None,
        duration_s=duration_s,
        error=error,
    )
