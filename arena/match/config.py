"""A match's configuration: everything that decides how it is played, bots aside.

Every field is checked when the config is built, and a bad value raises
:class:`MatchConfigError` naming it; the command line and the config files build their
configs here, so they report the same errors.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from arena.luck.parameters import LuckValue
from arena.session.policy import (
    DEFAULT_HUNG_AFTER_TIMEOUTS,
    DEFAULT_MAX_INVALID_ATTEMPTS,
    DEFAULT_RESTART_BUDGET,
    TimeBasis,
    TimeLimits,
)
from arena.store.hand_log import DEFAULT_MATCH_ID
from engine.config import GameConfig
from engine.schedule import BlindSchedule

__all__ = [
    "DEFAULT_MATCH_ID",
    "MAX_SEATS",
    "MIN_SEATS",
    "MatchConfig",
    "MatchConfigError",
    "MatchError",
    "Score",
    "StackPolicy",
    "new_secret_seed",
    "require_seat_count",
    "resolve_score",
]

#: How many bots a match seats.
MIN_SEATS, MAX_SEATS = 2, 10

#: How many random bits a secret seed has.
SECRET_SEED_BITS = 256


def new_secret_seed() -> int:
    """A seed nobody can guess: 256 bits from the operating system's generator (for a
    match whose seed was not chosen). The seed decides every deck, so it stays secret until
    ``match_end`` reveals it.
    """
    return int.from_bytes(os.urandom(SECRET_SEED_BITS // 8), "big")


class MatchError(RuntimeError):
    """Our own bug stopped the match (never a bot's fault): the message says what broke."""


class MatchConfigError(ValueError):
    """A match configuration that cannot be played; the message names the bad value."""

    code = "bad_match_config"


class StackPolicy(StrEnum):
    """What happens to the stacks between hands (one format of :mod:`arena.match.formats`
    each): ``reset`` every hand, ``carry`` from hand to hand, or a ``freezeout``."""

    RESET = "reset"
    CARRY = "carry"
    FREEZEOUT = "freezeout"


class Score(StrEnum):
    """What a result is measured by where one is chosen (intervals, the sequential test,
    rankings): the chips won luck-``adjusted`` by the estimator (:mod:`arena.luck`), or
    the ``raw`` chips. Both are always shown; raw is the only one without the estimator."""

    ADJUSTED = "adjusted"
    RAW = "raw"


def resolve_score(*, luck: bool, score: Score | str | None) -> Score:
    """The score a run measures by: ``score`` when given, else adjusted with the luck
    estimator on and raw with it off. Adjusted without the estimator is a ``ValueError``
    saying what to change (a match and a tournament check the same rule here).

    >>> resolve_score(luck=False, score=None), resolve_score(luck=True, score=None)
    (<Score.RAW: 'raw'>, <Score.ADJUSTED: 'adjusted'>)
    """
    if score is None:
        return Score.ADJUSTED if luck else Score.RAW
    try:
        chosen = Score(score)
    except ValueError:
        raise ValueError(f"score {score!r}: must be adjusted or raw") from None
    if chosen is Score.ADJUSTED and not luck:
        raise ValueError(
            "score 'adjusted' needs the luck estimator, and luck is off: "
            "use score raw, or turn luck on"
        )
    return chosen


#: The whole-number fields of :class:`MatchConfig`: each one's least value, in words.
_WHOLE_FIELDS = (
    ("starting_stack", 1, "a positive integer"),
    ("max_invalid_attempts", 1, "at least 1"),
    ("restart_budget", 0, "a non-negative integer"),
    ("hung_after_timeouts", 1, "a positive integer"),
)


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Everything that decides how a match is played (bots and processes aside).

    ``hand_count`` is the number of hands (``reset``, ``carry``) or the cap on hands
    (``freezeout``, where ``None`` means play until one bot has every chip). ``seed`` decides
    every deck: it is secret until ``match_end`` reveals it (:mod:`arena.match.fairness`;
    :func:`new_secret_seed` makes one). ``match_id`` is in every hand id the bots see, so it
    is never made from the seed. ``hung_after_timeouts``: a bot that times out on that many
    decisions in a row is killed and restarted before the next hand (within
    ``restart_budget``). ``allow_absent_bots``: a bot that cannot start when the match begins
    sits out instead of stopping the match (:class:`arena.match.readiness.BotsNotReadyError`).
    """

    game: GameConfig = field(default_factory=GameConfig)
    hand_count: int | None = 100
    seed: int = 0
    starting_stack: int = 200
    stack_policy: StackPolicy = StackPolicy.RESET
    schedule: BlindSchedule | None = None
    match_id: str = ""
    time_limits: TimeLimits = field(default_factory=TimeLimits)
    check_on_timeout: bool = False
    max_invalid_attempts: int = DEFAULT_MAX_INVALID_ATTEMPTS
    restart_budget: int = DEFAULT_RESTART_BUDGET
    hung_after_timeouts: int = DEFAULT_HUNG_AFTER_TIMEOUTS
    # Whether to play on without a bot that is not ready at the start: a choice made before
    # the match, which decides whether it happens at all, so not written in to_dict either.
    allow_absent_bots: bool = False
    # Work done while bots think (arena.match.prefetch): a speed switch only. It changes
    # nothing a bot receives or the history records, so it is not written in to_dict.
    prefetch: bool = True
    luck: bool = False
    score: Score | None = None
    # Another match deals from this seed (the other seatings of a duplicate block):
    # match_end then withholds it (arena.match.fairness) and the draws from mixed
    # strategies are keyed by the match's id too (draw_key), so no match tells a bot what
    # one still to come will deal or draw.
    seed_shared: bool = False
    # The luck estimator's betting weights (None: the shipped ones): a ladder game's are
    # those of the value fit it was claimed with, fitted on earlier games only.
    luck_value: LuckValue | None = None

    def __post_init__(self) -> None:
        def is_int(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        if self.hand_count is None:
            if self.stack_policy is not StackPolicy.FREEZEOUT:
                raise MatchConfigError(
                    f"hand_count is required with stack policy {self.stack_policy.value!r}",
                )
        elif not is_int(self.hand_count) or self.hand_count < 1:
            raise MatchConfigError(
                f"hand_count must be a positive integer, got {self.hand_count!r}"
            )
        if not is_int(self.seed):
            raise MatchConfigError(f"seed must be an integer, got {self.seed!r}")
        for name, least, phrase in _WHOLE_FIELDS:
            value = getattr(self, name)
            if not is_int(value) or value < least:
                raise MatchConfigError(f"{name} must be {phrase}, got {value!r}")
        # The time limits checked their own values when they were built.
        if not isinstance(self.time_limits, TimeLimits):
            raise MatchConfigError(f"time_limits must be TimeLimits, got {self.time_limits!r}")
        for name in ("allow_absent_bots", "prefetch", "luck", "seed_shared"):
            if not isinstance(getattr(self, name), bool):
                raise MatchConfigError(f"{name} must be true or false, got {getattr(self, name)!r}")
        try:
            object.__setattr__(self, "score", resolve_score(luck=self.luck, score=self.score))
        except ValueError as exc:
            raise MatchConfigError(str(exc)) from None
        if self.luck_value is not None and not isinstance(self.luck_value, LuckValue):
            raise MatchConfigError(f"luck_value must be a LuckValue, got {self.luck_value!r}")
        if not isinstance(self.match_id, str):
            raise MatchConfigError(f"match_id must be a string, got {self.match_id!r}")
        if self.seed_shared and not self.match_id:
            raise MatchConfigError(
                "seed_shared needs a match_id: the draws of each match that shares a seed "
                "are keyed by its id"
            )
        if not self.match_id:
            object.__setattr__(self, "match_id", DEFAULT_MATCH_ID)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (written in the hand history header and results). The
        time limits are written as the flat fields they always were (``decision_timeout_s``,
        ``startup_timeout_s``, ``time_bank_s``, ``time_basis``), so every file reads alike."""
        limits = self.time_limits
        return {
            "match_id": self.match_id,
            "seed": self.seed,
            "game": self.game.to_dict(),
            "hand_count": self.hand_count,
            "starting_stack": self.starting_stack,
            "stack_policy": self.stack_policy.value,
            "schedule": None if self.schedule is None else self.schedule.to_dict(),
            "decision_timeout_s": limits.decision_s,
            "startup_timeout_s": limits.startup_s,
            "time_bank_s": limits.time_bank_s,
            "check_on_timeout": self.check_on_timeout,
            "max_invalid_attempts": self.max_invalid_attempts,
            "restart_budget": self.restart_budget,
            "hung_after_timeouts": self.hung_after_timeouts,
            # Written only when not the wall clock, so that files of the default basis
            # stay as they were before the CPU basis existed.
            **(
                {"time_basis": limits.time_basis.value}
                if limits.time_basis is not TimeBasis.WALL
                else {}
            ),
            # Written only with the estimator on: the files of a match without it stay as
            # they were before it existed (and a file without the keys was played without).
            **({"luck": True, "score": str(self.score)} if self.luck else {}),
            # Written only when shared (replay keys the draws by it), as luck above.
            **({"seed_shared": True} if self.seed_shared else {}),
            # Written only when not the shipped weights (replay estimates with them).
            **({"luck_value": self.luck_value.to_dict()} if self.luck_value else {}),
        }

    @property
    def draw_key(self) -> str | None:
        """What keys the draws from mixed strategies beside the seed: the match's id when
        another match shares the seed (so the two draw apart), else nothing."""
        return self.match_id if self.seed_shared else None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchConfig:
        """Inverse of :meth:`to_dict` (files of every version: a key added later takes
        the value that applied before it existed)."""
        schedule = data.get("schedule")
        try:
            time_limits = TimeLimits(
                decision_s=data["decision_timeout_s"],
                startup_s=data["startup_timeout_s"],
                time_bank_s=data["time_bank_s"],
                # Absent from files written before the CPU basis existed: the wall clock.
                time_basis=TimeBasis.parse(data.get("time_basis", TimeBasis.WALL.value)),
            )
        except ValueError as exc:
            raise MatchConfigError(str(exc)) from None
        return cls(
            game=GameConfig.from_dict(dict(data["game"])),
            hand_count=data["hand_count"],
            seed=data["seed"],
            starting_stack=data["starting_stack"],
            stack_policy=StackPolicy(data["stack_policy"]),
            schedule=None if schedule is None else BlindSchedule.from_dict(schedule),
            match_id=data.get("match_id", ""),
            time_limits=time_limits,
            check_on_timeout=data["check_on_timeout"],
            max_invalid_attempts=data["max_invalid_attempts"],
            restart_budget=data["restart_budget"],
            # Absent from files written before the rule existed: the default applied then.
            hung_after_timeouts=data.get("hung_after_timeouts", DEFAULT_HUNG_AFTER_TIMEOUTS),
            luck=data.get("luck", False),
            score=data.get("score"),
            seed_shared=data.get("seed_shared", False),
            luck_value=_luck_value(data.get("luck_value")),
        )


def _luck_value(data: object) -> LuckValue | None:
    """The betting weights a config file names (absent: the shipped ones); bad weights
    are a :class:`MatchConfigError` naming them."""
    if data is None:
        return None
    try:
        return LuckValue.from_dict(data)
    except ValueError as exc:
        raise MatchConfigError(f"luck_value: {exc}") from None


def require_seat_count(count: int) -> None:
    """Raise :class:`MatchConfigError` unless ``count`` bots fit at one table."""
    if not MIN_SEATS <= count <= MAX_SEATS:
        raise MatchConfigError(f"a match needs {MIN_SEATS} to {MAX_SEATS} bots, got {count}")
