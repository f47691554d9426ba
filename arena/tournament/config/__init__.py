"""A tournament's configuration: :class:`TournamentConfig`, read from TOML and flags.

A tournament file: TOML, every key but ``bots`` optional (``docs/tournament-config.md`` has
the complete example and a table of every key with its type, default and meaning).
``bots`` lists manifests, or ``[[bots]]`` tables with ``manifest`` and an optional ``name``
(the default name is the manifest's). Paths in the file are relative to the file's folder.

One validator reads both sources: :func:`build_config` takes the file and the command
line's values (by dotted key, e.g. ``{"deals": 500, "sprt.enabled": True}``); a flag wins
over the file. Every bad value raises :class:`TournamentConfigError`, whose message names
the file (or ``command line``), the key and the value, and says what is allowed.

Every key (its parser, default, flag, help and whether it decides the results) is declared
once in :mod:`arena.settings.catalog`; the dataclasses below are the typed view of the
tables and take their defaults from there. The rules between keys are
:mod:`arena.tournament.config.rules`; what of a config decides the results (its
fingerprint) is :mod:`arena.tournament.config.identity`; the ``bots`` list is read by
:mod:`arena.tournament.config.bots`, and the one error is
:mod:`arena.tournament.config.errors`'s.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from arena.bots.sandbox.resources import RESOURCE_KEYS
from arena.bots.sandbox.select import SandboxLevel
from arena.cluster.executor import default_concurrency
from arena.match.config import Score, resolve_score
from arena.session.policy import TimeBasis, TimeLimits
from arena.settings import COMMAND_LINE, REGISTRY, SettingsError, file_keys
from arena.settings.catalog import ExecutorKind, Format, Luck
from arena.settings.files import Given, ValueSource, read_overrides, read_toml, source_label
from arena.stats.sprt import Sprt
from arena.tournament.config.bots import BotEntry, load_bots
from arena.tournament.config.errors import TournamentConfigError
from arena.tournament.config.identity import difference, fingerprint
from arena.tournament.config.rules import problems
from engine.config import BettingStructure, GameConfig, Variant

__all__ = [
    "DEFAULT_TABLE_SEATS",
    "BotEntry",
    "GameSettings",
    "SitAndGoSettings",
    "SprtSettings",
    "TimeSettings",
    "TournamentConfig",
    "TournamentConfigError",
    "build_config",
    "config_from_values",
    "difference",
    "fingerprint",
    "merge",
]

#: Seats of a ring or sit-and-go table when the key is absent and more than 10 bots play
#: (with 10 or fewer, every bot sits at the one table).
DEFAULT_TABLE_SEATS = 6


def _default(key: str) -> Any:
    """The declared default of ``key`` (the dataclasses below take theirs from here)."""
    return REGISTRY[key].default


@dataclass(frozen=True, slots=True)
class GameSettings:
    """The game every match plays (``[game]``)."""

    variant: Variant = _default("game.variant")  # noqa: RUF009
    betting: BettingStructure = _default("game.betting")  # noqa: RUF009
    small_blind: int = _default("game.small_blind")
    big_blind: int = _default("game.big_blind")
    ante: int = _default("game.ante")
    starting_stack: int = _default("game.starting_stack")

    def game_config(self) -> GameConfig:
        """The engine's rules for these settings (freezeouts start from them)."""
        return GameConfig(
            small_blind=self.small_blind,
            big_blind=self.big_blind,
            ante=self.ante,
            variant=self.variant,
            structure=self.betting,
        )


@dataclass(frozen=True, slots=True)
class TimeSettings:
    """Every match's time limits in seconds (``[limits]``), as the file's table holds
    them; :meth:`time_limits` is the value every match plays under."""

    decision_timeout_s: float = _default("limits.decision_timeout")
    startup_timeout_s: float = _default("limits.startup_timeout")
    time_bank_s: float = _default("limits.time_bank")
    check_on_timeout: bool = _default("limits.check_on_timeout")
    time_basis: TimeBasis = _default("limits.time_basis")  # noqa: RUF009

    def time_limits(self) -> TimeLimits:
        """The time limits of every match (and of the server's validation), whole."""
        return TimeLimits(
            decision_s=self.decision_timeout_s,
            startup_s=self.startup_timeout_s,
            time_bank_s=self.time_bank_s,
            time_basis=self.time_basis,
        )


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """The sequential test that may stop a heads-up pair between blocks (``[sprt]``):
    H0 "the pair's first bot wins ``mbb0`` milli-big-blinds per hand" against H1
    "``mbb1``", with error rates ``alpha`` and ``beta``."""

    enabled: bool = _default("sprt.enabled")
    mbb0: float = _default("sprt.mbb0")
    mbb1: float = _default("sprt.mbb1")
    alpha: float = _default("sprt.alpha")
    beta: float = _default("sprt.beta")


