"""The ladder as a Django application."""

from __future__ import annotations

from django.apps import AppConfig


class LadderConfig(AppConfig):
    """``arena.server.ladder``: its models, templates and commands."""

    name = "arena.server.ladder"
    label = "arena_ladder"
    verbose_name = "Ladder"
    default_auto_field = "django.db.models.BigAutoField"
