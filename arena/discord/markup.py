"""Names in chat: text that a person or a bot's author chose, shown as text.

A Discord message is markdown, and ``@everyone`` in it pings the whole server. The
table's own texts use markdown on purpose (bold hand numbers, code spans); a name must
not: a person whose display name is ``@everyone``, or a bot called ``**winner**`` or
``||spoiler||``, would ping or format every message that names them. :func:`chat_name`
makes a name plain text: hidden characters shown as escapes
(:func:`protocol.inert.inert_text`), every markdown character escaped with a backslash
(Discord then shows the character itself), and a zero-width space after every ``@`` so
that no mention is formed. Messages are also sent with mentions switched off
(:data:`NO_MENTIONS` in :mod:`arena.discord.bot`): the escaping is what the channel
reads, the switch is what guarantees that nobody is pinged.

>>> chat_name("@everyone **wins** ||x||")
'@\\u200beveryone \\\\*\\\\*wins\\\\*\\\\* \\\\|\\\\|x\\\\|\\\\|'
>>> chat_name("plain name")
'plain name'
"""

from __future__ import annotations

import re

from protocol.inert import inert_text

__all__ = ["chat_name"]

# Discord's markdown: emphasis, strike, spoilers, code, quotes, headings, lists, masked
# links, custom emoji and timestamps (<...>), and the backslash itself.
_MARKDOWN = re.compile(r"([\\*_~|`>#\-\[\]()<:])")
_ZERO_WIDTH_SPACE = "\u200b"


def chat_name(name: str) -> str:
    """``name`` as plain text in a Discord message (see the module docstring)."""
    shown = _MARKDOWN.sub(r"\\\1", inert_text(name))
    return shown.replace("@", "@" + _ZERO_WIDTH_SPACE)