@dataclass(frozen=True, slots=True)
class SitAndGoSettings:
    """Freezeouts (``[sit_and_go]``); ``None`` means the default that depends on the bots
    (see :attr:`TournamentConfig.seats` and :attr:`TournamentConfig.games`)."""

    games: int | None = None
    seats: int | None = None
    double_every_hands: int = _default("sit_and_go.double_every_hands")
    max_hands: int = _default("sit_and_go.max_hands")


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """Every setting of a tournament. Build it with :func:`build_config`
    or :func:`merge`, which check every value.

    Settings whose default depends on others are ``None`` here and resolved by the
    properties: :attr:`seats`, :attr:`games`, :attr:`challenger_name`, :attr:`out_dir`,
    :meth:`worker_count`. ``seed`` None means a secret seed drawn when the run starts;
    ``sandbox`` None the strongest layer that works here (the runner decides).
    ``executor`` and ``scheduler`` (None: a local cluster) say what runs the matches.
    The ``[limits]`` table holds two kinds of limit, kept apart here: ``time`` (the time
    limits, :class:`TimeSettings`) and ``resource_limits`` (the sandbox's, only those given;
    they override the manifests').
    ``expose`` are host paths the strict sandbox shows every bot read-only (the host's
    choice, never a manifest's; they do not decide the results).
    ``luck`` says whether every match runs the luck estimator; ``score`` what ranks the
    bots and drives the sequential test (None: adjusted with luck on, raw with it off;
    :attr:`score_used`).
    ``source`` says where the values came from, for later messages.
    """

    bots: tuple[BotEntry, ...]
    name: str = _default("name")
    format: Format = _default("format")  # noqa: RUF009
    challenger: str | None = None
    deals: int = _default("deals")
    block_deals: int = _default("block_deals")
    game: GameSettings = field(default_factory=GameSettings)
    time: TimeSettings = field(default_factory=TimeSettings)
    resource_limits: Mapping[str, int] = field(default_factory=dict, hash=False)
    sprt: SprtSettings = field(default_factory=SprtSettings)
    sit_and_go: SitAndGoSettings = field(default_factory=SitAndGoSettings)
    ring_seats: int | None = None
    seed: int | None = None
    concurrency: int | None = None
    executor: ExecutorKind = _default("executor")  # noqa: RUF009
    scheduler: str | None = None
    sandbox: SandboxLevel | None = None
    expose: tuple[Path, ...] = ()
    out: Path | None = None
    luck: Luck = _default("luck")  # noqa: RUF009
    score: Score | None = None
    source: str = field(default=COMMAND_LINE, compare=False)

    @property
    def score_used(self) -> Score:
        """What ranks the bots: ``score``, or by default adjusted with luck on, raw off."""
        return resolve_score(luck=self.luck.is_on, score=self.score)

    @property
    def bot_names(self) -> tuple[str, ...]:
        """The bots' names, in the order they were listed."""
        return tuple(bot.name for bot in self.bots)

    @property
    def challenger_name(self) -> str | None:
        """The gauntlet's challenger (default: the first bot listed); None in other formats."""
        if self.format is not Format.GAUNTLET:
            return None
        return self.challenger if self.challenger is not None else self.bots[0].name

    @property
    def seats(self) -> int:
        """Bots per match: 2 heads-up; a ring's or a freezeout's table otherwise (default:
        every bot when there are 10 or fewer, else :data:`DEFAULT_TABLE_SEATS`)."""
        if self.format.is_heads_up:
            return 2
        given = self.ring_seats if self.format is Format.RING else self.sit_and_go.seats
        if given is not None:
            return given
        return len(self.bots) if len(self.bots) <= 10 else DEFAULT_TABLE_SEATS

    @property
    def games(self) -> int:
        """Freezeouts of a sit-and-go (default: twice the number of bots, so that with
        every bot at the table each sits in every seat twice)."""
        given = self.sit_and_go.games
        return given if given is not None else 2 * len(self.bots)

    @property
    def out_dir(self) -> Path:
        """The run folder: ``out``, or ``runs/<name>`` under the current folder."""
        return self.out if self.out is not None else Path("runs") / self.name

    def worker_count(self) -> int:
        """Matches played at once: ``concurrency``, or the CPUs this process may use."""
        return self.concurrency if self.concurrency is not None else default_concurrency()

    def block_sizes(self) -> tuple[int, ...]:
        """Deals of each block of a pair or ring group (the last may be shorter); empty for
        a sit-and-go, whose games are not split.

        >>> TournamentConfig(bots=(), deals=250, block_deals=100).block_sizes()
        (100, 100, 50)
        """
        if self.format is Format.SIT_AND_GO:
            return ()
        full, rest = divmod(self.deals, self.block_deals)
        return (self.block_deals,) * full + ((rest,) if rest else ())

    def group_count(self) -> int:
        """Pairs (heads-up), ring groups (every combination of ``seats`` bots) or games."""
        count = len(self.bots)
        if self.format is Format.ROUND_ROBIN:
            return math.comb(count, 2)
        if self.format is Format.GAUNTLET:
            return count - 1
        if self.format is Format.RING:
            return math.comb(count, self.seats)
        return self.games

    def match_count(self) -> int:
        """Matches in the plan: groups x blocks x seatings (a sit-and-go: its games)."""
        if self.format is Format.SIT_AND_GO:
            return self.games
        return self.group_count() * len(self.block_sizes()) * self.seats

    def to_values(self) -> dict[str, Any]:
        """The settings by dotted key, JSON-ready (those left to their default-by-others
        are absent): ``build_config(overrides=config.to_values())`` gives this config."""
        values: dict[str, Any] = {
            "name": self.name,
            "format": self.format.value,
            "bots": [{"name": bot.name, "manifest": str(bot.manifest)} for bot in self.bots],
            "challenger": self.challenger,
            "deals": self.deals,
            "block_deals": self.block_deals,
            "seed": self.seed,
            "concurrency": self.concurrency,
            "executor": self.executor.value,
            "scheduler": self.scheduler,
            "sandbox": None if self.sandbox is None else self.sandbox.value,
            "expose": [str(path) for path in self.expose] or None,
            "out": None if self.out is None else str(self.out),
            "luck": self.luck.value,
            "score": None if self.score is None else self.score.value,
            **{f"limits.{key}": value for key, value in self.resource_limits.items()},
            "ring.seats": self.ring_seats,
        }
        for table, settings in self._tables():
            for item in fields(settings):
                value = getattr(settings, item.name)
                plain = value.value if isinstance(value, StrEnum) else value
                values[f"{table}.{item.name.removesuffix('_s')}"] = plain
        return {key: value for key, value in values.items() if value is not None}

    def to_dict(self) -> dict[str, Any]:
        """The file's layout (tables nested) with every default filled in, JSON-ready: the
        record of what a run played."""
        values: dict[str, Any] = {
            "sandbox": None,
            "scheduler": None,
            "ring.seats": None,
            "sit_and_go.seats": None,
            "score": None,
            **self.to_values(),
            "challenger": self.challenger_name,
            "seed": self.seed,
            "concurrency": self.concurrency,
            "out": str(self.out_dir),
            "sit_and_go.games": self.games,
        }
        if not self.format.is_heads_up:
            values[f"{self.format.value}.seats"] = self.seats
        tables = {setting.table for setting in file_keys().values()} - {""}
        nested: dict[str, Any] = {table: {} for table in sorted(tables, key=_TABLE_ORDER.index)}
        for key, value in values.items():
            table, dot, leaf = key.partition(".")
            if dot:
                nested[table][leaf] = value
            else:
                nested[key] = value
        return nested

    def sprt_test(self) -> Sprt | None:
        """The sequential test of every heads-up pair, or None when it is off."""
        if not self.sprt.enabled or not self.format.is_heads_up:
            return None
        return Sprt(self.sprt.mbb0, self.sprt.mbb1, self.sprt.alpha, self.sprt.beta)

    def _tables(self) -> tuple[tuple[str, Any], ...]:
        return (
            ("game", self.game),
            ("limits", self.time),
            ("sprt", self.sprt),
            ("sit_and_go", self.sit_and_go),
        )

    def with_overrides(
        self, overrides: Mapping[str, object], *, base_dir: Path | None = None
    ) -> TournamentConfig:
        """This config with ``overrides`` (by dotted key) put in, checked again."""
        return merge(self, overrides, base_dir=base_dir)


