"""The site's competition as its file says now: :func:`current_competition` (parsed again
only when the file has changed, see :func:`arena.server.competition.read_when_changed`)
and what is read from it most often, the deadline (:func:`competition_deadline`,
:func:`is_frozen_now`), asked at every upload, activation and ladder page.

The file is the one ``init`` was given (``site.json``); its live keys are read here, its
copied ones (the site's settings) from the database (see :mod:`arena.server.competition`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from arena.ladder.finals import is_frozen
from arena.server.competition import Competition, read_when_changed
from arena.settings import SettingsError

__all__ = ["competition_deadline", "current_competition", "is_frozen_now"]


def current_competition() -> Competition | None:
    """The site's competition file as it is now, or None when the site names none;
    :class:`SettingsError` or ``OSError`` when it cannot be read."""
    file = getattr(settings, "ARENA_COMPETITION_FILE", None)
    return None if file is None else read_when_changed(Path(file))


def competition_deadline() -> float | None:
    """The competition's deadline (seconds since the epoch), or None (no file, no
    deadline, or a file that cannot be read: the parts that need the file say so)."""
    try:
        competition = current_competition()
    except (SettingsError, OSError):
        return None
    if competition is None or competition.deadline is None:
        return None
    return competition.deadline.timestamp()


def is_frozen_now(now: datetime | None = None) -> bool:
    """True from the deadline on: no upload or activation counts any more."""
    moment = now or datetime.now(UTC)
    return is_frozen(now_s=moment.timestamp(), deadline_s=competition_deadline())
