"""``ladder_worker``: a worker of the ladder. It claims a game (one to play again, else
matchmaking's next; see :mod:`arena.server.ladder.queue`), plays its two matches (a ring
competition's table: one per rotation) through the match executor seam while a thread
renews its lease, and stores the result once. Its matches run in a local process pool
that lives as long as the worker, or a Dask cluster, as the competition file's ``executor``,
``concurrency`` and ``scheduler`` say (the finals' executor is made from the same keys;
an edited file takes effect from the next game on). A Dask cluster's workers must see the
site's work folder at the same path (the versions' builds are there; the matches' files
come back with their outcomes when they cannot write it). SIGTERM or SIGINT stops it and
puts its game back; ``kill -9`` leaves a claim that expires, and the game is played again
by whoever claims it next.
Started by ``arena server run``, which restarts it when it dies; it dies with its parent
(Linux's parent-death signal)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from arena.bots.sandbox.select import SandboxUnavailableError
from arena.cluster.dask_executor import ClusterError, dask_executor
from arena.cluster.local import LocalMatchExecutor, local_executor
from arena.ladder.ends import EndCause
from arena.server.competition import Competition
from arena.server.current import current_competition
from arena.server.jobs.lease import worker_name
from arena.server.jobs.worker import Worker
from arena.server.ladder import config
from arena.server.ladder.models import Game, version_label
from arena.server.ladder.play import (
    GameSpec,
    LadderRules,
    PlayedGame,
    VersionFiles,
    ladder_rules,
    play_game,
)
from arena.server.ladder.queue import QUEUE, claim_next, store_played
from arena.server.site.models import BotVersion, SiteSettings
from arena.settings import SettingsError
from arena.settings.catalog import ExecutorKind
from arena.tournament.worker import play_match

__all__ = ["Command", "game_spec"]


def _files(version: BotVersion) -> VersionFiles:
    return VersionFiles(version_label(version), Path(version.archive.path), version.pk)


def game_spec(game: Game) -> GameSpec:
    """What :func:`~arena.server.ladder.play.play_game` needs of a claimed game."""
    return GameSpec(
        game_id=game.pk,
        first=_files(game.first),
        second=_files(game.second),
        seed=int(game.seed),
        deals=game.deals,
        is_rated=game.is_rated,
        others=tuple(_files(seat.version) for seat in game.seats_in_order()[2:]),
    )


def _executor(rules: LadderRules, root: Path) -> Any:
    """The match executor the competition names (a context manager), as the finals'
    (:func:`arena.tournament.host.run`) is made from the same keys."""
    config = rules.config
    if config.executor is ExecutorKind.DASK:
        root.mkdir(parents=True, exist_ok=True)
        return dask_executor(
            play_match,
            config.scheduler,
            config.worker_count(),
            concurrency=config.concurrency,
            sandbox=rules.sandbox.value,
            run_folder=root,
        )
    return local_executor(config.worker_count(), play_match)


def _rules(competition: Competition | None) -> LadderRules:
    """The ladder's rules under ``competition`` and the site's archive limits."""
    return ladder_rules(competition, SiteSettings.current().rules().archive_limits)


def _drop(executor: Any) -> None:
    """Close ``executor`` at once: a local pool's workers are killed (their bots with
    them), a cluster's matches cancelled."""
    if isinstance(executor, LocalMatchExecutor):
        executor.close(kill=True)
    else:
        executor.close()


class Command(BaseCommand):
    """The ladder's worker."""

    help = "claim ladder games, play them and store their results, until stopped"
    #: The last problem with the competition file written (each is written once).
    _problem = ""

    def add_arguments(self, parser: CommandParser) -> None:
        """``--once``: play until nothing is left to play; ``--games N``: stop after N
        games; ``--poll`` seconds between looks."""
        parser.add_argument("--once", action="store_true")
        parser.add_argument("--games", type=int, default=None)
        parser.add_argument("--poll", type=float, default=1.0)

    def handle(self, *args: Any, **options: Any) -> None:
        """Claim, play and store until stopped (:class:`arena.server.jobs.worker.Worker`)."""
        worker = worker_name()
        rng = random.Random(os.urandom(16))
        root = Path(settings.ARENA_WORK_DIR) / "ladder"
        try:
            competition = current_competition()
            rules = _rules(competition)
        except (SandboxUnavailableError, SettingsError, OSError) as error:
            self.stderr.write(f"the ladder cannot play here: {error}")
            raise SystemExit(1) from None
        try:
            executor = _executor(rules, root)
        except ClusterError as error:
            self.stderr.write(f"the ladder cannot reach its cluster: {error}")
            raise SystemExit(1) from None

        def claim() -> Game | None:
            nonlocal competition, rules, executor
            renewed = self._renewed(competition)
            if renewed is not None:  # the file was edited: its rules from the next game on
                competition, rules = renewed
                _drop(executor)
                executor = _executor(rules, root)
            return claim_next(worker, config.current(), rng, table_size=rules.table_size)

        def play(game: Game) -> PlayedGame:
            deadline_s = config.current().game_deadline_s
            return play_game(game_spec(game), executor, rules, root, deadline_s=deadline_s)

        def store(game: Game, outcome: PlayedGame) -> None:
            nonlocal executor
            if not store_played(game, worker, outcome, config.current()):
                self.stderr.write(
                    f"ladder game {game.pk}: the claim was lost; its result is dropped"
                )
            if outcome.cause is EndCause.DEADLINE:
                # A match past the deadline still holds a process: start afresh.
                _drop(executor)
                executor = _executor(rules, root)

        # The loop sets its signal handlers after the pool is made: the pool turns SIGTERM
        # into KeyboardInterrupt, the worker stops itself.
        Worker(
            worker=worker,
            claim=claim,
            leases=QUEUE,
            work=play,
            failed=_arena_error,  # our bug or the host's: never the bots' fault
            store=store,
            name=lambda game: f"ladder game {game.pk}",
            warn=self.stderr.write,
        ).run(
            once=options["once"],
            jobs=options["games"],
            poll=options["poll"],
            closing=lambda: _drop(executor),
        )

    def _renewed(
        self, competition: Competition | None
    ) -> tuple[Competition | None, LadderRules] | None:
        """The competition file as it is now and its rules, when it says something else than
        ``competition``; None when it says the same (a file just written is parsed again at
        each look: equal, it changes nothing), or cannot be used (said once, and the worker
        keeps the rules it has: an edit half made must not stop the ladder)."""
        try:
            now = current_competition()
            if now == competition:
                return None
            return now, _rules(now)
        except (SettingsError, OSError, SandboxUnavailableError) as error:
            problem = f"the competition file cannot be used; the ladder keeps its rules: {error}"
            if problem != self._problem:
                self.stderr.write(problem)
            self._problem = problem
            return None


def _arena_error(_game: Game, error: Exception) -> PlayedGame:
    return PlayedGame(EndCause.ARENA_ERROR, detail=f"{type(error).__name__}: {error}")
