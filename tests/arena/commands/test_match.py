"""``arena match``'s score table (:func:`arena.commands.match.score_table`): raw always,
adjusted and luck when the estimator ran, each over the hands the bot was dealt."""

from __future__ import annotations

from arena.commands.match import score_table
from arena.match.results import MatchResult, PlayerResult
from arena.store.outcome import HandSummary


def _rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        if line.startswith("│"):
            rows[cells[0]] = cells[1:]
    return rows


def test_without_the_estimator_only_the_raw_result_is_shown_and_it_says_so() -> None:
    hands = (HandSummary(1, 2, (2, -2)), HandSummary(2, 2, (-1, 1)))
    players = (PlayerResult("p0", "ann", 0, 2, 1, 0.5), PlayerResult("p1", "bob", 1, 2, -1, -0.5))
    text = score_table(MatchResult("m", 1, "hands", 2, players, hands=hands), score="raw")
    assert text.splitlines()[0].endswith("score raw; luck estimator off; rows by raw")
    assert "adjusted" not in text and "luck  " not in text
    assert _rows(text)["ann"] == ["+250 ± 9530"]


def test_a_busted_bot_is_measured_over_the_hands_it_was_dealt() -> None:
    # Freezeout: bob busts in hand 2; hands 3 and 4 are ann's and cal's only.
    hands = (
        HandSummary(1, 2, (2, -2, 0), adjusted=(1.0, -1.0, 0.0)),
        HandSummary(2, 2, (10, -18, 8), adjusted=(4.0, -8.0, 4.0)),
        HandSummary(3, 4, (4, 0, -4), adjusted=(2.0, 0.0, -2.0)),
        HandSummary(4, 4, (-4, 0, 4), adjusted=(-2.0, 0.0, 2.0)),
    )
    players = (
        PlayerResult("p0", "ann", 0, 4, 12, 5.0, place=1),
        PlayerResult("p1", "bob", 1, 2, -20, -10.0, place=3, eliminated_in_hand=2),
        PlayerResult("p2", "cal", 2, 4, 8, 4.0, place=2),
    )
    result = MatchResult("m", 1, "freezeout", 4, players, estimator="e/1", hands=hands)
    rows = _rows(score_table(result, score="adjusted"))
    assert list(rows) == ["ann", "cal", "bob"]  # by place, as the first line says
    assert score_table(result, score="adjusted").splitlines()[0].endswith("rows by place")
    # bob: (-1000 - 9000) / 2 raw, (-500 - 4000) / 2 adjusted, over its 2 hands only.
    assert rows["bob"][0].startswith("-5000 ± ") and rows["bob"][1].startswith("-2250 ± ")
    assert rows["bob"][2] == "-2750"
    assert (
        rows["ann"][2] == f"{(1000 + 5000 + 1000 - 1000) / 4 - (500 + 2000 + 500 - 500) / 4:+.0f}"
    )


def test_one_hand_has_no_interval_yet() -> None:
    hands = (HandSummary(1, 2, (2, -2), adjusted=(0.5, -0.5)),)
    players = (PlayerResult("p0", "ann", 0, 1, 2, 1.0), PlayerResult("p1", "bob", 1, 1, -2, -1.0))
    result = MatchResult("m", 1, "hands", 1, players, estimator="e/1", hands=hands)
    assert _rows(score_table(result, score="adjusted"))["ann"] == ["+1000 ± -", "+250 ± -", "+750"]


def test_rows_are_ordered_by_the_score_the_match_is_measured_by() -> None:
    # ann won the chips (raw) but bob played better once the luck is taken out: with the
    # adjusted score, bob's row comes first, as the number it is measured by says.
    hands = (
        HandSummary(1, 2, (8, -8), adjusted=(-2.0, 2.0)),
        HandSummary(2, 2, (2, -2), adjusted=(-1.0, 1.0)),
    )
    # Their places are those of the chips, as a match with stacks reset gives them.
    players = (
        PlayerResult("p0", "ann", 0, 2, 10, 5.0, place=1),
        PlayerResult("p1", "bob", 1, 2, -10, -5.0, place=2),
    )
    result = MatchResult("m", 1, "hands", 2, players, estimator="e/1", hands=hands)
    text = score_table(result, score="adjusted")
    assert list(_rows(text)) == ["bob", "ann"] and text.splitlines()[0].endswith("rows by adjusted")
    assert list(_rows(score_table(result, score="raw"))) == ["ann", "bob"]
