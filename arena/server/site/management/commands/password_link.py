"""``password_link NAME``: print a one-time link with which the account ``NAME`` sets a new
password (:mod:`arena.server.site.password_links`); give it to its owner."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.server.site.names import find_account
from arena.server.site.password_links import password_link


class Command(BaseCommand):
    help = "print a one-time link with which an account sets a new password"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the account's user name")
        parser.add_argument(
            "--site-url", default="", help="the site's address, e.g. https://poker.example.org"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = find_account(options["name"])
        if user is None:
            raise CommandError(f"no account is named {options['name']!r}")
        self.stdout.write(options["site_url"].rstrip("/") + password_link(user))
