"""Which hands a report embeds."""

from __future__ import annotations

import pytest

from arena.report.selection import Candidate, HandRef, parse_hand_ref, select_hands


def _hands(count: int, *, faults: set[int] | frozenset[int] = frozenset()) -> list[Candidate]:
    return [
        Candidate(HandRef("m", n), order=n, pot=(n * 37) % 101, has_fault=n in faults)
        for n in range(1, count + 1)
    ]


def test_never_more_than_max_hands_are_chosen() -> None:
    hands = _hands(1000, faults=set(range(1, 1000, 3)))
    for budget in (0, 1, 2, 7, 200):
        assert len(select_hands(hands, budget)) == budget


def test_fault_hands_take_at_most_half_of_the_budget_earliest_first() -> None:
    chosen = select_hands(_hands(1000, faults=set(range(1, 1000, 2))), 10)
    faults = [ref.hand_number for ref, why in chosen if why == "fault"]
    assert faults == [1, 3, 5, 7, 9]


def test_every_fault_hand_is_chosen_when_there_is_room() -> None:
    chosen = dict(select_hands(_hands(500, faults={50, 400}), 20))
    assert chosen[HandRef("m", 50)] == chosen[HandRef("m", 400)] == "fault"


def test_the_biggest_pots_then_an_even_sample_fill_the_rest() -> None:
    hands = _hands(1000)
    chosen = select_hands(hands, 20)
    big = sorted((c.pot for c in hands), reverse=True)[:10]
    assert sorted((c.pot for c in hands if (c.ref, "big pot") in chosen), reverse=True) == big
    sample = [ref.hand_number for ref, why in chosen if why == "sample"]
    assert len(sample) == 10
    assert sample[0] < 100 and sample[-1] > 800  # spread over the whole run


def test_the_choice_is_the_same_every_time_and_in_plan_order() -> None:
    hands = _hands(300, faults={7, 100})
    first = select_hands(hands, 25)
    assert first == select_hands(list(hands), 25)
    orders = [ref.hand_number for ref, _why in first]
    assert orders == sorted(orders)


def test_requested_hands_are_always_in_even_beyond_the_budget() -> None:
    wanted = [HandRef("m", 5), HandRef("m", 6)]
    chosen = select_hands(_hands(100), 1, wanted)
    assert chosen == [(HandRef("m", 5), "requested"), (HandRef("m", 6), "requested")]


def test_when_the_budget_holds_every_hand_nothing_is_left_out() -> None:
    chosen = select_hands(_hands(5, faults={2}), 10)
    assert [why for _ref, why in chosen] == ["every hand", "fault", *["every hand"] * 3]


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_a_bad_budget_is_an_error_naming_it(bad: object) -> None:
    with pytest.raises(ValueError, match="max_hands must be a whole number"):
        select_hands(_hands(3), bad)  # type: ignore[arg-type]


def test_a_hand_is_named_match_slash_number() -> None:
    assert parse_hand_ref("rr-001-b01-a-vs-b/12") == HandRef("rr-001-b01-a-vs-b", 12)
    assert parse_hand_ref("a/b/3") == HandRef("a/b", 3)
    assert str(HandRef("m", 4)) == "m/4"


@pytest.mark.parametrize("bad", ["12", "m/", "/3", "m/0", "m/x", "m/-2"])
def test_a_bad_hand_name_is_an_error_naming_it(bad: str) -> None:
    with pytest.raises(ValueError, match=f"{bad!r} does not name a hand"):
        parse_hand_ref(bad)


def test_a_pot_no_bigger_than_the_usual_one_is_never_called_a_big_pot() -> None:
    # Two calling stations: nearly every pot is the blinds' 4 chips. The most common pot
    # was tagged "shown because: big pot"; only pots above the median are big, and the
    # sample takes the rest of the budget.
    hands = [
        Candidate(HandRef("m", n), order=n, pot=36 if n in (5, 50) else 4) for n in range(1, 301)
    ]
    chosen = select_hands(hands, 20)
    assert [(ref.hand_number, why) for ref, why in chosen if why == "big pot"] == [
        (5, "big pot"),
        (50, "big pot"),
    ]
    assert sum(why == "sample" for _ref, why in chosen) == 18
    assert len(select_hands([Candidate(HandRef("m", n), n, 4) for n in range(1, 99)], 8)) == 8
