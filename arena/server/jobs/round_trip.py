"""Several SQL statements sent to the database in one round trip, their results read after.

Why: a claim or a store is a handful of short statements, and on a loaded machine each
round trip costs more than the statement (the database's process and the worker's each
wait for a core in turn). On PostgreSQL, psycopg's pipeline mode sends the statements
together and the server runs them in order, each seeing what the ones before it wrote
(and a lock one of them takes holds for the next: they start after it is granted). A
transaction's ``BEGIN`` is not in the batch: psycopg sends it alone and waits for it, one
round trip more (psycopg syncs its pipeline right after a transaction's start).
Elsewhere (SQLite, in process) each statement runs in turn, with the same results.

Only plain statements go through here, never the ORM: it reads a statement's row count as
soon as it is sent, which a pipeline gives only once the batch has come back.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack, nullcontext
from typing import Any, NamedTuple, cast

from django.db import connection, models
from django.db.models.sql import UpdateQuery

__all__ = ["Answer", "Statement", "run_together", "update_statement"]


class Statement(NamedTuple):
    """A statement and its parameters (``%s`` placeholders)."""

    sql: str
    parameters: Sequence[Any] = ()


class Answer(NamedTuple):
    """What one statement gave back: the rows it changed (or returned), and the rows it
    returned (none for a statement that returns none)."""

    row_count: int
    rows: list[tuple[Any, ...]]

    @property
    def row(self) -> tuple[Any, ...] | None:
        """The first row returned (None: none)."""
        return self.rows[0] if self.rows else None


def run_together(statements: Sequence[Statement]) -> list[Answer]:
    """Run ``statements`` in order in one round trip (module docstring); each one's answer,
    in the same order. A statement that fails raises, as on its own; in a transaction
    the ones before it are rolled back with it."""
    with ExitStack() as cursors:
        opened = [cursors.enter_context(connection.cursor()) for _ in statements]
        connection.ensure_connection()
        pipelined = connection.vendor == "postgresql"
        # (an error raised when the batch comes back is Django's, as a statement's is)
        with (
            connection.wrap_database_errors,
            connection.connection.pipeline() if pipelined else nullcontext(),
        ):
            for cursor, (sql, parameters) in zip(opened, statements, strict=True):
                cursor.execute(sql, parameters)
        # Read once every result is in (leaving the pipeline waited for them).
        return [Answer(cursor.rowcount, cursor.fetchall() if cursor.description else [])
                for cursor in opened]  # fmt: skip


def update_statement(rows: models.QuerySet[Any], fields: dict[str, Any]) -> Statement:
    """``rows.update(**fields)`` as a statement to send with others (its row count in its
    :class:`Answer`): the ORM writes the SQL (each field's value as the field stores it),
    and the statement runs here. Plain fields only (no related model's)."""
    query = cast(UpdateQuery, rows.query.chain(UpdateQuery))
    query.add_update_values(fields)
    sql, parameters = query.get_compiler(connection=connection).as_sql()
    return Statement(sql, parameters)
