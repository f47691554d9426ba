"""A team downloads its own hands as PHH, ACPC log lines or JSON lines, one match's or a
version's every match's (streamed), with the other seat's hole cards hidden as the site's
visibility says; another team's match or version has no download."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.http import StreamingHttpResponse
from django.test import Client

from arena.export.phh import hand_phh_fields
from arena.export.refusals import HandRefused
from arena.export.sources import SourceHand, open_source
from arena.server.competition import Visibility
from arena.server.site import downloads
from arena.server.site.downloads import export_hands
from arena.server.site.models import Match, MatchSeat, MatchStatus, SiteSettings, VersionStatus
from arena.server.site.visibility import HIDDEN_CARD
from tests.arena.server.factories import PASSWORD, make_team, make_token, make_version, write_hands


def _dealt(text: str) -> dict[str, list[str]]:
    dealt: dict[str, list[str]] = {"p1": [], "p2": []}
    for player, cards in re.findall(r'"d dh (p\d) (\S+?)"', text):
        dealt[player].append(cards)
    return dealt


def test_phh_hides_the_other_seats_cards_unless_shown(tmp_path: Path) -> None:
    source = open_source(write_hands(tmp_path / "hands.jsonl", count=8))
    every = export_hands(source.hands(), "phh", own_seats={0}, visibility=Visibility.EVERYTHING)
    shown = export_hands(source.hands(), "phh", own_seats={0}, visibility=Visibility.SHOWDOWNS)
    assert "??" not in every and "????" in shown
    for full, seen in zip(every.split("\n["), shown.split("\n["), strict=True):
        seats = re.search(r"seats = \[(\d+), (\d+)\]", full)
        assert seats is not None
        own = f"p{[int(seats.group(1)), int(seats.group(2))].index(1) + 1}"
        other = "p2" if own == "p1" else "p1"
        assert _dealt(full)[own] == _dealt(seen)[own]  # our own cards, always
        was_shown = re.search(rf'"{other} sm \w+"', full) is not None
        assert _dealt(seen)[other] == (_dealt(full)[other] if was_shown else ["????"])


def test_acpc_leaves_a_hidden_hand_empty(tmp_path: Path) -> None:
    source = open_source(write_hands(tmp_path / "hands.jsonl", count=8))
    full = export_hands(source.hands(), "acpc", own_seats={0}, visibility=Visibility.EVERYTHING)
    mine = export_hands(source.hands(), "acpc", own_seats={0}, visibility=Visibility.NOTHING)
    full_cards = [line.split(":")[3] for line in full.splitlines() if line.startswith("STATE")]
    seen_cards = [line.split(":")[3] for line in mine.splitlines() if line.startswith("STATE")]
    assert len(full_cards) == len(seen_cards) == 8
    for complete, seen in zip(full_cards, seen_cards, strict=True):
        holes = complete.partition("/")[0].split("|")
        kept = seen.partition("/")[0].split("|")
        assert sum(hole == "" for hole in kept) == 1 and set(kept) - {""} <= set(holes)


@pytest.mark.usefixtures("db")
def test_a_team_downloads_its_own_match_only(tmp_path: Path) -> None:
    ants, bees = make_team("ants"), make_team("bees")
    match = Match.objects.create(
        status=MatchStatus.FINISHED,
        source="ladder",
        external_id="1",
        hands_file=str(write_hands(tmp_path / "hands.jsonl")),
    )
    MatchSeat.objects.create(match=match, seat_index=0, name="ants", team=ants)
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "everything"})
    own = Client().get(
        f"/api/v1/matches/{match.pk}/hands.acpc",
        headers={"Authorization": f"Bearer {make_token(ants)}"},
    )
    assert own.status_code == 200 and own.content.decode().count("STATE:") == 6
    assert own["Content-Disposition"] == f'attachment; filename="match-{match.pk}.log"'
    other = Client().get(
        f"/api/v1/matches/{match.pk}/hands.acpc",
        headers={"Authorization": f"Bearer {make_token(bees)}"},
    )
    assert other.status_code == 404
    unknown = Client().get(
        f"/api/v1/matches/{match.pk}/hands.txt",
        headers={"Authorization": f"Bearer {make_token(ants)}"},
    )
    assert unknown.status_code == 404


# -- JSON lines and a version's every hand, streamed -------------------------------------------


def test_json_lines_are_the_redacted_histories(tmp_path: Path) -> None:
    source = open_source(write_hands(tmp_path / "hands.jsonl", count=8))
    text = export_hands(source.hands(), "jsonl", own_seats={0}, visibility=Visibility.NOTHING)
    records = [json.loads(line) for line in text.splitlines()]
    assert [record["hand_number"] for record in records] == list(range(1, 9))
    for record in records:
        history = record["history"]
        assert "seed" not in history and "deck" not in history
        dealt = {e["seat_index"]: e["cards"] for e in history["events"]
                 if e["type"] == "hole_cards_dealt"}  # fmt: skip
        assert HIDDEN_CARD not in dealt[0] and dealt[1] == [HIDDEN_CARD, HIDDEN_CARD]


def test_an_unknown_format_is_refused_by_name(tmp_path: Path) -> None:
    source = open_source(write_hands(tmp_path / "hands.jsonl", count=1))
    with pytest.raises(ValueError, match="'txt'"):
        export_hands(source.hands(), "txt", own_seats={0}, visibility=Visibility.NOTHING)


@pytest.fixture
def played(db: None, tmp_path: Path) -> dict[str, Any]:
    """ants-v1 played bees-v1 twice (seat 0, then seat 1) and a third match whose hand file
    is gone; ants-v2 played once (not in v1's download)."""
    ants, bees = make_team("ants"), make_team("bees")
    ours, theirs = (make_version(team, status=VersionStatus.ACCEPTED) for team in (ants, bees))
    newer = make_version(ants, status=VersionStatus.ACCEPTED)
    matches = []
    for number, (own_seat, version) in enumerate(((0, ours), (1, ours), (0, ours), (0, newer))):
        path = write_hands(tmp_path / f"m{number}" / "hands.jsonl", count=3)
        if number == 2:
            path = tmp_path / "secret-gone" / "hands.jsonl"
        match = Match.objects.create(status=MatchStatus.FINISHED, source="ladder",
                                     external_id=f"m{number}", hands_file=str(path))  # fmt: skip
        MatchSeat.objects.create(match=match, seat_index=own_seat, name="ants", team=ants,
                                 version=version)  # fmt: skip
        MatchSeat.objects.create(match=match, seat_index=1 - own_seat, name="bees", team=bees,
                                 version=theirs)  # fmt: skip
        matches.append(match)
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "showdowns"})
    return {"ants": ants, "bees": bees, "version": ours, "matches": matches}


