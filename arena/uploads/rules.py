"""The archive rules: the limits (:class:`ArchiveLimits`), the refusal
(:class:`ArchiveError`, one stable ``code`` per rule) and the check of an entry's name.

An uploaded archive comes from a stranger. Each rule below is checked on every entry, in
the order the archive lists them, and the first broken one refuses the whole archive with
a message naming the rule and the entry::

    entry '../../etc/passwd': a path may not leave the bot's folder

A name is cleaned before it is checked for duplicates: ``./`` and empty components
(``a//b``) are dropped, so ``./bot.py`` and ``bot.py`` are the same entry.

>>> clean_name("./src//bot.py")
'src/bot.py'
>>> clean_name("../../etc/passwd")
Traceback (most recent call last):
...
arena.uploads.rules.ArchiveError: entry '../../etc/passwd': a path may not leave the bot's folder
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "DEFAULT_ARCHIVE_LIMITS",
    "MAX_NAME_BYTES",
    "MAX_PATH_CHARS",
    "RATIO_FREE_BYTES",
    "RULES",
    "ArchiveError",
    "ArchiveLimits",
    "clean_name",
    "shown_name",
]

_MIB = 1024 * 1024

#: Unpacked bytes that never count towards the compression ratio: a small archive of a
#: few text files may compress far better than 100 to 1 and is no bomb.
RATIO_FREE_BYTES = 1 * _MIB
#: The longest component of a path, in UTF-8 bytes (what Linux file systems take).
MAX_NAME_BYTES = 255
#: The longest path, in characters.
MAX_PATH_CHARS = 1024

#: Every rule, by its stable code: what the refusal says after the entry's name.
RULES: dict[str, str] = {
    "not_an_archive": "not a tar.gz or zip archive (the first bytes are neither)",
    "damaged": "the archive is damaged: {detail}",
    "archive_too_large": "the archive is {size:,} bytes, over the limit of {limit:,}",
    "too_many_entries": "the archive holds more than {limit:,} entries (files and folders)",
    "unpacked_too_large": "the files unpack to more than {limit:,} bytes",
    "compression_ratio": (
        "the archive unpacks to more than {limit} times its compressed size (a compression bomb?)"
    ),
    "bad_encoding": "a name must be valid UTF-8",
    "control_character": "a name may not hold control characters (found {character})",
    "backslash": "a name may not hold a backslash (use '/' between folders)",
    "absolute_path": "a path may not be absolute or start with a drive letter",
    "leaves_folder": "a path may not leave the bot's folder",
    "name_too_long": (
        "a path may be at most {limit} characters long, a file or folder name {part} bytes"
    ),
    "duplicate": "the archive holds this name twice",
    "through_file": "a path may not go through a file ({parent!r} is a file)",
    "link": "links are not accepted (a {kind}{to}); put the file itself in the archive",
    "special_file": "only files and folders are accepted, not a {kind}",
    "encrypted": "encrypted entries are not accepted",
    "data_filter": "refused by Python's tar data filter: {detail}",
}


class ArchiveError(ValueError):
    """An archive (or a folder to pack) broke a rule: ``code`` is the rule (a key of
    :data:`RULES`), ``entry`` the entry's name as the archive gave it (None for the
    archive as a whole); the message says both."""

    def __init__(self, code: str, entry: str | None = None, **values: object) -> None:
        self.code = code
        self.entry = entry
        text = RULES[code].format(**values)
        where = "" if entry is None else f"entry {shown_name(entry)}: "
        super().__init__(where + text)


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """How big an upload may be. ``max_ratio``: the unpacked bytes may be at most this
    many times the compressed bytes read so far (beyond :data:`RATIO_FREE_BYTES`).

    >>> ArchiveLimits().max_entry_count
    2000
    """

    max_archive_bytes: int = 10 * _MIB
    max_unpacked_bytes: int = 100 * _MIB
    max_entry_count: int = 2000
    max_ratio: int = 100

    def __post_init__(self) -> None:
        for name in ("max_archive_bytes", "max_unpacked_bytes", "max_entry_count", "max_ratio"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")


#: The limits when a competition sets none.
DEFAULT_ARCHIVE_LIMITS = ArchiveLimits()

_DRIVE = re.compile(r"^[A-Za-z]:")
# Categories never shown as themselves: controls, format characters (bidirectional
# overrides such as U+202E turn a name around on a page), line and paragraph separators.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def shown_name(name: str, *, max_chars: int = 200) -> str:
    """``name`` quoted for a message, every control or format character escaped, cut to
    ``max_chars``: a refusal quotes the very name it refuses.

    >>> shown_name("a\\x1b[31m")
    "'a\\\\x1b[31m'"
    """
    shown = "".join(
        _escape(character) if unicodedata.category(character) in _HIDDEN_CATEGORIES else character
        for character in name[:max_chars]
    )
    cut = "..." if len(name) > max_chars else ""
    return "'" + shown.replace("'", "\\'") + cut + "'"


def _escape(character: str) -> str:
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean_name(name: str) -> str:
    """``name`` with ``.`` and empty components dropped (``""`` for the archive's root);
    raises :class:`ArchiveError` for the first path rule it breaks."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise ArchiveError("bad_encoding", name) from None
    hidden = next((c for c in name if unicodedata.category(c) in _HIDDEN_CATEGORIES), None)
    if hidden is not None:
        raise ArchiveError("control_character", name, character=_escape(hidden))
    if "\\" in name:
        raise ArchiveError("backslash", name)
    if name.startswith("/") or _DRIVE.match(name):
        raise ArchiveError("absolute_path", name)
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveError("leaves_folder", name)
    cleaned = "/".join(parts)
    too_long = any(len(part.encode("utf-8")) > MAX_NAME_BYTES for part in parts)
    if too_long or len(cleaned) > MAX_PATH_CHARS:
        raise ArchiveError("name_too_long", name, limit=MAX_PATH_CHARS, part=MAX_NAME_BYTES)
    return cleaned
