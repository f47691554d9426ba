"""A match's :class:`MatchConfig` from the settings of the groups ``game``, ``match``,
``run``, ``limits`` and ``score`` (by dotted key, as :func:`arena.settings.given` returns them): the
one function ``arena match`` and ``arena play`` build their match with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.match.config import (
    MatchConfig,
    MatchConfigError,
    Score,
    StackPolicy,
    new_secret_seed,
)
from arena.session.policy import TimeLimits
from arena.settings.grammar import SCHEDULE_ERRORS, parse_schedule
from arena.settings.model import REGISTRY, UsageError
from engine.config import BettingStructure, ConfigError, GameConfig, Variant

__all__ = ["match_config"]


def match_config(
    values: Mapping[str, object], *, default_hands: int, match_id: str = "", **fixed: Any
) -> MatchConfig:
    """The match the settings describe; a setting left out takes its declared default.

    ``default_hands``: the hands when ``hands`` is not given and it is not a freezeout (a
    freezeout without ``hands`` plays until one player has every chip). ``fixed``: fields of
    :class:`MatchConfig` the command decides itself (``prefetch=False``). Raises
    :class:`UsageError` naming the bad value.
    """

    def value(key: str) -> Any:
        given = values.get(key)
        setting = REGISTRY[key]
        return setting.default if given is None else setting.read(given, source="")

    try:
        game = GameConfig(
            small_blind=value("game.small_blind"),
            big_blind=value("game.big_blind"),
            ante=value("game.ante"),
            variant=Variant(value("game.variant")),
            structure=BettingStructure(value("game.betting")),
            cap_heads_up=value("game.cap_heads_up"),
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    schedule = None
    if value("schedule") is not None:
        try:
            schedule = parse_schedule(
                value("schedule"), small_blind=game.small_blind, big_blind=game.big_blind,
                ante=game.ante,
            )  # fmt: skip
        except SCHEDULE_ERRORS as exc:
            raise UsageError(f"argument --schedule: {exc}") from None
    hands = value("hands")
    if value("freezeout"):
        policy = StackPolicy.FREEZEOUT  # hands: a cap; None plays until one has every chip
    else:
        policy = StackPolicy.CARRY if value("no_reset") else StackPolicy.RESET
        hands = hands if hands is not None else default_hands
    luck = value("luck").is_on
    if value("score") is Score.ADJUSTED and not luck:
        # Said in the flags' words (the config's own error names its fields).
        raise UsageError(
            "--score adjusted needs the luck estimator, and --luck is off: "
            "use --score raw, or leave --luck on"
        )
    # The settings were read by their keys' rules, which the time limits' own agree with.
    time_limits = TimeLimits(
        decision_s=value("limits.decision_timeout"),
        startup_s=value("limits.startup_timeout"),
        time_bank_s=value("limits.time_bank"),
        time_basis=value("limits.time_basis"),
    )
    seed = value("seed")
    options: dict[str, Any] = {
        "game": game,
        "hand_count": hands,
        "seed": seed if seed is not None else new_secret_seed(),
        "starting_stack": value("game.starting_stack"),
        "stack_policy": policy,
        "schedule": schedule,
        "match_id": match_id,
        "time_limits": time_limits,
        "check_on_timeout": value("limits.check_on_timeout"),
        "prefetch": not value("no_prefetch"),
        "allow_absent_bots": value("allow_absent"),
        "luck": luck,
        "score": value("score"),
    }
    try:
        return MatchConfig(**{**options, **fixed})
    except MatchConfigError as exc:
        raise UsageError(str(exc)) from None
