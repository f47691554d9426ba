"""``validate_uploads``: the validation worker (:mod:`arena.server.validation.worker`). It
claims queued versions one at a time, validates each while a thread renews its lease, and
writes the verdict. SIGTERM or SIGINT stops it; a job it was working on goes back to the
queue at once. Started by ``arena server run``, which also restarts it when it dies; it
dies with its parent (Linux's parent-death signal)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from arena.server.validation.worker import validation_worker


class Command(BaseCommand):
    """The validation worker."""

    help = "claim queued bot versions and validate them, until stopped"

    def add_arguments(self, parser: CommandParser) -> None:
        """``--once``: validate what is queued, then stop; ``--poll`` seconds between looks."""
        parser.add_argument("--once", action="store_true")
        parser.add_argument("--poll", type=float, default=1.0)

    def handle(self, *args: Any, **options: Any) -> None:
        """Claim and validate until stopped (or, with ``--once``, until the queue is empty)."""
        validation_worker(self.stderr.write).run(once=options["once"], poll=options["poll"])