def _bulk(played: dict[str, Any], fmt: str, team: Any = None) -> Any:
    token = make_token(team or played["ants"])
    return Client().get(
        f"/api/v1/versions/{played['version'].pk}/hands.{fmt}",
        headers={"Authorization": f"Bearer {token}"},
    )


def _streamed(response: Any) -> str:
    """A streamed response's whole text (the test client's iterator is synchronous)."""
    assert isinstance(response, StreamingHttpResponse)
    return b"".join(response.streaming_content).decode()  # type: ignore[arg-type]


def test_a_versions_hands_stream_as_the_single_downloads_do(played: dict[str, Any]) -> None:
    response = _bulk(played, "phh")
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Disposition"] == 'attachment; filename="ants-v1.phhs"'
    text = _streamed(response)
    first, second, gone, newer = played["matches"]
    assert f"# match {first.pk}\n" in text and f"# match {second.pk}\n" in text
    assert f"# match {gone.pk}: its hands cannot be read\n" in text and "secret-gone" not in text
    assert f"# match {newer.pk}" not in text  # another version's match
    assert re.findall(r"^\[(\d+)\]$", text, re.M) == [str(n) for n in range(1, 7)]
    # Each match's part is exactly its single download (the same redaction, own seats).
    token = make_token(played["ants"])
    for match in (first, second):
        single = Client().get(f"/api/v1/matches/{match.pk}/hands.acpc",
                              headers={"Authorization": f"Bearer {token}"})  # fmt: skip
        bulk = _streamed(_bulk(played, "acpc"))
        part = bulk.split(f"# match {match.pk}\n")[1].split("# match")[0]
        assert part == single.content.decode()


