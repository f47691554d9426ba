"""The results database's tables and the values kept in them (a tournament's record, its
bots, a planned match and where it stands); :mod:`arena.store.sqlite.rows` maps a match's
outcome to its rows and back.

``docs/results-database.md`` describes every table and column for people; this module is
the one source of the DDL. :data:`SCHEMA_VERSION` is stored in the database header
(``PRAGMA user_version``) and checked at open, so a database written by another version of
the schema is refused rather than misread. Change a table, raise the version, and either
refuse the older files or migrate them (:data:`MIGRATIONS`).

Version 2 added the luck estimator's results: each hand's luck-adjusted result per seat
(``hands.adjusted_json``) and the estimator's name per match (``matches.estimator``). A
version 1 file gains both columns, empty, when it is opened for writing (its matches were
played without the estimator), and is read as it is when opened read-only.

Seeds are stored as decimal TEXT: a tournament's secret seed has 256 bits and a match's
seed may use all 64 bits of an unsigned integer, while SQLite's INTEGER is a signed 64-bit
value.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "KEEP_BOT_CONTENTS",
    "MIGRATIONS",
    "PLAN_COLUMNS",
    "SCHEMA_VERSION",
    "TABLES",
    "TOURNAMENT_COLUMNS",
    "PlanEntry",
    "PlannedMatch",
    "TournamentRecord",
    "add_bot_contents",
    "bot_contents_query",
    "bots_of_config",
    "create_schema",
    "has_bot_contents",
    "has_luck_columns",
    "migrate",
    "plan_entry_from_row",
    "plan_text",
    "tournament_from_row",
]

#: The schema's version, kept in ``PRAGMA user_version``. A new database gets it; a
#: database with another one is refused.
SCHEMA_VERSION = 2

#: How a database of an older version becomes one of :data:`SCHEMA_VERSION`: its version,
#: and the statements that bring it to the next. Every step only adds a column that may
#: be NULL, so the rows already written keep their meaning.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        "ALTER TABLE hands ADD COLUMN adjusted_json TEXT",
        "ALTER TABLE matches ADD COLUMN estimator TEXT",
    ),
}

#: Every table, parents first.
TABLES = ("tournaments", "bots", "matches", "match_seats", "hands", "faults", "latency")

# Child rows name their match by ``match_row`` (``matches.id``): MATCH is an SQL keyword.
# ON DELETE CASCADE lets a failed match be recorded again: its old rows go with it.
_DDL = """
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    fingerprint TEXT NOT NULL UNIQUE,
    config_json TEXT NOT NULL,
    seed TEXT NOT NULL,
    seed_was_given INTEGER NOT NULL CHECK (seed_was_given IN (0, 1)),
    created_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished'))
);
CREATE TABLE bots (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    manifest_path TEXT NOT NULL,
    contents_json TEXT,
    PRIMARY KEY (tournament_id, name)
);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    match_id TEXT NOT NULL,
    block_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    position INTEGER NOT NULL,
    seats_json TEXT NOT NULL,
    seed TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'planned'
        CHECK (status IN ('planned', 'finished', 'failed')),
    ended_reason TEXT,
    hands_played INTEGER,
    duration_s REAL,
    hands_path TEXT,
    error TEXT,
    extra_json TEXT,
    finished_at TEXT,
    counted INTEGER NOT NULL DEFAULT 0 CHECK (counted IN (0, 1)),
    estimator TEXT,
    UNIQUE (tournament_id, match_id),
    UNIQUE (tournament_id, position)
);
CREATE TABLE match_seats (
    match_row INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat_index INTEGER NOT NULL,
    bot TEXT NOT NULL,
    chips_won INTEGER NOT NULL,
    place INTEGER NOT NULL,
    hands_played INTEGER NOT NULL,
    final_stack INTEGER,
    eliminated_in_hand INTEGER,
    stderr_path TEXT,
    stderr_bytes INTEGER NOT NULL,
    PRIMARY KEY (match_row, seat_index)
) WITHOUT ROWID;
CREATE INDEX match_seats_by_bot ON match_seats (bot);
CREATE TABLE hands (
    match_row INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    hand_number INTEGER NOT NULL,
    big_blind INTEGER NOT NULL,
    pot INTEGER NOT NULL,
    went_to_showdown INTEGER NOT NULL CHECK (went_to_showdown IN (0, 1)),
    nets_json TEXT NOT NULL,
    adjusted_json TEXT,
    PRIMARY KEY (match_row, hand_number)
) WITHOUT ROWID;
CREATE TABLE faults (
    match_row INTEGER NOT NULL,
    seat_index INTEGER NOT NULL,
    kind TEXT NOT NULL,
    count INTEGER,
    example_order INTEGER,
    first_hand_number INTEGER,
    first_message TEXT,
    UNIQUE (match_row, seat_index, kind),
    FOREIGN KEY (match_row, seat_index)
        REFERENCES match_seats (match_row, seat_index) ON DELETE CASCADE
);
CREATE TABLE latency (
    match_row INTEGER NOT NULL,
    seat_index INTEGER NOT NULL,
    count INTEGER NOT NULL,
    mean_ms REAL NOT NULL,
    p50_ms REAL NOT NULL,
    p99_ms REAL NOT NULL,
    max_ms REAL NOT NULL,
    histogram_json TEXT NOT NULL,
    PRIMARY KEY (match_row, seat_index),
    FOREIGN KEY (match_row, seat_index)
        REFERENCES match_seats (match_row, seat_index) ON DELETE CASCADE
) WITHOUT ROWID;
"""


def create_schema(connection: sqlite3.Connection) -> None:
    """Create every table and set the schema version, in one transaction.

    The connection must be in autocommit mode (``isolation_level=None``) with no
    transaction open: ``executescript`` would commit one first.
    """
    connection.executescript(
        f"BEGIN IMMEDIATE;\n{_DDL}\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;\n"
    )


def migrate(connection: sqlite3.Connection, version: int) -> None:
    """Bring a database of ``version`` (a key of :data:`MIGRATIONS`) to
    :data:`SCHEMA_VERSION` in one transaction: every step, or none if one fails. Same
    connection rules as :func:`create_schema`."""
    steps = [statement for step in range(version, SCHEMA_VERSION) for statement in MIGRATIONS[step]]
    body = "".join(f"{statement};\n" for statement in steps)
    try:
        connection.executescript(
            f"BEGIN IMMEDIATE;\n{body}PRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;\n"
        )
    except BaseException:
        # executescript stops at the failing statement with the transaction still open.
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def has_luck_columns(connection: sqlite3.Connection) -> bool:
    """Whether the database has the luck estimator's columns (version 2; a version 1 file
    opened read-only has not)."""
    return any(row[1] == "estimator" for row in connection.execute("PRAGMA table_info(matches)"))


def has_bot_contents(connection: sqlite3.Connection) -> bool:
    """Whether the ``bots`` table has its ``contents_json`` column (a database written
    before the arena kept the bots' contents has not)."""
    return any(row[1] == "contents_json" for row in connection.execute("PRAGMA table_info(bots)"))


def bot_contents_query(connection: sqlite3.Connection) -> str:
    """The bots' names and contents of one tournament (``?``); NULL contents without the
    column (a read-only database written before it existed)."""
    column = "contents_json" if has_bot_contents(connection) else "NULL"
    return f"SELECT name, {column} FROM bots WHERE tournament_id = ? ORDER BY name"


#: Keep a bot's contents (tournament_id, name, manifest_path, contents_json), in place of
#: any kept before (the host refuses a resume whose bots changed before it keeps them).
KEEP_BOT_CONTENTS = (
    "INSERT INTO bots (tournament_id, name, manifest_path, contents_json) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (tournament_id, name) DO UPDATE SET contents_json = excluded.contents_json"
)


def add_bot_contents(connection: sqlite3.Connection) -> None:
    """Give an older database the ``bots.contents_json`` column, empty (unknown). A column
    that may be NULL changes nothing for a reader that does not know it, so the schema
    version stays."""
    if not has_bot_contents(connection):
        connection.execute("ALTER TABLE bots ADD COLUMN contents_json TEXT")


# -- tournaments and plans ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """A tournament's row. ``seed`` is the tournament seed (secret unless
    ``seed_was_given``); a resumed tournament must play with this one."""

    id: int
    name: str
    fingerprint: str
    config: dict[str, Any]
    seed: int
    seed_was_given: bool
    status: str
    created_at: str
    finished_at: str | None

    @property
    def is_finished(self) -> bool:
        """True once the tournament was marked finished."""
        return self.status == "finished"


@dataclass(frozen=True, slots=True)
class PlannedMatch:
    """One match of a tournament's plan, before it is played.

    >>> PlannedMatch("rr-001-b01-a-vs-b", "rr-001-b01", "heads_up", 0, ("a", "b"), 7).bots
    ('a', 'b')
    """

    match_id: str
    block_id: str
    kind: str
    position: int
    bots: tuple[str, ...]
    seed: int


#: The tournaments columns in :class:`TournamentRecord`'s order.
TOURNAMENT_COLUMNS = (
    "id, name, fingerprint, config_json, seed, seed_was_given, status, created_at, finished_at"
)


def tournament_from_row(row: Sequence[Any]) -> TournamentRecord:
    """A tournament's record from its row (:data:`TOURNAMENT_COLUMNS`)."""
    id_, name, fingerprint, config_json, seed, given, status, created_at, finished_at = row
    return TournamentRecord(
        id=id_,
        name=name,
        fingerprint=fingerprint,
        config=json.loads(config_json),
        seed=int(seed),
        seed_was_given=bool(given),
        status=status,
        created_at=created_at,
        finished_at=finished_at,
    )


