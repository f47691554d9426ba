"""Playing a ladder game: its two matches (the same seed, seats swapped) through the match
executor seam (:class:`arena.cluster.executor.MatchExecutor`: the local process pool by
default), with the competition's settings and sandbox, the luck estimator on. A ring
table of ``N`` versions plays ``N`` matches instead, the same seed in each rotation of the
table (seat ``i`` gets version ``(i + r) mod N`` in rotation ``r``, as a ring tournament's
block does).

Each version is unpacked (by the site's archive rules) and built in the sandbox once per
machine, into ``<work>/ladder/versions/<id>`` (built in a private folder, then renamed
into place, so two workers building at once cannot mix their files); every match starts
it from there, as a tournament starts its bots from its builds. The game's match files go
to ``<work>/ladder/games/<id>``; a game played again starts its matches afresh. Match ids:
``game-<id>`` and ``game-<id>-swap`` heads-up; ``game-<id>`` and ``game-<id>-r<k>`` for
rotation ``k`` (1 to ``N - 1``) at a table.

What came back is a :class:`PlayedGame`: how the game ended
(:class:`arena.ladder.ends.EndCause`; who did not start, when a bot did not) and, when it
was played to its end, its result (:func:`arena.ladder.games.game_from_block`, a table's
:func:`arena.ladder.games.table_from_block`), the duplicate units per deal and each
version's faults. Nothing here touches the database.

A game's ``detail`` becomes part of its end reason, which every version at its table
reads: it never holds a bot's stderr, a build's output, a path or an exception's text.
A bot that did not start is named with its start-up failure's code only (``exited``,
``startup_timeout``: its stderr tail stays out); what went wrong in the infrastructure
is logged whole for the organiser (logger ``arena.server.ladder.play``) and shown as
what failed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import shutil
import uuid
from collections.abc import Sequence
from concurrent.futures import wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.build import build_bots, without_paths
from arena.bots.manifest import ManifestError, load_manifest
from arena.bots.sandbox.resources import ResourceLimitsError
from arena.bots.sandbox.select import (
    SandboxLevel,
    SandboxUnavailableError,
    choose,
    launcher_for,
)
from arena.cluster.executor import MatchExecutor
from arena.cluster.job import MatchJob
from arena.ladder.ends import EndCause
from arena.ladder.games import GameResult, TableResult, game_from_block, table_from_block
from arena.luck import LuckValue
from arena.server.competition import Competition
from arena.server.ladder.own_faults import absent_bots
from arena.settings.catalog import Format, Luck
from arena.stats.scores import Score
from arena.stats.units import duplicate_units
from arena.store.outcome import MatchOutcome
from arena.tournament.config import DEFAULT_TABLE_SEATS, TournamentConfig
from arena.tournament.plan import MatchSpec
from arena.uploads import ArchiveError, ArchiveLimits, unpack

__all__ = [
    "GameSpec",
    "LadderRules",
    "PlayedGame",
    "VersionFiles",
    "ladder_rules",
    "play_game",
    "table_size",
]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LadderRules:
    """How every ladder game is played: the competition's game and limits (a tournament
    config without bots, luck on), the sandbox layer and its resource limits, the archive rules,
    and the versions at a rated game's table (2: heads-up; a ring competition's seats)."""

    config: TournamentConfig
    sandbox: SandboxLevel
    resource_limits: tuple[tuple[str, int], ...] = ()
    expose: tuple[Path, ...] = ()
    archive: ArchiveLimits = field(default_factory=ArchiveLimits)
    table_size: int = 2


def ladder_rules(competition: Competition | None, archive: ArchiveLimits) -> LadderRules:
    """The rules of the competition (none: the defaults, the strict sandbox, as for
    validation); the sandbox is the strongest layer here when the file names none. A
    ``ring`` competition's rated games are tables of its ``ring.seats`` versions
    (:data:`~arena.tournament.config.DEFAULT_TABLE_SEATS` when absent); any other format's
    are heads-up. ``SandboxUnavailableError`` when the layer asked for does not work here."""
    config = TournamentConfig(bots=()) if competition is None else competition.config
    config = dataclasses.replace(config, luck=Luck.ON, score=None)
    level, _reasons = choose(config.sandbox or SandboxLevel.STRICT)
    return LadderRules(
        config=config,
        sandbox=level,
        resource_limits=tuple(sorted(config.resource_limits.items())),
        expose=config.expose,
        archive=archive,
        table_size=table_size(config),
    )


def table_size(config: TournamentConfig) -> int:
    """Versions at a rated ladder game's table under a competition's ``config``: its ring
    seats for a ring competition, else 2 (heads-up)."""
    if config.format is not Format.RING:
        return 2
    return config.ring_seats if config.ring_seats is not None else DEFAULT_TABLE_SEATS


@dataclass(frozen=True, slots=True)
class VersionFiles:
    """A version to play: its label, its archive and its number on the site."""

    label: str
    archive: Path
    version_id: int


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A game to play: its number, its versions (``first`` sits first in the first match,
    ``second`` next, a table's ``others`` after them), its seed, its deals, whether it
    is rated, and the luck estimator's betting weights (its value fit's; None: the
    shipped ones)."""

    game_id: int
    first: VersionFiles
    second: VersionFiles
    seed: int
    deals: int
    is_rated: bool = True
    others: tuple[VersionFiles, ...] = ()
    luck_value: LuckValue | None = None

    @property
    def versions(self) -> tuple[VersionFiles, ...]:
        """Every version in the first match's seat order."""
        return (self.first, self.second, *self.others)

    @property
    def labels(self) -> tuple[str, ...]:
        """Every version's label in the first match's seat order."""
        return tuple(version.label for version in self.versions)

    def seatings(self) -> list[tuple[str, tuple[str, ...]]]:
        """Each match's id and seats: heads-up the pair and the swap; a table its rotations
        (seat ``i`` gets version ``(i + r) mod N`` in rotation ``r``)."""
        bots, base = self.labels, f"game-{self.game_id}"
        if len(bots) == 2:
            return [(base, bots), (f"{base}-swap", bots[::-1])]
        return [
            (base if rotation == 0 else f"{base}-r{rotation}", bots[rotation:] + bots[:rotation])
            for rotation in range(len(bots))
        ]


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """How a game ended and what it left (module docstring). ``units``: ``first``'s
    result per deal, ``{"adjusted": [...], "raw": [...]}`` (a table: every version's,
    ``{"adjusted": {label: [...]}, "raw": {...}}``); ``faults``: each version's faults by
    kind; ``matches``: each match's outcome and the folder its paths are in;
    ``build_output``: the output of each version whose build failed here, by label (its
    own team's only, the server's folders left out); ``detail``:
    what every version at the table may read of how it ended (module docstring). The
    detail of an infrastructure failure (an exception's text, whoever made it) is the
    organiser's: it is logged when the game is made and kept out of the reason.

    >>> PlayedGame(EndCause.ARENA_ERROR, detail="OSError: [Errno 28] /srv/site").detail
    ''
    """

    cause: EndCause
    at_fault: tuple[str, ...] = ()
    detail: str = ""
    result: GameResult | TableResult | None = None
    units: dict[str, Any] = field(default_factory=dict)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    matches: tuple[tuple[MatchOutcome, Path], ...] = ()
    build_output: dict[str, str] = field(default_factory=dict)

    @property
    def estimator(self) -> str:
        """The luck estimator's name and version that adjusted the matches (each match's
        outcome names it: :attr:`arena.store.outcome.MatchOutcome.estimator`); empty when no
        match carries one. The matches of a game share their config, so they agree.

        >>> PlayedGame(EndCause.PLAYED).estimator
        ''
        """
        return next((outcome.estimator for outcome, _folder in self.matches
                     if outcome.estimator), "")  # fmt: skip

    def __post_init__(self) -> None:
        if self.cause.is_infrastructure and self.detail:
            _log.warning("a ladder game's %s: %s", self.cause.value, self.detail)
            object.__setattr__(self, "detail", "")  # frozen: set once, here


