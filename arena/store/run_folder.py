"""The files of a run folder, named in one place.

A run folder is what ``arena match``, ``arena play``, ``arena tournament`` and the Discord
table write, and what ``arena replay``, ``report`` and ``export`` read. A match's folder
holds::

    hands.jsonl             the hand history (one JSON record per line)
    results.json            the result: places, chips, faults, latency
    stderr/<seat>-<name>.log  what each seat's processes wrote to stderr
    report.html             the report (``arena report``, or at the end of the run)

and a tournament's folder::

    results.sqlite          the results database (with its -wal/-shm files while open)
    standings.json          the tables printed at the end
    report.html
    builds/<bot>/           the built bots
    matches/<match id>/     one match's folder, as above

:class:`RunFolder` is a path with names for those files; every module that reads or writes
a run folder asks it rather than spelling a file name.

>>> folder = RunFolder(Path("runs/weekly"))
>>> folder.database.as_posix(), folder.match("m1").history.as_posix()
('runs/weekly/results.sqlite', 'runs/weekly/matches/m1/hands.jsonl')
>>> folder.match("m1").relative(folder.match("m1").stderr_log(0, "my bot"), to=folder)
'matches/m1/stderr/0-my_bot.log'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, overload

from arena.session.stderr_file import safe_file_name

__all__ = ["RunFolder"]


class _Entry:
    """One file or folder of a run folder, named once: ``folder.history`` is
    ``folder.path / "hands.jsonl"`` (read on the class, the entry itself)."""

    def __init__(self, name: str, note: str = "") -> None:
        self.name = name
        self.__doc__ = f"``{name}``{note}."

    @overload
    def __get__(self, folder: None, owner: type[RunFolder]) -> _Entry: ...
    @overload
    def __get__(self, folder: RunFolder, owner: type[RunFolder]) -> Path: ...
    def __get__(self, folder: RunFolder | None, owner: type[RunFolder]) -> Path | _Entry:
        return self if folder is None else folder.path / self.name


@dataclass(frozen=True, slots=True)
class RunFolder:
    """A run folder (a match's or a tournament's) and the names of its files."""

    path: Path

    #: A match's hand history.
    HISTORY: ClassVar[str] = "hands.jsonl"
    #: A match's result.
    RESULTS: ClassVar[str] = "results.json"
    #: A tournament's results database.
    DATABASE: ClassVar[str] = "results.sqlite"
    #: A tournament's standings, written at its end.
    STANDINGS: ClassVar[str] = "standings.json"
    #: The report of the run.
    REPORT: ClassVar[str] = "report.html"
    #: The folder of a match's seats' stderr files.
    STDERR: ClassVar[str] = "stderr"
    #: The folder of a tournament's match folders.
    MATCHES: ClassVar[str] = "matches"
    #: The folder of a tournament's built bots.
    BUILDS: ClassVar[str] = "builds"
    #: What a match that failed left to say why (in its match folder).
    ERROR: ClassVar[str] = "error.txt"

    history = _Entry(HISTORY)
    results = _Entry(RESULTS)
    database = _Entry(DATABASE)
    standings = _Entry(STANDINGS)
    report = _Entry(REPORT)
    stderr_dir = _Entry(f"{STDERR}/")
    matches_dir = _Entry(f"{MATCHES}/")
    builds_dir = _Entry(f"{BUILDS}/")
    error = _Entry(ERROR, " (a failed match's reason)")

    def match(self, match_id: str) -> RunFolder:
        """The folder of match ``match_id`` of a tournament: ``matches/<match_id>/``."""
        return RunFolder(self.matches_dir / match_id)

    def match_histories(self) -> list[Path]:
        """Every ``matches/*/hands.jsonl`` there is, in name order."""
        return sorted(self.matches_dir.glob(f"*/{self.HISTORY}"))

    def build_dir(self, bot_name: str) -> Path:
        """Where the bot named ``bot_name`` is built: ``builds/<name made safe>``."""
        return self.builds_dir / safe_file_name(bot_name)

    def stderr_log(self, seat_index: int, name: str) -> Path:
        """The stderr file of seat ``seat_index`` (bot ``name``):
        ``stderr/<seat_index>-<name made safe>.log``."""
        return self.stderr_dir / f"{seat_index}-{safe_file_name(name)}.log"

    def relative(self, path: Path, *, to: RunFolder | None = None) -> str:
        """``path`` relative to this folder (or to ``to``), with ``/`` separators: how the
        results and the database name a file of the run."""
        return path.relative_to((to or self).path).as_posix()

    def is_tournament(self) -> bool:
        """True when the folder holds a tournament (its database, or match folders)."""
        return self.database.is_file() or self.matches_dir.is_dir()

    def is_match(self) -> bool:
        """True when the folder holds a match's hand history."""
        return self.history.is_file()
