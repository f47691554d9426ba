"""The one grammar of values: whole numbers, numbers, choices, durations, sizes, periods."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.settings import grammar
from arena.settings.grammar import (
    boolean,
    choice,
    from_text,
    number,
    one_of,
    parse_duration,
    parse_period,
    path,
    size,
    whole,
)
from engine.config import Variant


@pytest.mark.parametrize(
    ("parse", "value", "message"),
    [
        (whole(1, 10), 0, "must be at least 1 (a whole number from 1 to 10)"),
        (whole(0, 10), -1, "must not be negative (a whole number from 0 to 10)"),
        (whole(1, 10), 11, "must be at most 10 (a whole number from 1 to 10)"),
        (whole(1, 10), "5", "must be a whole number from 1 to 10"),
        (whole(), True, "must be a whole number"),
        (number(low=0, high=0.5, low_open=True), 0, "must be a number above 0 and below 0.5"),
        (number(low=0, high=1), float("nan"), "must be a number from 0 and below 1"),
        (boolean, "yes", "must be true or false"),
        (choice(Variant), "holdam", "(did you mean 'holdem'?)"),
        (choice(Variant), 3, "must be one of holdem, five_card_draw"),
        (one_of(("info", "off")), "of", "(did you mean 'off'?)"),
        (one_of(("info", "off")), 3, "must be one of info, off"),
        (path, "", "must be a path"),
        (size, "0", "must be at least 1 byte"),
    ],
)
def test_a_bad_value_says_what_is_allowed(
    parse: grammar.Parser, value: object, message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        parse(value)
    assert message in str(caught.value)


def test_good_values_are_read() -> None:
    assert whole(1)(5) == 5 and number(low=0, high=1)(0.5) == 0.5
    assert choice(Variant)("five_card_draw") is Variant.FIVE_CARD_DRAW
    assert one_of(("info", "off"))("INFO") == "info"
    assert path(Path("a")) == Path("a") == path("a")
    assert size("1KiB") == 1024


@pytest.mark.parametrize(
    ("text", "seconds"), [("5", 5.0), ("2.5s", 2.5), ("250ms", 0.25), ("10m", 600.0), (3, 3.0)]
)
def test_a_duration_is_seconds_with_an_optional_unit(text: object, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("value", "options", "message"),
    [
        ("soon", {}, "is not a duration (seconds, e.g. 5, 2.5s, 250ms or 10m)"),
        (True, {}, "must be a duration, above 0"),
        (-1, {"allow_zero": True}, "must be a duration, 0 or more"),
        ("0", {}, "must be a positive duration"),
        (7200, {}, "must be at most 3600 seconds"),
    ],
)
def test_a_bad_duration_says_what_a_duration_is(
    value: object, options: dict[str, bool], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_duration(value, **options)


def test_a_long_duration_is_allowed_where_there_is_no_maximum() -> None:
    assert parse_duration("7200", maximum=None) == 7200.0


@pytest.mark.parametrize(
    ("text", "timing"),
    [
        ("50", {"every_hands": 50}),
        ("50h", {"every_hands": 50}),
        ("25hands", {"every_hands": 25}),
        ("90s", {"every_seconds": 90.0}),
        ("10m", {"every_seconds": 600.0}),
    ],
)
def test_a_period_is_hands_or_a_duration_with_its_unit(text: str, timing: dict[str, float]) -> None:
    assert parse_period(text) == timing


@pytest.mark.parametrize("text", ["0", "x", "0s", "5 parsecs", ""])
def test_a_bad_period_is_named(text: str) -> None:
    with pytest.raises(ValueError, match="is not a positive number of hands"):
        parse_period(text)


def test_flag_text_is_read_by_kind_and_left_alone_when_it_does_not_read() -> None:
    assert from_text("int", " 7 ") == 7 and from_text("seed", "9") == 9
    assert from_text("number", "0.5") == 0.5 and from_text("number", "x") == "x"
    assert from_text("bool", "off") is False and from_text("bool", "maybe") == "maybe"
    assert from_text("text", "a") == "a" and from_text("int", 3) == 3
