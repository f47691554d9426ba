"""The Django application of the competition site."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["ServerConfig"]


class ServerConfig(AppConfig):
    """``arena.server`` as a Django application (its models, templates, commands)."""

    name = "arena.server"
    label = "arena_server"
    verbose_name = "Competition"
    default_auto_field = "django.db.models.BigAutoField"
