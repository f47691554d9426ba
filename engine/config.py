"""The rules of one game: variant, betting structure, blinds and antes.

>>> config = GameConfig(small_blind=5, big_blind=10)
>>> config.variant, config.structure, config.small_bet, config.big_bet
(<Variant.HOLDEM: 'holdem'>, <BettingStructure.NO_LIMIT: 'no_limit'>, 10, 20)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["AnteMode", "BettingStructure", "ConfigError", "DrawLimit", "GameConfig", "Variant"]


class ConfigError(ValueError):
    """A game configuration that cannot be played; the message names the bad value."""

    code = "bad_config"


class Variant(StrEnum):
    """Which poker game is dealt."""

    HOLDEM = "holdem"
    FIVE_CARD_DRAW = "five_card_draw"


class BettingStructure(StrEnum):
    """How much a player may bet or raise."""

    NO_LIMIT = "no_limit"
    POT_LIMIT = "pot_limit"
    FIXED_LIMIT = "fixed_limit"


class AnteMode(StrEnum):
    """Who pays the ante: every player, or the big blind for the whole table."""

    EVERY_PLAYER = "every_player"
    BIG_BLIND = "big_blind"


class DrawLimit(StrEnum):
    """How many cards a five-card-draw player may discard."""

    ANY = "any"  # up to ``max_discard_count`` (default 5)
    THREE_OR_FOUR_WITH_ACE = "three_or_four_with_ace"  # common house rule


@dataclass(frozen=True, slots=True)
class GameConfig:
    """One table's rules. Amounts are integer chips; options are keyword-only."""

    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    variant: Variant = Variant.HOLDEM
    structure: BettingStructure = BettingStructure.NO_LIMIT
    ante_mode: AnteMode = AnteMode.EVERY_PLAYER
    # Fixed-limit: the small bet on the first rounds, the big bet on the later ones
    # (default: big blind and twice the big blind).
    small_bet: int = field(default=0)
    big_bet: int = field(default=0)
    # Fixed-limit cap: one bet and three raises per round, lifted heads-up (when only two
    # players are left in the hand) unless ``cap_heads_up``: some hosts (and PHH readers
    # such as pokerkit) keep the cap whatever the number of players.
    raise_cap: int = 4
    max_discard_count: int = 5
    draw_limit: DrawLimit = DrawLimit.ANY
    cap_heads_up: bool = False

    def __post_init__(self) -> None:
        for name in ("small_blind", "big_blind", "ante", "small_bet", "big_bet"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(f"{name} must be a non-negative integer, got {value!r}")
        if self.small_blind > self.big_blind:
            raise ConfigError(
                f"small_blind {self.small_blind} is larger than big_blind {self.big_blind}",
            )
        if self.big_blind == 0 and self.ante == 0:
            raise ConfigError("a game needs a big blind or an ante, both are 0")
        if not 0 <= self.max_discard_count <= 5:
            raise ConfigError(f"max_discard_count must be 0..5, got {self.max_discard_count!r}")
        if self.raise_cap < 1:
            raise ConfigError(f"raise_cap must be at least 1, got {self.raise_cap!r}")
        if not isinstance(self.cap_heads_up, bool):
            raise ConfigError(f"cap_heads_up must be true or false, got {self.cap_heads_up!r}")
        unit = self.big_blind or self.ante
        if self.small_bet == 0:
            object.__setattr__(self, "small_bet", unit)
        if self.big_bet == 0:
            object.__setattr__(self, "big_bet", 2 * self.small_bet)

    @property
    def minimum_bet(self) -> int:
        """The smallest opening bet in no-limit and pot-limit: the big blind."""
        return self.big_blind or self.ante or 1

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (enums as their string values).

        ``cap_heads_up`` is written only when true, so the documents of every other game
        (hand histories, golden files, ``hello``) stay as they always were.

        >>> GameConfig(cap_heads_up=True).to_dict()["cap_heads_up"]
        True
        >>> "cap_heads_up" in GameConfig().to_dict()
        False
        """
        data = {
            key: (str(value) if isinstance(value, StrEnum) else value)
            for key, value in asdict(self).items()
        }
        if not self.cap_heads_up:
            del data["cap_heads_up"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        """Inverse of :meth:`to_dict`; unknown keys or bad values raise ``ConfigError``."""
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown game option(s): {', '.join(unknown)}")
        kwargs = dict(data)
        enums: dict[str, type[StrEnum]] = {
            "variant": Variant,
            "structure": BettingStructure,
            "ante_mode": AnteMode,
            "draw_limit": DrawLimit,
        }
        for key, enum in enums.items():
            if key in kwargs:
                try:
                    kwargs[key] = enum(kwargs[key])
                except ValueError as exc:
                    choices = ", ".join(member.value for member in enum)
                    raise ConfigError(
                        f"{key} {kwargs[key]!r} is not one of: {choices}",
                    ) from exc
        return cls(**kwargs)
