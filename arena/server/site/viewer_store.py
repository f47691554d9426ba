"""A match's hand viewer documents, made once per audience and stored, so that a request
reads a row instead of replaying up to :data:`~arena.server.site.matches.MAX_VIEWER_HANDS`
hands.

An audience is what a document may show: the site's visibility and the seats whose cards
it shows whatever that says (a team's own seats; none for everyone else). Every requester
who is not at the table shares the one document without own seats, which is therefore
the only one that may be cached publicly (:func:`is_public`); a team's own view, with its
own cards, is its own. The document is redacted when it is made
(:func:`arena.server.site.matches.viewer_document`): what is stored holds no card its
audience may not see.

A stored document is used while its match is as it was: its ``stamp`` digests what the
document was made from (the hand file, the hands played, when the match finished, each
seat's faults), so a ladder game played again, which rewrites its match's row, makes a
new one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Set
from typing import Any

from django.db import IntegrityError, transaction

from arena.server.competition import Visibility
from arena.server.site.matches import viewer_document
from arena.server.site.models import Match, ViewerDocument

__all__ = ["audience", "is_public", "match_stamp", "stored_viewer"]


def audience(seats: Set[int], visibility: Visibility) -> str:
    """The name of the audience that sees ``seats``' cards under ``visibility``:
    ``"showdowns"`` for everyone at no seat, ``"showdowns seats 0,2"`` for a team."""
    if not seats:
        return visibility.value
    return f"{visibility.value} seats {','.join(str(seat) for seat in sorted(seats))}"


def is_public(seats: Set[int], visibility: Visibility) -> bool:
    """Whether the document of this audience may be cached by anyone (shared caches
    included): the one for requesters at no seat of a match everyone may see."""
    return not seats and visibility is not Visibility.NOTHING


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def match_stamp(match: Match) -> str:
    """A digest of what the match's documents are made from (one query: its seats)."""
    seats = [(seat.seat_index, seat.name, seat.fault_count) for seat in match.seats.all()]
    return _digest([match.hands_file, match.hands_played, match.finished, match.source, seats])


def stored_viewer(match: Match, *, seats: Set[int], visibility: Visibility) -> ViewerDocument:
    """The stored viewer document of ``match`` for this audience, made (the hands
    replayed) only when there is none yet or the match has changed since; a stored row's
    ``document`` is read from the database when first used."""
    name = audience(seats, visibility)
    stamp = match_stamp(match)
    # The document itself is read only when the page is drawn (a 304 never reads it).
    found = ViewerDocument.objects.defer("document").filter(match=match, audience=name).first()
    if found is not None and found.stamp == stamp:
        return found
    document = viewer_document(match, seats=seats, visibility=visibility)
    values = {"stamp": stamp, "digest": _digest(document), "document": document}
    try:
        with transaction.atomic():
            row, _ = ViewerDocument.objects.update_or_create(
                match=match, audience=name, defaults=values
            )
    except IntegrityError:  # another request stored the same document first
        row = ViewerDocument.objects.get(match=match, audience=name)
    else:
        # As the database gives it back (PostgreSQL's jsonb orders the keys its own way):
        # the page, and so its ETag, is then the same for every request.
        row.refresh_from_db(fields=["document"])
    return row
