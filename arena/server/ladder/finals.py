"""The finals: at the competition file's deadline (``ladder.deadline``, read by
:mod:`arena.server.current`) uploads and activations freeze, each team's active version
enters a final duplicate round robin (a ring competition's: a duplicate ring of its seats,
every table of that many entrants), played by the tournament runner
(:func:`arena.tournament.host.run`) with the ladder's settings, and its standings,
crosstable and report are published on the site.

Entrants and their order are :mod:`arena.ladder.finals`' (best first by the ladder's last
fit). The run folder is ``<work>/finals``: a finals stopped half way (the machine
restarted) is resumed by running ``ladder_finals`` again, as ``arena tournament`` resumes.
The tournament's matches and its leaderboard (board ``finals``) are imported as any
tournament's (:func:`arena.server.site.importer.save_tournament`); the report is written next
to the run folder twice: the organiser's, whole (every card, the seed, the bots' stderr,
the paths: 0600, shown to staff only), and the public copy everyone reads, drawn from
redacted data (:func:`public_report`): cards as the site's visibility lets a visitor
see them (no hand at all under ``nothing``), no seed, no fault message, no path. The public
copy is one per visibility, drawn from the run folder when the site's visibility has none
yet (the administrator changed it after the finals): a visitor always reads the copy of
the visibility in force.
"""

from __future__ import annotations

import dataclasses
import io
import os
import uuid
from pathlib import Path
from typing import Any

from django.utils import timezone

from arena.ladder.finals import finals_entrants
from arena.ladder.ratings import fit
from arena.report.build import DEFAULT_MAX_HANDS, Redaction, write_report
from arena.server.competition import Visibility
from arena.server.ladder.models import FinalsRun, FinalsStatus, version_label
from arena.server.ladder.play import LadderRules, VersionFiles, prepare
from arena.server.ladder.state import active_versions
from arena.server.ladder.sums import pair_sums
from arena.server.site.importer import read_tournament, save_tournament
from arena.server.site.models import SiteSettings
from arena.server.site.visibility import redact_history
from arena.settings.catalog import Format
from arena.tournament.config import BotEntry
from arena.tournament.display import QuietDisplay
from arena.tournament.host import run

__all__ = [
    "FINALS_NAME",
    "finals_format",
    "public_report",
    "public_report_path",
    "run_finals",
    "write_public_report",
]

#: The finals' tournament name and leaderboard.
FINALS_NAME = "finals"
#: The finals' run folder (below the site's work folder, beside the report).
RUN_FOLDER = "finals"


def finals_format(table_size: int, entrant_count: int) -> dict[str, Any]:
    """The finals tournament's format keys: a ring of ``table_size`` seats for a ring
    competition (fewer when fewer entrants are left: a table cannot seat more), a round
    robin for a heads-up one or when two entrants are all there is.

    >>> finals_format(2, 6)["format"], finals_format(3, 6)
    (<Format.ROUND_ROBIN: 'round_robin'>, {'format': <Format.RING: 'ring'>, 'ring_seats': 3})
    """
    seats = min(table_size, entrant_count)
    if seats <= 2:
        return {"format": Format.ROUND_ROBIN, "ring_seats": None}
    return {"format": Format.RING, "ring_seats": seats}


def public_report_path(report: Path, visibility: Visibility) -> Path:
    """Where the public copy of the organiser's ``report`` under ``visibility`` is
    written: beside it.

    >>> public_report_path(Path("/work/finals-report.html"), Visibility.SHOWDOWNS).name
    'finals-report.public-showdowns.html'
    """
    return report.with_name(f"{report.stem}.public-{visibility.value}{report.suffix}")


def public_report(report: Path, visibility: Visibility) -> Path:
    """The public copy of the organiser's ``report`` (written by :func:`run_finals`, its
    run folder :data:`RUN_FOLDER` beside it) under ``visibility``, drawn first when there
    is none yet for it; ``OSError`` when the run folder is gone. Drawn under a private name
    and renamed into place, so two visitors at once never read half a page."""
    path = public_report_path(report, visibility)
    run_folder = report.parent / RUN_FOLDER
    if not path.is_file():
        if not run_folder.is_dir():
            raise FileNotFoundError(f"the finals' run folder {run_folder} is gone")
        partial = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
        try:
            write_public_report(run_folder, partial, visibility)
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
    return path


def write_public_report(run_folder: Path, out: Path, visibility: Visibility) -> None:
    """The finals' report as a visitor may read it (module docstring), to ``out``."""
    redaction = Redaction(
        history=lambda history: redact_history(history, own_seats=set(), visibility=visibility)
    )
    hands = 0 if visibility is Visibility.NOTHING else DEFAULT_MAX_HANDS
    write_report(run_folder, out, max_hands=hands, redaction=redaction)


def run_finals(rules: LadderRules, work: Path) -> FinalsRun:
    """Play (or resume) the finals under ``rules`` in ``work`` and publish them; the run's
    row. ``ValueError`` when fewer than two teams have an active version."""
    versions = {version_label(version): version for version in active_versions()}
    standings = fit(pair_sums(), bots=versions)
    entrants = finals_entrants(
        {version.team.name: label for label, version in versions.items()}, standings
    )
    row = FinalsRun.objects.create(entrants=list(entrants))
    try:
        bots = []
        for label in entrants:
            version = versions[label]
            files = VersionFiles(label, Path(version.archive.path), version.pk)
            manifest, _built = prepare(files, rules, work / "ladder")
            bots.append(BotEntry(label, manifest.resolve()))
        config = dataclasses.replace(
            rules.config,
            bots=tuple(bots),
            **finals_format(rules.table_size, len(bots)),
            name=FINALS_NAME,
            out=work / RUN_FOLDER,
            sandbox=rules.sandbox,
        )
        notes = io.StringIO()
        hosted = run(config, display=QuietDisplay(notes))
        save_tournament(read_tournament(hosted.folder.path))
        report = work / "finals-report.html"
        write_report(hosted.folder.path, report)
        public_report(report, Visibility(SiteSettings.current().visibility))
    except Exception as error:
        FinalsRun.objects.filter(pk=row.pk).update(
            status=FinalsStatus.FAILED,
            message=f"{type(error).__name__}: {error}",
            finished=timezone.now(),
        )
        raise
    FinalsRun.objects.filter(pk=row.pk).update(
        status=FinalsStatus.DONE,
        standings=hosted.standings.to_dict(),
        report_file=str(report),
        message=notes.getvalue()[-4000:],
        finished=timezone.now(),
    )
    row.refresh_from_db()
    return row
