"""The luck estimator's two settings, ``luck`` (on|off) and ``score`` (adjusted|raw):
declared once, the same for a match's flags and a tournament's file, and a bad value or a
score the estimator cannot give is an error naming it."""

from __future__ import annotations

import argparse

import pytest

from arena.cli import ArenaParser
from arena.commands import match as match_command
from arena.match.config import MatchConfig, MatchConfigError, Score
from arena.settings import REGISTRY, Luck, SettingsError, UsageError, add_groups, given, group
from arena.settings.match import match_config


def _match_parser() -> argparse.ArgumentParser:
    parser = ArenaParser(prog="arena match")
    match_command.add_arguments(parser)
    return parser


def _match_config(*flags: str) -> MatchConfig:
    args = _match_parser().parse_args(["bot.toml", *flags])
    return match_config(given(args, group(*match_command.GROUPS)), default_hands=10)


def test_luck_is_on_and_the_score_adjusted_unless_told_otherwise() -> None:
    config = _match_config()
    assert (config.luck, config.score) == (True, Score.ADJUSTED)
    off = _match_config("--luck", "OFF")  # any case, as every choice
    assert (off.luck, off.score) == (False, Score.RAW)  # raw is forced with luck off
    raw = _match_config("--score", "raw")
    assert (raw.luck, raw.score) == (True, Score.RAW)


def test_score_adjusted_with_luck_off_is_a_usage_error_saying_what_to_change() -> None:
    with pytest.raises(UsageError) as raised:
        _match_config("--luck", "off", "--score", "adjusted")
    message = str(raised.value)
    assert "--score adjusted" in message and "--luck is off" in message
    assert "--score raw" in message


def test_a_bad_flag_value_is_named_with_the_values_allowed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for flag, value in (("--luck", "maybe"), ("--score", "lucky")):
        with pytest.raises(SystemExit):
            _match_parser().parse_args(["bot.toml", flag, value])
        error = capsys.readouterr().err
        assert f"argument {flag}: invalid choice: '{value}'" in error


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("luck", "maybe", 'weekly.toml: luck = "maybe": must be on or off'),
        ("luck", 1, "weekly.toml: luck = 1: must be on or off"),
        ("score", "lucky", 'weekly.toml: score = "lucky": must be one of adjusted, raw'),
    ],
)
def test_a_bad_value_in_a_file_names_the_file_the_key_and_the_value(
    key: str, value: object, message: str
) -> None:
    with pytest.raises(SettingsError) as raised:
        REGISTRY[key].read(value, source="weekly.toml")
    assert str(raised.value).startswith(message)


def test_a_file_may_say_luck_in_words_or_as_a_boolean() -> None:
    read = REGISTRY["luck"].read
    assert [read(v, source="f") for v in ("on", "Off", True, False)] == ["on", "off", "on", "off"]
    assert REGISTRY["luck"].read("off", source="f") is Luck.OFF
    assert REGISTRY["score"].read("raw", source="f") is Score.RAW


def test_a_tournament_takes_both_flags_as_text_for_its_file_to_check() -> None:
    parser = ArenaParser(prog="arena tournament")
    add_groups(parser, "score", as_text=True)
    args = parser.parse_args(["--luck", "maybe", "--score", "raw"])
    assert given(args, group("score")) == {"luck": "maybe", "score": "raw"}
    assert given(parser.parse_args([]), group("score")) == {}


def test_the_match_config_refuses_adjusted_without_the_estimator() -> None:
    with pytest.raises(MatchConfigError, match="score 'adjusted' needs the luck estimator"):
        MatchConfig(luck=False, score=Score.ADJUSTED)
    with pytest.raises(MatchConfigError, match="score 'fast': must be adjusted or raw"):
        MatchConfig(luck=True, score="fast")  # type: ignore[arg-type]
    with pytest.raises(MatchConfigError, match="luck must be true or false, got 'on'"):
        MatchConfig(luck="on")  # type: ignore[arg-type]


def test_a_config_records_luck_only_when_on_and_reads_back_the_same() -> None:
    off = MatchConfig(seed=3)
    # Made in code the estimator is off, and the config is written as before it existed.
    assert (off.luck, off.score) == (False, Score.RAW)
    assert "luck" not in off.to_dict() and "score" not in off.to_dict()
    assert MatchConfig.from_dict(off.to_dict()) == off
    for score in Score:
        on = MatchConfig(seed=3, luck=True, score=score)
        assert on.to_dict()["luck"] is True and on.to_dict()["score"] == score.value
        assert MatchConfig.from_dict(on.to_dict()) == on
