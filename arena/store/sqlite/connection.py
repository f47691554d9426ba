"""The results database's SQLite file: opening it, the transactions a call runs in, and the
one error it raises.

A connection is in autocommit mode (the database makes its transactions explicit:
:class:`DatabaseFile`'s ``transaction`` and ``reading`` blocks). A new
file is created with mode 0600 before SQLite opens it, so it is never readable by others,
not even for an instant: it holds the tournament's secret seed.

A read-only database (a report, an export, while the tournament may be running) is opened
read-write with ``PRAGMA query_only`` when the file may be written, and with SQLite's
``mode=ro`` only when it may not: in WAL mode the last connection to close checkpoints and
deletes the ``-wal`` and ``-shm`` files, which a ``mode=ro`` connection cannot do, so a
report made after the run would leave them behind.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena.store.closing import ClosedOnExit

__all__ = [
    "DATABASE_FILE_MODE",
    "DatabaseFile",
    "ResultsDatabaseError",
    "connect",
    "json_text",
]

#: The database file's mode: its owner only (it holds the secret tournament seed).
DATABASE_FILE_MODE = 0o600


class ResultsDatabaseError(RuntimeError):
    """The results database cannot do what was asked; the message names the file and the
    bad value. ``code`` is stable: ``cannot_open``, ``not_a_database``, ``schema_version``,
    ``read_only``, ``unknown_tournament``, ``unknown_match``, ``already_recorded``,
    ``plan_changed``, ``bad_value`` or ``sqlite`` (any other SQLite failure, a full disk
    say)."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


def connect(path: Path, read_only: bool) -> sqlite3.Connection:
    """A connection to ``path`` in autocommit mode (see the module docstring)."""
    try:
        if read_only:
            if not path.is_file():
                raise FileNotFoundError("no such file")
            may_write = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
            mode = "rw" if may_write else "ro"
            connection = sqlite3.connect(
                path.resolve().as_uri() + f"?mode={mode}", uri=True, isolation_level=None
            )
            connection.execute("PRAGMA query_only = ON")
            return connection
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, DATABASE_FILE_MODE))
        return sqlite3.connect(path, isolation_level=None)
    except (OSError, sqlite3.Error) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise ResultsDatabaseError(
            f"cannot open the results database {path}: {reason}", code="cannot_open"
        ) from None


def json_text(value: Mapping[str, Any], what: str) -> str:
    """``value`` as JSON text (an error names ``what`` when it is not JSON-ready)."""
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ResultsDatabaseError(
            f"the {what} is not JSON-ready: {error}", code="bad_value"
        ) from None


class DatabaseFile(ClosedOnExit):
    """The open file at ``path``: its ``connection`` and the blocks every call of the
    database runs its statements in, with SQLite's own failures as our error."""

    def __init__(self, path: Path, read_only: bool) -> None:
        self.path = path
        self.read_only = read_only
        self.connection = connect(path, read_only)

    def close(self) -> None:
        """Close the connection (what was committed stays). Closing twice is harmless.

        The last connection to close checkpoints the WAL into the file and deletes the
        ``-wal`` and ``-shm`` files, so a finished run leaves the database alone."""
        self.connection.close()

    @contextmanager
    def errors(self, what: str) -> Iterator[None]:
        """SQLite's own failures (a full disk, a closed connection) as our error."""
        try:
            yield
        except (sqlite3.Error, OverflowError) as error:
            raise ResultsDatabaseError(
                f"{self.path}: cannot {what}: {error}", code="sqlite"
            ) from error

    @contextmanager
    def transaction(self, what: str) -> Iterator[None]:
        """One write transaction: committed when the block ends, rolled back on any error.
        IMMEDIATE takes the write lock at once, so the block never fails half-way on a
        lock."""
        if self.read_only:
            raise ResultsDatabaseError(
                f"{self.path} is open read-only: cannot {what}", code="read_only"
            )
        with self.errors(what):
            self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield
                self.connection.execute("COMMIT")
            except BaseException:
                # A full disk or an I/O error has SQLite roll back by itself already.
                if self.connection.in_transaction:
                    self.connection.execute("ROLLBACK")
                raise

    @contextmanager
    def reading(self, what: str) -> Iterator[None]:
        """A read transaction, so the reads of one call see one state (nested: the
        enclosing one)."""
        with self.errors(what):
            if self.connection.in_transaction:
                yield
                return
            self.connection.execute("BEGIN")
            try:
                yield
            finally:
                self.connection.execute("COMMIT")  # a read transaction: nothing to undo
