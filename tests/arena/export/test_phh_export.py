"""PHH export: a ``.phhs`` collection or a file per hand, the players' names, and the
hands PHH cannot express refused with their reason."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest
from pokerkit import HandHistory

from arena.export.phh import NO_FIVE_CARD_DRAW, PHH_RAISE_LIMIT, hand_phh_fields, write_phh
from arena.export.refusals import HandRefused, replay
from arena.export.sources import SourceHand
from engine.actions import Action, AllIn, Call, Check, Fold, RaiseTo
from engine.config import BettingStructure, GameConfig, Variant
from engine.events import ActionTaken
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history
from tests.arena.export.hands import source_of
from tests.arena.export.runs import play_hands

FIXED = GameConfig(small_blind=5, big_blind=10, structure=BettingStructure.FIXED_LIMIT)


def _sources(config: GameConfig, count: int, match_id: str = "m") -> list[SourceHand]:
    return [source_of(hand, match_id) for hand in play_hands(config, count, players=3)]


def test_a_collection_holds_numbered_tables_pokerkit_loads(tmp_path: Path) -> None:
    sources = _sources(GameConfig(), 4, "rr-001") + _sources(GameConfig(), 2, "rr-002")
    out = tmp_path / "out" / "hands.phhs"
    summary = write_phh(sources, out)
    assert (summary.written, summary.refusals, summary.paths) == (6, [], [out])
    text = out.read_text()
    assert text.startswith('[1]\nvariant = "NT"\n') and "\n\n[6]\n" in text
    tables = tomllib.loads(text)
    assert list(tables) == ["1", "2", "3", "4", "5", "6"]
    assert [(t["table"], t["hand"]) for t in tables.values()][3:5] == [("rr-001", 4), ("rr-002", 1)]
    histories = list(HandHistory.loads_all(text))
    for history, table in zip(histories, tables.values(), strict=True):
        assert list(list(history)[-1].stacks) == table["finishing_stacks"]


def test_players_are_named_and_the_table_is_the_match(tmp_path: Path) -> None:
    (source,) = _sources(GameConfig(), 1)
    fields = hand_phh_fields(source, replay(source))
    # Dealing order from the left of the button (hand 1: the button is seat 1).
    assert fields["players"] == ["Name 2", "Name 0", "Name 1"]
    assert (fields["table"], fields["hand"], fields["seat_count"]) == ("m", 1, 3)


def test_a_folder_gets_a_file_per_hand_under_its_match(tmp_path: Path) -> None:
    sources = _sources(GameConfig(), 2, "a/b c")
    summary = write_phh(sources, tmp_path / "phh")
    paths = [tmp_path / "phh" / "a_b_c" / name for name in ("1.phh", "2.phh")]
    assert summary.paths == paths
    for path in paths:
        history = HandHistory.loads(path.read_text())
        assert history.table == "a/b c" and not list(history)[-1].status


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (GameConfig(structure=BettingStructure.POT_LIMIT), "PHH has no code for pot_limit"),
        (GameConfig(variant=Variant.FIVE_CARD_DRAW), "PHH has no five-card draw (its draw"),
        (
            GameConfig(variant=Variant.FIVE_CARD_DRAW, structure=BettingStructure.FIXED_LIMIT),
            "PHH has no five-card draw (its draw",
        ),
    ],
)
def test_variants_without_a_phh_code_are_refused(
    tmp_path: Path, config: GameConfig, message: str
) -> None:
    summary = write_phh(_sources(config, 3), tmp_path / "x.phhs")
    assert summary.written == 0 and summary.paths == [] and not (tmp_path / "x.phhs").exists()
    assert [r.code for r in summary.refusals] == ["unsupported_variant"] * 3
    (line,) = summary.refusal_lines()
    assert line.startswith("3 hands: ") and message in line and line.endswith("(first: m/1)")


def _raising_war(config: GameConfig) -> Hand:
    """Heads-up fixed limit: the button and the big blind raise each other five times."""
    seats = [SeatSetup(0, "p0", 1000), SeatSetup(1, "p1", 1000)]
    hand = Hand.start(config, seats, button_index=0, rng=random.Random(1))
    total = 10
    while True:
        legal = hand.legal_actions()
        assert legal is not None
        if not legal.can_raise or total >= 60:
            break
        total += 10
        hand.act(RaiseTo(total))
    while not hand.is_over:
        hand.act(Call() if hand.legal_actions().call_amount else Check())  # type: ignore[union-attr]
    return hand


def test_fixed_limit_heads_up_past_the_cap_is_refused_naming_the_option() -> None:
    hand = _raising_war(FIXED)
    raises = [e for e in hand.events if isinstance(e, ActionTaken) and e.kind == "RAISE"]
    assert len(raises) == 5 > PHH_RAISE_LIMIT  # the cap is lifted heads-up
    source = source_of(hand)
    with pytest.raises(HandRefused, match="set cap_heads_up = true") as info:
        hand_phh_fields(source, replay(source))
    assert info.value.code == "raise_cap_lifted"
    assert "5 bets and raises on the pre-flop with two players left" in info.value.message


def test_fixed_limit_heads_up_with_the_cap_kept_loads_in_pokerkit() -> None:
    capped = GameConfig(
        small_blind=5, big_blind=10, structure=BettingStructure.FIXED_LIMIT, cap_heads_up=True
    )
    hand = _raising_war(capped)
    raises = [e for e in hand.events if isinstance(e, ActionTaken) and e.kind == "RAISE"]
    assert len(raises) == 3  # the big blind and three raises
    source = source_of(hand)
    fields = hand_phh_fields(source, replay(source))
    from engine.phh import dumps_phh

    history = HandHistory.loads(dumps_phh(fields))
    assert list(list(history)[-1].stacks) == fields["finishing_stacks"]


def test_fixed_limit_short_all_ins_past_pokerkits_count_are_refused() -> None:
    # Three players keep the cap; an all-in for less than half a bet does not count
    # towards it but is one more raise for PHH's reader: bet, raise, short all-in, raise,
    # raise on the flop is five.
    seats = [SeatSetup(0, "short", 34), SeatSetup(1, "b", 1000), SeatSetup(2, "c", 1000)]
    hand = Hand.start(FIXED, seats, button_index=0, rng=random.Random(2))
    actions: list[Action] = [Call(), Call(), Check()]  # pre-flop: everyone in for 10
    actions += [RaiseTo(10), RaiseTo(20), AllIn(), RaiseTo(34), RaiseTo(44), Call()]
    for action in actions:
        hand.act(action)
    flop = [e for e in hand.events if isinstance(e, ActionTaken) and e.phase == "FLOP"]
    assert [e.is_full_raise for e in flop if e.kind == "RAISE"] == [True, True, False, True, True]
    while not hand.is_over:
        hand.act(Check())
    source = source_of(hand)
    with pytest.raises(HandRefused, match="all-ins for less than half a bet") as info:
        hand_phh_fields(source, replay(source))
    assert info.value.code == "too_many_raises"


def test_histories_that_do_not_replay_or_are_unfinished_are_refused(tmp_path: Path) -> None:
    (good, bad) = _sources(GameConfig(), 2)
    bad.history["deck"] = list(reversed(bad.history["deck"]))
    seats = [SeatSetup(0, "p0", 100), SeatSetup(1, "p1", 100)]
    unfinished = Hand.start(GameConfig(), seats, button_index=0, rng=random.Random(0))
    open_hand = SourceHand("m", 9, hand_to_history(unfinished), {})
    summary = write_phh([good, bad, open_hand], tmp_path / "h.phhs")
    assert summary.written == 1
    assert [(r.label, r.code) for r in summary.refusals] == [
        ("m/2", "bad_history"),
        ("m/9", "unfinished_hand"),
    ]
    assert "does not replay" in summary.refusals[0].message


def test_fixed_limit_draw_past_the_cap_is_refused_as_draw_not_for_its_raises() -> None:
    # A heads-up raising war in fixed-limit draw: the reason is the game, not the cap.
    draw = GameConfig(
        small_blind=5, big_blind=10, structure=BettingStructure.FIXED_LIMIT,
        variant=Variant.FIVE_CARD_DRAW,
    )  # fmt: skip
    seats = [SeatSetup(0, "p0", 1000), SeatSetup(1, "p1", 1000)]
    hand = Hand.start(draw, seats, button_index=0, rng=random.Random(1))
    for total in range(20, 70, 10):
        hand.act(RaiseTo(total))
    hand.act(Fold())  # before the draw: the hand ends here
    raises = [e for e in hand.events if isinstance(e, ActionTaken) and e.kind == "RAISE"]
    assert len(raises) > PHH_RAISE_LIMIT
    source = source_of(hand)
    with pytest.raises(HandRefused) as info:
        hand_phh_fields(source, replay(source))
    assert (info.value.code, info.value.message) == ("unsupported_variant", NO_FIVE_CARD_DRAW)
