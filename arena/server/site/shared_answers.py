"""The answers any reader may share, kept for a second in front of Django: a WSGI
middleware that answers a request no one can tell from another reader's (no cookie, no
``Authorization``, no conditional header) with the copy of the answer Django gave the
last such request for the same address, for :data:`KEEP_SECONDS` after it was drawn.

A kept page (:mod:`arena.server.site.drawn_pages`) still costs Django's request: its
middleware, its URL, its view and the small query that says whether the kept page is
still current (about 2 ms of CPU). Under fifty readers at once that work queues for the
core; here it is spent once a second per page and address, and every other reader of
that second gets the same bytes. What a reader sees is then at most about a second older
than the database: the pages show the last fit with its time (a fit comes every few
seconds), so nothing they state becomes false, it is only seen a second later. A change
made through the site itself (any request but ``GET`` and ``HEAD``: the organiser's
visibility in the admin, a team's activation) lets every kept answer go once it is
answered, so it is seen at once; the workers' games and fits are the second-late ones.

Only what HTTP lets a shared cache keep is kept: a ``200`` that Django marked ``public``
(the pages everyone without a team sees: :func:`~arena.server.site.drawn_pages.answer`
with ``shared``), that sets no cookie, and whose ``Vary`` names only headers the key
holds or the request did not send (:data:`KEYED_HEADERS`). The key is the request's
scheme, host, path and query and its ``Accept-Encoding`` (gzip or not). A request with a
cookie (a logged-in user's, or a form's CSRF token), with a bearer token (a team's API
call) or asking whether its own copy is current (``If-None-Match``, answered 304 by the
view) always goes to Django: one audience's page is never found by another.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["KEEP_SECONDS", "KEYED_HEADERS", "SharedAnswers"]

#: How long a shared answer is given again before Django draws it anew (seconds).
KEEP_SECONDS = 1.0
#: The request headers a kept answer may vary by: the key holds ``Accept-Encoding``, and a
#: request with either of the others is never answered from here.
KEYED_HEADERS = frozenset({"accept-encoding", "cookie", "authorization"})
#: Request headers that send a request to Django: who is asking, or what the reader holds.
_PERSONAL = ("HTTP_COOKIE", "HTTP_AUTHORIZATION", "HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE")

WsgiApplication = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Key = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Answer:
    """A kept answer: its status line, headers and body, and until when it is given."""

    status: str
    headers: list[tuple[str, str]]
    body: bytes
    until: float


class SharedAnswers:
    """WSGI middleware around ``application`` (module docstring): at most ``most`` answers
    kept (past that all are let go), each for ``seconds``. While one request draws an
    expired answer again, the others of its key get the expired one rather than queue."""

    def __init__(
        self,
        application: WsgiApplication,
        *,
        seconds: float = KEEP_SECONDS,
        most: int = 256,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.application = application
        self.seconds = seconds
        self.most = most
        self.clock = clock
        self._answers: dict[Key, _Answer] = {}
        self._drawing: set[Key] = set()
        self._lock = threading.Lock()
        #: How many times every answer was let go: a drawing begun before the last time
        #: may hold what a change has since replaced, and is not kept.
        self._generation = 0

    def __len__(self) -> int:
        return len(self._answers)

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            try:  # a write: its change is committed when Django returns its answer
                return self.application(environ, start_response)
            finally:
                self.clear()
        key = shared_key(environ)
        if key is None:
            return self.application(environ, start_response)
        kept = self._answers.get(key)
        if kept is not None and (self.clock() < kept.until or not self._claim(key)):
            start_response(kept.status, list(kept.headers))
            return [kept.body]
        if kept is None and not self._claim(key):
            return self.application(environ, start_response)  # its first drawing runs
        try:
            return self._draw(key, environ, start_response)
        finally:
            with self._lock:
                self._drawing.discard(key)

    def clear(self) -> None:
        """Let every kept answer go, and any being drawn now (:attr:`_generation`)."""
        with self._lock:
            self._answers.clear()
            self._generation += 1

    def _claim(self, key: Key) -> bool:
        """Whether this request draws ``key``'s answer (no other request is drawing it)."""
        with self._lock:
            if key in self._drawing:
                return False
            self._drawing.add(key)
            return True

    def _draw(
        self, key: Key, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        """Django's answer to the request, kept when any reader may share it."""
        seen: dict[str, Any] = {}
        generation = self._generation

        def noting(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            seen.update(status=status, headers=headers)
            return start_response(status, headers, *exc_info)

        result = self.application(environ, noting)
        if not is_shareable(seen.get("status", ""), seen.get("headers", [])):
            with self._lock:
                self._answers.pop(key, None)  # what it was is not given again
            return result
        try:
            body = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        answer = _Answer(seen["status"], list(seen["headers"]), body, self.clock() + self.seconds)
        with self._lock:
            if generation == self._generation:  # no change since it was begun
                if len(self._answers) >= self.most:
                    self._answers.clear()
                self._answers[key] = answer
        return [body]


def shared_key(environ: dict[str, Any]) -> Key | None:
    """The key a request's shared answer is kept under, or None when its answer may be
    its own (a cookie, a bearer token, a conditional header) or it is not a ``GET``."""
    if environ.get("REQUEST_METHOD") != "GET" or any(name in environ for name in _PERSONAL):
        return None
    return (
        str(environ.get("wsgi.url_scheme", "")),
        str(environ.get("HTTP_HOST", "")),
        str(environ.get("SERVER_NAME", "")),
        str(environ.get("SERVER_PORT", "")),
        str(environ.get("SCRIPT_NAME", "")),
        str(environ.get("PATH_INFO", "")),
        str(environ.get("QUERY_STRING", "")),
        str(environ.get("HTTP_ACCEPT_ENCODING", "")),
    )


def is_shareable(status: str, headers: list[tuple[str, str]]) -> bool:
    """Whether an answer may be given to every reader of its key: a ``200`` marked
    ``public``, with no cookie set, varying by no header but :data:`KEYED_HEADERS`."""
    if not status.startswith("200 "):
        return False
    named = [(name.lower(), value) for name, value in headers]
    if any(name == "set-cookie" for name, _ in named):
        return False
    control = {part.strip().lower() for name, value in named if name == "cache-control"
               for part in value.split(",")}  # fmt: skip
    varies = {part.strip().lower() for name, value in named if name == "vary"
              for part in value.split(",")}  # fmt: skip
    return "public" in control and varies <= KEYED_HEADERS
