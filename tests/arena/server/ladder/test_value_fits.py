"""The ladder's value fit (:mod:`arena.server.ladder.value_fits`): fitted on games finished
before it, once enough games are done, by one worker at a time; written whole or not at
all (a worker killed while fitting leaves nothing to use); each game made after it is
played with its weights, and a game played again keeps the fit it was made with."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone

from arena.bots.in_memory import BotOutput
from arena.luck import ESTIMATOR, LuckValue, estimate_hand, estimator_name
from arena.luck.leans import BettingLeans, match_leans
from arena.luck.made_hands import is_made
from arena.luck.value_fit import COLUMNS, UnitRow, fit_value, unit_row
from arena.match.config import MatchConfig
from arena.server.jobs.lease import lease_seconds
from arena.server.jobs.round_trip import run_together
from arena.server.ladder import config, value_fits
from arena.server.ladder.models import Game, GameStatus, RatingFit, ValueFit, ValueFitJob
from arena.server.ladder.queue import claim_next
from arena.server.ladder.value_fits import game_units, refresh_value_if_due, value_of
from arena.server.site.models import Match, MatchStatus
from arena.store.hand_log import iter_hands
from engine.cards import Card
from protocol.cards import card_from_wire
from tests.arena.scripted import Bot, calling_station, min_raiser, passive, play, ready
from tests.arena.server.factories import make_token
from tests.arena.server.ladder.conftest import SMALL, team_with
from tests.arena.session.harness import mixer

#: Two games' hands are enough to fit on (the tests' games are 4 deals: 8 hands each).
FITTING = {**SMALL, "value_fit_games": 2, "value_fit_min_hands": 16}
#: The made-hand weights' places in a unit row's columns (flop, turn, river).
MADE_HAND = [index for index, (_, name) in enumerate(COLUMNS) if name == "made_hand"]


def _cards(wire: Sequence[Any]) -> tuple[Card, ...]:
    """The cards of an ``act`` message's list in the protocol's wire form."""
    cards = [card_from_wire(card) for card in wire]
    return tuple(card for card in cards if card is not None)


def hitter(message: dict[str, Any]) -> BotOutput:
    """Raises the minimum on a street where its cards make two pair or better above the
    board's category (a made hand, as the leans count it), else checks or calls: a bot
    whose lean grows towards 1."""
    if message["type"] == "hello":
        return ready(message, "hitter")
    if message["type"] == "act" and "RAISE" in message["legal_actions"]:
        board = _cards(message["community_cards"])
        if len(board) >= 3 and is_made(_cards(message["hole_cards"]), board):
            return {"type": "action", "seq": message["seq"], "action": "RAISE",
                    "amount": message["min_raise_to"]}  # fmt: skip
    if message["type"] == "act":
        return passive(message)
    return calling_station(message)


def _done_game(
    tmp_path: Path, number: int, deals: int = 6, bots: tuple[Bot, Bot] | None = None
) -> Game:
    """A heads-up game done, its two matches played (luck on) by ``bots`` (default: a bot
    that reports mixed strategies and a raiser), the first in seat 0 then in seat 1, their
    hand logs where the site keeps a match's."""
    first = team_with(f"first{number}", "station")[1]
    second = team_with(f"second{number}", "folder")[1]
    one, two = bots or (mixer(), min_raiser)
    matches = []
    for name, seated in (("seat", [one, two]), ("swap", [two, one])):
        folder = tmp_path / f"game-{number}-{name}"
        config = MatchConfig(hand_count=deals, seed=number, luck=True)
        play(seated, config, folder)
        matches.append(Match.objects.create(
            source="ladder", external_id=f"game-{number}-{name}", status=MatchStatus.FINISHED,
            hands_file=str(folder / "hands.jsonl"),
        ))  # fmt: skip
    return Game.objects.create(first=first, second=second, status=GameStatus.DONE, seed="1",
                               deals=deals, estimator=ESTIMATOR, match_seat=matches[0],
                               match_swap=matches[1], finished=timezone.now())  # fmt: skip


def _files(game: Game) -> tuple[Path, Path]:
    """The hand logs of a heads-up game's two matches."""
    assert game.match_seat is not None and game.match_swap is not None
    return Path(game.match_seat.hands_file), Path(game.match_swap.hands_file)


