"""The score selector (:mod:`arena.stats.scores`) and what reads through it: duplicate units,
the tables and each match's luck, over raw or luck-adjusted results, with bad input named."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from arena.stats.match_luck import match_luck
from arena.stats.scores import check_score, counts_adjusted, hand_values
from arena.stats.tables import crosstable, leaderboard
from arena.stats.units import duplicate_units, plain_units
from arena.store.outcome import HandSummary
from tests.arena.stats.adjusted_outcomes import block_outcomes, synthetic_match

SKILL = {"ann": 5.0, "bob": -5.0}


def test_the_adjusted_units_of_a_block_are_the_mean_over_its_seatings() -> None:
    first, second = block_outcomes("b1", ("ann", "bob"), deals=3, skill=SKILL)
    units = duplicate_units([first, second], score="adjusted")
    for number, unit in enumerate(units, start=1):
        ann_first = first.hands[number - 1].adjusted[0]  # type: ignore[index]
        ann_second = second.hands[number - 1].adjusted[1]  # type: ignore[index]
        assert unit["ann"] == pytest.approx(1000.0 * (ann_first + ann_second) / 2 / 2)
    assert duplicate_units([first, second]) == duplicate_units([first, second], score="raw")


def test_one_match_alone_gives_a_unit_per_hand_in_either_score() -> None:
    match = synthetic_match("m", ("ann", "bob"), deals=4, deal_seed="s", skill=SKILL)
    raw, adjusted = plain_units(match), plain_units(match, score="adjusted")
    assert len(raw) == len(adjusted) == 4
    assert adjusted[0]["ann"] == 1000.0 * match.hands[0].adjusted[0] / 2  # type: ignore[index]


def test_a_hand_without_adjusted_results_cannot_be_scored_adjusted() -> None:
    match = synthetic_match(
        "m", ("ann", "bob"), deals=2, deal_seed="s", skill=SKILL, with_adjusted=False
    )
    assert not counts_adjusted([match])
    with pytest.raises(ValueError, match=r"match 'm' hand 1 carries no adjusted result"):
        plain_units(match, score="adjusted")
    assert match_luck(match) is None


@pytest.mark.parametrize(
    ("adjusted", "message"),
    [
        ((1.0,), "1 adjusted results for 2 seats"),
        ((math.nan, 0.0), "are not finite"),
        ((math.inf, 0.0), "are not finite"),
    ],
)
def test_bad_adjusted_results_are_named(adjusted: tuple[float, ...], message: str) -> None:
    match = synthetic_match("m", ("ann", "bob"), deals=1, deal_seed="s", skill=SKILL)
    bad = replace(match, hands=(replace(match.hands[0], adjusted=adjusted),))
    with pytest.raises(ValueError, match=message):
        plain_units(bad, score="adjusted")
    with pytest.raises(ValueError, match=message):
        match_luck(bad)


def test_a_bad_score_is_named_everywhere() -> None:
    match = synthetic_match("m", ("ann", "bob"), deals=1, deal_seed="s", skill=SKILL)
    for call in (
        lambda: check_score("luck"),
        lambda: plain_units(match, score="luck"),  # type: ignore[arg-type]
        lambda: duplicate_units([match], score="luck"),  # type: ignore[arg-type]
        lambda: leaderboard([], {}, {}, score="luck"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ValueError, match="score must be 'raw' or 'adjusted', got 'luck'"):
            call()


def test_the_raw_score_reads_the_nets_as_they_are() -> None:
    hand = HandSummary(1, 2, (3, -3), adjusted=(0.5, -0.5))
    assert hand_values(hand, "raw") == (3, -3)
    assert hand_values(hand, "adjusted") == (0.5, -0.5)


def test_the_adjusted_score_needs_the_adjusted_units_of_the_same_bots() -> None:
    units = [{"ann": 1.0, "bob": -1.0}, {"ann": 3.0, "bob": -3.0}]
    with pytest.raises(ValueError, match="score 'adjusted' needs the adjusted units"):
        leaderboard(units, {}, {}, score="adjusted")
    with pytest.raises(ValueError, match="the same units of the same bots"):
        leaderboard(units, {}, {}, adjusted_units=units[:1])
    with pytest.raises(ValueError, match="score 'adjusted' needs the adjusted units"):
        crosstable({("ann", "bob"): [1.0, 2.0]}, score="adjusted")
    with pytest.raises(ValueError, match="the same units of the same pairs"):
        crosstable({("ann", "bob"): [1.0, 2.0]}, adjusted_pair_units={("ann", "bob"): [1.0]})
    with pytest.raises(ValueError, match="adjusted_pair_units key 'ann' is not a"):
        crosstable({("ann", "bob"): [1.0]}, adjusted_pair_units={"ann": [1.0]})  # type: ignore[dict-item]


def test_a_bot_without_units_has_no_luck() -> None:
    board = leaderboard(
        [{"ann": 1.0, "bob": -1.0}], {"cat": 0}, {}, adjusted_units=[{"ann": 0.5, "bob": -0.5}]
    )
    cat = board.row("cat")
    assert cat.adjusted is not None and cat.adjusted.n == 0 and cat.luck is None
    assert board.row("ann").luck == 0.5
    assert board.to_dict()["rows"][-1]["luck_mbb_per_hand"] is None


def test_a_hand_without_a_big_blind_is_left_out_of_the_match_rates() -> None:
    match = synthetic_match("m", ("ann", "bob"), deals=2, deal_seed="s", skill=SKILL)
    ante_only = replace(match, hands=(match.hands[0], replace(match.hands[1], big_blind=0)))
    seat = match_luck(ante_only).seats[0]  # type: ignore[union-attr]
    first = match.hands[0]
    assert seat.raw_mbb == 1000.0 * first.nets[0] / 2
    assert seat.adjusted_mbb == 1000.0 * first.adjusted[0] / 2  # type: ignore[index]
    assert seat.hands == 2 and seat.raw_chips == sum(hand.nets[0] for hand in match.hands)
