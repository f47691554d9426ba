"""A read-only query run on every request, compiled once: the ORM builds and compiles a
query set each time it runs (for the one small query a kept page costs, that is most of
the page's time), so a :class:`Statement` asks the ORM for the query set's SQL and
parameters the first time it runs and sends the same text after that."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from django.db import connection
from django.db.models import QuerySet
from django.utils.dateparse import parse_datetime

__all__ = ["Statement", "as_datetime"]


class Statement:
    """The query set ``make`` returns, compiled at its first run and then run as SQL: its
    rows as tuples of the database driver's values (no model instance, no field's
    conversion: see :func:`as_datetime`). ``make`` must return the same query every time
    (no value that changes between runs: those are parameters the statement keeps)."""

    def __init__(self, make: Callable[[], QuerySet[Any]]) -> None:
        self._make = make
        self._compiled: dict[str, tuple[str, tuple[Any, ...]]] = {}
        self._lock = threading.Lock()

    def rows(self) -> list[tuple[Any, ...]]:
        """The query's rows now."""
        # By the database's kind: its SQL is that kind's.
        compiled = self._compiled.get(connection.vendor)
        if compiled is None:
            with self._lock:
                compiled = self._make().query.sql_with_params()
                self._compiled[connection.vendor] = compiled
        sql, params = compiled
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [tuple(row) for row in cursor.fetchall()]


def as_datetime(value: datetime | str | None) -> datetime | None:
    """A time stamp column as a :class:`Statement` gives it: PostgreSQL's driver gives an
    aware datetime, SQLite's the stored text (UTC, as Django stores it)."""
    if value is None or isinstance(value, datetime):
        return value
    parsed = parse_datetime(value)
    if parsed is None:
        raise ValueError(f"not a time stamp: {value!r}")
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