def test_a_versions_json_lines_hide_the_opponents_cards_in_either_seat(
    played: dict[str, Any],
) -> None:
    text = _streamed(_bulk(played, "jsonl"))
    records = [json.loads(line) for line in text.splitlines()]  # records only: no comment
    assert len(records) == 6
    for index, record in enumerate(records):
        own = 0 if index < 3 else 1  # ants sat in seat 0, then in seat 1
        events = record["history"]["events"]
        shown = {e["seat_index"] for e in events if e["type"] == "hand_shown"}
        for event in (e for e in events if e["type"] == "hole_cards_dealt"):
            hidden = event["seat_index"] != own and event["seat_index"] not in shown
            assert (HIDDEN_CARD in event["cards"]) == hidden


def test_a_versions_hands_are_its_teams_only(played: dict[str, Any]) -> None:
    assert _bulk(played, "phh", played["bees"]).status_code == 404
    assert _bulk(played, "txt").status_code == 404
    visitor = Client().get(f"/api/v1/versions/{played['version'].pk}/hands.phh")
    assert visitor.status_code == 404


def test_the_match_page_offers_a_teams_own_hands_only(played: dict[str, Any]) -> None:
    match = played["matches"][0]
    own, other = Client(), Client()
    assert own.login(username="ants-1", password=PASSWORD)
    assert other.login(username="cats-1", password=PASSWORD) is False  # no such member
    make_team("cats")
    assert other.login(username="cats-1", password=PASSWORD)
    assert (
        f"/api/v1/matches/{match.pk}/hands.phh" in own.get(f"/matches/{match.pk}/").content.decode()
    )
    assert "hands.phh" not in other.get(f"/matches/{match.pk}/").content.decode()


def test_a_single_download_of_lost_hands_names_no_path(played: dict[str, Any]) -> None:
    gone = played["matches"][2]
    token = make_token(played["ants"])
    response = Client().get(
        f"/api/v1/matches/{gone.pk}/hands.phh", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 404 and "secret-gone" not in response.content.decode()


def test_a_match_without_a_hand_file_is_named_not_read(played: dict[str, Any]) -> None:
    # An empty path would be the server's working folder: it is never opened.
    gone = played["matches"][2]
    Match.objects.filter(pk=gone.pk).update(hands_file="")
    text = _streamed(_bulk(played, "acpc"))
    assert f"# match {gone.pk}: its hands cannot be read\n" in text
    assert text.count("STATE:") == 6


def test_a_hand_the_format_cannot_express_is_left_out_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = open_source(write_hands(tmp_path / "hands.jsonl", count=3))
    real = hand_phh_fields

    def refuse_the_second(hand: SourceHand, replayed: Any) -> dict[str, Any]:
        if hand.hand_number == 2:
            raise HandRefused("unsupported_variant", "PHH cannot say this")
        return real(hand, replayed)

    monkeypatch.setattr(downloads, "hand_phh_fields", refuse_the_second)
    text = export_hands(source.hands(), "phh", own_seats={0}, visibility=Visibility.EVERYTHING)
    assert f"# {source.matches[0].match_id}/2 left out: PHH cannot say this\n" in text
    assert re.findall(r"^\[(\d+)\]$", text, re.M) == ["1", "3"]
