"""A team's or a version's match history: one row per seat it sat in (every match the site
stores: the ladder's games, two or more matches each, and imported tournaments'), newest
first, filtered and paged in the database.

A row shows the seat's own result, raw and luck-adjusted, in chips (the match page's
units), whether it won (by the raw chips: what was played), the other seats' names, its
own fault count and whether the match has hands to watch. It never carries a match's
failure text (a bot's start-up error quotes its stderr), its hand file's path or a seed:
:func:`row_data` is the one place a row becomes words, for the page and the API alike.
Which matches a requester may list is :func:`arena.server.site.scope.visible`'s rule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from django.core.paginator import Page, Paginator
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.urls import reverse

from arena.server.site.models import BotVersion, Match, MatchSeat, Team
from arena.server.site.scope import visible

__all__ = [
    "PAGE_SIZE",
    "RESULTS",
    "RESULT_UNITS",
    "HistoryFilter",
    "HistoryQueryError",
    "history_page",
    "opponent_names",
    "row_data",
    "team_seats",
    "version_seats",
]

#: Rows per page of a history (the page's and the API's).
PAGE_SIZE: Final = 50
#: The ``?result=`` choices, each with its test on the seat's raw chips.
RESULTS: Final = {"won": Q(chips_won__gt=0), "lost": Q(chips_won__lt=0), "even": Q(chips_won=0)}
#: What each of a row's numbers is (the page's column headings, the API's ``units``).
RESULT_UNITS: Final = {"raw_chips": "chips won (raw)",
                       "adjusted_chips": "chips won (luck-adjusted)"}  # fmt: skip
#: The values of ``?faults=`` that ask for matches where the seat faulted.
_YES: Final = ("1", "yes", "true", "on")


class HistoryQueryError(ValueError):
    """A filter or page the history cannot read; its message names the value."""


@dataclass(frozen=True, slots=True)
class HistoryFilter:
    """What a history is narrowed to: an opponent's name (a bot's or a team's, exactly),
    a result of the seat (``won``, ``lost`` or ``even``, by its raw chips), only matches
    where the seat faulted, and the page (from 1)."""

    opponent: str = ""
    result: str = ""
    with_faults: bool = False
    page: int = 1

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> HistoryFilter:
        """The filter a request's query string asks for; :class:`HistoryQueryError`
        names a value it cannot read."""
        result = query.get("result", "")
        if result and result not in RESULTS:
            raise HistoryQueryError(f"result={result!r} is none of {', '.join(RESULTS)}")
        faults = query.get("faults", "")
        if faults not in ("", *_YES):
            raise HistoryQueryError(f"faults={faults!r} is not one of {', '.join(_YES)}")
        page_text = query.get("page", "") or "1"
        if not page_text.isdigit() or int(page_text) < 1:
            raise HistoryQueryError(f"page={page_text!r} is not a page number (1, 2, ...)")
        return cls(query.get("opponent", "").strip(), result, faults in _YES, int(page_text))

    def as_query(self) -> dict[str, str]:
        """The filter as query parameters (the page left out), for the paging links."""
        query = {"opponent": self.opponent, "result": self.result,
                 "faults": "1" if self.with_faults else ""}  # fmt: skip
        return {name: value for name, value in query.items() if value}


def team_seats(requester: Team | None, team: Team) -> QuerySet[MatchSeat]:
    """Every seat ``team`` sat in (any of its versions, or the team by name in an imported
    tournament), among the matches ``requester`` may see."""
    return MatchSeat.objects.filter(
        Q(team=team) | Q(version__team=team), match__in=visible(requester, Match)
    )


def version_seats(version: BotVersion) -> QuerySet[MatchSeat]:
    """Every seat ``version`` sat in (its team sees every match it played)."""
    return MatchSeat.objects.filter(version=version)


def _filtered(seats: QuerySet[MatchSeat], wanted: HistoryFilter) -> QuerySet[MatchSeat]:
    if wanted.opponent:
        others = MatchSeat.objects.filter(match=OuterRef("match")).exclude(pk=OuterRef("pk"))
        named = Q(name=wanted.opponent) | Q(team__name=wanted.opponent)
        seats = seats.filter(Exists(others.filter(named)))
    if wanted.result:
        seats = seats.filter(RESULTS[wanted.result])
    if wanted.with_faults:
        seats = seats.filter(fault_count__gt=0)
    return seats


def history_page(seats: QuerySet[MatchSeat], wanted: HistoryFilter) -> Page[MatchSeat]:
    """The page ``wanted`` asks for of ``seats`` filtered, newest match first (one query
    for the page, one for the opponents); :class:`HistoryQueryError` for a page past the
    last (page 1 of no rows is an empty page)."""
    rows = (
        _filtered(seats, wanted)
        .select_related("match", "version__team", "team")
        .prefetch_related("match__seats")
        .order_by("-match__created", "-match_id", "seat_index")
    )
    paginator = Paginator(rows, PAGE_SIZE, allow_empty_first_page=True)
    if wanted.page > paginator.num_pages:
        raise HistoryQueryError(f"page={wanted.page} is past the last page ({paginator.num_pages})")
    return paginator.page(wanted.page)


def opponent_names(seats: QuerySet[MatchSeat]) -> list[str]:
    """The names of every seat that sat against ``seats`` (for the opponent filter's
    choices), sorted."""
    others = MatchSeat.objects.filter(match__in=seats.values("match")).exclude(
        pk__in=seats.values("pk")
    )
    return sorted(set(others.values_list("name", flat=True)))


def _result(chips: int) -> str:
    return "won" if chips > 0 else "lost" if chips < 0 else "even"


def _rounded(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 1)


def row_data(seat: MatchSeat) -> dict[str, Any]:
    """A history row as the page and the API show it: public facts of the match and the
    seat's own result, never a failure text, a path or a seed (module docstring)."""
    match = seat.match
    return {
        "match": match.pk,
        "source": match.source,
        "date": match.finished or match.created,
        "status": match.status,
        "hands": match.hands_played,
        "seat": seat.seat_index,
        "bot": seat.name,
        "version": None if seat.version is None else seat.version.number,
        "version_id": seat.version_id,
        "opponents": [other.name for other in match.seats.all() if other.pk != seat.pk],
        "result": _result(seat.chips_won),
        "raw_chips": seat.chips_won,
        "adjusted_chips": _rounded(seat.adjusted_chips),
        "faults": seat.fault_count,
        "url": reverse("match", args=[match.pk]),
        "viewer_url": reverse("match-hands", args=[match.pk]) if match.hands_file else None,
    }
