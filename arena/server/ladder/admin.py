"""The organiser's admin of the ladder (staff only): games (play again one the
infrastructure left out; a bot's fault is a result and never played again), promotion
tests, the finals' runs."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.server.ladder.models import FinalsRun, Game, GameStatus, PromotionTest

__all__ = ["FinalsRunAdmin", "GameAdmin", "PromotionTestAdmin"]


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Ladder games: their state, lease and result."""

    list_display = ("pk", "kind", "first", "second", "status", "attempts", "adjusted_mbb",
                    "created", "finished")  # fmt: skip
    list_filter = ("status", "kind", "is_rated")
    readonly_fields = ("seed", "claimed_by", "lease_expires", "attempts", "units", "faults")
    actions = ("play_again",)

    @admin.action(description="Play the selected infrastructure failures again")
    def play_again(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        """Queue again the games the infrastructure left out (the others are results)."""
        count = queryset.filter(status=GameStatus.FAILED_INFRASTRUCTURE).update(
            status=GameStatus.QUEUED, attempts=0, claimed_by="", lease_expires=None
        )
        skipped = queryset.count() - count
        message = f"{count} game(s) queued again"
        if skipped:
            message += f"; {skipped} left alone (a result, or not over)"
        self.message_user(request, message, messages.INFO)


@admin.register(PromotionTest)
class PromotionTestAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Promotion tests and where they stand."""

    list_display = ("team", "candidate", "incumbent", "status", "game_count", "llr", "activated")
    list_filter = ("status",)


@admin.register(FinalsRun)
class FinalsRunAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """The finals' runs."""

    list_display = ("pk", "status", "started", "finished")
    readonly_fields = ("entrants", "standings", "report_file", "message")
