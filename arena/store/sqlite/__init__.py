"""The tournament results database: one SQLite file the host process writes.

A tournament's matches run in worker processes; the host receives each finished match as
a :class:`~arena.store.outcome.MatchOutcome` and records it here. Workers never open
the database. A report may open it read-only (``read_only=True``) while the tournament
runs: in WAL mode readers and the one writer do not block each other, and each read
method sees one consistent state (use :meth:`ResultsDatabase.snapshot` to see one state
across several calls).

Crash safety: the database runs in WAL mode with ``synchronous=NORMAL``. A transaction's
pages are written to the WAL file before its COMMIT returns, but not synced to disk, so a
committed match survives a kill of the host (``kill -9``: the operating system still holds
the written pages and the next open recovers them) but not necessarily a power cut or an
operating system crash, which may lose the last few matches (never corrupt the file).
Each match is recorded in ONE transaction: its row, seats, hands, faults and latency appear
together or not at all, so a resumed tournament replays exactly the matches that are not
recorded as finished.

The file is created readable by its owner only (mode 0600; SQLite gives the ``-wal`` and
``-shm`` files the same mode): it holds the tournament's secret seed. The tables are
described in ``docs/results-database.md`` and defined in :mod:`arena.store.sqlite.schema`;
a match's outcome becomes rows in :mod:`arena.store.sqlite.rows`, and the file is opened,
and every call's statements run in a transaction, in :mod:`arena.store.sqlite.connection`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.store.closing import ClosedOnExit
from arena.store.outcome import MatchOutcome
from arena.store.sqlite.connection import (
    DATABASE_FILE_MODE,
    DatabaseFile,
    ResultsDatabaseError,
    json_text,
)
from arena.store.sqlite.rows import (
    OutcomeRows,
    bots_problem,
    outcome_from_rows,
    outcome_problem,
    read_children,
)
from arena.store.sqlite.schema import (
    KEEP_BOT_CONTENTS,
    MIGRATIONS,
    PLAN_COLUMNS,
    SCHEMA_VERSION,
    TOURNAMENT_COLUMNS,
    PlanEntry,
    PlannedMatch,
    TournamentRecord,
    add_bot_contents,
    bot_contents_query,
    bots_of_config,
    create_schema,
    has_luck_columns,
    migrate,
    plan_entry_from_row,
    plan_text,
    tournament_from_row,
)

__all__ = [
    "DATABASE_FILE_MODE",
    "PlanEntry",
    "PlannedMatch",
    "ResultsDatabase",
    "ResultsDatabaseError",
    "TournamentRecord",
]

#: How long a statement waits for a lock another connection holds before failing.
_BUSY_TIMEOUT_MS = 10_000


class ResultsDatabase(ClosedOnExit):
    """The results database at ``path``, created when missing (unless ``read_only``).

    Opening a file that is not an SQLite database, or a results database of a schema version
    this arena neither reads nor migrates, raises :class:`ResultsDatabaseError` naming the
    file (and the versions). An older version it knows is migrated when the file is opened
    for writing, read as it is when opened read-only (:mod:`arena.store.sqlite.schema`).
    ``now`` gives the timestamps (UTC); tests pass a fixed clock.
    """

    def __init__(
        self,
        path: Path,
        *,
        read_only: bool = False,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._now = now
        self._file = DatabaseFile(self.path, read_only)
        self._connection = self._file.connection
        try:
            self._prepare()
        except BaseException:
            self._file.close()
            raise

    def _prepare(self) -> None:
        """Check the version, create the tables of a new file, set the pragmas."""
        connection = self._connection
        try:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        except sqlite3.DatabaseError as error:
            raise ResultsDatabaseError(
                f"{self.path} is not an SQLite database ({error})", code="not_a_database"
            ) from None
        is_new = version == 0 and tables == 0
        is_older = version in MIGRATIONS  # migrated when opened for writing, else read as is
        if version != SCHEMA_VERSION and not is_older and not (is_new and not self.read_only):
            what = "a results database of" if version else "not a results database:"
            raise ResultsDatabaseError(
                f"{self.path} is {what} schema version {version}; this arena reads versions"
                f" {', '.join(map(str, sorted(MIGRATIONS)))} and {SCHEMA_VERSION}"
                " (use another file for this tournament)",
                code="schema_version",
            )
        with self._file.errors("set up"):
            connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA foreign_keys = ON")
            if self.read_only:
                return
            # WAL: readers do not block the writer; NORMAL: no sync per commit, which
            # still keeps every commit through a kill of the process (module docstring).
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            if is_new:
                create_schema(connection)
            elif is_older:
                migrate(connection, version)
            add_bot_contents(connection)

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (what was committed stays). Closing twice is harmless.

        The last connection to close checkpoints the WAL into the file and deletes the
        ``-wal`` and ``-shm`` files, so a finished run leaves the database alone."""
        self._file.close()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside the block sees one committed state (a read transaction),
        whatever the writer commits meanwhile. For reading only."""
        with self._file.reading("read a snapshot"):
            yield

    # -- tournaments ---------------------------------------------------------------------

    def start_tournament(
        self,
        name: str,
        fingerprint: str,
        config: Mapping[str, Any],
        seed: int,
        seed_was_given: bool,
        *,
        bots: Mapping[str, str | Path] | None = None,
    ) -> TournamentRecord:
        """The tournament with ``fingerprint``: the stored one when it exists (a resume:
        its stored seed, name and config win over the arguments), else a new one.

        ``config`` must be JSON-ready (it is stored as JSON, so tuples come back as lists);
        ``bots`` maps each bot's name to its manifest path, and is read from the config's
        ``bots`` list (``{"name", "manifest"}`` tables, as a tournament's config has them)
        when not given.
        """
        if bots is None:
            bots = bots_of_config(config)
        config_json = json_text(config, f"config of tournament {name!r}")
        with self._file.transaction(f"start tournament {name!r}"):
            if self._tournament_row("fingerprint", fingerprint) is None:
                self._connection.execute(
                    "INSERT INTO tournaments (name, fingerprint, config_json, seed,"
                    " seed_was_given, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (name, fingerprint, config_json, str(seed), int(seed_was_given), self._stamp()),
                )
            row = self._tournament_row("fingerprint", fingerprint)
            assert row is not None  # inserted just above when missing
            self._connection.executemany(
                "INSERT OR IGNORE INTO bots (tournament_id, name, manifest_path) VALUES (?, ?, ?)",
                [(row[0], bot, str(path)) for bot, path in bots.items()],
            )
        return tournament_from_row(row)

    def find_tournament(self, fingerprint: str) -> TournamentRecord | None:
        """The tournament with ``fingerprint``, or None."""
        with self._file.reading("find a tournament"):
            row = self._tournament_row("fingerprint", fingerprint)
        return None if row is None else tournament_from_row(row)

    def tournament(self, tournament_id: int) -> TournamentRecord:
        """The tournament with row id ``tournament_id`` (an error when there is none)."""
        with self._file.reading("read a tournament"):
            row = self._tournament_row("id", tournament_id)
        if row is None:
            raise self._unknown_tournament(tournament_id)
        return tournament_from_row(row)

    def tournaments(self) -> list[TournamentRecord]:
        """Every tournament, oldest first."""
        with self._file.reading("list tournaments"):
            rows = self._connection.execute(
                f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments ORDER BY id"
            ).fetchall()
        return [tournament_from_row(row) for row in rows]

    def bot_contents(self, tournament_id: int) -> dict[str, str | None]:
        """Each bot's kept contents (JSON of :class:`arena.bots.contents.BotContents`) by
        name; None: unknown (kept by an arena that did not read them)."""
        with self._file.reading("read the bots' contents"):
            self._require_tournament(tournament_id)
            query = bot_contents_query(self._connection)
            return dict(self._connection.execute(query, (tournament_id,)).fetchall())

    def keep_bot_contents(self, tournament_id: int, contents: Mapping[str, str]) -> None:
        """Keep each bot's contents (JSON), in place of those kept before."""
        manifests = bots_of_config(self.tournament(tournament_id).config)
        rows = [
            (tournament_id, bot, manifests.get(bot, ""), text) for bot, text in contents.items()
        ]
        with self._file.transaction("keep the bots' contents"):
            self._connection.executemany(KEEP_BOT_CONTENTS, rows)

    def plan(self, tournament_id: int) -> list[PlanEntry]:
        """Every planned match of the tournament in plan order, with its status and whether
        it counts."""
        with self._file.reading(f"read the plan of tournament {tournament_id}"):
            self._require_tournament(tournament_id)
            rows = self._connection.execute(
                f"SELECT {PLAN_COLUMNS} FROM matches WHERE tournament_id = ? ORDER BY position",
                (tournament_id,),
            ).fetchall()
        return [plan_entry_from_row(row) for row in rows]

    def finish_tournament(self, tournament_id: int) -> None:
        """Mark the tournament finished (again: keeps the first finishing time)."""
        with self._file.transaction(f"finish tournament {tournament_id}"):
            changed = self._connection.execute(
                "UPDATE tournaments SET status = 'finished',"
                " finished_at = coalesce(finished_at, ?) WHERE id = ?",
                (self._stamp(), tournament_id),
            ).rowcount
            if changed == 0:
                raise self._unknown_tournament(tournament_id)

    # -- matches -------------------------------------------------------------------------

    def plan_matches(self, tournament_id: int, rows: Sequence[PlannedMatch]) -> int:
        """Store the plan; returns how many matches were new. Idempotent: a match already
        planned is left as it is, but it must be planned the same (block, kind, position,
        bots, seed), else nothing is stored and the error names the first difference (a
        resumed tournament that drew a new seed, say)."""
        new_rows = [
            (
                tournament_id,
                row.match_id,
                row.block_id,
                row.kind,
                row.position,
                json.dumps(list(row.bots)),
                str(row.seed),
            )
            for row in rows
        ]
        with self._file.transaction(f"plan the matches of tournament {tournament_id}"):
            self._require_tournament(tournament_id)
            stored = {
                found[0]: found[1:]
                for found in self._connection.execute(
                    "SELECT match_id, block_id, kind, position, seats_json, seed FROM matches"
                    " WHERE tournament_id = ?",
                    (tournament_id,),
                )
            }
            for row in new_rows:
                before = stored.get(row[1])
                if before is not None and tuple(before) != row[2:]:
                    raise ResultsDatabaseError(
                        f"{self.path}: match {row[1]!r} of tournament {tournament_id} is"
                        f" planned as {plan_text(before)}, not {plan_text(row[2:])}",
                        code="plan_changed",
                    )
            fresh = [row for row in new_rows if row[1] not in stored]
            self._connection.executemany(
                "INSERT INTO matches (tournament_id, match_id, block_id, kind, position,"
                " seats_json, seed) VALUES (?, ?, ?, ?, ?, ?, ?)",
                fresh,
            )
        return len(fresh)

    def record_match(
        self, tournament_id: int, outcome: MatchOutcome, *, counted: bool = True
    ) -> None:
        """Record a played match in one transaction: its row, seats, hands, faults and
        latency, all or nothing.

        The match must be planned. Its status becomes ``finished`` when ``outcome.error``
        is None, else ``failed`` (a failed match is never counted). Recording a finished
        match again is refused (``already_recorded``); a failed one may be recorded again
        (a resume retries it) and its old rows are replaced in the same transaction.
        """
        problem = outcome_problem(outcome)
        if problem is not None:  # its rows would not come back as the outcome: our own bug
            raise ResultsDatabaseError(
                f"{self.path}: cannot record match {outcome.match_id!r}: {problem}",
                code="bad_value",
            )
        extra_json = json_text(outcome.extra, f"extra of match {outcome.match_id!r}")
        rows = OutcomeRows.of(outcome)  # the Python work before the write lock is taken
        is_finished = outcome.error is None
        what = f"record match {outcome.match_id!r} of tournament {tournament_id}"
        with self._file.transaction(what):
            found = self._connection.execute(
                "SELECT id, status, seats_json FROM matches"
                " WHERE tournament_id = ? AND match_id = ?",
                (tournament_id, outcome.match_id),
            ).fetchone()
            if found is None:
                raise ResultsDatabaseError(
                    f"{self.path}: match {outcome.match_id!r} is not planned in tournament"
                    f" {tournament_id}",
                    code="unknown_match",
                )
            match_row, status, seats_json = found
            if status == "finished":
                raise ResultsDatabaseError(
                    f"{self.path}: match {outcome.match_id!r} of tournament {tournament_id}"
                    " is already recorded as finished",
                    code="already_recorded",
                )
            problem = bots_problem(outcome, json.loads(seats_json))
            if problem is not None:
                raise ResultsDatabaseError(f"{self.path}: {problem}", code="bad_value")
            if status == "failed":  # faults and latency go with their seats (cascade)
                self._connection.execute("DELETE FROM hands WHERE match_row = ?", (match_row,))
                self._connection.execute(
                    "DELETE FROM match_seats WHERE match_row = ?", (match_row,)
                )
            self._connection.execute(
                "UPDATE matches SET status = ?, ended_reason = ?, hands_played = ?,"
                " duration_s = ?, hands_path = ?, error = ?, extra_json = ?, finished_at = ?,"
                " counted = ?, estimator = ? WHERE id = ?",
                (
                    "finished" if is_finished else "failed",
                    outcome.ended_reason,
                    len(outcome.hands),
                    outcome.duration_s,
                    outcome.hands_path,
                    outcome.error,
                    extra_json,
                    self._stamp(),
                    int(counted and is_finished),
                    outcome.estimator,
                    match_row,
                ),
            )
            rows.insert(self._connection, match_row)

    def set_counted(self, tournament_id: int, match_ids: Iterable[str], counted: bool) -> int:
        """Count, or stop counting, finished matches (a sequential test that stops a pair
        keeps the later blocks' matches but does not count them). Returns how many
        matches were finished and so changed; planned and failed matches are never
        counted. An id that is not in the tournament is an error and nothing changes."""
        wanted = list(match_ids)
        with self._file.transaction(f"set counted of tournament {tournament_id}"):
            self._require_tournament(tournament_id)
            known = {
                row[0]
                for row in self._connection.execute(
                    "SELECT match_id FROM matches WHERE tournament_id = ?", (tournament_id,)
                )
            }
            unknown = sorted(set(wanted) - known)
            if unknown:
                raise ResultsDatabaseError(
                    f"{self.path}: no match {', '.join(map(repr, unknown[:5]))} in tournament"
                    f" {tournament_id}",
                    code="unknown_match",
                )
            before = self._connection.total_changes
            self._connection.executemany(
                "UPDATE matches SET counted = ?"
                " WHERE tournament_id = ? AND match_id = ? AND status = 'finished'",
                [(int(counted), tournament_id, match_id) for match_id in wanted],
            )
            return self._connection.total_changes - before

    def outcomes(self, tournament_id: int, *, counted_only: bool = False) -> list[MatchOutcome]:
        """Every recorded match (finished or failed; only counted ones with
        ``counted_only``) in plan order, rebuilt exactly as recorded (``extra`` through
        JSON)."""
        where = "m.tournament_id = ? AND m.status != 'planned'"
        if counted_only:
            where += " AND m.counted = 1"
        with self._file.reading(f"read the outcomes of tournament {tournament_id}"):
            self._require_tournament(tournament_id)
            # A version 1 file opened read-only has no estimator: its matches had none.
            estimator = "m.estimator" if has_luck_columns(self._connection) else "NULL"
            matches = self._connection.execute(
                "SELECT m.id, m.match_id, m.ended_reason, m.hands_path, m.duration_s, m.error,"
                f" m.extra_json, {estimator} FROM matches m WHERE {where} ORDER BY m.position",
                (tournament_id,),
            ).fetchall()
            children = read_children(self._connection, where, (tournament_id,))
        return [outcome_from_rows(match, children) for match in matches]

    # -- inside --------------------------------------------------------------------------

    def _stamp(self) -> str:
        return self._now().isoformat(timespec="milliseconds")

    def _tournament_row(self, column: str, value: object) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self._connection.execute(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE {column} = ?", (value,)
        ).fetchone()
        return row

    def _require_tournament(self, tournament_id: int) -> None:
        if self._tournament_row("id", tournament_id) is None:
            raise self._unknown_tournament(tournament_id)

    def _unknown_tournament(self, tournament_id: int) -> ResultsDatabaseError:
        return ResultsDatabaseError(
            f"{self.path}: no tournament {tournament_id!r}", code="unknown_tournament"
        )
