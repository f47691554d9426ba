"""waitress as ``arena server run`` sets it up (:func:`arena.server.serve.waitress_options`),
with a real socket: the trusted proxy's ``X-Forwarded-Proto`` and ``X-Forwarded-For`` give
the application the client's scheme and address; the same headers from any other peer
are dropped; a body past the site's upload limit and its slack is refused before the
application runs. (The whole deployment behind nginx: ``test_tls_proxy``.)"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import waitress

from arena.server.serve import BODY_SLACK, waitress_options

UPLOAD_BYTES = 1000


def _echo(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """What the application sees of a request (and it reads the whole body)."""
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length)
    seen = {"scheme": environ["wsgi.url_scheme"], "address": environ["REMOTE_ADDR"],
            "proto": environ.get("HTTP_X_FORWARDED_PROTO"), "body": len(body)}  # fmt: skip
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps(seen).encode()]


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[int]:
    """waitress on a free loopback port with ``waitress_options(trusted_proxy=param)``."""
    options = waitress_options(threads=2, upload_bytes=UPLOAD_BYTES, trusted_proxy=request.param)
    server = waitress.create_server(_echo, host="127.0.0.1", port=0, **options)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield int(server.effective_port)
    finally:
        # Its task threads first: closing the server closes the trigger a thread still
        # servicing a request writes to ("Bad file descriptor", logged at ERROR).
        server.task_dispatcher.shutdown()
        server.close()
        thread.join(timeout=10)


def _get(port: int, headers: dict[str, str], body: bytes = b"") -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", "/", body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        return response.status, json.loads(data) if response.status == 200 else {}
    finally:
        connection.close()


FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}


@pytest.mark.parametrize("served", ["127.0.0.1"], indirect=True)
def test_the_trusted_proxy_s_headers_give_the_client_s_scheme_and_address(served: int) -> None:
    status, seen = _get(served, FORWARDED)
    assert status == 200 and seen["scheme"] == "https" and seen["address"] == "203.0.113.9"


@pytest.mark.parametrize("served", ["127.0.0.2"], indirect=True)
def test_another_peer_s_proxy_headers_are_dropped(served: int) -> None:
    # The peer (127.0.0.1) is not the trusted proxy: a client cannot claim https or
    # another address (the log-in limit would count the address it made up).
    status, seen = _get(served, FORWARDED)
    assert status == 200 and seen == {"scheme": "http", "address": "127.0.0.1", "proto": None,
                                      "body": 0}  # fmt: skip


@pytest.mark.parametrize("served", [None], indirect=True)
def test_a_body_past_the_upload_limit_and_its_slack_is_refused_unread(served: int) -> None:
    status, seen = _get(served, {}, b"x" * (UPLOAD_BYTES + BODY_SLACK))
    assert status == 200 and seen["body"] == UPLOAD_BYTES + BODY_SLACK
    status, _ = _get(served, {}, b"x" * (UPLOAD_BYTES + BODY_SLACK + 1))
    assert status == 413
