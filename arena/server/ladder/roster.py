"""What a claim reads of the active versions when every one is placed: a few numbers and
the handful of versions the floor may owe a game, in plain SQL (no model per row), so a
claim's reading does not grow with the ladder (:func:`arena.server.ladder.state.ladder_view`
builds matchmaking's partial state from them).

The fit's candidate pairs (its snapshot) were made for one roster: which versions were
active, under which labels, and which of them were placed. :func:`roster_digest` names
that roster in 32 hex digits; the fit stores it with the candidates and a claim asks the
database for the same digest of the roster now (:func:`read_roster`: the database hashes
its rows, one value comes back). Equal digests: the candidates are the ones matchmaking
would make now, and their labels and teams are the versions' own. A version activated,
disabled, renamed or placed since the fit changes the digest, and the claim reads
everything, as before the shortcut.

The fit's snapshot is a few hundred kB at a thousand versions and changes at most every
few seconds: a claim names the snapshot its process holds already (by its MD5) and the
database sends the snapshot only when the fit's is another (:class:`Roster`'s
``snapshot`` None, its ``fit_digest`` the same).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any, NamedTuple

from django.db import connection

from arena.server.jobs.round_trip import Statement
from arena.server.ladder.models import (
    Game,
    GameStatus,
    PromotionStatus,
    PromotionTest,
    RatingFit,
    UnrankedRequest,
    VersionSumsRow,
)
from arena.server.site.models import BotVersion, Team, VersionStatus

__all__ = [
    "Asked",
    "ClaimRows",
    "Flying",
    "OverdueVersion",
    "Roster",
    "claim_rows",
    "claim_rows_of",
    "claim_rows_statement",
    "pending_requests",
    "read_roster",
    "roster_digest",
    "roster_of",
    "roster_statement",
]


class Roster(NamedTuple):
    """The active versions now: how many, how many still owe placement games, their
    digest (:func:`roster_digest`; empty with none), and the last game's number; and the
    last fit's row as a claim reads it (its snapshot, None before a fit or when it is the
    one the claim named; its pooled spread of one game and its confidence; the snapshot's
    MD5 in hex, empty before a fit)."""

    size: int
    placing: int
    digest: str
    game_number: int
    snapshot: bytes | None = None
    game_sd: float = 0.0
    confidence: float = 0.0
    fit_digest: str = ""


class OverdueVersion(NamedTuple):
    """An active version that started no rated game since ``last_game``."""

    pk: int
    team: str
    number: int
    game_count: int
    last_game: int


def roster_digest(entries: Iterable[tuple[int, bool, str]]) -> str:
    """The digest of a roster: each active version's number on the site, whether it is
    placed and its label, in the numbers' order, each label prefixed by its length (no
    two rosters give the same text), hashed with MD5 (a fingerprint, not a secret)."""
    text = ",".join(f"{pk}:{int(placed)}:{len(label)}:{label}" for pk, placed, label in
                    sorted(entries))  # fmt: skip
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def _tables() -> dict[str, str]:
    return {"version": BotVersion._meta.db_table, "team": Team._meta.db_table,
            "sums": VersionSumsRow._meta.db_table, "game": Game._meta.db_table}  # fmt: skip


#: The active versions (``state.active_versions``' rule) with their team and sums.
_ACTIVE = """
    FROM {version} v JOIN {team} t ON t.id = v.team_id
    LEFT JOIN {sums} s ON s.version_id = v.id
    WHERE v.id IN (SELECT active_version_id FROM {team} WHERE active_version_id IS NOT NULL)
      AND v.status = %s AND v.is_disabled = %s"""
#: A version's label (``models.label_of``) in SQL.
_LABEL = "(t.name || '-v' || v.number)"


def read_roster(placement_games: int, known_fit: str = "") -> Roster:
    """The roster now (:class:`Roster`), with the fit's row, in one statement
    (:func:`roster_statement`'s)."""
    with connection.cursor() as cursor:
        cursor.execute(*roster_statement(placement_games, known_fit))
        return roster_of(cursor.fetchone())


def roster_statement(placement_games: int, known_fit: str = "") -> Statement:
    """The statement :func:`read_roster` runs (a claim sends it with others, in one round
    trip): the database counts the active versions and those with fewer than
    ``placement_games`` rated games, and hashes their rows (PostgreSQL's ``md5``;
    elsewhere the rows come back joined and are hashed by :func:`roster_of`); the fit's
    snapshot comes with them unless its MD5 is ``known_fit`` (PostgreSQL; elsewhere it
    comes in process, and :func:`roster_of` hashes it)."""
    tables = _tables()
    placed = "CASE WHEN COALESCE(s.game_count, 0) >= %s THEN 1 ELSE 0 END"
    row = f"v.id || ':' || ({placed}) || ':' || length({_LABEL}) || ':' || {_LABEL}"
    inner = (f"SELECT v.id AS id, {row} AS entry, COALESCE(s.game_count, 0) AS games "
             + _ACTIVE.format(**tables))  # fmt: skip
    known: list[str] = []
    if connection.vendor == "postgresql":
        joined = "md5(string_agg(entry, ',' ORDER BY id))"
        fit_digest = "md5(snapshot)"
        snapshot = "CASE WHEN md5(snapshot) = %s THEN NULL ELSE snapshot END"
        known.append(known_fit)
    else:  # SQLite before 3.44 orders an aggregate by its input's order
        joined = "group_concat(entry, ',')"
        inner += " ORDER BY v.id"
        fit_digest, snapshot = "NULL", "snapshot"
    fit = f"FROM {RatingFit._meta.db_table} WHERE id = 1 AND fitted IS NOT NULL"
    sql = (f"SELECT COUNT(*), SUM(CASE WHEN games < %s THEN 1 ELSE 0 END), {joined}, "
           f"(SELECT MAX(id) FROM {tables['game']}), (SELECT {snapshot} {fit}), "
           f"(SELECT game_sd {fit}), (SELECT confidence {fit}), (SELECT {fit_digest} {fit}) "
           f"FROM ({inner}) AS active")  # fmt: skip
    parameters: list[int | str | bool] = [
        placement_games,
        *known,
        placement_games,
        VersionStatus.ACCEPTED.value,
        False,
    ]
    return Statement(sql, parameters)


def roster_of(row: tuple[Any, ...] | None) -> Roster:
    """:func:`roster_statement`'s row as the :class:`Roster` it tells."""
    assert row is not None  # (an aggregate always gives its one row)
    count, placing, text, last, snapshot, game_sd, confidence, fit_digest = row
    postgres = connection.vendor == "postgresql"
    digest = ""
    if count:
        digest = text if postgres else _md5(text.encode())
    stored = bytes(snapshot) if snapshot else None
    if not postgres and stored is not None:
        fit_digest = _md5(stored)
    return Roster(int(count), int(placing or 0), digest, int(last or 0), stored,
                  float(game_sd or 0.0), float(confidence or 0.0), fit_digest or "")  # fmt: skip


def _md5(data: bytes) -> str:
    """``data``'s MD5 in hex, as PostgreSQL's ``md5`` gives it (a fingerprint)."""
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


class ClaimRows(NamedTuple):
    """What :func:`claim_rows` reads: the pending requests, the games in flight (None:
    one is a table) and the versions the floor may owe a game."""

    requests: list[Asked]
    in_flight: list[Flying] | None
    overdue: list[OverdueVersion]


def claim_rows(interval: int) -> ClaimRows:
    """The pending requests (:func:`pending_requests`' rows), the games in flight, and the
    active versions whose last rated game is ``interval`` games or more before the last
    game (the floor's: they may be owed a game), in one statement
    (:func:`claim_rows_statement`'s)."""
    with connection.cursor() as cursor:
        cursor.execute(*claim_rows_statement(interval))
        return claim_rows_of(cursor.fetchall())


def claim_rows_statement(interval: int) -> Statement:
    """The statement :func:`claim_rows` runs (a claim's every round trip waits for the
    database: on a loaded machine each costs a time slice; a claim sends this one with
    its first reads), the rows told apart by their first column."""
    tables = _tables()
    last = f"(SELECT COALESCE(MAX(id), 0) FROM {tables['game']})"
    parts = [
        *_requests_sql(),
        _IN_FLIGHT.format(tag=2, **tables),
        "SELECT 3, v.id, t.name, NULL, NULL, v.number, s.game_count, s.last_game, " + _NONE
        + _ACTIVE.format(**tables) + f" AND s.last_game <= {last} - %s",
    ]  # fmt: skip
    sql = " UNION ALL ".join(parts) + " ORDER BY 1, 2"
    parameters: list[int | str | bool] = [
        PromotionStatus.RUNNING.value,
        GameStatus.QUEUED.value,
        GameStatus.CLAIMED.value,
        VersionStatus.ACCEPTED.value,
        False,
        interval,
    ]
    return Statement(sql, parameters)


def claim_rows_of(rows: Iterable[tuple[Any, ...]]) -> ClaimRows:
    """:func:`claim_rows_statement`'s rows as the :class:`ClaimRows` they tell."""
    requests, flying, overdue, table = [], [], [], False
    for tag, pk, text, first, second, one, other, more, seats in rows:
        if tag < 2:
            requests.append(Asked(text, one, first, other, second, more))
        elif tag == 2:
            table = table or seats > 2
            flying.append(Flying(pk, text, bool(more), one, other, first, second))
        else:
            overdue.append(OverdueVersion(pk, text, one, other, more))
    return ClaimRows(requests, None if table else flying, overdue)


class Flying(NamedTuple):
    """A heads-up game in flight: its number, kind, whether rated, its two versions'
    numbers and labels."""

    pk: int
    kind: str
    is_rated: bool
    first_id: int
    second_id: int
    first: str
    second: str


#: The games queued or being played, as :func:`claim_rows` reads them.
_IN_FLIGHT = (
    "SELECT {tag}, g.id, g.kind, t1.name || '-v' || v1.number, t2.name || '-v' || v2.number, "
    "g.first_id, g.second_id, CASE WHEN g.is_rated THEN 1 ELSE 0 END, g.seat_count "
    "FROM {game} g "
    "JOIN {version} v1 ON v1.id = g.first_id JOIN {team} t1 ON t1.id = v1.team_id "
    "JOIN {version} v2 ON v2.id = g.second_id JOIN {team} t2 ON t2.id = v2.team_id "
    "WHERE g.status IN (%s, %s)"
)


class Asked(NamedTuple):
    """A team's pending request as plain values: a running promotion test (``games_left``
    None) or unranked test games, its two versions' numbers and labels."""

    team: str
    bot_id: int
    bot: str
    opponent_id: int
    opponent: str
    games_left: int | None


def _requests_sql() -> tuple[str, str]:
    """The running promotion tests' rows (their one parameter: the running status) and the
    unranked requests' with games left, as :func:`claim_rows` reads them: a tag (0, 1),
    the number, the team's name, the two versions' labels and numbers, the games left
    (none for a test) and a padding (a typed null: a union's columns need one type)."""
    tables = _tables()

    def rows(tag: int, table: str, one: str, other: str, left: str, where: str) -> str:
        return (f"SELECT {tag}, r.id, tr.name, t1.name || '-v' || v1.number, "
                f"t2.name || '-v' || v2.number, r.{one}_id, r.{other}_id, {left}, {_NONE} "
                f"FROM {table} r "
                f"JOIN {tables['team']} tr ON tr.id = r.team_id "
                f"JOIN {tables['version']} v1 ON v1.id = r.{one}_id "
                f"JOIN {tables['team']} t1 ON t1.id = v1.team_id "
                f"JOIN {tables['version']} v2 ON v2.id = r.{other}_id "
                f"JOIN {tables['team']} t2 ON t2.id = v2.team_id WHERE {where}")  # fmt: skip

    return (rows(0, PromotionTest._meta.db_table, "candidate", "incumbent", _NONE,
                 "r.status = %s"),
            rows(1, UnrankedRequest._meta.db_table, "bot", "opponent", "r.games_left",
                 "r.games_left > 0"))  # fmt: skip


#: A null of the union's numbers' type.
_NONE = "CAST(NULL AS INTEGER)"


def pending_requests() -> list[Asked]:
    """The running promotion tests, then the unranked requests with games left, each by
    its number (one statement, a row each)."""
    tests, asked = _requests_sql()
    with connection.cursor() as cursor:
        cursor.execute(f"{tests} UNION ALL {asked} ORDER BY 1, 2", [PromotionStatus.RUNNING.value])
        rows = cursor.fetchall()
    return [Asked(team, one, first, other, second, left)
            for _tag, _pk, team, first, second, one, other, left, _pad in rows]  # fmt: skip