#: The tables of a tournament file, in the order of ``to_dict``.
_TABLE_ORDER = ("game", "limits", "sprt", "sit_and_go", "ring")


# ------------------------------------------------------------------------ reading


def build_config(
    *,
    file: Path | None = None,
    overrides: Mapping[str, object] | None = None,
    base_dir: Path | None = None,
) -> TournamentConfig:
    """The config from a TOML ``file`` and the command line's ``overrides`` (either may be
    absent), checked once as a whole.

    ``overrides`` are by dotted key (``"game.big_blind"``); a ``None`` value was not given
    and is skipped, a value wins over the file's. Text values are read by the key's kind
    (``"200"`` for ``deals``), so flags may be passed as they were typed. ``bots`` is a
    list of manifest paths (or ``{"name", "manifest"}`` tables) and replaces the file's
    list; two manifests listed with the same name are told apart (``name-2``). Relative
    paths of the overrides start from ``base_dir`` (default: the current folder), the
    file's from its folder.
    """
    with _as_tournament_error():
        given: Given = {} if file is None else read_toml(file, file_keys())
        given.update(read_overrides(overrides or {}, file_keys(), base_dir))
    return _build(given, source_label(None if file is None else str(file), overrides))


def merge(
    file_config: TournamentConfig | None,
    overrides: Mapping[str, object],
    *,
    base_dir: Path | None = None,
) -> TournamentConfig:
    """``file_config`` (already checked; None for none) with the command line's
    ``overrides`` put in and everything checked again, as in :func:`build_config`."""
    if file_config is None:
        return build_config(overrides=overrides, base_dir=base_dir)
    source = ValueSource(file_config.source, Path.cwd(), is_text=False)
    given: Given = {key: (value, source) for key, value in file_config.to_values().items()}
    given["bots"] = (file_config.bots, source)  # checked already: not loaded again
    with _as_tournament_error():
        given.update(read_overrides(overrides, file_keys(), base_dir))
    return _build(given, source_label(file_config.source, overrides))


