"""Hosting a tournament: the use case behind ``arena tournament`` and ``arena demo``,
callable from Python without a command line::

    hosted = run(config, display=PlainDisplay(sys.stdout))

:func:`run` chooses the sandbox, opens (or reopens) the run folder's results database,
refuses to resume with bots whose files changed since the stored results
(:mod:`arena.tournament.bot_versions`), builds every bot once, starts what plays the
matches (the local process pool or a Dask cluster), runs or resumes the tournament and
writes ``standings.json``. What the person gave that cannot be used (a sandbox that does
not work here, a bot that does not build, a run folder that holds another tournament or
other versions of the bots, an unreachable cluster) is a :class:`TournamentSetupError`,
raised before any match is played.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from arena.bots.build import build_bots
from arena.bots.contents import BotContents
from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.bots.sandbox.resources import ResourceLimitsError
from arena.bots.sandbox.select import (
    SandboxLevel,
    SandboxUnavailableError,
    choose,
    describe,
    launcher_for,
    needs_cgroup,
)
from arena.cluster.dask_executor import ClusterError, dask_executor
from arena.cluster.executor import MatchExecutor
from arena.cluster.local import local_executor
from arena.settings import UsageError
from arena.settings.catalog import ExecutorKind
from arena.store.jsonl import PRIVATE_FILE_MODE
from arena.store.run_folder import RunFolder
from arena.store.sqlite import ResultsDatabase, ResultsDatabaseError
from arena.tournament.bot_versions import changed_bots_message, read_contents
from arena.tournament.config import TournamentConfig, difference, fingerprint
from arena.tournament.runner import Display, TournamentRun, TournamentRunner
from arena.tournament.standings import Standings, build_standings
from arena.tournament.worker import play_match

__all__ = ["HostedTournament", "TournamentSetupError", "run"]


class TournamentSetupError(UsageError):
    """The tournament cannot start as given; the message says what to change."""

    code = "tournament_setup"


@dataclass(frozen=True, slots=True)
class HostedTournament:
    """What a tournament left: the run (matches played, resumed, failed), its standings
    and its run folder."""

    run: TournamentRun
    standings: Standings
    folder: RunFolder


def run(
    config: TournamentConfig,
    *,
    display: Display,
    notes: TextIO | None = None,
    is_verbose: bool = False,
) -> HostedTournament:
    """Build the bots, run (or resume) the tournament, write its standings.

    ``notes`` receives the lines that say which sandbox layer is active (and why no
    stronger one; why the kernel holds no limits here when ``is_verbose`` or a CPU share
    is asked for) and which cluster plays; None says nothing. Raises
    :class:`TournamentSetupError`; ``KeyboardInterrupt`` leaves the finished matches
    stored, for the same call to go on.
    """
    try:
        level, reasons = choose(config.sandbox)
    except SandboxUnavailableError as exc:
        raise TournamentSetupError(str(exc)) from None
    if notes is not None:
        lines = describe(
            level,
            reasons,
            is_verbose=is_verbose,
            needs_cgroup=needs_cgroup(config.resource_limits),
        )
        notes.writelines(line + "\n" for line in lines)
    folder = RunFolder(config.out_dir)
    if folder.path.exists() and not folder.path.is_dir():
        raise TournamentSetupError(
            f"--out {str(folder.path)!r} is a file, not a folder; give a folder for the run"
        )
    try:
        folder.path.mkdir(parents=True, exist_ok=True)
        db = ResultsDatabase(folder.database)
    except (OSError, ResultsDatabaseError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise TournamentSetupError(
            f"cannot use the run folder {str(folder.path)!r}: {reason}"
        ) from None
    with db:
        other = _other_tournament(db, config)
        if other is not None:
            raise TournamentSetupError(
                f"{str(folder.path)!r} holds another tournament ({other}); "
                "choose another --out or --name"
            )
        manifests = _manifests(config)
        contents = _unchanged_contents(db, config, manifests, folder.path)
        built = _build_bots(config, level, manifests, folder)
        if level is SandboxLevel.NONE:  # its build wrote into each bot's own folder
            contents = read_contents(manifests, skip=folder.path)
        with _executor(config, level, built, notes) as executor:
            runner = TournamentRunner(
                config,
                db,
                executor=executor,
                sandbox=level.value,
                out_dir=folder.path.resolve(),
                display=display,
                resource_limits=tuple(sorted(config.resource_limits.items())),
                working_dirs=built,
                bot_contents={name: value.to_json() for name, value in contents.items()},
            )
            played = runner.run()
        standings = build_standings(config, played)
    document = json.dumps(standings.to_dict(), indent=2, sort_keys=True) + "\n"
    is_secret = standings.seed is not None and not played.tournament.seed_was_given
    _write_standings(folder.standings, document, is_private=is_secret)
    return HostedTournament(played, standings, folder)


def _write_standings(path: Path, document: str, *, is_private: bool) -> None:
    """Write ``standings.json``; for the arena's user only when it holds the secret seed,
    as the results database and the match files that hold seeds are."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    if is_private:
        os.fchmod(descriptor, PRIVATE_FILE_MODE)  # before the seed is written, if it existed
    with open(descriptor, "w", encoding="utf-8") as file:
        file.write(document)


