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

The game's lease is renewed only while the game advances: the files its matches and builds
write under the work folder (hands, builds) grow. A worker stuck on a game lets its lease
expire, and another plays the game again. On a Dask cluster the matches' files come back
only at their end: there the lease is renewed for as long as the worker waits, and the
game's deadline (``game_deadline_s``) bounds that wait.

A worker that cannot play (the competition file unreadable or invalid, the sandbox missing,
the cluster out of reach) says why once and tries again after a back-off that doubles up to
a minute, as the validation worker puts back what it cannot run: it never exits in a loop.
Run by hand with ``--once`` or ``--games``, it exits 1 instead. With
``ARENA_SERVER_LADDER_GAMES_PER_HOUR`` set it starts at most that many games an hour
itself; the competition file's ``ladder.games_per_hour`` is the whole site's pace, shared
by every worker through the database (:func:`site_paced`): a worker waits, holding no
claim, until the site's last game started long enough ago.
Started by ``arena server run`` (``--ladder-workers N``), which restarts it when it dies;
it dies with its parent (Linux's parent-death signal).

With ``--verbosity 2`` it writes one line per game on stdout saying where the game's time
went (:class:`GameClock`): what a worker adds to its matches' own time is measured there
(``bench/bench_ladder_workers.py`` reads these lines)."""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from arena.bots.sandbox.select import SandboxUnavailableError
from arena.cluster.dask_executor import ClusterError, dask_executor
from arena.cluster.local import LocalMatchExecutor, local_executor
from arena.ladder.ends import EndCause
from arena.server.competition import Competition
from arena.server.current import current_competition
from arena.server.jobs.backoff import Backoff
from arena.server.jobs.lease import worker_name
from arena.server.jobs.models import RecordTally
from arena.server.jobs.progress import files_written
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
from arena.server.ladder.value_fits import value_of
from arena.server.site.models import BotVersion, SiteSettings
from arena.settings import SettingsError
from arena.settings.catalog import ExecutorKind
from arena.tournament.worker import play_match


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
        luck_value=value_of(game.value_fit),
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


def game_progress(executor: Any, root: Path, game_id: int) -> object:
    """How far game ``game_id`` has got, as the lease's heartbeat compares it: the files its
    matches (``<root>/games/<id>``) and the builds under way (``<root>/versions/.*``,
    :func:`~arena.server.ladder.play.prepare`) have written. On any executor but the local
    pool the matches' files come back only at their end: a value never seen before, so the
    lease is renewed while the worker waits (the game's deadline bounds that)."""
    if not isinstance(executor, LocalMatchExecutor):
        return object()
    builds = (root / "versions").glob(".*")
    return files_written(root / "games" / str(game_id), *builds)


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


@dataclass(slots=True)
class _Playing:
    """What the worker plays with: the competition as it read it, its rules, the executor."""

    competition: Competition | None
    rules: LadderRules
    executor: Any


@dataclass(slots=True)
class GameClock:
    """Where a worker's time went for one game, in seconds: ``claim`` (matchmaking and the
    claim), ``play`` (unpacking, building and the matches as the worker waited for them),
    ``matches`` (the matches' own time, each as the process that played it measured it,
    summed: matches played side by side may sum to more than ``play``, so the worker's
    added time is measured at a concurrency of one, as ``bench/bench_ladder_workers.py``
    does),
    ``store`` (the store and the refit after it) and ``cycle`` (from the end of the
    previous game's store, or the worker's start, to the end of this one's: everything,
    the looks that found nothing and the pace's waits among it)."""

    claim: float = 0.0
    play: float = 0.0
    matches: float = 0.0
    store: float = 0.0
    cycle: float = 0.0

    def line(self, game_id: int) -> str:
        """One line naming the game and each figure (the worker's added time last: the
        cycle less the matches' own time)."""
        figures = " ".join(
            f"{name}={getattr(self, name):.3f}"
            for name in ("claim", "play", "matches", "store", "cycle")
        )
        return f"ladder game {game_id} seconds: {figures} added={self.cycle - self.matches:.3f}"


#: Seconds between two tries of a worker that cannot play: the first, and the longest.
RETRY_FIRST, RETRY_MOST = 1.0, 60.0


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
        self._retry = Backoff(first=RETRY_FIRST, most=RETRY_MOST)
        self._retry_at = 0.0
        playing = self._start(root)
        if playing is None and (options["once"] or options["games"] is not None):
            raise SystemExit(1)  # run by hand: say it and stop
        timed = options["verbosity"] >= 2
        clock, cycle_start = GameClock(), time.monotonic()

        def claim() -> Game | None:
            started = time.monotonic()
            try:
                return claimed()
            finally:
                clock.claim = time.monotonic() - started

        def claimed() -> Game | None:
            nonlocal playing
            if playing is None:  # it could not play yet: try again when its back-off says
                playing = self._start(root)
                if playing is None:
                    return None
            renewed = self._renewed(playing.competition)
            if renewed is not None:  # the file was edited: its rules from the next game on
                competition, rules = renewed
                _drop(playing.executor)
                playing = _Playing(competition, rules, _executor(rules, root))
            if site_paced(playing.competition, timezone.now()):
                return None  # the site's pace: wait, holding no claim, as with no work
            size = playing.rules.table_size
            return claim_next(worker, config.current(), rng, table_size=size)

        def play(game: Game) -> PlayedGame:
            assert playing is not None  # a game is claimed only with rules to play it by
            deadline_s = config.current().game_deadline_s
            started = time.monotonic()
            played = play_game(
                game_spec(game), playing.executor, playing.rules, root, deadline_s=deadline_s
            )
            clock.play = time.monotonic() - started
            clock.matches = sum(outcome.duration_s for outcome, _folder in played.matches)
            return played

        def progress(game: Game) -> object:
            return game_progress(None if playing is None else playing.executor, root, game.pk)

        def store(game: Game, outcome: PlayedGame) -> None:
            nonlocal clock, cycle_start
            started = time.monotonic()
            try:
                stored(game, outcome)
            finally:
                ended = time.monotonic()
                clock.store, clock.cycle = ended - started, ended - cycle_start
                if timed:
                    self.stdout.write(clock.line(game.pk))
                clock, cycle_start = GameClock(), ended

        def stored(game: Game, outcome: PlayedGame) -> None:
            # No lock: the store's own transaction adds the game to the running sums by
            # one upsert, and the refit after it is claimed by one worker at a time.
            stored = store_played(game, worker, outcome, config.current())
            if not stored:
                self.stderr.write(
                    f"ladder game {game.pk}: the claim was lost; its result is dropped"
                )
            if outcome.cause is EndCause.DEADLINE and playing is not None:
                # A match past the deadline still holds a process: start afresh.
                _drop(playing.executor)
                playing.executor = _executor(playing.rules, root)

        def closing() -> None:
            if playing is not None:
                _drop(playing.executor)

        per_hour = float(settings.ARENA_LADDER_GAMES_PER_HOUR)
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
            progress=progress,
            site_failure=_site_failure,
            tally=RecordTally(worker, "ladder"),
        ).run(
            once=options["once"],
            jobs=options["games"],
            poll=options["poll"],
            spacing=3600.0 / per_hour if per_hour > 0 else 0.0,
            closing=closing,
        )

    def _start(self, root: Path) -> _Playing | None:
        """The competition, its rules and the executor to play on; None when the worker
        cannot play here yet (said once per problem; tried again after a back-off that
        doubles, see :data:`RETRY_FIRST`), or before that back-off has passed."""
        if time.monotonic() < self._retry_at:
            return None
        try:
            competition = current_competition()
            rules = _rules(competition)
            playing = _Playing(competition, rules, _executor(rules, root))
        except (SandboxUnavailableError, SettingsError, OSError, ClusterError) as error:
            where = "reach its cluster" if isinstance(error, ClusterError) else "play here"
            problem = f"the ladder cannot {where}: {error}"
            if problem != self._problem:
                self.stderr.write(f"{problem} (trying again, less often each time)")
            self._problem = problem
            self._retry_at = time.monotonic() + self._retry.failed()
            return None
        if self._problem:
            self.stderr.write("the ladder can play again")
        self._problem = ""
        self._retry.succeeded()
        return playing

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


def site_paced(competition: Competition | None, now: datetime) -> bool:
    """Whether the site's pace (the competition's ``ladder.games_per_hour``, shared by every
    worker on every machine) says no game may start at ``now``: the site's last game
    started less than ``3600 / games_per_hour`` seconds before. Read from the database, so
    all workers keep one pace; two workers that look at the same moment may both start one
    (a pace, not a lock: the site then plays at most one game more per worker)."""
    per_hour = 0 if competition is None else competition.games_per_hour
    if per_hour <= 0:
        return False
    last = Game.objects.order_by("-created").values_list("created", flat=True).first()
    return last is not None and now < last + timedelta(seconds=3600.0 / per_hour)


def _site_failure(played: PlayedGame) -> str | None:
    """What failed on the site's side in a game (the sandbox, a deadline, our error)."""
    if not played.cause.is_infrastructure:
        return None
    return f"{played.cause}: {played.detail}" if played.detail else str(played.cause)


def _arena_error(_game: Game, error: Exception) -> PlayedGame:
    return PlayedGame(EndCause.ARENA_ERROR, detail=f"{type(error).__name__}: {error}")
