"""The report as one self-contained HTML file.

Everything is inline: the style sheet is the package's ``assets/report.css`` and the
script is made of its ``assets/*.js`` files, one for each part of the page it draws
(:data:`SCRIPT_FILES`, read with :mod:`importlib.resources`),
the data is one JSON document in a ``<script type="application/json">`` element, and
the charts and the hand viewer's table are SVG drawn by the script. The page asks for
nothing: a Content-Security-Policy in the page itself forbids every fetch, connection,
image, font or frame from anywhere, so it opens from disk and works with no network.
The policy allows one script: ours, named by the SHA-256 hash of its exact text
(:func:`content_security_policy`), not any inline script (``'unsafe-inline'``). A string
that slipped past the escaping below and became a ``<script>`` element, or an inline
event handler (``onerror=``), would then still not run.

Bot names and every other string in the data come from bots or their authors and are
untrusted. The JSON is escaped so that no string can end the script element that holds
it (``<``, ``>`` and ``&`` are written as ``\\u003c``, ``\\u003e``, ``\\u0026``, which
JSON reads back as the same characters), the title is HTML-escaped, and the script puts
every string on the page as text (``textContent``), never as HTML.

>>> embed_json({"bot": "</script><script>alert(1)</script>"})
'{"bot":"\\\\u003c/script\\\\u003e\\\\u003cscript\\\\u003ealert(1)\\\\u003c/script\\\\u003e"}'
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "SCRIPT_FILES",
    "asset",
    "content_security_policy",
    "embed_json",
    "render_page",
    "report_script",
    "script_element_text",
]

#: The files of the report's script, in the order they run: the shared helpers, one file
#: for each part of the page it draws (in the page's order), and the one that draws them.
SCRIPT_FILES = (
    "helpers.js",
    "summary.js",
    "leaderboard.js",
    "crosstable.js",
    "charts.js",
    "luck.js",
    "places.js",
    "faults.js",
    "latency.js",
    "hand_list.js",
    "viewer.js",
    "main.js",
)

# The one script's first and last lines around the files: one function holds them all, so
# that what they declare is shared between them and is no global of the page.
_SCRIPT_HEAD = (
    "// The arena report's script: draws the tables, charts and the hand viewer from the\n"
    "// JSON document embedded in the page. It loads nothing and sends nothing. Every string\n"
    "// from the data (bot names, messages) is untrusted: it goes on the page as text\n"
    "// (textContent or attribute values), never as HTML.\n"
    '"use strict";\n\n(function () {\n'
)
_SCRIPT_TAIL = "})();\n"


@cache
def asset(name: str) -> str:
    """The text of ``arena/report/assets/<name>``."""
    return resources.files("arena.report").joinpath("assets", name).read_text(encoding="utf-8")


@cache
def report_script() -> str:
    """The report's one script: the :data:`SCRIPT_FILES` in order, inside one function
    (joined once: every page holds the same script)."""
    return _SCRIPT_HEAD + "\n".join(asset(name) for name in SCRIPT_FILES) + _SCRIPT_TAIL


def script_element_text(script: str) -> str:
    """What goes between ``<script>`` and ``</script>``: the hash covers exactly this."""
    return f"\n{script}"


def content_security_policy(script: str) -> str:
    """The page's policy for a page whose one script is ``script``: that script only (by
    its hash), inline style, no loading or sending of anything.

    >>> content_security_policy("").split("; ")[1]  # the hash of the text "\\n"
    "script-src 'sha256-AbpHGcgLb+kRsJGnwFEktk7uzpZOCcBY74+YBdrKVGs='"
    """
    digest = hashlib.sha256(script_element_text(script).encode("utf-8")).digest()
    source = "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"
    return (
        f"default-src 'none'; script-src {source}; style-src 'unsafe-inline'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


#: The policy of the report's page (its script is :func:`report_script`).
CONTENT_SECURITY_POLICY = content_security_policy(report_script())


def embed_json(document: Any) -> str:
    """``document`` as JSON that is safe inside a ``<script>`` element (see the module
    docstring): compact, and without ``<``, ``>`` or ``&``."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(title: str, document: Any) -> str:
    """The whole HTML page for the report ``document`` (the script draws it)."""
    data = embed_json(document)
    # The script and style sheet are our own files; a "</script" in them would be a bug.
    script = report_script()
    style = asset("report.css")
    if "</script" in script.lower() or "</style" in style.lower():
        raise ValueError("an asset of the report closes its own element")
    policy = content_security_policy(script)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>\n{style}</style>\n</head>\n<body>\n"
        '<main id="report">\n'
        f'<header id="summary"><h1>{html.escape(title)}</h1></header>\n'
        '<noscript><p class="note">This report draws its tables, charts and hands with'
        " JavaScript: allow scripts for this file to see them.</p></noscript>\n"
        "</main>\n"
        f'<script type="application/json" id="report-data">{data}</script>\n'
        f"<script>{script_element_text(script)}</script>\n"
        "</body>\n</html>\n"
    )
