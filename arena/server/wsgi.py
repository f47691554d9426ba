"""The WSGI application (``ARENA_SITE_DIR`` names the site folder): Django's, behind the
answers any reader may share, kept for a second (:mod:`arena.server.site.shared_answers`)."""

from __future__ import annotations

from django.core.wsgi import get_wsgi_application

from arena.server.django_start import start_django
from arena.server.site.shared_answers import SharedAnswers

start_django()
application = SharedAnswers(get_wsgi_application())
