"""The organiser's admin of the ladder (staff only): games (play again one the
infrastructure left out; a bot's fault is a result and never played again), promotion
tests, the finals' runs, the last fit of the ratings (read only: the workers write it)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.server.ladder.models import (
    LLR_CAP,
    FinalsRun,
    Game,
    GameStatus,
    PromotionTest,
    RatingFit,
    TableSeat,
    version_label,
)
from arena.server.site.admin_access import LabelledFields


def _one_decimal(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


class TableSeatInline(LabelledFields, admin.StackedInline):  # type: ignore[type-arg]
    """A ring table's seats: each version and its result (read only: the worker writes them)."""

    model = TableSeat
    extra = 0
    can_delete = False
    fields = ("seat_index", "version", "adjusted", "raw", "at_fault")
    readonly_fields = fields
    ordering = ("seat_index",)

    @admin.display(description="adjusted mbb/hand")
    def adjusted(self, seat: TableSeat) -> str:
        """The seat's luck-adjusted mbb/hand, to one decimal."""
        return _one_decimal(seat.adjusted_mbb)

    @admin.display(description="raw mbb/hand")
    def raw(self, seat: TableSeat) -> str:
        """The seat's raw mbb/hand, to one decimal."""
        return _one_decimal(seat.raw_mbb)

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        """Seats are the schedule's, never added by hand."""
        return False


@admin.register(Game)
class GameAdmin(LabelledFields, admin.ModelAdmin):  # type: ignore[type-arg]
    """Ladder games: their state, lease and result."""

    list_display = ("pk", "kind", "first", "second", "others", "status", "attempts",
                    "adjusted", "created", "finished")  # fmt: skip
    list_filter = ("status", "kind", "is_rated", "seat_count")
    readonly_fields = ("seed", "claimed_by", "lease_expires", "attempts", "units", "faults",
                       "seat_count", "rotation_matches")  # fmt: skip
    inlines = (TableSeatInline,)
    actions = ("play_again",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        """The games with their versions and seats (no query per row)."""
        return (
            super()
            .get_queryset(request)
            .select_related("first__team", "second__team")
            .prefetch_related("table_seats__version__team")
        )

    @admin.display(description="adjusted mbb/hand", ordering="adjusted_mbb")
    def adjusted(self, game: Game) -> str:
        """The first seat's luck-adjusted mbb/hand, to one decimal (empty: not over)."""
        return _one_decimal(game.adjusted_mbb)

    @admin.display(description="other seats")
    def others(self, game: Game) -> str:
        """A table's versions after the first two, in seat order (heads-up: none)."""
        return ", ".join(version_label(seat.version) for seat in game.seats_in_order()[2:])

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
class PromotionTestAdmin(LabelledFields, admin.ModelAdmin):  # type: ignore[type-arg]
    """Promotion tests and where they stand."""

    list_display = ("team", "candidate", "incumbent", "status", "game_count", "ratio",
                    "activated")  # fmt: skip
    list_filter = ("status",)

    @admin.display(description="log-likelihood ratio", ordering="llr")
    def ratio(self, test: PromotionTest) -> str:
        """The ratio to two decimals, or what the page says instead (:attr:`evidence`)."""
        return test.evidence if test.game_count == 0 or abs(test.llr) >= LLR_CAP else (
            f"{test.llr:.2f}"
        )  # fmt: skip


@admin.register(FinalsRun)
class FinalsRunAdmin(LabelledFields, admin.ModelAdmin):  # type: ignore[type-arg]
    """The finals' runs."""

    list_display = ("pk", "status", "started", "finished")
    readonly_fields = ("entrants", "standings", "report_file", "message")


@admin.register(RatingFit)
class RatingFitAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """The last fit of the ratings: when, how long it took, the games played then, and
    whether a worker is fitting now. Read only."""

    list_display = ("fitted", "seconds", "game_count", "game_sd", "claimed_until")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
