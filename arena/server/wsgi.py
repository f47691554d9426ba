"""The WSGI application (``ARENA_SITE_DIR`` names the site folder)."""

from __future__ import annotations

from django.core.wsgi import get_wsgi_application

from arena.server.django_start import start_django

__all__ = ["application"]

start_django()
application = get_wsgi_application()
