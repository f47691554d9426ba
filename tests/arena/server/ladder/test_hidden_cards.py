"""A team tries to learn the cards it was not shown from everything the site lets it read
(its pages, the JSON API, its hand downloads, the ladder's seeds) and by dealing again, as
``arena match --seed`` does, from every number it finds: it learns none.

The game is real: the ladder's worker plays a duplicate pair between a calling station
(team ants, the attacker) and a bot that folds whenever it may (team bees), under the
default visibility (``showdowns``). A duplicate pair deals the same cards with the seats
swapped, so each team holds every seat's hole cards in one half or the other: what it was
never shown is the rest of each deal's deck (the board a fold left undealt, the burns).
That is what the deck seed gives away (and the next match's cards, where a seed is
used again), and what must stay hidden. The deals are fixed (a known game seed) so the
card checks below are the same in every run; the detectors are shown to find every hidden
card in what the organiser can read.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from arena.server.competition import Visibility
from arena.server.ladder import queue
from arena.server.ladder.models import Game, GameStatus
from arena.server.site.models import Match
from arena.server.site.visibility import redact_history
from arena.store.hand_log import iter_hands, read_header
from engine.deck import Deck
from engine.seeds import hand_rng
from tests.arena.server.factories import PASSWORD, make_token
from tests.arena.server.ladder.conftest import BOTS, team_with

#: The game's deck seed (the site's is secret and random: fixed here so that the card
#: checks are the same in every run).
GAME_SEED = 31_000_000_000_000_000_000_031
_CARD = re.compile(r"^[2-9TJQKA][cdhs]$")


@dataclass(frozen=True)
class Deal:
    """One deal of the game as the attacker saw it: its number, its deck and the cards the
    attacker was never shown in any half (in deck order)."""

    hand_number: int
    deck: tuple[str, ...]
    unseen: tuple[str, ...]


def _cards_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if _CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*map(_cards_in, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(_cards_in, value)) if value else set()
    return set()


def _deals(attacker: str) -> list[Deal]:
    """The organiser's truth: each deal's deck and the cards ``attacker`` was not shown in
    any match of the game, by the site's visibility rule, read from the server's files."""
    decks: dict[int, tuple[str, ...]] = {}
    seen: dict[int, set[str]] = defaultdict(set)
    for match in Match.objects.filter(source="ladder"):
        path = Path(match.hands_file)
        names = {p["player_id"]: p["name"] for p in read_header(path)["players"]}
        for record in iter_hands(path):
            history = record["history"]
            own = {s["seat_index"] for s in history["seats"] if names[s["player_id"]] == attacker}
            shown = redact_history(history, own_seats=own, visibility=Visibility.SHOWDOWNS)
            number = history["hand_number"]
            decks[number] = tuple(history["deck"])
            seen[number] |= _cards_in(shown["events"])
    return [
        Deal(number, deck, tuple(card for card in deck if card not in seen[number]))
        for number, deck in sorted(decks.items())
    ]


def _written(cards: tuple[str, ...]) -> set[str]:
    """The ways a page, a JSON answer or a download can write cards in a row."""
    return {separator.join(cards) for separator in ("", " ", '", "', '","', "', '", "|")}


def cards_read(texts: Iterable[str], deals: list[Deal]) -> int:
    """Unseen cards written in ``texts``: any three in the deck's order give the deck
    away (one or two in a row happen by chance)."""
    everything = "\n".join(texts)
    learned = 0
    for deal in deals:
        windows = [deal.unseen[i : i + 3] for i in range(len(deal.unseen) - 2)]
        if any(form in everything for window in windows for form in _written(window)):
            learned += len(deal.unseen)
    return learned


def cards_dealt_again(numbers: Iterable[int], deals: list[Deal]) -> int:
    """Unseen cards dealt again by using each number as a match seed, as ``arena match
    --seed`` deals hand ``k`` (:func:`engine.seeds.hand_rng`, a shuffled deck)."""
    learned: set[int] = set()
    for number in set(numbers):
        for deal in deals:
            again = Deck.shuffled(hand_rng(number, deal.hand_number)).order
            if tuple(str(card) for card in again) == deal.deck:
                learned.add(deal.hand_number)
    return sum(len(deal.unseen) for deal in deals if deal.hand_number in learned)


def _everything_readable(client: Client, token: str, ids: dict[str, int]) -> list[str]:
    """Every page, API answer and download team ants can read (session and token)."""
    urls = ["/", "/ladder/", "/api/v1/ladder/", "/ladder/finals/", "/ladder/finals/report/",
            "/api/v1/leaderboard/", "/api/v1/teams/", "/team/", "/tokens/",
            "/api/v1/versions/"]  # fmt: skip
    for key in ("own_team", "opponent_team"):
        urls += [f"/teams/{ids[key]}/", f"/api/v1/teams/{ids[key]}/"]
    for key in ("own_version", "opponent_version"):
        version = ids[key]
        urls += [f"/versions/{version}/", f"/api/v1/versions/{version}/",
                 f"/ladder/versions/{version}/", f"/api/v1/ladder/versions/{version}/"]  # fmt: skip
    for match in Match.objects.values_list("pk", flat=True):
        api = f"/api/v1/matches/{match}"
        urls += [f"/matches/{match}/", f"/matches/{match}/hands/", f"{api}/",
                 f"{api}/hands.phh", f"{api}/hands.acpc"]  # fmt: skip
    texts = []
    for url in urls:
        for response in (client.get(url), Client().get(url, HTTP_AUTHORIZATION=f"Bearer {token}")):
            if response.status_code == 200:
                texts.append(response.content.decode())
    return texts


def test_a_team_learns_none_of_the_cards_it_was_not_shown(
    small_ladder: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue, "game_seed", lambda _game_id: GAME_SEED)
    ants, station = team_with("ants", "station")
    bees, folder = team_with("bees", "folder")
    call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.DONE and game.seed == str(GAME_SEED)
    deals = _deals("ants-v1")
    hidden = sum(len(deal.unseen) for deal in deals)
    assert hidden > 30 * len(deals)  # the folder folds: most of each deck is never dealt

    # The detectors work: the organiser's files give every hidden card away.
    files = [Path(match.hands_file).read_text(encoding="utf-8") for match in Match.objects.all()]
    assert cards_read(files, deals) == hidden
    assert cards_dealt_again([GAME_SEED], deals) == hidden

    client = Client()
    assert client.login(username="ants-1", password=PASSWORD)
    ids = {"own_team": ants.pk, "opponent_team": bees.pk, "own_version": station.pk,
           "opponent_version": folder.pk}  # fmt: skip
    texts = _everything_readable(client, make_token(ants), ids)
    assert len(texts) > 20  # the attacker did read the site
    numbers = [int(found) for text in texts for found in re.findall(r"\d+", text)]
    assert cards_read(texts, deals) == 0
    assert cards_dealt_again(numbers, deals) == 0


@pytest.mark.slow  # a real match: a few seconds
def test_arena_match_with_the_game_s_seed_deals_the_hidden_cards(tmp_path: Path) -> None:
    # Why the seed is never published (under visibility showdowns): the command line deals
    # the same cards from it, the ladder's dealing (``cards_dealt_again``) and its own agree.
    out = tmp_path / "replay"
    command = [sys.executable, "-m", "arena.cli", "match", str(BOTS["station"] / "bot.toml"),
               str(BOTS["folder"] / "bot.toml"), "--seed", str(GAME_SEED), "--hands", "3",
               "--sandbox", "none", "--no-report", "--no-progress", "--out", str(out)]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    histories = [record["history"] for record in iter_hands(out / "hands.jsonl")]
    assert len(histories) == 3
    for history in histories:
        number = history["hand_number"]
        dealt = tuple(str(card) for card in Deck.shuffled(hand_rng(GAME_SEED, number)).order)
        assert tuple(history["deck"]) == dealt