def plan_text(values: Sequence[Any]) -> str:
    """A planned match's (block_id, kind, position, seats_json, seed) in words."""
    block_id, kind, position, seats_json, seed = values
    return f"block {block_id}, {kind}, position {position}, seats {seats_json}, seed {seed}"


@dataclass(frozen=True, slots=True)
class PlanEntry:
    """A planned match and where it stands: ``planned``, ``finished`` or ``failed``, and
    whether its results count (a finished match past a decided sequential test does not).

    >>> PlanEntry(PlannedMatch("m", "b", "heads_up", 0, ("a", "b"), 7), "finished", True).match_id
    'm'
    """

    planned: PlannedMatch
    status: str
    is_counted: bool

    @property
    def match_id(self) -> str:
        """The planned match's id."""
        return self.planned.match_id


#: The matches columns of a :class:`PlanEntry`, in its order.
PLAN_COLUMNS = "match_id, block_id, kind, position, seats_json, seed, status, counted"


def plan_entry_from_row(row: Sequence[Any]) -> PlanEntry:
    """A plan entry from its row (:data:`PLAN_COLUMNS`)."""
    match_id, block_id, kind, position, seats_json, seed, status, counted = row
    planned = PlannedMatch(
        match_id, block_id, kind, position, tuple(json.loads(seats_json)), int(seed)
    )
    return PlanEntry(planned, status, bool(counted))


def bots_of_config(config: Mapping[str, Any]) -> dict[str, str]:
    """The bots a tournament's config lists, by name: their manifest paths.

    >>> bots_of_config({"bots": [{"name": "a", "manifest": "a/bot.toml"}, "odd"]})
    {'a': 'a/bot.toml'}
    """
    listed = config.get("bots")
    return {
        str(bot["name"]): str(bot.get("manifest", ""))
        for bot in (listed if isinstance(listed, list) else ())
        if isinstance(bot, Mapping) and "name" in bot
    }
