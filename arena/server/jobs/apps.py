"""The site's jobs as a Django application: the record each worker keeps of itself
(:class:`~arena.server.jobs.models.WorkerRecord`), shown in the admin."""

from __future__ import annotations

from django.apps import AppConfig


class JobsConfig(AppConfig):
    """``arena.server.jobs``: the workers' records."""

    name = "arena.server.jobs"
    label = "arena_jobs"
    verbose_name = "Workers"