@contextmanager
def _as_tournament_error() -> Iterator[None]:
    """Re-raise the settings reader's errors as :class:`TournamentConfigError`."""
    try:
        yield
    except TournamentConfigError:
        raise
    except SettingsError as error:
        raise TournamentConfigError(error.source, error.key, error.value, error.reason) from None


# ------------------------------------------------------------------------ checking


def _build(given: Given, label: str) -> TournamentConfig:
    keys = file_keys()
    values: dict[str, Any] = {}
    for key, (value, source) in given.items():
        if key == "bots":
            continue
        with _as_tournament_error():
            parsed = keys[key].read(value, source=source.label, is_text=source.is_text)
        values[key] = source.base_dir / parsed if isinstance(parsed, Path) else parsed
    if "bots" not in given:
        message = "no bots: list their manifests (bots = [...] or on the command line)"
        raise TournamentConfigError(label, None, None, message)
    bots, bots_source = given["bots"]
    bot_entries = load_bots(bots, bots_source, rename_copies=bots_source.is_text)
    config = config_from_values(values, bots=bot_entries, source=label)
    for key, value, why in problems(config):
        raise TournamentConfigError(given[key][1].label if key in given else label, key, value, why)
    return config


def config_from_values(
    values: Mapping[str, Any], *, bots: tuple[BotEntry, ...], source: str
) -> TournamentConfig:
    """The config of ``bots`` from a file's parsed ``values`` by dotted key (the others keep
    their defaults), not yet checked against :func:`~arena.tournament.config.rules.problems`:
    the one place a file's keys become a config's fields (the tournament file's and the
    server's competition file's alike)."""
    return TournamentConfig(
        bots=bots,
        resource_limits={
            leaf: values[f"limits.{leaf}"] for leaf in RESOURCE_KEYS if f"limits.{leaf}" in values
        },
        game=_settings(GameSettings, "game", values),
        time=_settings(TimeSettings, "limits", values),
        sprt=_settings(SprtSettings, "sprt", values),
        sit_and_go=_settings(SitAndGoSettings, "sit_and_go", values),
        ring_seats=values.get("ring.seats"),
        source=source,
        **{key: value for key, value in values.items() if key in _TOP_KEYS},
    )


#: The keys at the top of a file that are fields of :class:`TournamentConfig`.
_TOP_KEYS = frozenset(key for key, setting in file_keys().items() if not setting.table) - {"bots"}
_Settings = TypeVar("_Settings")


def _settings(cls: type[_Settings], table: str, values: Mapping[str, Any]) -> _Settings:
    """The ``[table]`` settings from the values given (the dataclass's default for others);
    a field ``x_s`` holds the key ``table.x`` (seconds)."""
    given = {}
    for item in fields(cls):  # type: ignore[arg-type]
        key = f"{table}.{item.name.removesuffix('_s')}"
        if key in values:
            given[item.name] = values[key]
    return cls(**given)
