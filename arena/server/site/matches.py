"""What a team sees of a match: its seats and results, and its hands for the report's
hand viewer with the cards the site's visibility allows (:mod:`arena.server.site.visibility`).
Plain functions over the rows; the views render them."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Set
from pathlib import Path
from typing import Any

from django.db.models import Q

from arena.report.build import report_document
from arena.report.data import RunData
from arena.report.page import asset, render_page, report_script
from arena.report.sections import FaultRow
from arena.report.viewer import ViewerError, viewer_hand
from arena.server.competition import Visibility
from arena.server.site.context_processors import current_title
from arena.server.site.models import BotVersion, Match, MatchSeat, Team
from arena.server.site.visibility import redact_history
from arena.store.hand_log import HandLogError, iter_hands, read_header

__all__ = [
    "MAX_VIEWER_HANDS",
    "match_data",
    "own_seats",
    "version_results",
    "viewer_document",
    "viewer_etag",
    "viewer_faults",
    "viewer_page",
    "viewer_title",
]

#: Hands a match page embeds for the viewer (the first ones).
MAX_VIEWER_HANDS = 200


def own_seats(team: Team | None, match: Match) -> set[int]:
    """The seat indexes of ``match`` where ``team`` sat."""
    if team is None:
        return set()
    seats = MatchSeat.objects.filter(Q(team=team) | Q(version__team=team), match=match)
    return set(seats.values_list("seat_index", flat=True))


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 2)


def match_data(match: Match) -> dict[str, Any]:
    """The match as the JSON API and the page show it."""
    return {
        "id": match.pk,
        "source": match.source,
        "status": match.status,
        "failure": match.failure_kind or None,
        "hands": match.hands_played,
        "seats": [
            {
                "seat": seat.seat_index,
                "name": seat.name,
                "team": None if seat.team is None else seat.team.name,
                "version": None if seat.version is None else seat.version.number,
                "chips_won": seat.chips_won,
                "adjusted_chips": _number(seat.adjusted_chips),
                "faults": seat.fault_count,
            }
            for seat in match.seats.select_related("team", "version")
        ],
    }


def version_results(version: BotVersion) -> list[dict[str, Any]]:
    """A version's results per opponent over the matches it played: matches, hands, chips
    won, and luck-adjusted chips (None unless every match has them)."""
    rows: dict[str, dict[str, Any]] = {}
    seats = MatchSeat.objects.filter(version=version).select_related("match")
    for seat in seats.prefetch_related("match__seats"):
        for other in seat.match.seats.all():
            if other.pk == seat.pk:
                continue
            empty = {"opponent": other.name, "matches": 0, "hands": 0, "chips_won": 0,
                     "adjusted": 0.0}  # fmt: skip
            row = rows.setdefault(other.name, empty)
            row["matches"] += 1
            row["hands"] += seat.match.hands_played
            row["chips_won"] += seat.chips_won
            adjusted = row["adjusted"]
            row["adjusted"] = None if adjusted is None or seat.adjusted_chips is None else (
                adjusted + seat.adjusted_chips
            )  # fmt: skip
    return sorted(rows.values(), key=lambda row: str(row["opponent"]))


def viewer_faults(match: Match) -> list[FaultRow]:
    """The report's fault rows for ``match``: each seat's fault count, the one the match's
    page shows (the site keeps a count per seat, not each fault)."""
    return [
        {"bot": seat.name, "kind": "any", "count": seat.fault_count, "example": None}
        for seat in match.seats.all()
        if seat.fault_count
    ]


def viewer_document(match: Match, *, seats: Set[int], visibility: Visibility) -> dict[str, Any]:
    """The report's document of the match's first hands (replayed from its hand file),
    showing the cards of ``seats`` and those ``visibility`` shows, the others blanked by
    :func:`arena.server.site.visibility.redact_history`: the costly part of the viewer,
    made once per audience (:mod:`arena.server.site.viewer_store`)."""
    hands: list[dict[str, Any]] = []
    notes: list[str] = []
    path = Path(match.hands_file)
    try:
        if not match.hands_file:  # an empty path would be the server's working folder
            raise HandLogError("the match has no hand history")
        header = read_header(path)
        names = {str(player.get("player_id")): str(player.get("name"))
                 for player in header.get("players", ()) if isinstance(player, dict)}  # fmt: skip
        for record in iter_hands(path):
            if len(hands) >= MAX_VIEWER_HANDS:  # the hand list says how many it holds
                break
            history = redact_history(record["history"], own_seats=seats, visibility=visibility)
            decisions = [d for d in record.get("decisions") or () if d.get("seat_index") in seats]
            hand = viewer_hand(history, names, match_id=str(match.pk), decisions=decisions)
            hand["why"] = ""
            hands.append(hand)
    except (HandLogError, ViewerError, OSError):
        # Not the error's text: it names the server's files.
        notes.append("the hands cannot be read")
    # The report's document for a match with no section but the hands and the faults (the
    # report draws an empty section as absent); ``on_site`` leaves out what speaks of a
    # report file.
    data = RunData(kind="match", title=f"match {match.pk}", source=path, unit="hands",
                   facts=[("source", match.source), ("hands", str(match.hands_played))],
                   faults=viewer_faults(match), notes=notes)  # fmt: skip
    return report_document(data, hands) | {
        "leaderboard": {},
        "hands_total": max(match.hands_played, len(hands)),
        "open_other": "",
        "on_site": True,
    }


def viewer_title(match: Match) -> str:
    """The viewer page's title: the match and the competition's."""
    return f"match {match.pk} · {current_title()}"


def viewer_page(match: Match, document: Mapping[str, Any]) -> str:
    """The report's page drawing ``document`` (a stored viewer document of ``match``)."""
    return render_page(viewer_title(match), document)


def viewer_etag(match: Match, document_digest: str) -> str:
    """The viewer page's ETag, known without drawing the page: its document's digest,
    its title and the report's own script and style sheet (what else the page holds)."""
    parts = (document_digest, viewer_title(match), report_script(), asset("report.css"))
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()
    return f'"{digest[:32]}"'
