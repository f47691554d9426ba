"""The doctests of the site's Django modules need Django started (no database)."""

from __future__ import annotations

from arena.server.django_start import start_django

start_django()