def _fit_row(value: LuckValue) -> ValueFit:
    """A value fit of ``value`` (on made-up games)."""
    return ValueFit.objects.create(
        weights=value.to_dict(), digest=value.digest, estimator=estimator_name(value),
        last_game=1, game_count=1, hand_count=8, games_digest="g", created=timezone.now(),
    )  # fmt: skip


def _games_done(count: int) -> None:
    """The ratings fit's count of games done (what the value fit's cadence reads)."""
    RatingFit.objects.update_or_create(pk=1, defaults={"done_count": count})


def test_a_game_s_units_are_its_first_version_s_results_over_each_deal_s_two_seatings(
    db: None, tmp_path: Path
) -> None:
    game = _done_game(tmp_path, 1)
    seat, swap = _files(game)
    rows = game_units(seat, swap)
    assert len(rows) == game.deals
    # The first version sits at seat 0, then 1: its chips per hand over the two.
    ahead, behind = list(iter_hands(seat)), list(iter_hands(swap))
    assert [row.raw for row in rows] == [
        (estimate_hand(a).raw[0] + estimate_hand(b).raw[1]) / 2
        for a, b in zip(ahead, behind, strict=True)
    ]


def _made_hand_columns(rows: Sequence[UnitRow]) -> list[float]:
    """The rows' made-hand columns, all of them in one list."""
    return [row.columns[index] for row in rows for index in MADE_HAND]


def test_a_game_s_units_carry_the_leans_each_match_had_from_its_own_earlier_hands(
    db: None, tmp_path: Path
) -> None:
    # The hitter bets its made hands and the station never bets: once the hitter has had
    # two streets of each kind in a match, it leans, and the made-hand term moves its units.
    game = _done_game(tmp_path, 3, deals=8, bots=(hitter, calling_station))
    walked = []
    for path, hitter_seat in zip(_files(game), (0, 1), strict=True):
        records = list(iter_hands(path))
        leans = [lean for _, lean in match_leans(records)]
        for number, lean in enumerate(leans):
            # The match's hands before this one, counted afresh: not the hand itself, not
            # the other match's hands.
            earlier = BettingLeans()
            for record in records[:number]:
                earlier.observe(record["history"])
            assert lean == earlier.leans(records[number]["history"])
        hitter_id = next(seat["player_id"] for seat in records[0]["history"]["seats"]
                         if seat["seat_index"] == hitter_seat)  # fmt: skip
        assert leans[0] == {} and {hitter_id} == set().union(*leans)
        walked.append([(record, value_fits._position(record, hitter_seat), lean)
                       for record, lean in zip(records, leans, strict=True)])  # fmt: skip
    rows = game_units(*_files(game))
    pairs = list(zip(*walked, strict=True))
    assert rows == [unit_row(pair, 0.5) for pair in pairs]
    assert any(_made_hand_columns(rows))
    # Without the leans the made-hand term is 0 for every seat: nothing to fit.
    no_leans = [unit_row([(record, at, None) for record, at, _ in pair], 0.5) for pair in pairs]
    assert not any(_made_hand_columns(no_leans))
    assert [row.raw for row in no_leans] == [row.raw for row in rows]


@override_settings(ARENA_LADDER=FITTING)
def test_a_fit_on_games_of_a_bot_that_bets_its_made_hands_weighs_the_made_hand_term(
    db: None, tmp_path: Path
) -> None:
    for number in (3, 4):
        _done_game(tmp_path, number, deals=8, bots=(hitter, calling_station))
    _games_done(2)
    fit = refresh_value_if_due(config.current())
    assert fit is not None and fit.hand_count == 32
    value = value_of(fit)
    assert value is not None and set(value.made) == {0, 3, 4, 5}
    assert value.made[0] == 0.0 and any(value.made[street] for street in (3, 4, 5))
    assert fit.weights["3"]["made_hand"] == value.made[3]  # stored with the other weights


