"""Pages drawn once and kept (arena.server.site.drawn_pages) and the one query a kept page
costs, compiled once (arena.server.site.statements)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from arena.server.site.drawn_pages import GZIP_FROM_BYTES, DrawnPage, DrawnPages, answer, is_current
from arena.server.site.models import Team
from arena.server.site.statements import Statement, as_datetime

BIG = b"<p>the same row again</p>" * 200


def _drawn(body: bytes = BIG, status: int = 200) -> HttpResponse:
    return HttpResponse(body, status=status, content_type="text/html; charset=utf-8")


def test_a_page_is_drawn_once_per_key_and_an_error_is_never_kept() -> None:
    pages, drawn = DrawnPages(most=8), []

    def draw() -> HttpResponse:
        drawn.append(1)
        return _drawn()

    first, second = pages.found("a", draw), pages.found("a", draw)
    assert isinstance(first, DrawnPage) and first is second and drawn == [1]
    missing = pages.found("b", lambda: _drawn(b"no such page", status=404))
    assert isinstance(missing, HttpResponse) and missing.status_code == 404
    assert pages.get("b") is None and len(pages) == 1


def test_past_the_most_kept_every_page_is_let_go() -> None:
    pages = DrawnPages(most=2)
    for key in ("a", "b", "c"):
        pages.found(key, _drawn)
    assert len(pages) == 1 and pages.get("c") is not None and pages.get("a") is None
    pages.clear()
    assert len(pages) == 0


def test_a_page_s_etag_is_its_view_s_or_else_its_body_s_digest() -> None:
    named = _drawn()
    named.headers["ETag"] = '"the-views"'
    assert DrawnPage.of(named).etag == '"the-views"'
    assert DrawnPage.of(_drawn()).etag == DrawnPage.of(_drawn()).etag != '"the-views"'
    assert DrawnPage.of(_drawn(b"other")).etag != DrawnPage.of(_drawn()).etag


def test_a_short_page_is_not_gzipped() -> None:
    assert DrawnPage.of(_drawn(b"x" * (GZIP_FROM_BYTES - 1))).gzipped is None
    assert DrawnPage.of(_drawn()).gzipped is not None


@pytest.mark.parametrize(
    ("accept", "gzipped"),
    [("gzip", True), ("br, GZIP", True), ("*", True), ("gzip;q=0.5", True), ("", False),
     ("br", False), ("gzip;q=0", False), ("gzip; q=0.000", False), ("*;q=0", False)],
)  # fmt: skip
def test_gzip_goes_to_a_reader_who_takes_it(accept: str, gzipped: bool) -> None:
    request = RequestFactory().get("/", headers={"Accept-Encoding": accept} if accept else {})
    response = answer(request, DrawnPage.of(_drawn()), shared=True)
    assert (response.get("Content-Encoding") == "gzip") is gzipped


def test_a_current_copy_gets_304_and_the_cache_headers_say_who_may_keep_it() -> None:
    page = DrawnPage.of(_drawn())
    for header in (page.etag, f'"other", W/{page.etag}', f'{page.etag} ,"x"'):
        request = RequestFactory().get("/", headers={"If-None-Match": header})
        assert is_current(request, page.etag)
        response = answer(request, page, shared=False)
        assert response.status_code == 304 and response.content == b""
        assert response["ETag"] == page.etag and response["Cache-Control"] == "private, no-cache"
    request = RequestFactory().get("/", headers={"If-None-Match": '"other"'})
    response = answer(request, page, shared=True, max_age=60)
    assert response.status_code == 200 and response.content == BIG
    assert response["Cache-Control"] == "public, max-age=60"
    assert answer(request, page, shared=True)["Cache-Control"] == "public, no-cache"
    assert {"Cookie", "Authorization", "Accept-Encoding"} <= {
        name.strip() for name in response["Vary"].split(",")
    }
    # What is not a page (a 404 a view drew) is answered as it is.
    missing = _drawn(b"gone", status=404)
    assert answer(request, missing, shared=True) is missing


@pytest.mark.usefixtures("db")
def test_a_statement_is_compiled_once_and_reads_the_rows_now() -> None:
    made: list[int] = []

    def names() -> Any:
        made.append(1)
        return Team.objects.filter(name__startswith="a").values_list("name").order_by("name")

    statement = Statement(names)
    assert statement.rows() == []
    Team.objects.create(name="ants")
    Team.objects.create(name="bees")
    assert statement.rows() == [("ants",)]
    Team.objects.create(name="apes")
    assert statement.rows() == [("ants",), ("apes",)] and made == [1]


def test_a_time_stamp_is_read_as_an_aware_datetime() -> None:
    when = datetime(2026, 12, 6, 17, 0, 1, 250000, tzinfo=UTC)
    assert as_datetime(when) is when and as_datetime(None) is None
    assert as_datetime("2026-12-06 17:00:01.25") == when  # SQLite's text: UTC
    assert as_datetime("2026-12-06T18:00:01.25+01:00") == when
    with pytest.raises(ValueError, match="'yesterday'"):
        as_datetime("yesterday")
