"""Settings declared once: the registry, the groups, the flags derived from them, and the
match built from them."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from arena.cli import ArenaParser
from arena.match.config import MatchConfig, StackPolicy
from arena.settings import REGISTRY, SettingsError, UsageError, add_groups, declare, given, group
from arena.settings.flags import value_type
from arena.settings.grammar import whole
from arena.settings.match import match_config
from arena.tournament.config import GameSettings, SitAndGoSettings, SprtSettings, TimeSettings


def test_a_key_or_an_attribute_declared_twice_is_a_bug() -> None:
    with pytest.raises(AssertionError, match="declared twice"):
        declare("deals", whole(1), 1, "--deals", "again", group="tournament")
    with pytest.raises(AssertionError, match="declared twice"):
        declare("other.deals", whole(1), 1, "--other", "again", group="tournament")


def test_an_unknown_group_is_named() -> None:
    with pytest.raises(KeyError, match="no settings group 'gmae'"):
        group("gmae")


def test_every_setting_has_help_and_every_flag_is_unique() -> None:
    flags: list[str] = []
    for setting in REGISTRY.values():
        assert setting.help, setting.key
        if setting.flag is not None:
            flags += [setting.flag, *setting.aliases]
    assert len(flags) == len(set(flags))
    assert REGISTRY["sprt.alpha"].leaf == "alpha" and REGISTRY["sprt.alpha"].table == "sprt"
    assert REGISTRY["deals"].table == ""


def test_the_tournaments_defaults_are_the_declared_ones() -> None:
    for cls, table in (
        (GameSettings, "game"),
        (TimeSettings, "limits"),
        (SprtSettings, "sprt"),
        (SitAndGoSettings, "sit_and_go"),
    ):
        for item in dataclasses.fields(cls):
            key = f"{table}.{item.name.removesuffix('_s')}"
            assert item.default == REGISTRY[key].default, key


def test_a_matchs_defaults_are_the_declared_ones() -> None:
    config = MatchConfig()
    limits = config.time_limits
    assert limits.decision_s == REGISTRY["limits.decision_timeout"].default
    assert limits.startup_s == REGISTRY["limits.startup_timeout"].default
    assert limits.time_bank_s == REGISTRY["limits.time_bank"].default
    assert limits.time_basis is REGISTRY["limits.time_basis"].default
    assert config.starting_stack == REGISTRY["game.starting_stack"].default


def test_a_settings_read_names_its_source_key_and_value() -> None:
    with pytest.raises(SettingsError) as caught:
        REGISTRY["deals"].read("x", source="command line", is_text=True)
    assert (
        str(caught.value)
        == 'command line: deals = "x": must be a whole number from 1 to 10,000,000'
    )
    assert isinstance(caught.value, UsageError) and caught.value.exit_code == 2


def _parser(*groups: str, **options: object) -> argparse.ArgumentParser:
    parser = ArenaParser(prog="arena test")
    add_groups(parser, *groups, **options)  # type: ignore[arg-type]
    return parser


def test_an_old_spelling_sets_the_same_setting_and_is_not_shown() -> None:
    parser = _parser("game")
    assert parser.parse_args(["--structure", "pot_limit"]).betting == "pot_limit"
    assert parser.parse_args([]).betting == REGISTRY["game.betting"].default
    assert parser.parse_args(["--variant", "HOLDEM"]).variant == "holdem"  # any case
    assert "--structure" not in parser.format_help()


def test_flags_kept_as_text_are_none_when_not_given() -> None:
    parser = _parser("tournament", as_text=True)
    args = parser.parse_args(["--deals", "many", "--format", "swiss"])
    assert given(args, group("tournament")) == {"deals": "many", "format": "swiss"}
    assert "--format {round_robin,gauntlet,ring,sit_and_go}" in parser.format_help()


def test_a_command_may_keep_some_flags_and_change_defaults() -> None:
    parser = _parser(
        "tournament",
        "limits",
        only=("deals", "limits.decision_timeout"),
        defaults={"limits.decision_timeout": 2.0},
        exclude=("deals",),
    )
    text = " ".join(parser.format_help().split())
    assert "--deals" not in text and "(seconds, or e.g. 250ms) (default: 2)" in text
    assert parser.parse_args([]).decision_timeout == 2.0


def test_a_commands_own_argument_uses_the_same_grammar() -> None:
    parser = ArenaParser(prog="arena test")
    parser.add_argument("--seat", type=value_type(whole(0), "int"))
    assert parser.parse_args(["--seat", "3"]).seat == 3
    with pytest.raises(SystemExit):
        parser.parse_args(["--seat", "x"])


def _values(**values: object) -> dict[str, object]:
    return {key.replace("__", "."): value for key, value in values.items()}


def test_a_match_is_built_from_the_settings() -> None:
    config = match_config(
        _values(hands=None, freezeout=True, game__betting="fixed_limit", seed=4),
        default_hands=100,
        match_id="m",
        prefetch=False,
    )
    assert config.stack_policy is StackPolicy.FREEZEOUT and config.hand_count is None
    assert config.game.structure.value == "fixed_limit" and config.seed == 4
    assert (config.match_id, config.prefetch) == ("m", False)
    carry = match_config(_values(no_reset=True), default_hands=7)
    assert (carry.stack_policy, carry.hand_count) == (StackPolicy.CARRY, 7)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"game.small_blind": 5}, "small_blind 5 is larger than big_blind"),
        ({"schedule": "1/2"}, "argument --schedule: schedule '1/2' has no '@PERIOD'"),
        ({"schedule": "2/4,1/2@5"}, "argument --schedule: "),
        ({"game.ante": -1}, "game.ante = -1: must not be negative"),
    ],
)
def test_a_bad_match_setting_is_a_usage_error(values: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        match_config(values, default_hands=10)


def test_a_bad_match_config_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="restart_budget"):
        match_config({}, default_hands=10, restart_budget=-1)
