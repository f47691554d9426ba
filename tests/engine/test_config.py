"""Game configuration: defaults, validation that names the bad value, dict round trip."""

from __future__ import annotations

import pytest

from engine.config import (
    AnteMode,
    BettingStructure,
    ConfigError,
    DrawLimit,
    GameConfig,
    Variant,
)


def test_fixed_limit_bet_sizes_default_to_big_blind_and_twice_it() -> None:
    config = GameConfig(small_blind=5, big_blind=10, structure=BettingStructure.FIXED_LIMIT)
    assert (config.small_bet, config.big_bet) == (10, 20)
    assert GameConfig(small_blind=5, big_blind=10, small_bet=20).big_bet == 40


def test_ante_only_game_uses_the_ante_as_its_bet_unit() -> None:
    config = GameConfig(small_blind=0, big_blind=0, ante=5, variant=Variant.FIVE_CARD_DRAW)
    assert (config.small_bet, config.minimum_bet) == (5, 5)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"small_blind": -1}, "small_blind must be a non-negative integer, got -1"),
        ({"big_blind": 2.5}, "big_blind must be a non-negative integer, got 2.5"),
        ({"ante": True}, "ante must be a non-negative integer, got True"),
        ({"small_blind": 5, "big_blind": 2}, "small_blind 5 is larger than big_blind 2"),
        ({"small_blind": 0, "big_blind": 0}, "both are 0"),
        ({"max_discard_count": 6}, "max_discard_count must be 0..5, got 6"),
        ({"raise_cap": 0}, "raise_cap must be at least 1, got 0"),
    ],
)
def test_bad_options_raise_config_error_naming_the_value(
    options: dict[str, object], named: str
) -> None:
    with pytest.raises(ConfigError) as info:
        GameConfig(**options)  # type: ignore[arg-type]
    assert named in str(info.value)
    assert info.value.code == "bad_config"


def test_to_dict_and_from_dict_round_trip() -> None:
    config = GameConfig(
        small_blind=2,
        big_blind=4,
        ante=1,
        variant=Variant.FIVE_CARD_DRAW,
        structure=BettingStructure.POT_LIMIT,
        ante_mode=AnteMode.BIG_BLIND,
        draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE,
    )
    data = config.to_dict()
    assert data["variant"] == "five_card_draw" and data["structure"] == "pot_limit"
    assert GameConfig.from_dict(data) == config


def test_from_dict_rejects_unknown_keys_and_bad_enum_values() -> None:
    with pytest.raises(ConfigError, match="unknown game option\\(s\\): blinds, speed"):
        GameConfig.from_dict({"speed": 1, "blinds": 2})
    with pytest.raises(ConfigError, match="structure 'no-limit' is not one of: no_limit"):
        GameConfig.from_dict({"structure": "no-limit"})


def test_cap_heads_up_is_written_only_when_true() -> None:
    # Every document written before the option existed stays byte-identical.
    assert "cap_heads_up" not in GameConfig().to_dict()
    config = GameConfig(structure=BettingStructure.FIXED_LIMIT, cap_heads_up=True)
    data = config.to_dict()
    assert data["cap_heads_up"] is True
    assert GameConfig.from_dict(data) == config
    assert GameConfig.from_dict(GameConfig().to_dict()).cap_heads_up is False


def test_cap_heads_up_must_be_a_boolean() -> None:
    with pytest.raises(ConfigError, match="cap_heads_up must be true or false, got 'yes'"):
        GameConfig.from_dict({"cap_heads_up": "yes"})
