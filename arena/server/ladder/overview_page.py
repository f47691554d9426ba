"""The competition's overview page: its title and description, the rules a bot plays under
(read from the competition file, the site's settings and the ladder's knobs by
:func:`arena.server.overview.competition_rules`), the deadline with a countdown, and the
way in: the protocol, the starter bots, ``arena submit``. The ladder's part because a
ladder game's length is the ladder's knob."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from arena.server.competition import Competition
from arena.server.current import current_competition
from arena.server.ladder import config
from arena.server.overview import competition_rules, countdown, starter_bots
from arena.server.site.models import SiteSettings
from arena.settings import SettingsError
from arena.tournament.config import TournamentConfig

__all__ = ["overview"]


def overview(request: HttpRequest) -> HttpResponse:
    """The overview page (a competition file that cannot be read: the page says why)."""
    try:
        competition = current_competition() or Competition(TournamentConfig(bots=()))
    except (SettingsError, OSError) as error:
        return render(request, "arena/overview.html", {"problem": str(error)})
    deadline = competition.deadline
    context = {
        "competition": competition,
        "rules": competition_rules(
            competition, SiteSettings.current().rules(), deals=config.current().deals
        ),
        "deadline": deadline,
        "countdown": None if deadline is None else countdown(deadline),
        "starters": starter_bots(),
        "server": request.build_absolute_uri("/").rstrip("/"),
    }
    return render(request, "arena/overview.html", context)
