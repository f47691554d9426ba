"""``write_report``: read a run, choose the hands, draw the page, write the file.

A source is a tournament's run folder (it has ``results.sqlite``), a match's run folder
(``results.json`` and ``hands.jsonl``) or a ``hands.jsonl`` file alone. Whatever it is,
a problem is a :class:`~arena.report.data.ReportError` whose message names the path and
what is wrong; nothing else escapes (a report is never a traceback).
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.report.data import ReportError, RunData
from arena.report.from_database import load_tournament
from arena.report.from_match import load_match
from arena.report.page import render_page
from arena.report.sections import ADJUSTMENT_EXPLAINED
from arena.report.selection import HandRef, select_hands
from arena.report.viewer import ViewerError, viewer_hand
from arena.store.hand_log import HandLogError, read_hands
from arena.store.jsonl import PRIVATE_FILE_MODE
from arena.store.run_folder import RunFolder

__all__ = ["DEFAULT_MAX_HANDS", "Redaction", "ReportSummary", "load_source", "report_document",
           "write_report"]  # fmt: skip

#: How many hands a report embeds for its viewer unless told otherwise.
DEFAULT_MAX_HANDS = 200


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """What :func:`write_report` wrote: the file, its size, what it shows."""

    path: Path
    kind: str
    size_bytes: int
    hands_embedded: int
    hands_total: int
    bots: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Redaction:
    """How a report is drawn for readers who are not its organiser: each embedded hand's
    history through ``history`` (which hides the cards they may not see, and the deck and
    seed), and none of what only the organiser may read: the seed among the facts, a
    fault's message (a bot's stderr), the bots' decisions, any note naming a file, the
    command that names the run folder. The report's data is redacted before the page is
    drawn, so nothing left out reaches the page."""

    history: Callable[[Mapping[str, Any]], dict[str, Any]]


def load_source(source: Path) -> RunData:
    """The run at ``source`` read for a report (see the module docstring)."""
    source = Path(source)
    if not source.exists():
        raise ReportError(f"{source}: no such file or folder")
    if source.is_dir():
        folder = RunFolder(source)
        if folder.database.is_file():
            return load_tournament(source)
        if folder.history.is_file():
            results = folder.results
            return load_match(folder.history, results if results.is_file() else None)
        raise ReportError(
            f"{source} is not a run folder: it has neither {RunFolder.DATABASE} (a tournament)"
            f" nor {RunFolder.HISTORY} (a match)"
        )
    if source.name == RunFolder.DATABASE:
        return load_tournament(source.parent)
    if source.suffix == ".jsonl":
        return load_match(source, None)
    raise ReportError(
        f"{source} is not a run folder, a results database or a hand history (hands.jsonl)"
    )


def write_report(
    source: Path,
    out: Path,
    *,
    max_hands: int = DEFAULT_MAX_HANDS,
    hands: Sequence[HandRef] = (),
    redaction: Redaction | None = None,
) -> ReportSummary:
    """Write the report of ``source`` to ``out`` (one self-contained HTML file).

    It embeds at most ``max_hands`` hands for the hand viewer
    (:mod:`arena.report.selection`), plus every hand of ``hands`` (each ``match/number``
    must exist in the run). With a ``redaction`` it is the public copy (:class:`Redaction`).
    Raises :class:`ReportError` naming the path or value on any problem.
    """
    if isinstance(max_hands, bool) or not isinstance(max_hands, int) or max_hands < 0:
        raise ReportError(f"max_hands must be a whole number of 0 or more, got {max_hands!r}")
    data = load_source(Path(source))
    _check_requested(data, hands)
    chosen = select_hands(data.candidates, max_hands, hands)
    embedded = _embedded_hands(data, chosen, set(hands), redaction)
    document = report_document(data, embedded, hands)
    is_private = data.has_secret_seed
    if redaction is not None:
        _redact(document, data)
        is_private = False
    page = render_page(data.title, document).encode("utf-8")
    _write(Path(out), page, is_private=is_private)
    bots = tuple(str(row["bot"]) for row in data.leaderboard.get("rows", ()))
    return ReportSummary(
        path=Path(out),
        kind=data.kind,
        size_bytes=len(page),
        hands_embedded=len(embedded),
        hands_total=len(data.candidates),
        bots=bots,
    )


def _check_requested(data: RunData, hands: Sequence[HandRef]) -> None:
    """Every requested hand must be in the run: an error names the first that is not."""
    if not hands:
        return
    known = {candidate.ref for candidate in data.candidates}
    for ref in hands:
        if ref in known:
            continue
        if ref.match_id not in data.hand_files:
            some = ", ".join(sorted(data.hand_files)[:5]) or "none"
            raise ReportError(
                f"hand {ref}: {data.source} has no match {ref.match_id!r} (matches: {some}"
                f"{', ...' if len(data.hand_files) > 5 else ''})"
            )
        count = sum(1 for c in data.candidates if c.ref.match_id == ref.match_id)
        raise ReportError(
            f"hand {ref}: match {ref.match_id!r} has no hand {ref.hand_number} (it has"
            f" {count} finished hands)"
        )


def _redact(document: dict[str, Any], data: RunData) -> None:
    """Leave out of ``document`` what only the organiser may read (:class:`Redaction`)."""
    document["facts"] = [[label, value] for label, value in data.facts if label != "seed"]
    document["faults"] = [
        {**row, "example": None if row["example"] is None else {
            key: value for key, value in row["example"].items() if key != "message"}}
        for row in data.faults
    ]  # fmt: skip
    # A note naming a file holds a server path (or an error about one).
    document["notes"] = [note for note in data.notes if os.sep not in note]
    document["open_other"] = ""


def _embedded_hands(
    data: RunData,
    chosen: Sequence[tuple[HandRef, str]],
    requested: set[HandRef],
    redaction: Redaction | None = None,
) -> list[dict[str, Any]]:
    """The viewer documents of the chosen hands, read match by match (through the
    redaction's history, without the decisions, when there is one)."""
    by_match: dict[str, list[HandRef]] = defaultdict(list)
    for ref, _why in chosen:
        by_match[ref.match_id].append(ref)
    documents: dict[HandRef, dict[str, Any]] = {}
    for match_id, refs in by_match.items():
        path = data.hand_files[match_id]
        try:
            header, records = read_hands(path, [ref.hand_number for ref in refs])
        except HandLogError as error:
            if requested & set(refs):
                raise ReportError(str(error)) from None
            data.notes.append(f"the hands of match {match_id} cannot be read: {error}")
            continue
        names = {
            str(player.get("player_id")): str(player.get("name"))
            for player in header["players"]
            if isinstance(player, dict)
        }
        for ref in refs:
            record = records.get(ref.hand_number)
            problem = None
            if record is None:
                problem = f"hand {ref} is not in {path}"
            else:
                history, decisions = record["history"], record.get("decisions") or ()
                if redaction is not None:
                    history, decisions = redaction.history(history), ()
                try:
                    documents[ref] = viewer_hand(
                        history, names, match_id=match_id, decisions=decisions
                    )
                except ViewerError as error:
                    problem = str(error)
            if problem is not None:
                if ref in requested:
                    raise ReportError(problem)
                data.notes.append(problem)
    embedded = []
    for ref, why in chosen:
        if ref in documents:
            documents[ref]["why"] = why
            embedded.append(documents[ref])
    return embedded


def report_document(
    data: RunData, embedded: list[dict[str, Any]], requested: Sequence[HandRef] = ()
) -> dict[str, Any]:
    """The JSON document the page's script draws (the site's hand viewer's too,
    :func:`arena.server.site.matches.viewer_document`)."""
    source = shlex.quote(str(data.source))
    return {
        "title": data.title,
        "kind": data.kind,
        "facts": [list(fact) for fact in data.facts],
        "unit": data.unit,
        "leaderboard": data.leaderboard,
        "crosstable": data.crosstable,
        "sprt": data.sprt,
        "score": data.score,
        "estimator": data.estimator,
        "adjustment": ADJUSTMENT_EXPLAINED if data.estimator else None,
        "lead": data.lead,
        "luck": data.luck,
        "charts": data.charts,
        "faults": data.faults,
        "latency": data.latency,
        "places": data.places,
        "notes": data.notes,
        "hands": embedded,
        "hands_total": len(data.candidates),
        "open_other": f"arena report {source} --hand MATCH/N -o hand.html",
        "open": str(requested[0]) if requested else None,
        # The site's hand viewer sets it (arena.server.site.matches): the parts that
        # speak of a report file (its leaderboard, how to write another) are left out.
        "on_site": False,
    }


def _write(out: Path, page: bytes, *, is_private: bool) -> None:
    """Write the page whole or not at all (a reader never sees half a report); for the
    arena's user only when ``is_private`` (it shows a secret seed)."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=".report-", dir=out.parent)
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(page)
            os.chmod(temporary, PRIVATE_FILE_MODE if is_private else 0o644)
            os.replace(temporary, out)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise ReportError(f"cannot write the report {out}: {error.strerror or error}") from None
