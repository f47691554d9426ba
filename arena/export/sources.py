"""The hands to export: every hand of a ``hands.jsonl``, a match's run folder or a
tournament's run folder, in order.

A tournament's matches come in plan order, read from its results database
(``results.sqlite``: the latest tournament in it, matches that have a hand history); a
tournament folder without a database (one copied without it) gives its
``matches/<match id>/hands.jsonl`` files in name order. Files are streamed (a hand at a
time), so a long match is never held in memory whole.

Each hand comes with its match id and the names of the match's players (the bot names
its header gives each player id), since exported files name players, not seat ids.
Problems with the source itself (a path that is not a run, a file that is not a hand
history, a broken database) are a :class:`SourceError` naming the path; a single hand
that cannot be replayed is the exporter's business (it is refused, not fatal).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.store.hand_log import HandLogError, iter_hands, read_header
from arena.store.run_folder import RunFolder
from arena.store.sqlite import ResultsDatabase, ResultsDatabaseError

__all__ = [
    "MatchFile",
    "Source",
    "SourceError",
    "SourceHand",
    "open_source",
]


class SourceError(ValueError):
    """A source that is not a run or cannot be read; the message names the path."""


@dataclass(frozen=True, slots=True)
class SourceHand:
    """One recorded hand: its match, its number and the engine's history document.

    ``names`` maps each player id of the match to the player's (bot's) name.
    """

    match_id: str
    hand_number: int
    history: dict[str, Any]
    names: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """``<match id>/<hand number>``, the way ``arena report --hand`` names a hand."""
        return f"{self.match_id}/{self.hand_number}"

    @property
    def match_file_name(self) -> str:
        """The match's id as a file name (an output per match): other characters than
        letters, digits, ``.``, ``_`` and ``-`` become ``_``; ``match`` when none is left."""
        safe = "".join(char if char.isalnum() or char in "._-" else "_" for char in self.match_id)
        return safe.strip(".") or "match"


@dataclass(frozen=True, slots=True)
class MatchFile:
    """A match's hand history and what its header says."""

    match_id: str
    path: Path
    names: Mapping[str, str]
    header: Mapping[str, Any]

    def hands(self) -> Iterator[SourceHand]:
        """Every hand of the file, in file order."""
        try:
            for record in iter_hands(self.path):
                number = record.get("hand_number")
                if not isinstance(number, int) or isinstance(number, bool):
                    number = record["history"].get("hand_number", 0)
                yield SourceHand(self.match_id, int(number), record["history"], self.names)
        except HandLogError as error:
            raise SourceError(str(error)) from None


@dataclass(frozen=True, slots=True)
class Source:
    """What is exported: ``kind`` is ``"match"`` or ``"tournament"``; ``folder`` is where
    default outputs go (the run folder, or the folder of a ``hands.jsonl``)."""

    kind: str
    path: Path
    folder: Path
    matches: tuple[MatchFile, ...]

    def hands(self) -> Iterator[SourceHand]:
        """Every hand of every match, match after match."""
        for match in self.matches:
            yield from match.hands()


def _match_file(path: Path, fallback_id: str) -> MatchFile:
    try:
        header = read_header(path)
    except HandLogError as error:
        raise SourceError(str(error)) from None
    names = {
        str(player.get("player_id")): str(player.get("name", player.get("player_id")))
        for player in header.get("players", ())
        if isinstance(player, Mapping)
    }
    match_id = header.get("match_id")
    return MatchFile(
        match_id=str(match_id) if match_id else fallback_id, path=path, names=names, header=header
    )


def _tournament_files(folder: Path) -> list[Path]:
    run = RunFolder(folder)
    database = run.database
    if not database.is_file():
        return run.match_histories()
    try:
        with ResultsDatabase(database, read_only=True) as results:
            tournaments = results.tournaments()
            if not tournaments:
                raise SourceError(f"{database} holds no tournament yet")
            outcomes = results.outcomes(tournaments[-1].id)
    except ResultsDatabaseError as error:
        raise SourceError(f"cannot read the results database {database}: {error}") from None
    return [folder / outcome.hands_path for outcome in outcomes if outcome.hands_path]


def open_source(path: Path) -> Source:
    """The source at ``path``: a ``hands.jsonl`` file, a match's run folder (holding one)
    or a tournament's run folder (``results.sqlite`` and/or ``matches/``)."""
    if path.is_file():
        return Source("match", path, path.parent, (_match_file(path, path.parent.name),))
    if not path.is_dir():
        raise SourceError(f"{str(path)!r} does not exist")
    run = RunFolder(path)
    if run.is_match():
        return Source("match", path, path, (_match_file(run.history, path.name),))
    if run.is_tournament():
        files = _tournament_files(path)
        if not files:
            raise SourceError(f"{str(path)!r} is a tournament folder without any played match")
        matches = tuple(_match_file(file, file.parent.name) for file in files)
        return Source("tournament", path, path, matches)
    raise SourceError(
        f"{str(path)!r} is not a run: give a hands.jsonl file, a match's run folder or a "
        f"tournament's run folder ({RunFolder.DATABASE}, {RunFolder.MATCHES}/)"
    )