class _NotBuilt(Exception):
    """A version that cannot be unpacked or built here (its own fault: it was accepted):
    what failed (public), why (the organiser's: it may quote the version's files) and the
    build's output, the server's folders left out (its own team's only)."""

    def __init__(self, label: str, reason: str, why: object, output: str = "") -> None:
        super().__init__(f"{label}: {reason}")
        self.label = label
        self.output = output
        _log.warning("%s: %s: %s", label, reason, why)


def prepare(version: VersionFiles, rules: LadderRules, root: Path) -> tuple[Path, Path | None]:
    """The version's manifest and built folder under ``root`` (made once per machine)."""
    home = root / "versions" / str(version.version_id)
    marker = home / "ready.json"
    if not marker.is_file():
        _build(version, rules, home)
    data: dict[str, Any] = json.loads(marker.read_text(encoding="utf-8"))
    built = data.get("build")
    return home / data["manifest"], None if built is None else home / built


def _build(version: VersionFiles, rules: LadderRules, home: Path) -> None:
    scratch = home.parent / f".{home.name}-{uuid.uuid4().hex}"
    scratch.mkdir(parents=True, mode=0o700)
    try:
        try:
            unpack(version.archive, scratch / "upload", rules.archive)
        except ArchiveError as exc:
            raise _NotBuilt(version.label, "its archive cannot be unpacked", exc) from None
        path = scratch / "upload" / "bot.toml"
        tops = list((scratch / "upload").iterdir())
        if not path.is_file() and len(tops) == 1 and tops[0].is_dir():
            path = tops[0] / "bot.toml"
        try:
            manifest = load_manifest(path)
        except (ManifestError, OSError) as exc:
            raise _NotBuilt(version.label, "its bot.toml cannot be read", exc) from None
        launcher = launcher_for(
            rules.sandbox, overrides=dict(rules.resource_limits), expose=rules.expose
        )
        try:
            (built,) = build_bots([(version.label, manifest)], launcher=launcher)
            if not built.result.is_ok:
                copy = launcher.built_copy(manifest)  # the sandbox's private copy
                folders = [scratch, home, *([] if copy is None else [copy])]
                output = without_paths(built.result.output, folders)
                raise _NotBuilt(version.label, "its build failed", built.result.reason, output)
            build = None
            if built.built_copy is not None:
                shutil.copytree(built.built_copy, scratch / "build", symlinks=True)
                build = "build"
        finally:
            launcher.close()
        document = {"manifest": str(path.relative_to(scratch)), "build": build}
        (scratch / "ready.json").write_text(json.dumps(document), encoding="utf-8")
        with contextlib.suppress(OSError):  # another worker built it first: keep theirs
            scratch.rename(home)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def play_game(
    spec: GameSpec,
    executor: MatchExecutor,
    rules: LadderRules,
    root: Path,
    *,
    deadline_s: float | None = None,
) -> PlayedGame:
    """Play ``spec``'s matches (two heads-up, a table's rotations) on ``executor`` (files
    under ``root``) and say how it ended (module docstring); matches not over after
    ``deadline_s`` seconds end it as past the deadline (they still run: the caller
    replaces the executor)."""
    bots = spec.labels
    files: dict[str, tuple[Path, Path | None]] = {}
    not_built: list[_NotBuilt] = []
    for version in spec.versions:
        try:
            files[version.label] = prepare(version, rules, root)
        except _NotBuilt as exc:
            not_built.append(exc)
            if len(spec.versions) == 2:
                break  # heads-up the first forfeits, as ever
            # At a table every one is named: one left unnamed would share the forfeits.
        except (SandboxUnavailableError, ResourceLimitsError) as exc:
            return PlayedGame(EndCause.SANDBOX_UNAVAILABLE, detail=str(exc))
        except OSError as exc:
            detail = f"game {spec.game_id}: the versions cannot be prepared: {exc}"
            return PlayedGame(EndCause.ARENA_ERROR, detail=detail)
    if not_built:
        labels = tuple(exc.label for exc in not_built)
        outputs = {exc.label: exc.output for exc in not_built if exc.output}
        return PlayedGame(EndCause.BOT_NOT_READY, labels, "; ".join(map(str, not_built)),
                          build_output=outputs)  # fmt: skip
    game_dir = root / "games" / str(spec.game_id)
    is_table = len(bots) > 2
    base = MatchSpec(
        match_id=f"game-{spec.game_id}", block_id=f"game-{spec.game_id}",
        kind="ring" if is_table else "heads_up", bots=bots, seed=spec.seed, position=0,
        group=bots if is_table else tuple(sorted(bots)), block_index=0, arrangement=0,
        hand_count=spec.deals,
    )  # fmt: skip
    config = base.match_config(rules.config)
    jobs = [
        MatchJob(
            match_id=match_id,
            config=dataclasses.replace(config, match_id=match_id, luck_value=spec.luck_value),
            bots=seats,
            manifests=tuple(files[bot][0] for bot in seats),
            sandbox=rules.sandbox.value,
            tournament_dir=game_dir,
            resource_limits=rules.resource_limits,
            working_dirs=tuple(files[bot][1] for bot in seats),
            expose=rules.expose,
        )
        for match_id, seats in spec.seatings()
    ]
    futures = [executor.submit(job) for job in jobs]
    _done, running = wait(futures, timeout=deadline_s)
    if running:
        return PlayedGame(EndCause.DEADLINE, detail=f"not over after {deadline_s:g} s")
    outcomes = [future.result() for future in futures]
    matches = tuple((outcome, game_dir) for outcome in outcomes)
    faults: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        for seat in outcome.seats:
            mine = faults.setdefault(seat.bot, {})
            for kind, count in seat.fault_counts.items():
                mine[kind] = mine.get(kind, 0) + count
    failed = [outcome for outcome in outcomes if outcome.error is not None]
    if failed:
        return _failed(failed, bots, faults, matches)
    result: GameResult | TableResult
    units: dict[str, Any] = {}
    scores: tuple[Score, ...] = ("adjusted", "raw")
    if is_table:
        result = table_from_block(outcomes, bots, is_rated=spec.is_rated)
        for score in scores:
            deals = duplicate_units(outcomes, score=score)
            units[score] = {bot: [deal[bot] for deal in deals] for bot in bots}
    else:
        first = bots[0]
        result = game_from_block(outcomes, first, bots[1], is_rated=spec.is_rated)
        for score in scores:
            units[score] = [deal[first] for deal in duplicate_units(outcomes, score=score)]
    return PlayedGame(EndCause.PLAYED, result=result, units=units, faults=faults, matches=matches)


def _failed(
    failed: Sequence[MatchOutcome],
    bots: Sequence[str],
    faults: dict[str, dict[str, int]],
    matches: tuple[tuple[MatchOutcome, Path], ...],
) -> PlayedGame:
    """A game with a match that could not be played to its end: the bots (any of the
    game's) that did not start (their fault), or the arena's trouble."""
    errors = "; ".join(f"{outcome.match_id}: {outcome.error}" for outcome in failed)
    codes = {
        bot.name: bot.code
        for outcome in failed
        for bot in absent_bots(str(outcome.error))
        if bot.name in bots
    }
    if codes:
        absent = tuple(sorted(codes))
        # Each bot's failure by its code: the text after it quotes the bot's stderr.
        _log.warning("bots did not start: %s", errors)  # their stderr: the organiser's
        detail = "; ".join(f"{name}: {codes[name]}" for name in absent)
        return PlayedGame(EndCause.BOT_NOT_READY, absent, detail, faults=faults,
                          matches=matches)  # fmt: skip
    if any(str(outcome.error).startswith("cannot prepare the match") for outcome in failed):
        return PlayedGame(EndCause.SANDBOX_UNAVAILABLE, detail=errors)
    return PlayedGame(EndCause.ARENA_ERROR, detail=errors)
