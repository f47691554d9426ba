"""The site as a Django application."""

from __future__ import annotations

from django.apps import AppConfig


class SiteConfig(AppConfig):
    """``arena.server.site``: its models, templates and views. The label is the one the
    application had when it was ``arena.server`` itself, which its migrations and tables
    carry."""

    name = "arena.server.site"
    label = "arena_server"
    verbose_name = "Competition"
    default_auto_field = "django.db.models.BigAutoField"
