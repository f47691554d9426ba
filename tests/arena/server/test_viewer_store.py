"""A match's hand viewer reads a stored, redacted document made once per match and
audience: a second request replays no hand, the document everyone at no seat shares holds
no card they may not see, it alone is cached publicly, and a match played again gets a new
one (issue 34: anonymous requests cost no replay)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import IntegrityError, connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from arena.report.viewer import viewer_hand
from arena.server.competition import Visibility
from arena.server.site import matches as site_matches
from arena.server.site import viewer_store
from arena.server.site.drawn_pages import DrawnPages
from arena.server.site.matches import viewer_document
from arena.server.site.models import Match, MatchSeat, MatchStatus, SiteSettings, ViewerDocument
from arena.server.site.viewer_store import audience, is_public, stored_viewer
from arena.server.site.views import pages
from arena.server.site.visibility import HIDDEN_CARD
from arena.store.hand_log import iter_hands
from tests.arena.server.factories import PASSWORD, make_team, write_hands

pytestmark = pytest.mark.usefixtures("db")

HANDS = 8


@pytest.fixture
def match(tmp_path: Path) -> Match:
    """A finished match of 8 hands: ants in seat 0, bees in seat 1; cats watch."""
    ants, bees = make_team("ants"), make_team("bees")
    make_team("cats")
    found = Match.objects.create(
        status=MatchStatus.FINISHED,
        source="ladder",
        external_id="m1",
        hands_file=str(write_hands(tmp_path / "hands.jsonl", count=HANDS)),
        hands_played=HANDS,
    )
    MatchSeat.objects.create(match=found, seat_index=0, name="ants", team=ants)
    MatchSeat.objects.create(match=found, seat_index=1, name="bees", team=bees)
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "showdowns"})
    return found


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every hand the viewer replays (one entry per hand)."""
    calls: list[int] = []
    real: Callable[..., dict[str, Any]] = viewer_hand

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(site_matches, "viewer_hand", counted)
    return calls


def _logged_in(name: str) -> Client:
    client = Client()
    assert client.login(username=f"{name}-1", password=PASSWORD)
    return client


def test_a_second_request_replays_no_hand(match: Match, replays: list[int]) -> None:
    url = f"/matches/{match.pk}/hands/"
    assert Client().get(url).status_code == 200
    assert len(replays) == HANDS  # the first request makes the document
    assert Client().get(url).status_code == 200
    assert _logged_in("cats").get(url).status_code == 200  # another outsider: the same one
    assert len(replays) == HANDS
    ants = _logged_in("ants")
    ants.get(url)  # a player's own view (its own cards) is another document, made once
    ants.get(url)
    assert len(replays) == 2 * HANDS
    assert ViewerDocument.objects.filter(match=match).count() == 2


def _hidden_cards(path: Path) -> list[set[str]]:
    """Per hand, the hole cards of the seats that did not show them (seat 0 or 1)."""
    hidden = []
    for record in iter_hands(path):
        events = record["history"]["events"]
        shown = {e["seat_index"] for e in events if e["type"] == "hand_shown"}
        hidden.append(
            {
                card
                for e in events
                if e["type"] == "hole_cards_dealt" and e["seat_index"] not in shown
                for card in e["cards"]
            }
        )
    return hidden


def test_the_stored_public_document_holds_no_hidden_card(match: Match) -> None:
    Client().get(f"/matches/{match.pk}/hands/")
    stored = ViewerDocument.objects.get(match=match, audience="showdowns")
    hands = stored.document["hands"]
    hidden = _hidden_cards(Path(match.hands_file))
    assert len(hands) == len(hidden) == HANDS and any(hidden)
    for hand, cards in zip(hands, hidden, strict=True):
        text = json.dumps(hand)
        assert not any(f'"{card}"' in text for card in cards), cards
    assert HIDDEN_CARD in json.dumps(hands)
    assert "seed" not in json.dumps(stored.document) and "deck" not in json.dumps(stored.document)


def test_a_players_document_shows_its_own_cards_only(match: Match) -> None:
    _logged_in("ants").get(f"/matches/{match.pk}/hands/")
    stored = ViewerDocument.objects.get(match=match, audience="showdowns seats 0")
    hidden = _hidden_cards(Path(match.hands_file))
    records = list(iter_hands(Path(match.hands_file)))
    for hand, cards, record in zip(stored.document["hands"], hidden, records, strict=True):
        own = next(e["cards"] for e in record["history"]["events"]
                   if e["type"] == "hole_cards_dealt" and e["seat_index"] == 0)  # fmt: skip
        text = json.dumps(hand)
        assert all(f'"{card}"' in text for card in own)
        assert not any(f'"{card}"' in text for card in cards - set(own))