@override_settings(ARENA_LADDER=FITTING)
def test_a_fit_is_made_once_enough_games_are_done_on_the_games_finished_before_it(
    db: None, tmp_path: Path
) -> None:
    games = [_done_game(tmp_path, number) for number in (1, 2, 3)]
    settings = config.current()
    _games_done(1)
    assert refresh_value_if_due(settings) is None  # one game done: not due
    assert not ValueFit.objects.exists()
    _games_done(3)
    later = timezone.now() + timedelta(seconds=1)
    Game.objects.filter(pk=games[2].pk).update(finished=later)  # after the fit starts
    fit = refresh_value_if_due(settings, now=later - timedelta(microseconds=500))
    assert fit is not None and ValueFit.objects.get() == fit
    # The newest games done before it: game 3 finished after, so it is not fitted on.
    assert (fit.game_count, fit.hand_count, fit.last_game) == (2, 24, games[1].pk)
    rows = [game_units(*_files(game)) for game in reversed(games[:2])]
    assert value_of(fit) == fit_value(rows) != LuckValue({})
    assert fit.digest == value_of(fit).digest  # type: ignore[union-attr]
    assert fit.estimator == estimator_name(value_of(fit)) != ESTIMATOR
    # Tried at 3 games done: the next is due 2 games later, not before.
    assert ValueFitJob.objects.get().tried_at_count == 3
    assert refresh_value_if_due(settings) is None
    _games_done(5)
    assert refresh_value_if_due(settings) is not None
    assert ValueFit.objects.count() == 2


@override_settings(ARENA_LADDER=FITTING)
def test_the_store_s_gate_never_says_not_due_when_a_value_fit_is(db: None) -> None:
    # A store reads the job's count with its result (one round trip) and asks for a fit
    # only when the gate lets it through: the gate may let through what is not due (the
    # claim decides), never hold back what is.
    settings = config.current()

    def gate(done: int | None) -> bool:
        return value_fits.value_fit_may_be_due(
            run_together([value_fits.JOB_COUNT])[0], done, settings
        )

    assert gate(0) and gate(None)  # no job yet: it may be due
    ValueFitJob.objects.create(pk=1, tried_at_count=3)
    for done in range(3, 8):
        _games_done(done)
        assert gate(done) == (done >= 3 + settings.value_fit_games)
        if not gate(done):  # held back: the claim itself finds nothing due either
            assert not ValueFitJob.objects.filter(
                pk=1, tried_at_count__lte=done - settings.value_fit_games
            ).exists()
    assert gate(None)  # the games done not known: it may


@override_settings(ARENA_LADDER={**FITTING, "value_fit_min_hands": 1000})
def test_no_fit_is_made_on_fewer_hands_than_the_least_and_it_is_tried_again_later(
    db: None, tmp_path: Path
) -> None:
    _done_game(tmp_path, 1)
    _games_done(2)
    assert refresh_value_if_due(config.current()) is None
    assert not ValueFit.objects.exists()
    job = ValueFitJob.objects.get()
    assert job.tried_at_count == 2 and job.claimed_until is None


