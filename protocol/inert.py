"""Showing text a bot (or an uploader, or a person) controls without letting it act.

A bot's name, its ``ready`` version, its stderr and the text of a bad reply reach terminals,
tables, HTML and chat. Printed raw, an escape sequence clears the organiser's screen or
retitles the window, a newline splits a table row, and a bidi override (U+202E) makes a
name read backwards. :func:`inert_text` makes such text safe to show: every character
that is not printable (C0 and C1 controls, DEL, line and paragraph separators, bidi
controls, unassigned and private-use code points, lone surrogates) becomes a visible
escape such as ``\\x1b`` or ``\\u202e``, and over-long text is cut with ``…``.

:func:`control_characters` lists the characters that make a name unacceptable where names
are chosen (a manifest), so that they are refused once instead of escaped everywhere.

>>> inert_text("evil\\x1b[2J bot")
'evil\\\\x1b[2J bot'
>>> inert_text("a" * 10, max_length=5)
'aaaa…'
>>> control_characters("ok name")
()
>>> control_characters("bad\\u202ename\\n")
('\\\\u202e', '\\\\n')
"""

from __future__ import annotations

import unicodedata

__all__ = ["control_characters", "inert_text"]

# Categories that never show as themselves: controls (Cc), formats (Cf: bidi overrides,
# zero-width joiners), line/paragraph separators (Zl, Zp), surrogates (Cs), private use
# (Co) and unassigned (Cn).
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def _is_hidden(character: str) -> bool:
    return unicodedata.category(character) in _HIDDEN_CATEGORIES


def _escape(character: str) -> str:
    code = ord(character)
    if character == "\n":
        return "\\n"
    if character == "\t":
        return "\\t"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def inert_text(text: str, *, max_length: int | None = None) -> str:
    """``text`` with every hidden character shown as an escape, cut to ``max_length``
    characters (the last being ``…``) when it is longer."""
    shown = "".join(_escape(c) if _is_hidden(c) else c for c in text)
    if max_length is not None and len(shown) > max_length:
        return shown[: max(max_length - 1, 0)] + "…"
    return shown


def control_characters(text: str) -> tuple[str, ...]:
    """The hidden characters in ``text``, each as its escape, in order of first
    appearance (empty when the text is fine to show as it is)."""
    found: dict[str, None] = {}
    for character in text:
        if _is_hidden(character):
            found.setdefault(_escape(character), None)
    return tuple(found)
