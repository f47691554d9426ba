"""Uploads: the rules an uploaded bot archive must meet, checking and unpacking it
(:func:`unpack`, :func:`inspect`), and packing a bot's folder for ``arena submit``
(:func:`pack`).

Pure standard library, no network: the server (:mod:`arena.server`) and the command
line call it. The archive is untrusted, so every limit is counted while reading, never
taken from a header; each refusal is an :class:`ArchiveError` whose ``code`` names the
rule and whose message names the entry (``docs/uploads.md`` lists the rules).
"""

from __future__ import annotations

from arena.uploads.pack import SKIPPED_NAMES, pack
from arena.uploads.rules import DEFAULT_ARCHIVE_LIMITS, RULES, ArchiveError, ArchiveLimits
from arena.uploads.unpack import ArchiveSummary, inspect, unpack

__all__ = [
    "DEFAULT_ARCHIVE_LIMITS",
    "RULES",
    "SKIPPED_NAMES",
    "ArchiveError",
    "ArchiveLimits",
    "ArchiveSummary",
    "inspect",
    "pack",
    "unpack",
]