@override_settings(ARENA_LADDER=FITTING)
def test_a_worker_killed_while_fitting_leaves_no_fit_and_another_fits_once_its_claim_expires(
    db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _done_game(tmp_path, 1)
    _done_game(tmp_path, 2)
    _games_done(2)
    settings = config.current()

    # A fit that dies half-way (as a kill -9 would stop it) writes nothing...
    def dies(*args: Any) -> Any:
        raise MemoryError("killed")

    monkeypatch.setattr(value_fits, "fit_value", dies)
    with pytest.raises(MemoryError):
        refresh_value_if_due(settings)
    assert not ValueFit.objects.exists() and ValueFitJob.objects.get().tried_at_count == 0
    monkeypatch.undo()
    # ...and a worker killed outright leaves its claim, which no one else takes early.
    now = timezone.now()
    ValueFitJob.objects.update(claimed_until=now + timedelta(seconds=value_fits.CLAIM_S))
    assert refresh_value_if_due(settings, now=now) is None
    assert not ValueFit.objects.exists()
    expired = now + timedelta(seconds=value_fits.CLAIM_S + 1)
    assert refresh_value_if_due(settings, now=expired) is not None


@override_settings(ARENA_LADDER=FITTING)
def test_a_game_is_made_with_the_newest_fit_and_played_again_with_the_same_one(
    db: None, tmp_path: Path
) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    settings = config.current()
    rng = random.Random(1)
    shipped = claim_next("w0", settings, rng)
    assert shipped is not None and shipped.value_fit is None
    older = _fit_row(LuckValue({0: {"raised": 1.0}}))
    Game.objects.filter(pk=shipped.pk).update(status=GameStatus.DONE)
    game = claim_next("w1", settings, rng)
    assert game is not None and game.value_fit == older
    assert value_of(game.value_fit) == LuckValue({0: {"raised": 1.0}})
    _fit_row(LuckValue({}))
    # Its worker died: claimed again after the lease, with the fit it was made with.
    later = timezone.now() + timedelta(seconds=lease_seconds() + 1)
    again = claim_next("w2", settings, rng, now=later)
    assert again is not None and again.pk == game.pk and again.value_fit_id == older.pk


@override_settings(ARENA_LADDER={**FITTING, "value_fit_games": 1, "value_fit_min_hands": 8})
def test_the_worker_plays_games_after_a_fit_with_its_weights_and_the_api_names_the_fit(
    db: None,
) -> None:
    ants, station = team_with("ants", "station")
    team_with("bees", "random")
    call_command("ladder_worker", "--games", "1")
    fit = ValueFit.objects.get()  # made after the first game was stored
    assert fit.game_count == 1 and fit.last_game == Game.objects.order_by("pk").last().pk  # type: ignore[union-attr]
    call_command("ladder_worker", "--games", "1")
    game = Game.objects.order_by("pk").last()
    assert game is not None and game.value_fit_id == fit.pk  # (its store made the next fit)
    assert game.estimator == fit.estimator != ESTIMATOR
    hands = list(iter_hands(_files(game)[0]))
    assert {hand["luck"]["estimator"] for hand in hands} == {fit.estimator}
    api = Client().get(f"/api/v1/ladder/versions/{station.pk}/",
                       HTTP_AUTHORIZATION=f"Bearer {make_token(ants)}")  # fmt: skip
    rows = {row["id"]: row for row in api.json()["games"]}
    assert rows[game.pk]["value_fit"] == {
        "id": fit.pk, "weights": fit.digest, "games": 1, "hands": fit.hand_count,
        "last_game": fit.last_game, "games_hash": fit.games_digest,
    }  # fmt: skip
    first = min(rows)
    assert rows[first]["value_fit"] is None and rows[first]["estimator"] == ESTIMATOR


@override_settings(ARENA_LADDER={**FITTING, "value_fit_min_hands": 12})
def test_a_game_whose_hands_cannot_be_read_is_left_out_of_the_fit_not_a_crash(
    db: None, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    kept, lost = _done_game(tmp_path, 1), _done_game(tmp_path, 2)
    _files(lost)[1].unlink()  # its swap's hand log is gone
    _games_done(2)
    fit = refresh_value_if_due(config.current())
    assert fit is not None and (fit.game_count, fit.last_game) == (1, kept.pk)
    assert f"game {lost.pk}'s hands cannot be read" in caplog.text


def test_a_hand_without_the_seat_asked_for_is_named() -> None:
    with pytest.raises(ValueError, match="hand 3 has no seat 1"):
        value_fits._position({"hand_number": 3, "history": {"seats": [{"seat_index": 0}]}}, 1)


@override_settings(ARENA_LADDER=FITTING)
def test_a_fit_whose_claim_ran_out_meanwhile_writes_nothing(
    db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another worker took the job once this one's claim expired: its fit is the one kept.
    _done_game(tmp_path, 1)
    _done_game(tmp_path, 2)
    _games_done(2)

    def slow(groups: Any, weights: Any = None) -> LuckValue:
        ValueFitJob.objects.update(claimed_until=timezone.now() + timedelta(hours=1))
        return fit_value(groups, weights)

    monkeypatch.setattr(value_fits, "fit_value", slow)
    assert refresh_value_if_due(config.current()) is None
    assert not ValueFit.objects.exists() and ValueFitJob.objects.get().tried_at_count == 0


@pytest.mark.parametrize("bad", [0, -3, 2.5, "200", True])
def test_a_bad_value_fit_setting_is_named(bad: object) -> None:
    for name in ("value_fit_games", "value_fit_min_hands"):
        with (
            override_settings(ARENA_LADDER={name: bad}),
            pytest.raises(ValueError, match=f"{name} must be a positive integer, got {bad!r}"),
        ):
            config.current()


@override_settings(ARENA_LADDER={**FITTING, "value_fit_min_hands": 1})
def test_games_of_one_deal_each_give_no_fit_and_no_error(db: None, tmp_path: Path) -> None:
    # One unit per game: each game's mean is all it has (its versions' skill), nothing to
    # fit; the store that asked goes on.
    _done_game(tmp_path, 1, deals=1)
    _done_game(tmp_path, 2, deals=1)
    _games_done(2)
    assert refresh_value_if_due(config.current()) is None
    assert not ValueFit.objects.exists() and ValueFitJob.objects.get().tried_at_count == 2
