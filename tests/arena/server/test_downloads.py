"""A team downloads its own hands as PHH or ACPC log lines, with the other seat's hole cards
hidden as the site's visibility says; another team's match has no download."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from arena.export.sources import open_source
from arena.server.competition import Visibility
from arena.server.site.downloads import export_hands
from arena.server.site.models import Match, MatchSeat, MatchStatus, SiteSettings
from tests.arena.server.factories import make_team, make_token, write_hands


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
