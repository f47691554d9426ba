"""The validation corridor as a Django application: no models (its queue is the site's
``bot_version`` table), only the ``validate_uploads`` command."""

from __future__ import annotations

from django.apps import AppConfig


class ValidationConfig(AppConfig):
    """``arena.server.validation``: the worker command."""

    name = "arena.server.validation"
    label = "arena_validation"
    verbose_name = "Validation"
