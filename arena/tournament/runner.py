"""The host's side of a tournament: plan, hand matches to an executor, store each result once.

Theory of operation: the tournament's seed (given, or drawn once and kept in the results
database, secret until the end) decides the plan, the list of every match with its seats
and its deals. The database knows which of them already finished: a run that was killed is
resumed by running the same command again, and only the matches without a stored result are
played (a match cut short starts again from its first hand). Matches go to the
:class:`~arena.cluster.executor.MatchExecutor` a few at a time, in plan order (it plays
them on this machine or on a cluster, and plays again those its lost workers held); each
outcome is written to the database in one transaction as it arrives, exactly once, and its
future is dropped. A heads-up pair that the sequential test has decided gets no further
matches. The executor belongs to the caller, who closes it.

A match that fails (a bot that never starts, an arena error) is stored as failed; no new
match is started after it, the ones running finish and are stored, and the run ends with
the failure named. The next run tries the failed matches again.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from arena.cluster.executor import MatchExecutor
from arena.cluster.job import MatchJob
from arena.match.config import new_secret_seed
from arena.store.outcome import MatchOutcome
from arena.store.sqlite import ResultsDatabase, TournamentRecord
from arena.tournament.config import TournamentConfig, fingerprint
from arena.tournament.plan import MatchSpec, plan
from arena.tournament.sequential import SequentialTests

__all__ = ["Display", "TournamentRun", "TournamentRunner"]


class Display(Protocol):
    """What the user sees while the tournament runs."""

    def start(self, name: str, total: int, done: int) -> None:
        """The run starts: ``done`` of ``total`` matches are already finished."""
        ...

    def match_done(self, spec: MatchSpec, outcome: MatchOutcome, *, total: int) -> None:
        """One more match finished (``total`` may shrink as pairs are decided)."""
        ...

    def close(self) -> None:
        """The run ended (whatever happened)."""
        ...


@dataclass
class TournamentRun:
    """What a run did: the tournament's record, its plan, every stored outcome (plan
    order), the sequential tests, and the failures of this run."""

    tournament: TournamentRecord
    specs: list[MatchSpec]
    outcomes: list[MatchOutcome]
    tests: SequentialTests
    resumed_matches: int = 0
    failures: list[MatchOutcome] = field(default_factory=list)
    #: Block indexes of the matches this run stored, by heads-up pair (for the display).
    played_blocks: dict[tuple[str, ...], list[int]] = field(default_factory=dict)
    extra_played: int = 0  # matches played that a pair's decision made unneeded

    @property
    def is_complete(self) -> bool:
        """True when every needed match finished without error."""
        return not self.failures


class TournamentRunner:
    """Runs one tournament configuration against one results database."""

    def __init__(
        self,
        config: TournamentConfig,
        db: ResultsDatabase,
        *,
        executor: MatchExecutor,
        sandbox: str,
        out_dir: Path,
        display: Display,
        resource_limits: Sequence[tuple[str, int]] = (),
        working_dirs: Mapping[str, Path] | None = None,
        bot_contents: Mapping[str, str] | None = None,
    ) -> None:
        self.config = config
        self.db = db
        self.executor = executor
        self.sandbox = sandbox
        self.out_dir = out_dir
        self.display = display
        self.resource_limits = tuple(resource_limits)
        self._manifests = {bot.name: bot.manifest for bot in config.bots}
        # Each bot's built folder (the host builds once; matches start from the build).
        self._working_dirs = dict(working_dirs or {})
        # Each bot's contents (arena.bots.contents, JSON), kept with the tournament's bots.
        self._bot_contents = dict(bot_contents or {})

    def run(self) -> TournamentRun:
        """Play every match still needed; returns the run (see the module docstring)."""
        record = self._start()
        specs = plan(self.config, record.seed)
        self.db.plan_matches(record.id, [spec.planned for spec in specs])
        by_id = {spec.match_id: spec for spec in specs}
        tests = SequentialTests(self.config.sprt_test(), specs, score=self.config.score_used)
        finished = {outcome.match_id: outcome for outcome in self.db.outcomes(record.id)}
        for outcome in finished.values():
            if outcome.match_id in by_id and outcome.is_counted:
                tests.add(by_id[outcome.match_id], outcome)
        stored = {match_id for match_id, o in finished.items() if o.is_counted}
        run = TournamentRun(record, specs, [], tests, resumed_matches=len(stored))
        pending = deque(spec for spec in specs if spec.match_id not in stored)
        needed = sum(1 for spec in specs if tests.is_needed(spec))
        self.display.start(self.config.name, needed, len(stored))
        try:
            self._play(record, pending, tests, run)
        finally:
            self.display.close()
        self._mark_counted(record, specs, tests)
        run.outcomes = [o for o in self.db.outcomes(record.id) if o.match_id in by_id]
        if run.is_complete and not any(
            tests.is_needed(spec) and spec.match_id not in {o.match_id for o in run.outcomes}
            for spec in specs
        ):
            self.db.finish_tournament(record.id)
        return run

    def _start(self) -> TournamentRecord:
        """The tournament's record: found by its fingerprint (a resume) or new."""
        print_key = fingerprint(self.config)
        record = self.db.find_tournament(print_key)
        if record is None:
            seed_was_given = self.config.seed is not None
            seed = self.config.seed if self.config.seed is not None else new_secret_seed()
            record = self.db.start_tournament(
                self.config.name, print_key, self.config.to_dict(), seed, seed_was_given
            )
        if self._bot_contents:
            self.db.keep_bot_contents(record.id, self._bot_contents)
        return record

    def _job(self, spec: MatchSpec, seed: int) -> MatchJob:
        return MatchJob(
            match_id=spec.match_id,
            config=spec.match_config(self.config),
            bots=spec.bots,
            manifests=tuple(self._manifests[name] for name in spec.bots),
            sandbox=self.sandbox,
            tournament_dir=self.out_dir,
            resource_limits=self.resource_limits,
            working_dirs=tuple(self._working_dirs.get(name) for name in spec.bots),
            expose=self.config.expose,
        )

    def _play(
        self,
        record: TournamentRecord,
        pending: deque[MatchSpec],
        tests: SequentialTests,
        run: TournamentRun,
    ) -> None:
        in_flight: dict[Future[MatchOutcome], MatchSpec] = {}
        while pending or in_flight:
            # One match more than the executor plays at once: the next one waits in its
            # queue, so a worker never idles while the host stores a result.
            while pending and len(in_flight) <= self.executor.concurrency and not run.failures:
                spec = pending.popleft()
                if tests.is_needed(spec):
                    in_flight[self.executor.submit(self._job(spec, record.seed))] = spec
            if not in_flight:
                break
            done, _running = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                spec = in_flight.pop(future)  # a held future keeps its result alive
                # A match's trouble is a failed outcome: an exception here is a bug of
                # ours (or workers that kept dying), which stops the run loudly.
                self._store(record, spec, future.result(), tests, run)

    def _store(
        self,
        record: TournamentRecord,
        spec: MatchSpec,
        outcome: MatchOutcome,
        tests: SequentialTests,
        run: TournamentRun,
    ) -> None:
        """Store one outcome (its one transaction), update the test, tell the display."""
        self.db.record_match(record.id, outcome, counted=outcome.is_counted)
        if not outcome.is_counted:
            run.failures.append(outcome)
        elif tests.add(spec, outcome) and spec.group is not None:
            # The pair is decided: its later blocks' matches already played stay counted
            # in the display's total (they were played, though they do not count).
            run.extra_played += sum(
                1
                for block_index in run.played_blocks.get(spec.group, [])
                if not tests.is_needed_block(spec.group, block_index)
            )
        if not tests.is_needed(spec):
            run.extra_played += 1  # a match of a block after its pair's decision
        elif spec.group is not None:
            run.played_blocks.setdefault(spec.group, []).append(spec.block_index)
        total = len(run.specs) - tests.unneeded_matches + run.extra_played
        self.display.match_done(spec, outcome, total=total)

    def _mark_counted(
        self, record: TournamentRecord, specs: Sequence[MatchSpec], tests: SequentialTests
    ) -> None:
        """Blocks after a pair's deciding block are kept but not counted."""
        skipped = [spec.match_id for spec in specs if not tests.is_needed(spec)]
        if skipped:
            self.db.set_counted(record.id, skipped, counted=False)
