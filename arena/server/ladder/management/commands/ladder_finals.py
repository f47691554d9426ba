"""``ladder_finals``: at the competition file's deadline, play the finals (a duplicate
round robin of each team's active version, a ring competition's a duplicate ring, through
the tournament runner) and publish them on the site. Before the deadline it refuses
unless ``--now`` is given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.bots.sandbox.select import SandboxUnavailableError
from arena.server.current import competition_deadline, current_competition, is_frozen_now
from arena.server.ladder.finals import run_finals
from arena.server.ladder.play import ladder_rules
from arena.server.site.models import SiteSettings


class Command(BaseCommand):
    """Play and publish the finals."""

    help = "play the finals (at the deadline, or now with --now) and publish them"

    def add_arguments(self, parser: CommandParser) -> None:
        """``--now``: play them before the deadline (or with no deadline)."""
        parser.add_argument("--now", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        """Play, import, report."""
        if not options["now"] and not is_frozen_now():
            deadline = competition_deadline()
            when = "no deadline is set" if deadline is None else "the deadline has not come"
            raise CommandError(
                f"{when} (ladder.deadline in the competition file); --now plays them anyway"
            )
        try:
            archive = SiteSettings.current().rules().archive_limits
            rules = ladder_rules(current_competition(), archive)
            row = run_finals(rules, Path(settings.ARENA_WORK_DIR))
        except (ValueError, SandboxUnavailableError, OSError) as error:  # SettingsError too
            raise CommandError(str(error)) from None
        self.stdout.write(f"finals played: {len(row.entrants)} entrants; report {row.report_file}")
