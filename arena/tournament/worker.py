"""One match of a tournament, played where a worker runs it.

:func:`play_match` is the unit of work an executor runs: it takes a
:class:`~arena.cluster.job.MatchJob` (plain values, so it can cross to another process or
machine), plays the match with live bots under the sandbox the job names, writes the
match's files into its folder and returns a :class:`~arena.store.outcome.MatchOutcome`. It
never touches the results database: only the host writes there, once per match.

The outcome's hands are the match's own summaries (:attr:`MatchResult.hands`): each hand's
big blind and nets and, when the job's config runs the luck estimator, each seat's
luck-adjusted result, computed here after every hand so that it runs in parallel with the
other matches; the outcome names the estimator.

A match that cannot be played (a bot that never starts, an arena failure) comes back as an
outcome with ``error`` set instead of raising, so one bad match never takes the tournament's
other results with it. The match's folder is emptied first: a match cut short by a killed
host starts again from its beginning.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
import traceback
from collections.abc import Sequence

from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.bots.sandbox.resources import ResourceLimitsError
from arena.bots.sandbox.select import SandboxLevel, SandboxUnavailableError, launcher_for
from arena.cluster.job import MatchJob, failed_outcome
from arena.match.readiness import BotsNotReadyError
from arena.match.results import MatchResult
from arena.match.run import live_match, open_sessions
from arena.session.watchdog import BotSession
from arena.store.jsonl import JsonLinesStore
from arena.store.outcome import FaultExample, LatencySummary, MatchOutcome, SeatOutcome
from arena.store.run_folder import RunFolder

__all__ = ["play_match"]


def play_match(job: MatchJob) -> MatchOutcome:
    """Play ``job``'s match and return its outcome (see the module docstring)."""
    started = time.monotonic()
    if job.match_dir.exists():
        shutil.rmtree(job.match_dir)  # a run cut short before: start it again
    try:
        manifests = _manifests(job)
        launcher = launcher_for(
            SandboxLevel(job.sandbox), overrides=dict(job.resource_limits), expose=job.expose
        )
    except (ManifestError, ResourceLimitsError, SandboxUnavailableError, ValueError) as exc:
        return _failed(job, f"cannot prepare the match: {exc}", started)
    try:
        sessions = open_sessions(manifests, job.config, launcher=launcher)
        store = JsonLinesStore(job.match_dir)
        result = live_match(job.config, sessions, store=store, out_dir=job.match_dir).run()
    except BotsNotReadyError as exc:
        return _failed(job, str(exc), started)
    except Exception as exc:  # an arena failure: keep it with the match, go on with others
        _write_error(job, traceback.format_exc())
        return _failed(job, f"{type(exc).__name__}: {exc}", started)
    finally:
        launcher.close()
    return _outcome(job, result, sessions, started)


def _manifests(job: MatchJob) -> list[BotManifest]:
    """The seats' manifests, renamed to the tournament's names (a bot may play a copy of
    itself under another name)."""
    manifests = []
    for seat, (name, path) in enumerate(zip(job.bots, job.manifests, strict=True)):
        manifest = dataclasses.replace(load_manifest(path), name=name)
        built = job.working_dirs[seat] if seat < len(job.working_dirs) else None
        if built is not None:
            manifest = dataclasses.replace(manifest, working_dir=built)
        manifests.append(manifest)
    return manifests


def _outcome(
    job: MatchJob,
    result: MatchResult,
    sessions: Sequence[tuple[str, BotSession]],
    started: float,
) -> MatchOutcome:
    seats = []
    for player, (_name, session) in zip(
        sorted(result.players, key=lambda p: p.seat_index), sessions, strict=True
    ):
        ledger = session.ledger
        examples: dict[str, FaultExample] = {}
        for fault in ledger.faults:
            kind = str(fault.kind)
            if kind not in examples:
                message = fault.detail or fault.code
                examples[kind] = FaultExample(kind, fault.hand_number, message)
        stderr_log = player.stderr_log
        seats.append(
            SeatOutcome(
                seat_index=player.seat_index,
                bot=job.bots[player.seat_index],
                chips_won=player.chips_won,
                place=player.place if player.place is not None else 0,
                hands_played=player.hands_played,
                final_stack=player.final_stack,
                eliminated_in_hand=player.eliminated_in_hand,
                fault_counts={str(kind): n for kind, n in ledger.counts().items() if n},
                fault_examples=tuple(examples.values()),
                latency=LatencySummary(
                    **dataclasses.asdict(ledger.latency_stats()),
                    histogram=ledger.latency_buckets(),
                ),
                stderr_path=(
                    None
                    if stderr_log is None
                    else f"{RunFolder.MATCHES}/{job.match_id}/{stderr_log}"
                ),
                stderr_bytes=player.stderr_bytes or 0,
            )
        )
    return MatchOutcome(
        match_id=job.match_id,
        seats=tuple(seats),
        hands=result.hands,
        ended_reason=result.ended_reason,
        hands_path=f"{RunFolder.MATCHES}/{job.match_id}/{RunFolder.HISTORY}",
        duration_s=time.monotonic() - started,
        estimator=result.estimator,
    )


def _failed(job: MatchJob, error: str, started: float) -> MatchOutcome:
    return failed_outcome(job, error, duration_s=time.monotonic() - started)


def _write_error(job: MatchJob, text: str) -> None:
    job.match_dir.mkdir(parents=True, exist_ok=True)
    RunFolder(job.match_dir).error.write_text(text, encoding="utf-8")
