"""A match with live bots: sessions for manifests, the deciders, the store and the
prefetch wired to :class:`~arena.match.loop.MatchRunner`.

This is where the concrete pieces meet; the loop itself knows only their interfaces.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from arena.bots.launcher import Launcher
from arena.bots.manifest import BotManifest
from arena.bots.process import process_factory
from arena.bots.transport import BotStartError, Transport
from arena.match.config import MatchConfig, require_seat_count
from arena.match.formats import format_for
from arena.match.log import GameLog
from arena.match.loop import MatchRunner
from arena.match.players import Decider, LiveBots
from arena.match.prefetch import NoPrefetch, Prefetch, WorkAhead
from arena.match.progress import Progress
from arena.match.results import MatchResult
from arena.match.store import NullStore, ResultStore
from arena.session.policy import TimeLimits
from arena.session.stderr_file import SeatStderrLog
from arena.session.watchdog import BotSession
from arena.store.jsonl import JsonLinesStore
from arena.store.run_folder import RunFolder
from protocol.request_encoder import EventTextCache

__all__ = ["live_match", "open_sessions", "run_match", "seat_factories", "seat_session"]


def seat_session(
    factory: Callable[[], Transport],
    config: MatchConfig,
    *,
    seat_index: int,
    name: str,
    clock: Callable[[], float] = time.monotonic,
    event_texts: EventTextCache | None = None,
    limits: TimeLimits | None = None,
) -> BotSession:
    """The session of seat ``seat_index`` under ``config``'s rules (its time limits unless
    ``limits`` are given: a person's seat has its own), its transports made by ``factory``."""
    return BotSession(
        factory,
        player_id=f"p{seat_index}",
        seat_index=seat_index,
        clock=clock,
        limits=config.time_limits if limits is None else limits,
        max_invalid_attempts=config.max_invalid_attempts,
        check_when_free=config.check_on_timeout,
        restart_budget=config.restart_budget,
        hung_after_timeouts=config.hung_after_timeouts,
        name=name,
        event_texts=event_texts,
    )


def seat_factories(
    manifests: Iterable[BotManifest],
    *,
    launcher: Launcher | None = None,
    refused: Mapping[int, str] | None = None,
) -> list[Callable[[], Transport]]:
    """Each seat's way to start its bot; a seat in ``refused`` never starts one (its
    start fails with the reason, so the bot sits out as one that cannot start)."""

    def refuse(reason: str) -> Callable[[], Transport]:
        def start() -> Transport:
            raise BotStartError(reason)

        return start

    refused = refused or {}
    return [
        refuse(refused[seat]) if seat in refused else process_factory(manifest, launcher=launcher)
        for seat, manifest in enumerate(manifests)
    ]


def open_sessions(
    manifests: Sequence[BotManifest],
    config: MatchConfig,
    *,
    launcher: Launcher | None = None,
    clock: Callable[[], float] = time.monotonic,
    refused: Mapping[int, str] | None = None,
) -> list[tuple[str, BotSession]]:
    """One :class:`BotSession` per manifest (seat order), not started yet; they share one
    cache of event texts. A seat in ``refused`` cannot start (:func:`seat_factories`)."""
    event_texts = EventTextCache()
    factories = seat_factories(manifests, launcher=launcher, refused=refused)
    return [
        (
            manifest.name,
            seat_session(
                factory,
                config,
                seat_index=index,
                name=manifest.name,
                clock=clock,
                event_texts=event_texts,
            ),
        )
        for index, (manifest, factory) in enumerate(zip(manifests, factories, strict=True))
    ]


def live_match(
    config: MatchConfig,
    sessions: Sequence[tuple[str, BotSession | None]],
    *,
    store: ResultStore | None = None,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.monotonic,
    out_dir: Path | None = None,
) -> MatchRunner:
    """A :class:`MatchRunner` for ``sessions`` (``(name, session)`` in seat order), with
    the prefetch on or off as ``config.prefetch`` says.

    With ``out_dir`` (the match's folder) each seat's stderr goes to
    ``out_dir/stderr/<seat index>-<name>.log`` as its processes end, and the results name
    the file (:mod:`arena.session.stderr_file`); the store is chosen separately.
    """
    require_seat_count(len(sessions))
    stderr_logs: list[SeatStderrLog | None] = []
    folder = None if out_dir is None else RunFolder(out_dir)
    for index, (name, session) in enumerate(sessions):
        log = None
        if folder is not None and session is not None:
            path = folder.stderr_log(index, name or session.name)
            log = SeatStderrLog(path, relative_path=folder.relative(path))
            session.keep_stderr(log)
        stderr_logs.append(log)
    player_ids = [f"p{index}" for index in range(len(sessions))]
    stack_format = format_for(config, player_ids, clock=clock)
    bots = LiveBots(
        [session for _name, session in sessions],
        player_ids,
        GameLog(config.match_id),
        hold_notifications=config.prefetch,
    )
    work_ahead: WorkAhead = (
        Prefetch(bots, stack_format, match_id=config.match_id) if config.prefetch else NoPrefetch()
    )
    return MatchRunner(
        config,
        [name for name, _session in sessions],
        bots,
        store=store,
        work_ahead=work_ahead,
        stack_format=stack_format,
        progress=progress,
        clock=clock,
        stderr_logs=stderr_logs,
    )


def run_match(
    config: MatchConfig,
    sessions: Sequence[tuple[str, BotSession]],
    out_dir: Path | None = None,
    *,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.monotonic,
    wrap_decider: Callable[[Decider], Decider] | None = None,
) -> MatchResult:
    """Play a match between ``sessions`` (``(name, session)`` in seat order).

    Writes ``hands.jsonl``, ``results.json`` and each seat's ``stderr/<seat>-<name>.log``
    into ``out_dir`` when given. The sessions are finished (``match_end``, processes
    stopped) when this returns or raises. ``wrap_decider`` puts a decider around the live
    bots (``arena play`` tells the person the rest of each hand this way).
    """
    store: ResultStore = NullStore() if out_dir is None else JsonLinesStore(out_dir)
    runner = live_match(
        config, sessions, store=store, progress=progress, clock=clock, out_dir=out_dir
    )
    if wrap_decider is not None:
        runner.decider = wrap_decider(runner.decider)
    return runner.run()
