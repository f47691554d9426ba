"""Read-only pages drawn once and kept: a page's answer (its bytes, their gzip, its content
type and ETag) stored in the web process under a key that names everything the page was
drawn from and everyone it may be shown to. A request that finds its key costs a lookup,
not a template or a query set; one whose copy is current (``If-None-Match``) gets 304.

The key is the caller's, and redaction stays where it is: the page is drawn by the view
as it always is, for the reader at hand, and the key must hold every input that decides
what that reader may see (the site's visibility, the reader's team, the page asked for)
and what the page was drawn from (the last fit's time, the stored rows' stamp), so that
a page drawn for one team is never found by another and a new fit draws a new page. A
page with something of one user's in it (a form's CSRF token, the user's name) is never
stored: the callers store only what they draw for a reader without a logged-in user
(:func:`is_storable`).
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

__all__ = ["DrawnPage", "DrawnPages", "answer", "is_current", "is_storable"]

#: Bodies shorter than this are sent as they are: their gzip would save little.
GZIP_FROM_BYTES = 1024


@dataclass(frozen=True, slots=True)
class DrawnPage:
    """A page as drawn: its body, the body's gzip (None when not worth it), its content
    type and its ETag."""

    body: bytes
    gzipped: bytes | None
    content_type: str
    etag: str

    @classmethod
    def of(cls, response: HttpResponse) -> DrawnPage:
        """The page a view's 200 answer holds; its ETag the answer's own (a view that
        knows it without drawing the page), else the body's digest."""
        body = response.content
        etag = response.get("ETag") or f'"{hashlib.sha256(body).hexdigest()[:32]}"'
        # mtime=0: the same body always has the same gzip (no time stamp in its header).
        packed = gzip.compress(body, compresslevel=6, mtime=0)
        worth = len(body) >= GZIP_FROM_BYTES and len(packed) < len(body)
        return cls(body, packed if worth else None, response["Content-Type"], etag)


class DrawnPages:
    """Drawn pages by key, at most ``most`` kept (past that all are let go and drawn again
    when asked for: keys hold a fit's time, so old ones are never asked for again)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._pages: dict[Hashable, DrawnPage] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pages)

    def get(self, key: Hashable) -> DrawnPage | None:
        """The page kept under ``key``, if any."""
        return self._pages.get(key)

    def keep(self, key: Hashable, response: HttpResponse) -> DrawnPage | HttpResponse:
        """``response`` kept under ``key`` and returned as a :class:`DrawnPage` when it is
        a 200, returned as it is otherwise (a 404 is not kept)."""
        if response.status_code != 200:
            return response
        page = DrawnPage.of(response)
        with self._lock:
            if len(self._pages) >= self.most:
                self._pages.clear()
            self._pages[key] = page
        return page

    def found(self, key: Hashable, draw: Callable[[], HttpResponse]) -> DrawnPage | HttpResponse:
        """The page kept under ``key``, else ``draw()``'s answer, kept (:meth:`keep`). Two
        threads may both draw a new key's page; both draw the same page."""
        return self.get(key) or self.keep(key, draw())

    def clear(self) -> None:
        """Let every kept page go."""
        with self._lock:
            self._pages.clear()


def is_storable(request: HttpRequest) -> bool:
    """Whether a page drawn for ``request`` may be kept: no user is logged in (a page
    drawn for a user holds the user's name and the log-out form's CSRF token)."""
    return not request.user.is_authenticated


def is_current(request: HttpRequest, etag: str) -> bool:
    """Whether the reader's copy is the page of ``etag`` (its ``If-None-Match``)."""
    header = request.headers.get("If-None-Match", "")
    return etag in {tag.strip().removeprefix("W/") for tag in header.split(",")}


def answer(
    request: HttpRequest, page: DrawnPage | HttpResponse, *, shared: bool, max_age: int = 0
) -> HttpResponse:
    """The response to ``request`` from a kept ``page``: 304 when the reader's copy is
    current, else its body (gzipped where the reader accepts it). ``shared``: the page is
    the one everyone without a team sees, which any cache may keep; otherwise it is the
    reader's own (``private``). A shared page may be used for ``max_age`` seconds; with
    none, and always for a reader's own, a cache must ask again before using its copy
    (``no-cache``: the next fit may come in seconds). An answer that is not a page (a
    404) is returned as it is."""
    if isinstance(page, HttpResponse):
        return page
    if is_current(request, page.etag):
        response = HttpResponse(status=304)
    elif page.gzipped is not None and _accepts_gzip(request):
        response = HttpResponse(page.gzipped, content_type=page.content_type)
        response.headers["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(page.body, content_type=page.content_type)
    response.headers["ETag"] = page.etag
    response.headers["Cache-Control"] = (
        (f"public, max-age={max_age}" if max_age else "public, no-cache")
        if shared
        else "private, no-cache"
    )
    # Who asks decides the page (a team's rows, a logged-in user's), and so does gzip.
    patch_vary_headers(response, ("Cookie", "Authorization", "Accept-Encoding"))
    return response


def _accepts_gzip(request: HttpRequest) -> bool:
    """Whether the request's ``Accept-Encoding`` takes gzip (and does not refuse it)."""
    for item in request.headers.get("Accept-Encoding", "").split(","):
        coding, _, quality = item.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            return quality.replace(" ", "").lower() not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False
