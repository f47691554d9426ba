"""The workers in the organiser's admin (read only: each worker writes its own record):
which one keeps failing, and how deep the queues are."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from arena.server.jobs.models import WorkerRecord


@admin.register(WorkerRecord)
class WorkerRecordAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Every worker seen, the one failing most in a row first."""

    list_display = ("name", "kind", "last_seen", "queue_depth", "jobs_done", "site_failures",
                    "failures_in_a_row", "last_failure")  # fmt: skip
    list_filter = ("kind",)
    readonly_fields = (*list_display, "started")

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Records come from the workers, never from the admin."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        """Read only (a stale record may be deleted)."""
        return False
