"""Every setting of the ``arena`` commands and of a tournament file, declared once.

The order here is the order of ``--help`` and of the key table in
``docs/tournament-config.md`` (a test compares them). Groups: ``tournament`` (who plays
and how the run is organised), ``run`` (seed and run folder), ``sandbox`` (isolation and
resource limits), ``game``, ``match`` (what only a single match or a game with a person
takes), ``limits`` (time limits), ``sprt``, ``sit_and_go``, ``ring``, ``score`` (the luck
estimator and what results are measured by), ``log`` and ``output``.

A key a tournament file may hold (``in_file``, the default) is read by
:func:`arena.tournament.config.build_config`: one in a table lands in the field of the
same name of that table's settings (``GameSettings``, ``TimeSettings``..., or for a
resource limit ``ResourceLimits``), one at the top needs a field of ``TournamentConfig``;
a setting only a command takes is declared with ``in_file=False``.
"""

from __future__ import annotations

import os
import re
from enum import StrEnum
from pathlib import Path

from arena.bots.sandbox.reach import parse_expose
from arena.bots.sandbox.resources import (
    DEFAULT_RESOURCES,
    SIZE_KEYS,
    ResourceLimitsError,
    format_size,
)
from arena.bots.sandbox.select import SandboxLevel
from arena.match.config import Score
from arena.match.log import LOG_LEVELS
from arena.session.policy import TimeBasis, TimeLimits
from arena.settings import grammar
from arena.settings.grammar import boolean, choice, duration, number, whole
from arena.settings.model import declare
from engine.config import BettingStructure, Variant
from engine.table import MAX_SEAT_COUNT

__all__ = [
    "LOG_LEVELS",
    "MAX_CHIPS",
    "MAX_CONCURRENCY",
    "MAX_DEALS",
    "MAX_MATCHES",
    "ExecutorKind",
    "Format",
    "Luck",
]

#: The most matches a tournament may plan: beyond it a typo (a ring of 30 bots at 5 seats
#: is 142,506 groups) would start a run of weeks; the error names the number.
MAX_MATCHES = 10_000
#: The most deals one pair (or ring group) may play.
MAX_DEALS = 10_000_000
#: The largest chip amount (blinds, antes, stacks): far beyond any game, still exact.
MAX_CHIPS = 10**12
#: The most worker processes.
MAX_CONCURRENCY = 1024


class Format(StrEnum):
    """How the bots of a tournament meet (see ``docs/tournament-config.md``)."""

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


def _values(enum: type[StrEnum]) -> tuple[str, ...]:
    return tuple(member.value for member in enum)


