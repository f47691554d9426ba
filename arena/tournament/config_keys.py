"""Every key of a tournament configuration: its type, range, default and meaning; and the
bots' manifests, loaded to check them.

One table, :data:`KEYS`, serves both sources of settings: the TOML file and the command
line. Each key is named by its dotted TOML path (``sprt.alpha``) and has a parser that
turns a given value into the setting or raises ``ValueError`` whose message says what is
allowed; :mod:`arena.tournament.config` wraps that message into a
:class:`TournamentConfigError` naming the source, the key and the bad value. Values given
as text on the command line are first read by their kind (``"200"`` is a whole number for
``deals``), values from TOML must already have their TOML type.

>>> KEYS["sprt.alpha"].parse(0.05)
0.05
>>> KEYS["deals"].parse(from_text("deals", "300"))
300
>>> suggestion("dels")
" (did you mean 'deals'?)"
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from arena.bots.manifest import ManifestError, load_manifest
from arena.bots.sandbox.limits import (
    DEFAULT_LIMITS,
    LIMIT_KEYS,
    SIZE_KEYS,
    LimitsError,
    format_size,
)
from arena.bots.sandbox.select import SandboxLevel
from arena.match.config import MAX_SEATS
from engine.config import BettingStructure, Variant

__all__ = [
    "DEFAULTS",
    "KEYS",
    "MAX_CHIPS",
    "MAX_DEALS",
    "MAX_MATCHES",
    "TABLES",
    "BotEntry",
    "ExecutorKind",
    "Format",
    "KeySpec",
    "TournamentConfigError",
    "ValueSource",
    "from_text",
    "load_bots",
    "show",
    "suggestion",
]

#: The most matches a tournament may plan: beyond it a typo (a ring of 30 bots at 5 seats
#: is 142,506 groups) would start a run of weeks; the error names the number.
MAX_MATCHES = 10_000
#: The most deals one pair (or ring group) may play.
MAX_DEALS = 10_000_000
#: The largest chip amount (blinds, antes, stacks): far beyond any game, still exact.
MAX_CHIPS = 10**12
#: The longest time limit, in seconds: a longer one is nearly always a unit mistake.
MAX_SECONDS = 3600.0
#: The most worker processes.
MAX_CONCURRENCY = 1024


class TournamentConfigError(ValueError):
    """A tournament configuration that cannot be used.

    The message names the source (the TOML file or ``command line``), the dotted key and
    the bad value, and says what is allowed:

    >>> str(TournamentConfigError("weekly.toml", "sprt.alpha", 0.7, "must be below 0.5"))
    'weekly.toml: sprt.alpha = 0.7: must be below 0.5'
    >>> str(TournamentConfigError("weekly.toml", None, None, "not valid TOML"))
    'weekly.toml: not valid TOML'
    """

    code = "bad_tournament_config"

    def __init__(self, source: str, key: str | None, value: object, message: str) -> None:
        self.source = source
        self.key = key
        self.value = value
        self.reason = message
        where = source if key is None else f"{source}: {key} = {show(value)}"
        super().__init__(f"{where}: {message}")


class Format(StrEnum):
    """How the bots meet (see ``docs/tournament-config.md``)."""

    ROUND_ROBIN = "round_robin"
    GAUNTLET = "gauntlet"
    RING = "ring"
    SIT_AND_GO = "sit_and_go"

    @property
    def is_heads_up(self) -> bool:
        """True for the formats of heads-up duplicate pairs."""
        return self in (Format.ROUND_ROBIN, Format.GAUNTLET)


class ExecutorKind(StrEnum):
    """What runs the matches: a process pool on this machine, or a Dask cluster (see
    ``docs/cluster.md``). The results are the same either way."""

    LOCAL = "local"
    DASK = "dask"


def show(value: object) -> str:
    """A value as TOML would write it (``true``, ``"text"``), cut to 80 characters.

    >>> show(True), show("holdem"), show(Path("a/b.toml")), show([1, "x"])
    ('true', '"holdem"', '"a/b.toml"', '[1, "x"]')
    """
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def suggestion(word: str, choices: tuple[str, ...] | None = None) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices`` (default: every key), or ``""``.

    A key written without its table (``decision_timeout`` at the top) finds its dotted
    name too.
    """
    if choices is None:
        choices = (*KEYS, *TABLES)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:
        by_leaf = {key.rpartition(".")[2]: key for key in choices}
        leaf = difflib.get_close_matches(word.rpartition(".")[2], tuple(by_leaf), n=1, cutoff=0.75)
        close = [by_leaf[leaf[0]]] if leaf else []
    return f" (did you mean {close[0]!r}?)" if close else ""


# ------------------------------------------------------------------------ value parsers

Parser = Callable[[object], object]


