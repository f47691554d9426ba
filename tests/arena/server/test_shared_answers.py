"""The answers any reader may share, kept for a second in front of Django
(arena.server.site.shared_answers), around a WSGI application that counts its calls."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.util import setup_testing_defaults

import pytest

from arena.server.site.shared_answers import KEEP_SECONDS, SharedAnswers, is_shareable

PUBLIC = [("Content-Type", "text/html"), ("Cache-Control", "public, no-cache"),
          ("Vary", "Cookie, Authorization, Accept-Encoding")]  # fmt: skip


class Application:
    """A WSGI application answering with ``status`` and ``headers`` and a body that says
    how many times it has been called."""

    def __init__(self, status: str = "200 OK", headers: list[tuple[str, str]] = PUBLIC) -> None:
        self.status, self.headers, self.calls = status, headers, 0
        self.closed = 0

    def __call__(self, environ: dict[str, Any], start: Callable[..., Any]) -> Iterable[bytes]:
        self.calls += 1
        start(self.status, list(self.headers))
        application = self

        class Body(list[bytes]):
            def close(self) -> None:
                application.closed += 1

        return Body([f"answer {self.calls}".encode()])


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _get(front: SharedAnswers, path: str = "/ladder/", **headers: str) -> tuple[str, bytes]:
    environ: dict[str, Any] = {"PATH_INFO": path, "HTTP_HOST": "arena.example"}
    environ.update({f"HTTP_{name.upper()}": value for name, value in headers.items()})
    setup_testing_defaults(environ)
    seen: list[str] = []
    body = b"".join(front(environ, lambda status, headers, *_: seen.append(status)))
    return seen[0], body


def test_a_shared_answer_is_given_again_for_a_second_then_drawn_again() -> None:
    application, clock = Application(), Clock()
    front = SharedAnswers(application, clock=clock)
    assert _get(front) == ("200 OK", b"answer 1")
    clock.now += KEEP_SECONDS - 0.01
    assert _get(front) == ("200 OK", b"answer 1") and application.calls == 1
    clock.now += 0.02  # past the second: Django draws it again
    assert _get(front)[1] == b"answer 2" and _get(front)[1] == b"answer 2"
    assert application.calls == 2 and application.closed == 2  # each drawn body closed


@pytest.mark.parametrize(
    "headers",
    [{"Cookie": "sessionid=abc"}, {"Cookie": "csrftoken=x"},
     {"Authorization": "Bearer team-token"}, {"If_None_Match": '"etag"'},
     {"If_Modified_Since": "Sun, 06 Dec 2026 10:00:00 GMT"}],
)  # fmt: skip
def test_a_reader_who_may_get_their_own_answer_always_goes_to_django(
    headers: dict[str, str],
) -> None:
    # A cookie or a token says who asks (a team's rows, a user's name); a conditional
    # header is answered 304 by the view from the reader's own copy.
    application = Application()
    front = SharedAnswers(application, clock=Clock())
    _get(front)
    assert _get(front, **headers)[1] == b"answer 2" and _get(front, **headers)[1] == b"answer 3"
    assert _get(front)[1] == b"answer 1"  # and never kept for the anonymous readers either


def test_the_key_holds_the_path_query_host_and_accepted_encoding() -> None:
    application = Application()
    front = SharedAnswers(application, clock=Clock())
    asked = [_get(front, "/ladder/")[1], _get(front, "/ladder/?page=2")[1],
             _get(front, "/api/v1/ladder/")[1], _get(front, "/ladder/", Host="other.example")[1],
             _get(front, "/ladder/", Accept_Encoding="gzip")[1]]  # fmt: skip
    assert asked == [f"answer {n}".encode() for n in range(1, 6)]
    assert _get(front, "/ladder/?page=2")[1] == b"answer 2" and len(front) == 5


@pytest.mark.parametrize(
    ("status", "headers"),
    [("200 OK", [("Cache-Control", "private, no-cache")]),
     ("200 OK", [("Content-Type", "text/html")]),
     ("200 OK", [*PUBLIC, ("Set-Cookie", "csrftoken=x")]),
     ("200 OK", [("Cache-Control", "public"), ("Vary", "Accept-Language")]),
     ("404 Not Found", PUBLIC), ("304 Not Modified", PUBLIC)],
)  # fmt: skip
def test_only_a_public_200_that_sets_no_cookie_and_varies_by_the_key_is_kept(
    status: str, headers: list[tuple[str, str]]
) -> None:
    application = Application(status, headers)
    front = SharedAnswers(application, clock=Clock())
    assert [_get(front)[1] for _ in range(2)] == [b"answer 1", b"answer 2"]
    assert len(front) == 0 and not is_shareable(status, headers)


def test_an_answer_no_longer_shared_is_not_given_again() -> None:
    application, clock = Application(), Clock()
    front = SharedAnswers(application, clock=clock)
    _get(front)
    clock.now += 2 * KEEP_SECONDS
    application.headers = [("Cache-Control", "private, no-cache")]
    assert _get(front)[1] == b"answer 2" and len(front) == 0


def test_past_the_most_kept_every_answer_is_let_go() -> None:
    front = SharedAnswers(Application(), most=2, clock=Clock())
    for path in ("/a", "/b", "/c"):
        _get(front, path)
    assert len(front) == 1


def test_while_one_reader_draws_an_expired_answer_the_others_get_the_last_one() -> None:
    drawing, release = threading.Event(), threading.Event()
    application, clock = Application(), Clock()

    def slow(environ: dict[str, Any], start: Callable[..., Any]) -> Iterable[bytes]:
        if application.calls and not drawing.is_set():  # the second drawing waits
            drawing.set()
            release.wait(10)
        return application(environ, start)

    front = SharedAnswers(slow, clock=clock)
    _get(front)
    clock.now += 2 * KEEP_SECONDS
    redraw = threading.Thread(target=_get, args=(front,))
    redraw.start()
    assert drawing.wait(10)
    assert _get(front)[1] == b"answer 1"  # not queued behind the drawing
    release.set()
    redraw.join()
    assert _get(front)[1] == b"answer 2" and application.calls == 2


def test_readers_of_a_key_never_drawn_all_go_to_django_while_it_is_first_drawn() -> None:
    drawing, release = threading.Event(), threading.Event()
    application = Application()

    def slow(environ: dict[str, Any], start: Callable[..., Any]) -> Iterable[bytes]:
        if not drawing.is_set():  # the first drawing waits until released
            drawing.set()
            release.wait(10)
        return application(environ, start)

    front = SharedAnswers(slow, clock=Clock())
    first = threading.Thread(target=_get, args=(front,))
    first.start()
    assert drawing.wait(10)
    assert _get(front)[1] == b"answer 1"  # nothing kept to give: drawn by Django too
    assert len(front) == 0  # and not kept: the first drawing keeps its own
    release.set()
    first.join()
    assert application.calls == 2 and len(front) == 1 and _get(front)[1] == b"answer 2"


def test_a_head_request_goes_to_django() -> None:
    application = Application()
    front = SharedAnswers(application, clock=Clock())
    environ: dict[str, Any] = {"REQUEST_METHOD": "HEAD"}
    setup_testing_defaults(environ)
    for _ in range(2):
        list(front(environ, lambda *_: None))
    assert application.calls == 2 and len(front) == 0


def test_an_answer_without_close_is_kept_and_a_failed_drawing_lets_the_next_draw() -> None:
    calls: list[int] = []

    def flaky(environ: dict[str, Any], start: Callable[..., Any]) -> Iterable[bytes]:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the database went away")
        start("200 OK", list(PUBLIC))
        return [b"drawn"]  # a plain list: nothing to close

    front = SharedAnswers(flaky, clock=Clock())
    with pytest.raises(RuntimeError, match="went away"):
        _get(front)
    # The failed drawing holds nothing: the next reader draws, and that answer is kept.
    assert _get(front)[1] == b"drawn" and _get(front)[1] == b"drawn" and len(calls) == 2


def _post(front: SharedAnswers, path: str = "/admin/arena_server/sitesettings/1/change/") -> None:
    environ: dict[str, Any] = {"REQUEST_METHOD": "POST", "PATH_INFO": path}
    setup_testing_defaults(environ)
    list(front(environ, lambda *_: None))


def test_a_change_made_through_the_site_is_seen_at_once() -> None:
    # The organiser's visibility, a team's activation: every kept answer is let go.
    application = Application()
    front = SharedAnswers(application, clock=Clock())
    _get(front, "/ladder/")
    _get(front, "/")
    _post(front)
    assert application.calls == 3 and len(front) == 0
    assert _get(front, "/ladder/")[1] == b"answer 4"


def test_an_answer_drawn_across_a_change_is_not_kept() -> None:
    # Drawn from what the database held before the change, it would be given for a
    # second after it: given to its own reader only.
    front: SharedAnswers
    application = Application()

    def changing(environ: dict[str, Any], start: Callable[..., Any]) -> Iterable[bytes]:
        if environ["REQUEST_METHOD"] == "GET" and not application.calls:
            _post(front)  # a write answered while this page is drawn
        return application(environ, start)

    front = SharedAnswers(changing, clock=Clock())
    assert _get(front)[1] == b"answer 2" and len(front) == 0
    assert _get(front)[1] == b"answer 3" and _get(front)[1] == b"answer 3"
