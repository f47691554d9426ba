"""What every page's template knows: the competition's title (its file's ``title``), which
every page's ``<title>`` and navigation name (:func:`current_title`, also the hand
viewer's title)."""

from __future__ import annotations

from django.http import HttpRequest

from arena.server.current import current_competition
from arena.server.overview import DEFAULT_TITLE, competition_title
from arena.settings import SettingsError


def current_title() -> str:
    """The competition's title now (the default title when the file cannot be read: the
    pages that need the file say why)."""
    try:
        return competition_title(current_competition())
    except (SettingsError, OSError):
        return DEFAULT_TITLE


def competition(request: HttpRequest) -> dict[str, str]:
    """``competition_title`` for the templates."""
    return {"competition_title": current_title()}