def _other_tournament(db: ResultsDatabase, config: TournamentConfig) -> str | None:
    """A tournament in the database with other settings: its name and the first setting
    that differs, or None."""
    key = fingerprint(config)
    for record in db.tournaments():
        if record.fingerprint != key:
            changed = difference(record.config, config)
            return f"{record.name!r}, other settings: {changed or 'the fingerprint'}"
    return None


def _manifests(config: TournamentConfig) -> dict[str, BotManifest]:
    """Each bot's manifest by name (read again: it may have changed since the config)."""
    try:
        return {bot.name: load_manifest(bot.manifest) for bot in config.bots}
    except ManifestError as exc:
        raise TournamentSetupError(f"bad manifest: {exc}") from None


def _unchanged_contents(
    db: ResultsDatabase, config: TournamentConfig, manifests: Mapping[str, BotManifest], run: Path
) -> dict[str, BotContents]:
    """The bots' contents now; a resume whose bots changed since the stored results is
    refused (see :mod:`arena.tournament.bot_versions`)."""
    contents = read_contents(manifests, skip=run)
    stored = db.find_tournament(fingerprint(config))
    if stored is not None:
        changed = changed_bots_message(db.bot_contents(stored.id), contents, run)
        if changed is not None:
            raise TournamentSetupError(changed)
    return contents


def _build_bots(
    config: TournamentConfig,
    level: SandboxLevel,
    manifests: Mapping[str, BotManifest],
    folder: RunFolder,
) -> dict[str, Path]:
    """Build every bot once, on this machine, under the sandbox; the built folders by bot.

    A sandbox builds in a private copy that goes with its launcher, so each built copy is
    kept in the run folder (``builds/<bot>``) and every match starts its bot from there.
    """
    try:
        launcher = launcher_for(level, overrides=dict(config.resource_limits), expose=config.expose)
    except (SandboxUnavailableError, ResourceLimitsError, ValueError) as exc:
        raise TournamentSetupError(str(exc)) from None
    built: dict[str, Path] = {}
    try:
        for bot in build_bots(manifests.items(), launcher=launcher):
            if not bot.result.is_ok:
                raise TournamentSetupError(
                    f"building {bot.name!r} ({bot.manifest.path}) failed: {bot.result.explain()}"
                )
            if bot.built_copy is not None:
                target = folder.build_dir(bot.name)
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(bot.built_copy, target, symlinks=True)
                built[bot.name] = target.resolve()
    finally:
        launcher.close()
    return built


@contextmanager
def _executor(
    config: TournamentConfig,
    level: SandboxLevel,
    built: Mapping[str, Path],
    notes: TextIO | None,
) -> Iterator[MatchExecutor]:
    """What plays the matches: the local process pool, or a Dask cluster, started (or
    reached) and checked here (every worker must see every bot, built as in ``built``);
    closed when the run ends. Without --concurrency a cluster plays as many matches at
    once as it has threads."""
    if config.executor is not ExecutorKind.DASK:
        with local_executor(config.worker_count(), play_match) as pool:
            yield pool
        return
    try:
        cluster = dask_executor(
            play_match,
            config.scheduler,
            config.worker_count(),
            concurrency=config.concurrency,
            manifests=[bot.manifest for bot in config.bots],
            sandbox=level.value,
            working_dirs=[built.get(bot.name) for bot in config.bots],
            run_folder=config.out_dir.resolve(),
        )
    except ClusterError as exc:
        raise TournamentSetupError(str(exc)) from None
    with cluster:
        if notes is not None:
            notes.write(cluster.describe() + "\n")
        yield cluster
