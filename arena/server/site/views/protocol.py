"""The protocol's page: ``protocol/PROTOCOL.md`` drawn as an HTML page of the site (its
headings, tables and code readable in a browser, a screen reader's landmarks and headings
to move by), with a link to the same file as text (:func:`arena.server.site.views.pages.protocol`).

The Markdown is CommonMark with tables (``markdown-it-py``, which ``rich`` already brings),
raw HTML in it shown as text, never as markup. Headings get GitHub's anchors
(:func:`heading_anchor`), so that the document's links to its own sections
(``#checking-the-deal``) work on the page as they do on GitHub; a link to another file of
the repository (``schemas/``), which the site does not serve, is shown as its text alone.
"""

from __future__ import annotations

import functools
import re

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

from arena.server.site.views.pages import PROTOCOL_FILE

#: Link targets the page keeps: the document's own sections and addresses on the web.
_KEPT_LINK = re.compile(r"^(#|https?://|mailto:)")


def heading_anchor(text: str, taken: dict[str, int]) -> str:
    """GitHub's anchor for a heading's ``text``: lower case, punctuation dropped, spaces as
    hyphens; a repeated one gets ``-1``, ``-2``... (``taken`` counts those given so far).

    >>> taken: dict[str, int] = {}
    >>> heading_anchor("Betting: what the actions mean", taken)
    'betting-what-the-actions-mean'
    >>> heading_anchor("`hello` (reply: `ready`)", taken), heading_anchor("Betting: what the actions mean", taken)
    ('hello-reply-ready', 'betting-what-the-actions-mean-1')
    """  # noqa: E501
    anchor = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
    count = taken.get(anchor, 0)
    taken[anchor] = count + 1
    return anchor if count == 0 else f"{anchor}-{count}"


def _anchored(tokens: list[Token]) -> list[Token]:
    """``tokens`` with an ``id`` on each heading and no link to a file the site lacks."""
    taken: dict[str, int] = {}
    kept: list[Token] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            token.attrSet("id", heading_anchor(tokens[index + 1].content, taken))
        if token.type == "inline" and token.children:
            token.children = _without_file_links(token.children)
        kept.append(token)
    return kept


def _without_file_links(children: list[Token]) -> list[Token]:
    """Inline ``children`` with each link to a repository file replaced by its text."""
    kept: list[Token] = []
    dropping = False  # inside a dropped link (links do not nest)
    for child in children:
        if child.type == "link_open" and not _KEPT_LINK.match(str(child.attrGet("href"))):
            dropping = True
        elif child.type == "link_close" and dropping:
            dropping = False
        else:
            kept.append(child)
    return kept


@functools.cache
def protocol_html() -> SafeString:
    """The protocol's document as HTML (drawn once per process: the file ships with the
    code and changes only with it)."""
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = _anchored(markdown.parse(PROTOCOL_FILE.read_text(encoding="utf-8")))
    html: str = markdown.renderer.render(tokens, markdown.options, {})
    # A code block wider than the page scrolls in its box, which then takes the keyboard's
    # focus so that it scrolls with the arrow keys too (only markup is matched: the file's
    # own text is escaped).
    html = html.replace("<pre>", '<pre tabindex="0">')
    return mark_safe(html)  # safe: markdown-it escapes every text, and raw HTML is off


def protocol_page(request: HttpRequest) -> HttpResponse:
    """The protocol a bot speaks, as a page of the site."""
    return render(request, "arena/protocol.html", {"document": protocol_html()})