def _name(value: object) -> str:
    # The name is the default run folder (runs/<name>): one safe path component.
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", value):
        raise ValueError(
            "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return value


def bot_name(value: object) -> str:
    """A bot's name: 1 to 64 characters, not only spaces."""
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise ValueError("must be a bot's name (1 to 64 characters)")
    return value


def _scheduler(value: object) -> str:
    # Dask's own error for a bad address comes only after a connection timeout: check
    # the shape here, so that a typo is named at once.
    pattern = r"(?:(?:tcp|tls)://)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):([0-9]{1,5})"
    match = re.fullmatch(pattern, value) if isinstance(value, str) else None
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        raise ValueError(
            "must be a Dask scheduler's address: tcp://HOST:PORT or tls://HOST:PORT "
            "(a scheduler listens on port 8786 unless told otherwise)"
        )
    return str(value)


def _bots(value: object) -> object:
    # Checked by arena.tournament.config, which loads each manifest; here only the shape.
    if not isinstance(value, list | tuple) or not value:
        raise ValueError(
            'must be a list of bot manifests: ["a/bot.toml", ...] or [[bots]] tables '
            "with manifest (and optional name)"
        )
    return value


def _limit(key: str) -> grammar.Parser:
    def parse(value: object) -> int:
        try:
            resources = DEFAULT_RESOURCES.with_overrides({key: value}, source="")
        except ResourceLimitsError as exc:
            raise ValueError(exc.reason) from None
        result: int = getattr(resources, key)
        return result

    return parse


def _expose(value: object) -> tuple[Path, ...]:
    # A flag gives one path at a time (--expose is repeated), a file a list of them.
    if isinstance(value, str | os.PathLike):
        try:
            return parse_expose([value])
        except ValueError as exc:  # "expose '<path>': why": the flag's error names the path
            raise ValueError(str(exc).partition(": ")[2]) from None
    if not isinstance(value, list | tuple):
        raise ValueError("must be a list of absolute paths")
    return parse_expose(value)


def _time_basis(value: object) -> TimeBasis:
    try:
        return TimeBasis.parse(value.lower() if isinstance(value, str) else repr(value))
    except ValueError:
        raise ValueError("must be wall or cpu") from None


class Luck(StrEnum):
    """Whether the luck estimator runs (``arena.luck``): a switch that is on by default,
    so it is named by its state, as people say it (``luck = "off"``)."""

    ON = "on"
    OFF = "off"

    @property
    def is_on(self) -> bool:
        """True for ``on``."""
        return self is Luck.ON


def _luck(value: object) -> Luck:
    # A file's true and false read as on and off; any case, as a flag's choices.
    if isinstance(value, bool):
        return Luck.ON if value else Luck.OFF
    text = value.lower() if isinstance(value, str) else None
    if text not in ("on", "off"):
        raise ValueError("must be on or off")
    return Luck(text)


def _optional(parse: grammar.Parser) -> grammar.Parser:
    def parse_or_none(value: object) -> object:
        return None if value is None else parse(value)

    return parse_or_none


_DEALS = whole(1, MAX_DEALS)
_CHIPS = whole(0, MAX_CHIPS)

# -- the tournament: who plays, how the run is organised ------------------------------------
declare("name", _name, "tournament", "--name", "the tournament's name and run folder",
        group="tournament", metavar="NAME", decides_results=False)  # fmt: skip
declare("format", choice(Format), Format.ROUND_ROBIN, "--format",
        "how the bots meet: round_robin, gauntlet, ring or sit_and_go", group="tournament",
        choices=_values(Format))  # fmt: skip
declare("bots", _bots, None, None, "bot manifests, or tables {name, manifest}",
        group="tournament", shown="(required)", decides_results=False)  # fmt: skip
declare("challenger", bot_name, None, "--challenger",
        "gauntlet: the bot that meets each other", group="tournament", shown="the first bot",
        metavar="BOT", decides_results=False)  # fmt: skip
declare("deals", _DEALS, 200, "--deals", "deals per pair or ring group (sprt: the most)",
        group="tournament", kind="int", metavar="N")  # fmt: skip
declare("block_deals", _DEALS, 100, "--block-deals",
        "deals per block (the last may be shorter)", group="tournament", kind="int",
        metavar="N")  # fmt: skip
declare("seed", whole(), None, "--seed",
        "the seed that decides every deal, to play the same again (default: a secret "
        "256-bit seed from the operating system, revealed once no match still deals from it)",
        group="run", kind="seed", shown="secret", metavar="SEED",
        decides_results=False)  # fmt: skip
declare("concurrency", whole(1, MAX_CONCURRENCY), None, "--concurrency",
        "matches played at once", group="tournament", kind="int", shown="the CPU count",
        metavar="N", decides_results=False)  # fmt: skip
declare("executor", choice(ExecutorKind), ExecutorKind.LOCAL, "--executor",
        "local (a process pool here) or dask (a cluster)", group="tournament",
        choices=_values(ExecutorKind), decides_results=False)  # fmt: skip
declare("scheduler", _scheduler, None, "--scheduler", "dask: the scheduler, tcp://HOST:8786",
        group="tournament", shown="a local cluster", metavar="ADDRESS",
        decides_results=False)  # fmt: skip
declare("sandbox", choice(SandboxLevel), None, "--sandbox",
        "how bots are isolated: none, limits or strict (default: the strongest layer that "
        "works here)", group="sandbox", shown="strongest here", choices=_values(SandboxLevel),
        decides_results=False)  # fmt: skip
declare("expose", _expose, None, "--expose",
        "a host path shown read-only to every bot in the strict sandbox, for a toolchain "
        "installed in a home directory (absolute; repeat for more; never from a manifest)",
        group="sandbox", kind="list", shown="none", metavar="PATH",
        decides_results=False)  # fmt: skip
declare("out", grammar.path, None, "--out",
        "the run folder; it must not hold another run", group="run", shown='"runs/<name>"',
        metavar="FOLDER", decides_results=False)  # fmt: skip

# -- the game --------------------------------------------------------------------------------
declare("game.variant", choice(Variant), Variant.HOLDEM, "--variant",
        "the game: holdem or five_card_draw", group="game", choices=_values(Variant))  # fmt: skip
declare("game.betting", choice(BettingStructure), BettingStructure.NO_LIMIT, "--betting",
        "the betting structure: no_limit, pot_limit or fixed_limit", group="game",
        aliases=("--structure",), choices=_values(BettingStructure))  # fmt: skip
declare("game.small_blind", _CHIPS, 1, "--small-blind", "small blind, in chips",
        group="game", kind="int", metavar="CHIPS")  # fmt: skip
declare("game.big_blind", _CHIPS, 2, "--big-blind", "big blind, in chips", group="game",
        kind="int", metavar="CHIPS")  # fmt: skip
declare("game.ante", _CHIPS, 0, "--ante", "ante every player pays, in chips", group="game",
        kind="int", metavar="CHIPS")  # fmt: skip
declare("game.starting_stack", whole(1, MAX_CHIPS), 200, "--stack",
        "each bot's stack in chips (freezeout: at the start)", group="game", kind="int",
        metavar="CHIPS", dest="stack")  # fmt: skip

# -- time limits (their defaults are those of the arena's TimeLimits) ------------------------
_TIME = TimeLimits()
declare("limits.decision_timeout", duration(), _TIME.decision_s, "--decision-timeout",
        "time per decision (seconds, or e.g. 250ms)", group="limits",
        shown=f"{_TIME.decision_s:g} s", metavar="SECONDS")  # fmt: skip
declare("limits.startup_timeout", duration(), _TIME.startup_s, "--startup-timeout",
        "time to start and answer hello (seconds)", group="limits",
        shown=f"{_TIME.startup_s:g} s", metavar="SECONDS")  # fmt: skip
declare("limits.time_bank", duration(allow_zero=True), _TIME.time_bank_s, "--time-bank",
        "extra time per match a bot may spend over the decision limit (seconds)",
        group="limits", shown=f"{_TIME.time_bank_s:g} s", metavar="SECONDS")  # fmt: skip
declare("limits.check_on_timeout", boolean, False, "--check-on-timeout",
        "after a timeout, check when checking is free instead of folding", group="limits",
        kind="bool")  # fmt: skip
declare("limits.time_basis", _time_basis, _TIME.time_basis, "--time-basis",
        "what a decision's time is measured in: wall (the clock) or cpu (the bot's own CPU "
        "time, so a loaded host does not make it late; the wall clock still ends a "
        f"decision at {_TIME.wall_backstop:g} times its time)", group="limits",
        choices=_values(TimeBasis))  # fmt: skip

# -- resource limits (the sandbox's; a flag beats a manifest's [limits]) ---------------------
for _key, _flag, _what in (
    ("memory_bytes", "--memory", "memory of all the bot's processes"),
    ("cpu_seconds", "--cpu-seconds", "CPU seconds per process"),
    ("processes", "--processes", "processes of the bot"),
    ("file_size_bytes", "--file-size", "largest file it writes"),
    ("open_files", "--open-files", "open files per process"),
    ("tmp_bytes", "--tmp-size", "its private /tmp (strict, not root)"),
    ("disk_bytes", "--disk-size", "all it writes: its private folder and /tmp (as root)"),
    ("cpu_percent", "--cpu-percent", "CPU share of the whole bot, 100 = one core (cgroup)"),
):
    _is_size = _key in SIZE_KEYS
    _default: int = getattr(DEFAULT_RESOURCES, _key)
    _text = format_size(_default) if _is_size else str(_default)
    declare(f"limits.{_key}", _limit(_key), None, _flag,
            f"{_what} (default {_text.replace(' ', '')})",
            group="sandbox", kind="text" if _is_size else "int",
            shown=f"{_text} or the manifest's",
            metavar="SIZE" if _is_size else "N")  # fmt: skip

# -- the sequential test (heads-up tournaments) ----------------------------------------------
_RATE = number(low=0, high=0.5, low_open=True)
_MBB = number(low=-1e6, high=1e6)
declare("sprt.enabled", boolean, False, "--sprt", "stop pairs early by a sequential test",
        group="sprt", kind="bool", dest="sprt")  # fmt: skip
declare("sprt.mbb0", _MBB, 0.0, "--sprt-mbb0",
        "H0: the first bot wins this many mbb/hand (milli-big-blinds per hand)",
        group="sprt", kind="number", shown="0", metavar="MBB", dest="sprt_mbb0")  # fmt: skip
declare("sprt.mbb1", _MBB, 50.0, "--sprt-mbb1", "H1: this many mbb/hand (above mbb0)",
        group="sprt", kind="number", shown="50", metavar="MBB", dest="sprt_mbb1")  # fmt: skip
declare("sprt.alpha", _RATE, 0.05, "--sprt-alpha", "false positive rate (0 to 0.5)",
        group="sprt", kind="number", metavar="RATE", dest="sprt_alpha")  # fmt: skip
declare("sprt.beta", _RATE, 0.05, "--sprt-beta", "false negative rate (0 to 0.5)",
        group="sprt", kind="number", metavar="RATE", dest="sprt_beta")  # fmt: skip

# -- freezeouts and ring tables --------------------------------------------------------------
_TABLE_DEFAULT = "bots if <= 10, else 6"
declare("sit_and_go.games", whole(1, MAX_MATCHES), None, "--games", "freezeouts to play",
        group="sit_and_go", kind="int", shown="2 x bots", metavar="N")  # fmt: skip
declare("sit_and_go.seats", whole(2, MAX_SEAT_COUNT), None, "--sit-and-go-seats",
        "bots per freezeout", group="sit_and_go", kind="int", shown=_TABLE_DEFAULT,
        metavar="N", dest="sit_and_go_seats", decides_results=False)  # fmt: skip
declare("sit_and_go.double_every_hands", whole(1, 1_000_000), 10, "--double-every",
        "the blinds double every this many hands", group="sit_and_go", kind="int",
        metavar="HANDS")  # fmt: skip
declare("sit_and_go.max_hands", whole(1, MAX_DEALS), 2000, "--sit-and-go-max-hands",
        "hands before a freezeout places by chips", group="sit_and_go", kind="int",
        metavar="HANDS", aliases=("--max-hands",), dest="sit_and_go_max_hands")  # fmt: skip
declare("ring.seats", whole(3, MAX_SEAT_COUNT), None, "--ring-seats",
        "seats of a ring table (3 to 10)", group="ring", kind="int", shown=_TABLE_DEFAULT,
        metavar="N", dest="ring_seats")  # fmt: skip

# -- luck-adjusted scoring (arena match, arena tournament) ------------------------------------
declare("luck", _luck, Luck.ON, "--luck",
        "on: after every hand the luck estimator takes the luck of the cards out of each "
        "bot's result, shown beside the raw result; off: nothing is computed (score raw)",
        group="score", choices=_values(Luck))  # fmt: skip
declare("score", _optional(choice(Score)), None, "--score",
        "what intervals, the sequential test and rankings measure: adjusted (the "
        "luck-adjusted result) or raw (the chips); the raw result is always shown; "
        "adjusted needs luck on", group="score", choices=_values(Score),
        shown='"adjusted"; "raw" with luck off')  # fmt: skip

# -- a single match (arena match, arena play): not in a tournament file -----------------------
declare("hands", _optional(whole(1, MAX_DEALS)), None, "--hands",
        "hands to play (default {default}; with --freezeout: the most hands before placing by "
        "chips, default none: until one player has every chip)", group="match", kind="int",
        shown="100", metavar="N", in_file=False)  # fmt: skip
declare("freezeout", boolean, False, "--freezeout",
        "carry stacks until one player holds every chip; finishing places", group="match",
        kind="bool", in_file=False)  # fmt: skip
declare("no_reset", boolean, False, "--no-reset",
        "carry stacks from hand to hand (busted bots are eliminated); default: every hand "
        "starts from --stack", group="match", kind="bool", in_file=False)  # fmt: skip
declare("schedule", _optional(str), None, "--schedule",
        "blind schedule LEVELS@PERIOD: levels SB/BB[/ANTE] or double, a period in hands "
        "(50), seconds (90s) or minutes (10m), e.g. 1/2,2/4,5/10/1@50; or a .json file",
        group="match", metavar="LEVELS@PERIOD", in_file=False)  # fmt: skip
declare("game.cap_heads_up", boolean, False, "--cap-heads-up",
        "fixed-limit: keep the cap on raises heads-up too (default: lifted heads-up)",
        group="match", kind="bool", in_file=False)  # fmt: skip
declare("allow_absent", boolean, False, "--allow-absent",
        "play on when a bot cannot be started at the beginning (it sits out, after its "
        "restarts); default: stop before the first hand with exit code 2", group="match",
        kind="bool", in_file=False)  # fmt: skip
declare("no_prefetch", boolean, False, "--no-prefetch",
        "do no work ahead while bots think (the same results, a slower match)",
        group="match", kind="bool", in_file=False)  # fmt: skip

# -- how a run shows itself (not settings of what is played) ----------------------------------
declare("log_level", grammar.one_of(LOG_LEVELS), "warning", "--log-level",
        "match log lines at this level and above (default warning: bot faults)",
        group="log", choices=LOG_LEVELS, in_file=False)  # fmt: skip
declare("log_file", _optional(grammar.path), None, "--log-file",
        "write the match log here (default: no file)", group="log", metavar="FILE",
        in_file=False)  # fmt: skip
declare("no_progress", boolean, False, "--no-progress",
        "plain lines instead of a progress bar", group="output", kind="bool",
        in_file=False)  # fmt: skip
declare("no_report", boolean, False, "--no-report", "do not write report.html at the end",
        group="output", kind="bool", in_file=False)  # fmt: skip
declare("verbose", boolean, False, "--verbose",
        "say more at the start: why the kernel holds no limits here (cgroups), when it "
        "does not", group="output", kind="bool", in_file=False)  # fmt: skip
