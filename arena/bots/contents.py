"""What a bot is made of: a digest of every file in its folder, to know it by its content.

A tournament that is run again resumes from its stored results. That is only honest if the
bots are the same: a bot whose code was edited since is another bot, and mixing its new
games with the old one's would give standings that belong to neither. The run is therefore
recognised by the bots' content, not by their manifests' paths: :func:`folder_contents`
reads every regular file under the bot's folder (symbolic links by their target text, so a
link never leads the digest outside the folder) and :func:`changed_files` names what
differs between two readings, so the refusal can say ``bot.py changed``.

Caches that an interpreter writes beside the sources (``__pycache__``, ``*.pyc``) and a
version-control folder (``.git``) do not count: they change without the bot changing.

>>> a = BotContents({"bot.py": "11", "lib.py": "22"})
>>> b = BotContents({"bot.py": "11", "lib.py": "33", "new.py": "44"})
>>> changed_files(a, b)
('lib.py', 'new.py')
>>> a.digest == BotContents({"lib.py": "22", "bot.py": "11"}).digest
True
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["BotContents", "changed_files", "folder_contents"]

#: Folder names skipped anywhere in the tree: caches and version control.
_SKIPPED_FOLDERS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache"})
_SKIPPED_SUFFIXES = (".pyc", ".pyo")
_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class BotContents:
    """Each file's SHA-256 (hex) by its path relative to the bot's folder (``/``-separated)."""

    files: Mapping[str, str] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        """One SHA-256 (hex) over every path and file digest, in path order."""
        canonical = json.dumps(sorted(self.files.items()), separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8", "surrogateescape")).hexdigest()

    def to_json(self) -> str:
        """The files as a JSON object (paths sorted), as the results database keeps them."""
        return json.dumps(dict(sorted(self.files.items())), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> BotContents:
        """The inverse of :meth:`to_json`; raises ``ValueError`` on anything else."""
        data = json.loads(text)
        if not isinstance(data, dict) or not all(
            isinstance(key, str) and isinstance(value, str) for key, value in data.items()
        ):
            raise ValueError("bot contents must be a JSON object of path -> digest strings")
        return cls(files=data)


def folder_contents(folder: Path) -> BotContents:
    """Read every file under ``folder`` (see the module docstring). Unreadable files count
    by the error that stopped the reading, so a change of permissions is a change too."""
    files: dict[str, str] = {}
    for root, folders, names in os.walk(folder, followlinks=False):
        folders[:] = sorted(name for name in folders if name not in _SKIPPED_FOLDERS)
        # A symbolic link to a folder is listed among the folders and never walked into.
        linked = [name for name in folders if os.path.islink(os.path.join(root, name))]
        folders[:] = [name for name in folders if name not in linked]
        for name in sorted([*names, *linked]):
            if name.endswith(_SKIPPED_SUFFIXES):
                continue
            path = os.path.join(root, name)
            relative = Path(os.path.relpath(path, folder)).as_posix()
            files[relative] = _file_digest(path)
    return BotContents(files=files)


def _file_digest(path: str) -> str:
    digest = hashlib.sha256()
    try:
        if os.path.islink(path):
            digest.update(b"link:" + os.fsencode(os.readlink(path)))
            return digest.hexdigest()
        with open(path, "rb") as reader:
            while chunk := reader.read(_CHUNK_BYTES):
                digest.update(chunk)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    return digest.hexdigest()


def changed_files(before: BotContents, after: BotContents) -> tuple[str, ...]:
    """The paths added, removed or changed between two readings, sorted."""
    paths = set(before.files) | set(after.files)
    return tuple(sorted(p for p in paths if before.files.get(p) != after.files.get(p)))