def test_only_the_shared_document_is_cached_publicly_and_its_etag_answers_304(
    match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"/matches/{match.pk}/hands/"
    first = Client().get(url)
    assert first["Cache-Control"].startswith("public, max-age=")
    assert "Cookie" in first["Vary"] and "Authorization" in first["Vary"]
    assert Client().get(url)["ETag"] == first["ETag"]  # the stored document: the same page
    drawn: list[int] = []

    def draw(*args: Any) -> str:
        drawn.append(1)
        return ""

    monkeypatch.setattr(pages, "viewer_page", draw)
    with CaptureQueriesContext(connection) as queries:
        again = Client().get(url, headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == first["ETag"]
    # A 304 neither draws the page nor reads the document from the database.
    assert drawn == [] and not any('"document"' in query["sql"] for query in queries)
    monkeypatch.undo()
    own = _logged_in("ants").get(url)
    assert own.status_code == 200 and own["Cache-Control"] == "private, no-cache"
    assert own["ETag"] != first["ETag"]
    stale = Client().get(url, headers={"If-None-Match": '"something-else"'})
    assert stale.status_code == 200


def test_under_visibility_nothing_no_document_is_public(match: Match) -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "nothing"})
    url = f"/matches/{match.pk}/hands/"
    assert Client().get(url).status_code == 404
    assert _logged_in("ants").get(url)["Cache-Control"] == "private, no-cache"
    assert not is_public(set(), Visibility.NOTHING) and is_public(set(), Visibility.SHOWDOWNS)


def test_a_match_played_again_gets_a_new_document(match: Match, replays: list[int]) -> None:
    url = f"/matches/{match.pk}/hands/"
    Client().get(url)
    # The ladder stores a game played again on the same match row: new faults, new hands.
    seat = match.seats.get(seat_index=1)
    seat.fault_count = 3
    seat.save()
    page = Client().get(url).content.decode()
    assert len(replays) == 2 * HANDS and '"count": 3' in page.replace('"count":3', '"count": 3')
    assert ViewerDocument.objects.filter(match=match).count() == 1  # replaced, not added


def test_a_visibility_change_makes_its_own_document(match: Match, replays: list[int]) -> None:
    url = f"/matches/{match.pk}/hands/"
    Client().get(url)
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "everything"})
    Client().get(url)
    assert len(replays) == 2 * HANDS
    stored = ViewerDocument.objects.get(match=match, audience="everything")
    assert HIDDEN_CARD not in json.dumps(stored.document["hands"])


def test_a_match_without_hands_says_so_without_a_path(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(hands_file=str(Path(match.hands_file).parent / "x"))
    match.refresh_from_db()
    document = stored_viewer(match, seats=set(), visibility=Visibility.SHOWDOWNS).document
    assert document["notes"] == ["the hands cannot be read"] and document["hands"] == []
    Match.objects.filter(pk=match.pk).update(hands_file="")
    match.refresh_from_db()
    document = stored_viewer(match, seats=set(), visibility=Visibility.SHOWDOWNS).document
    assert document["notes"] == ["the hands cannot be read"]


def test_two_requests_making_the_same_document_keep_one(
    match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The other request stored its document between this one's look and its write.
    real = viewer_document

    def made_twice(found: Match, **kwargs: Any) -> dict[str, Any]:
        document = real(found, **kwargs)
        ViewerDocument.objects.create(match=found, audience="showdowns", stamp="theirs",
                                      digest="theirs", document=document)  # fmt: skip
        return document

    def refused(**kwargs: Any) -> Any:
        raise IntegrityError("one_viewer_per_audience")

    monkeypatch.setattr(viewer_store, "viewer_document", made_twice)
    monkeypatch.setattr(ViewerDocument.objects, "update_or_create", refused)
    row = stored_viewer(match, seats=set(), visibility=Visibility.SHOWDOWNS)
    assert row.stamp == "theirs" and ViewerDocument.objects.filter(match=match).count() == 1


def test_an_audience_names_its_visibility_and_seats() -> None:
    assert audience(set(), Visibility.SHOWDOWNS) == "showdowns"
    assert audience({2, 0}, Visibility.NOTHING) == "nothing seats 0,2"


def test_the_document_holds_the_first_hands_and_says_how_many_there_are(
    match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site_matches, "MAX_VIEWER_HANDS", 3)
    document = stored_viewer(match, seats=set(), visibility=Visibility.SHOWDOWNS).document
    assert len(document["hands"]) == 3 and document["hands_total"] == HANDS


def test_a_viewer_page_is_drawn_once_per_etag_and_the_drawn_pages_stay_few(
    match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[int] = []
    real = site_matches.viewer_page

    def counted(*args: Any, **kwargs: Any) -> str:
        drawn.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pages, "viewer_page", counted)
    monkeypatch.setattr(pages, "_VIEWERS", DrawnPages(most=64))
    url = f"/matches/{match.pk}/hands/"
    first, second = Client().get(url), Client().get(url)
    assert first.content == second.content and len(drawn) == 1  # the second one kept
    # Past the most kept, the kept pages are let go and drawn again when asked for.
    pages._VIEWERS.most = 1
    _logged_in("ants").get(url)  # the player's own view: another ETag, another page
    assert len(drawn) == 2 and len(pages._VIEWERS) == 1
    assert Client().get(url).content == first.content and len(drawn) == 3


def test_a_current_copy_of_a_page_no_longer_kept_gets_304_without_drawing_it(
    match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"/matches/{match.pk}/hands/"
    first = Client().get(url)
    monkeypatch.setattr(pages, "_VIEWERS", DrawnPages(most=64))  # the kept pages let go

    def draw(*args: Any) -> str:
        raise AssertionError("a 304 draws no page")

    monkeypatch.setattr(pages, "viewer_page", draw)
    again = Client().get(url, headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    assert len(pages._VIEWERS) == 0  # nothing kept: no page was drawn