def _whole(minimum: int, maximum: int) -> Parser:
    def parse(value: object) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= maximum:
            raise ValueError(f"must be a whole number from {minimum:,} to {maximum:,}")
        return value

    return parse


def _any_int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("must be a whole number")
    return value


def _number(*, low: float, high: float, low_open: bool = False) -> Parser:
    def parse(value: object) -> float:
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        if not is_number or not math.isfinite(value):  # type: ignore[arg-type]
            raise ValueError(f"must be a number {_range(low, high, low_open)}")
        number = float(value)  # type: ignore[arg-type]
        if number < low or (low_open and number == low) or number >= high:
            raise ValueError(f"must be a number {_range(low, high, low_open)}")
        return number

    return parse


def _range(low: float, high: float, low_open: bool) -> str:
    return f"{'above' if low_open else 'from'} {low:g} and below {high:g}"


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _choice(enum: type[StrEnum]) -> Parser:
    def parse(value: object) -> StrEnum:
        allowed = tuple(member.value for member in enum)
        if isinstance(value, str) and value in allowed:
            return enum(value)
        hint = suggestion(value, allowed) if isinstance(value, str) else ""
        raise ValueError(f"must be one of {', '.join(allowed)}{hint}")

    return parse


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s)?\s*$")


def _duration(*, allow_zero: bool) -> Parser:
    least = "0 or more" if allow_zero else "above 0"

    def parse(value: object) -> float:
        wanted = f'must be seconds ({least}, at most {MAX_SECONDS:g}): 5, 2.5, "2.5s" or "250ms"'
        seconds: float
        if isinstance(value, bool):
            raise ValueError(wanted)
        if isinstance(value, int | float):
            seconds = float(value)
        elif isinstance(value, str) and (match := _DURATION.match(value)):
            seconds = float(match.group(1)) / (1000.0 if match.group(2) == "ms" else 1.0)
        else:
            raise ValueError(wanted)
        if not math.isfinite(seconds) or seconds < 0 or seconds > MAX_SECONDS:
            raise ValueError(wanted)
        if seconds == 0 and not allow_zero:
            raise ValueError(wanted)
        return seconds

    return parse


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _name(value: object) -> str:
    # The name is the default run folder (runs/<name>): one safe path component.
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(
            "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return value


def _optional_text(value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise ValueError("must be a bot's name (1 to 64 characters)")
    return value


def _path(value: object) -> Path:
    if isinstance(value, Path):
        return value
    if not isinstance(value, str) or not value or "\0" in value:
        raise ValueError("must be a path (a non-empty string)")
    return Path(value)


_SCHEDULER = re.compile(r"^(?:(?:tcp|tls)://)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):([0-9]{1,5})$")


def _scheduler(value: object) -> str:
    # Dask's own error for a bad address comes only after a connection timeout: check
    # the shape here, so that a typo is named at once.
    match = _SCHEDULER.match(value) if isinstance(value, str) else None
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        raise ValueError(
            "must be a Dask scheduler's address: tcp://HOST:PORT or tls://HOST:PORT "
            "(a scheduler listens on port 8786 unless told otherwise)"
        )
    return str(value)


def _limit(key: str) -> Parser:
    def parse(value: object) -> int:
        try:
            limits = DEFAULT_LIMITS.with_overrides({key: value}, source="")
        except LimitsError as exc:
            raise ValueError(exc.reason) from None
        result: int = getattr(limits, key)
        return result

    return parse


def _limit_default(key: str) -> str:
    value: int = getattr(DEFAULT_LIMITS, key)
    return (format_size(value) if key in SIZE_KEYS else str(value)) + " or the manifest's"


def _bots(value: object) -> object:
    # Checked by arena.tournament.config, which loads each manifest; here only the shape.
    if not isinstance(value, list | tuple) or not value:
        raise ValueError(
            'must be a list of bot manifests: ["a/bot.toml", ...] or [[bots]] tables '
            "with manifest (and optional name)"
        )
    return value


# ------------------------------------------------------------------------ the table


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One setting: its dotted key, how a value is read, its default for people, the
    command-line flag suggested for it, its help, and ``kind`` (how command-line text is
    read: ``int``, ``number``, ``bool`` or ``text``)."""

    key: str
    parse: Parser
    default: str
    flag: str
    help: str
    kind: str = "text"


_HEADS_UP = _whole(1, MAX_DEALS)
_CHIPS = _whole(0, MAX_CHIPS)

#: How each key's value is read, and the kind of its command-line text.
_PARSERS: dict[str, tuple[Parser, str]] = {
    "name": (_name, "text"),
    "format": (_choice(Format), "text"),
    "bots": (_bots, "paths"),
    "challenger": (_optional_text, "text"),
    "deals": (_HEADS_UP, "int"),
    "block_deals": (_HEADS_UP, "int"),
    "seed": (_any_int, "int"),
    "concurrency": (_whole(1, MAX_CONCURRENCY), "int"),
    "executor": (_choice(ExecutorKind), "text"),
    "scheduler": (_scheduler, "text"),
    "sandbox": (_choice(SandboxLevel), "text"),
    "out": (_path, "text"),
    "game.variant": (_choice(Variant), "text"),
    "game.betting": (_choice(BettingStructure), "text"),
    "game.small_blind": (_CHIPS, "int"),
    "game.big_blind": (_CHIPS, "int"),
    "game.ante": (_CHIPS, "int"),
    "game.starting_stack": (_whole(1, MAX_CHIPS), "int"),
    "limits.decision_timeout": (_duration(allow_zero=False), "text"),
    "limits.startup_timeout": (_duration(allow_zero=False), "text"),
    "limits.time_bank": (_duration(allow_zero=True), "text"),
    "limits.check_on_timeout": (_boolean, "bool"),
    **{f"limits.{key}": (_limit(key), "text" if key in SIZE_KEYS else "int") for key in LIMIT_KEYS},
    "sprt.enabled": (_boolean, "bool"),
    "sprt.mbb0": (_number(low=-1e6, high=1e6), "number"),
    "sprt.mbb1": (_number(low=-1e6, high=1e6), "number"),
    "sprt.alpha": (_number(low=0, high=0.5, low_open=True), "number"),
    "sprt.beta": (_number(low=0, high=0.5, low_open=True), "number"),
    "sit_and_go.games": (_whole(1, MAX_MATCHES), "int"),
    "sit_and_go.seats": (_whole(2, MAX_SEATS), "int"),
    "sit_and_go.double_every_hands": (_whole(1, 1_000_000), "int"),
    "sit_and_go.max_hands": (_whole(1, MAX_DEALS), "int"),
    "ring.seats": (_whole(3, MAX_SEATS), "int"),
}

#: Every key's default (as people read it), suggested flag and help, in documentation order.
#: ``(limit)``: the sandbox's default limit.
_TABLE = """
name                    | "tournament" | --name | the tournament's name and run folder
format                  | "round_robin" | --format | round_robin, gauntlet, ring or sit_and_go
bots                    | (required) | MANIFEST | bot manifests, or tables {name, manifest}
challenger              | the first bot | --challenger | gauntlet: the bot that meets each other
deals                   | 200 | --deals | deals per pair or ring group (sprt: most)
block_deals             | 100 | --block-deals | deals per block (the last may be shorter)
seed                    | secret | --seed | tournament seed (absent: a secret one)
concurrency             | the CPU count | --concurrency | matches played at once
executor                | "local" | --executor | local (a process pool here) or dask (a cluster)
scheduler               | a local cluster | --scheduler | dask: the scheduler, tcp://HOST:8786
sandbox                 | strongest here | --sandbox | none, limits or strict
out                     | "runs/<name>" | --out | the run folder
game.variant            | "holdem" | --variant | holdem or five_card_draw
game.betting            | "no_limit" | --betting | no_limit, pot_limit or fixed_limit
game.small_blind        | 1 | --small-blind | small blind (chips)
game.big_blind          | 2 | --big-blind | big blind (chips)
game.ante               | 0 | --ante | ante every player pays (chips)
game.starting_stack     | 200 | --stack | each bot's stack (freezeout: at the start)
limits.decision_timeout | 5 s | --decision-timeout | time per decision
limits.startup_timeout  | 10 s | --startup-timeout | time to start and answer hello
limits.time_bank        | 0 s | --time-bank | extra time per match over the decision limit
limits.check_on_timeout | false | --check-on-timeout | after a timeout, check when free, not fold
limits.memory_bytes     | (limit) | --memory | memory of a bot's processes
limits.cpu_seconds      | (limit) | --cpu-seconds | CPU seconds per process
limits.processes        | (limit) | --processes | processes of a bot
limits.file_size_bytes  | (limit) | --file-size | largest file a bot writes
limits.open_files       | (limit) | --open-files | open files per process
limits.tmp_bytes        | (limit) | --tmp-size | a bot's private /tmp (strict)
sprt.enabled            | false | --sprt | stop pairs early by a sequential test
sprt.mbb0               | 0 | --sprt-mbb0 | H0: the first bot wins this many mbb/hand
sprt.mbb1               | 50 | --sprt-mbb1 | H1: this many mbb/hand (above mbb0)
sprt.alpha              | 0.05 | --sprt-alpha | false positive rate
sprt.beta               | 0.05 | --sprt-beta | false negative rate
sit_and_go.games        | 2 x bots | --games | freezeouts to play
sit_and_go.seats        | bots if <= 10, else 6 | --sit-and-go-seats | bots per freezeout
sit_and_go.double_every_hands | 10 | --double-every | the blinds double every this many hands
sit_and_go.max_hands    | 2000 | --max-hands | hands before a freezeout places by chips
ring.seats              | bots if <= 10, else 6 | --ring-seats | seats of a ring table (3 to 10)
"""


def _specs() -> tuple[KeySpec, ...]:
    specs = []
    for line in _TABLE.strip().splitlines():
        key, default, flag, text = (cell.strip() for cell in line.split("|"))
        parse, kind = _PARSERS[key]
        if default == "(limit)":  # the sandbox's default, unless a manifest says otherwise
            default = _limit_default(key.partition(".")[2])
        specs.append(KeySpec(key, parse, default, flag, text, kind))
    return tuple(specs)


#: Every key with its default and help, in documentation order (for ``--help``).
DEFAULTS: tuple[KeySpec, ...] = _specs()
#: Every key by its dotted name.
KEYS: dict[str, KeySpec] = {spec.key: spec for spec in DEFAULTS}
#: The tables of the TOML file.
TABLES = ("game", "limits", "sprt", "sit_and_go", "ring")

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def from_text(key: str, value: object) -> object:
    """A command-line text read by the kind of ``key``; anything else is returned as it is
    (so that the key's parser reports what is wrong with it).

    >>> from_text("deals", "300"), from_text("sprt.enabled", "yes"), from_text("deals", "x")
    (300, True, 'x')
    """
    spec = KEYS.get(key)
    if spec is None or not isinstance(value, str):
        return value
    text = value.strip()
    try:
        if spec.kind == "int":
            return int(text)
        if spec.kind == "number":
            return float(text)
    except ValueError:
        return value
    if spec.kind == "bool" and text.lower() in (*_TRUE, *_FALSE):
        return text.lower() in _TRUE
    return value


# ------------------------------------------------------------------------ the bots


@dataclass(frozen=True, slots=True)
class BotEntry:
    """One bot of the tournament: its unique name and its manifest file (absolute)."""

    name: str
    manifest: Path


@dataclass(frozen=True, slots=True)
class ValueSource:
    """Where given values come from: a label for messages (the file, or ``command line``),
    the folder relative paths start from, and whether text is read by the key's kind (the
    command line's is, see :func:`from_text`)."""

    label: str
    base_dir: Path
    is_text: bool


_BOT_TABLE_KEYS = ("name", "manifest")


def load_bots(value: object, source: ValueSource) -> tuple[BotEntry, ...]:
    """The ``bots`` value as entries, each manifest loaded once to check it and to read its
    name (a :class:`BotEntry` is taken as it is: it was checked when it was made)."""
    try:
        entries = _bots(value)
    except ValueError as exc:
        raise TournamentConfigError(source.label, "bots", value, str(exc)) from None
    assert isinstance(entries, list | tuple)
    bots = tuple(_bot(entry, f"bots[{index}]", source) for index, entry in enumerate(entries))
    first_of: dict[str, int] = {}
    for index, bot in enumerate(bots):
        if bot.name in first_of:
            raise TournamentConfigError(
                source.label,
                f"bots[{index}]",
                entries[index],
                f"two bots are named {bot.name!r} (bots[{first_of[bot.name]}] too): name them "
                'apart with [[bots]] tables (name = "...", manifest = "...")',
            )
        first_of[bot.name] = index
    return bots


def _bot(entry: object, key: str, source: ValueSource) -> BotEntry:
    if isinstance(entry, BotEntry):
        return entry
    name: str | None = None
    path = entry
    if isinstance(entry, Mapping):
        for leaf in entry:
            if leaf not in _BOT_TABLE_KEYS:
                hint = suggestion(str(leaf), _BOT_TABLE_KEYS)
                raise TournamentConfigError(
                    source.label, f"{key}.{leaf}", entry[leaf], f"unknown key{hint}"
                )
        if "manifest" not in entry:
            raise TournamentConfigError(
                source.label, key, dict(entry), "has no manifest (the path of the bot's bot.toml)"
            )
        if "name" in entry:
            try:
                name = _optional_text(entry["name"])
            except ValueError as exc:
                raise TournamentConfigError(
                    source.label, f"{key}.name", entry["name"], str(exc)
                ) from None
        key, path = f"{key}.manifest", entry["manifest"]
    try:
        relative = _path(path)
    except ValueError:
        raise TournamentConfigError(
            source.label, key, path, "must be a manifest path or a table {name, manifest}"
        ) from None
    full = (source.base_dir / relative).resolve()
    if not full.is_file():
        raise TournamentConfigError(source.label, key, path, f"no bot manifest at {full}")
    try:
        manifest = load_manifest(full)
    except ManifestError as exc:
        raise TournamentConfigError(source.label, key, path, f"bad manifest: {exc}") from None
    return BotEntry(name if name is not None else manifest.name, full)
