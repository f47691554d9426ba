"""The competition's deadline (``ladder.deadline`` in the competition file): from then on
uploads and activations freeze and the finals play the versions active then.

A base module of the site: the site's versions, the ladder's queue, its pages and the
finals all ask it, and it asks nothing of them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from arena.ladder.finals import is_frozen
from arena.server.competition import read_competition
from arena.settings import SettingsError

__all__ = ["competition_deadline", "is_frozen_now"]


def competition_deadline() -> float | None:
    """The deadline of the site's competition file (seconds since the epoch), or None
    (no file, no deadline, or a file that cannot be read: the site's other parts say so)."""
    file = getattr(settings, "ARENA_COMPETITION_FILE", None)
    if file is None:
        return None
    try:
        deadline = read_competition(Path(file)).rules.ladder_deadline
    except (SettingsError, OSError):
        return None
    return None if deadline is None else deadline.timestamp()


def is_frozen_now(now: datetime | None = None) -> bool:
    """True from the deadline on: no upload or activation counts any more."""
    moment = now or datetime.now(UTC)
    return is_frozen(now_s=moment.timestamp(), deadline_s=competition_deadline())
