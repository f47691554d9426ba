"""``arena submit`` against a fake server on 127.0.0.1: it packs, uploads with the token,
prints each step as it ends and the verdict; exit codes 0 accepted, 1 rejected, 2 usage,
3 unreachable; every text from the server printed inert."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from arena import cli
from arena.server.competition import SITE_KEYS, SiteRules, rules_attribute
from arena.uploads import inspect
from tests import REPO_ROOT

BOT = REPO_ROOT / "sample_bots" / "python_random"
TOKEN = "tok_abc123"
#: The site's default upload limits by key, as a server answers them.
DEFAULT_UPLOAD_LIMITS = {
    key: getattr(SiteRules(), rules_attribute(key))
    for key in SITE_KEYS
    if key.startswith("upload.")
}


@dataclass
class FakeApi:
    """What the fake server answers: the upload's status and body, then each state in turn
    (the last one repeated)."""

    states: list[dict[str, Any]] = field(default_factory=list)
    upload_status: int = 201
    upload_body: dict[str, Any] = field(
        default_factory=lambda: {"id": 17, "version": 3, "status": "queued", "url": "/v/17/"}
    )
    received: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)
    gets: int = 0
    #: The upload limits ``GET /api/v1/limits/`` answers (None: 404, an older server),
    #: the site's defaults unless a test says otherwise; how many times they were asked.
    limits: Any = field(default_factory=lambda: dict(DEFAULT_UPLOAD_LIMITS))
    limit_gets: int = 0


def serve(api: FakeApi) -> tuple[ThreadingHTTPServer, threading.Thread]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            body = self.rfile.read(length)
            api.received.append(("POST", self.path, dict(self.headers), body))
            if self.headers["Authorization"] != f"Bearer {TOKEN}":
                self.answer(401, {"error": "bad token"})
                return
            self.answer(api.upload_status, api.upload_body)

        def do_GET(self) -> None:
            if self.path == "/api/v1/limits/":  # public: no token needed
                api.limit_gets += 1
                if api.limits is None:
                    self.answer(404, {"error": "no such page"})
                else:
                    self.answer(200, {"limits": api.limits})
                return
            api.received.append(("GET", self.path, dict(self.headers), b""))
            state = api.states[min(api.gets, len(api.states) - 1)]
            api.gets += 1
            if "hang_up" in state:  # a server going down: the connection closes unanswered
                self.close_connection = True
                return
            if "proxy_status" in state:  # the proxy in front of a restarting server
                self.send_response(state["proxy_status"])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.answer(200, state)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    return server, thread


@pytest.fixture
def api() -> Iterator[tuple[FakeApi, str]]:
    fake = FakeApi()
    server, thread = serve(fake)
    yield fake, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


def submit(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(["submit", *argv, "--poll-interval", "0.01"], stdout=out)
    return code, out.getvalue()


def step(name: str, status: str, message: str = "", hint: str = "") -> dict[str, str]:
    return {"step": name, "status": status, "message": message, "hint": hint}


def test_an_accepted_bot_prints_each_step_once_then_accepted(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    fake, url = api
    unpack, build = step("unpack", "passed", "2 files"), step("build", "passed", "no build step")
    check, match = (
        step("protocol_check", "passed", "12 steps"),
        step("validation_match", "passed", "ok"),
    )
    fake.states = [
        {"status": "building", "steps": [unpack, step("build", "running")]},
        {"status": "validation_match", "steps": [unpack, build, check]},
        {"status": "accepted", "steps": [unpack, build, check, match]},
    ]  # fmt: skip
    code, out = submit(str(BOT), "--server", url + "/", "--token-file", str(token_file))
    assert code == 0, out
    lines = out.splitlines()
    # The version's page, which a browser shows, not the API's JSON address.
    assert lines[1] == f"uploaded as version 3: {url}/versions/17/"
    assert lines[2:] == [
        "  unpack: passed: 2 files",
        "  build: passed: no build step",
        "  protocol_check: passed: 12 steps",
        "  validation_match: passed: ok",
        "accepted",
    ]
    method, path, headers, body = fake.received[0]
    assert (method, path) == ("POST", "/api/v1/versions/")
    assert headers["Authorization"] == f"Bearer {TOKEN}"
    assert headers["Content-Type"] == "application/gzip"
    assert set(inspect(body).files) == {"bot.py", "bot.toml"}
    assert fake.received[1][1] == "/api/v1/versions/17/"


def test_a_rejected_bot_prints_the_reason_and_hint_inert_and_exits_1(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    fake, url = api
    fake.states = [{
        "status": "rejected", "reason": "handshake: answered \x1b[2Jgarbage", "hint": "flush",
        "steps": [step("protocol_check", "failed", "handshake", "send ready"),
                  step("validation_match", "skipped", "an earlier step failed")],
    }]  # fmt: skip
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file))
    assert code == 1
    assert "  protocol_check: failed: handshake\n    hint: send ready\n" in out
    assert "  validation_match: skipped: an earlier step failed\n" in out
    assert "rejected: handshake: answered \\x1b[2Jgarbage\nhint: flush\n" in out
    assert "\x1b" not in out


def test_no_wait_uploads_and_stops(api: tuple[FakeApi, str], token_file: Path) -> None:
    fake, url = api
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file), "--no-wait")
    assert code == 0 and "uploaded as version 3" in out
    assert [method for method, *_ in fake.received] == ["POST"]


def test_activate_asks_the_server_to_play_the_version_and_the_verdict_says_what_plays(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    fake, url = api
    fake.states = [
        {"status": "accepted", "steps": [], "plays_now": "version 3 plays on the ladder now"}
    ]
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file), "--activate")
    assert code == 0, out
    assert fake.received[0][1] == "/api/v1/versions/?activate=true"
    assert out.splitlines()[-2:] == ["accepted", "plays now: version 3 plays on the ladder now"]


def test_without_activate_the_servers_rule_holds_and_no_wait_says_what_plays(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    fake, url = api
    fake.upload_body = {**fake.upload_body, "plays_now": "version 2 plays now; version 3 ..."}
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file), "--no-wait")
    assert code == 0
    assert fake.received[0][1] == "/api/v1/versions/"
    assert out.splitlines()[-1] == "plays now: version 2 plays now; version 3 ..."


def test_an_archive_file_is_uploaded_as_it_is(
    api: tuple[FakeApi, str], token_file: Path, tmp_path: Path
) -> None:
    fake, url = api
    archive = tmp_path / "bot.zip"
    archive.write_bytes(b"PK\x05\x06" + bytes(18))
    code, out = submit(str(archive), "--server", url, "--token-file", str(token_file), "--no-wait")
    assert code == 0 and out.startswith(f"read {archive} (22 bytes)")
    assert fake.received[0][2]["Content-Type"] == "application/zip"
    assert fake.received[0][3] == archive.read_bytes()


@pytest.mark.parametrize(
    ("status", "code", "line"),
    [
        (413, 1, "the server refused the upload (HTTP 413): archive too large"),
        (500, 3, "the server failed (HTTP 500): archive too large"),
    ],
)
def test_http_errors_are_one_line_with_the_servers_words(
    api: tuple[FakeApi, str], token_file: Path, status: int, code: int, line: str
) -> None:
    fake, url = api
    fake.upload_status, fake.upload_body = status, {"error": "archive too large"}
    found, out = submit(str(BOT), "--server", url, "--token-file", str(token_file))
    assert found == code
    assert out.splitlines()[-1] == line


def test_a_token_the_server_refuses_is_a_usage_error(
    api: tuple[FakeApi, str], tmp_path: Path
) -> None:
    _fake, url = api
    wrong = tmp_path / "wrong"
    wrong.write_text("nope")
    code, out = submit(str(BOT), "--server", url, "--token-file", str(wrong))
    assert code == 2
    assert out.splitlines()[-1] == "the server refused the token (HTTP 401): bad token"


def test_a_server_that_is_not_there_is_one_line_exit_3(token_file: Path) -> None:
    fake = FakeApi()
    server, thread = serve(fake)
    port = server.server_address[1]
    server.shutdown()
    server.server_close()
    thread.join()
    code, out = submit(
        str(BOT), "--server", f"http://127.0.0.1:{port}", "--token-file", str(token_file)
    )
    assert code == 3
    assert out.splitlines()[-1].startswith(f"cannot reach the server at http://127.0.0.1:{port}/")
    assert "refused" in out.splitlines()[-1].lower()


def test_no_verdict_within_the_timeout_exits_3(api: tuple[FakeApi, str], token_file: Path) -> None:
    fake, url = api
    fake.states = [{"status": "building", "steps": []}]
    code, out = submit(
        str(BOT), "--server", url, "--token-file", str(token_file), "--timeout", "0.05"
    )
    assert code == 3
    assert "no verdict within 0.05 s (the version is building)" in out


def test_a_server_restarting_while_it_validates_is_asked_again_until_it_answers(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    # Exit code 3 on the first connection error left a team guessing whether its upload
    # was judged; the wait now asks again with growing pauses, saying so once each way.
    fake, url = api
    fake.states = [
        {"status": "building", "steps": [step("unpack", "passed", "2 files")]},
        {"hang_up": True},
        {"proxy_status": 502},
        {"status": "accepted", "steps": [step("unpack", "passed", "2 files")]},
    ]
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file))
    assert code == 0, out
    lines = out.splitlines()
    assert lines[2] == "  unpack: passed: 2 files"
    assert lines[3].startswith(f"cannot reach the server at {url}/api/v1/versions/17/: ")
    assert lines[3].endswith("; asking again for up to 120 s (the server may be restarting)")
    assert lines[4].startswith("the server answers again after ") and lines[5] == "accepted"
    assert fake.gets == 4 and [m for m, *_ in fake.received].count("POST") == 1  # never resent


def test_a_server_that_stays_away_is_given_up_after_retry_for_with_the_page(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    fake, url = api
    fake.states = [{"proxy_status": 503}]
    argv = ["--token-file", str(token_file), "--retry-for", "0.2"]
    code, out = submit(str(BOT), "--server", url, *argv)
    assert code == 3
    lines = out.splitlines()
    assert lines[2] == "the server failed (HTTP 503); asking again for up to 0.2 s " + (
        "(the server may be restarting)"
    )
    assert lines[3] == (
        "the server has not answered for 0 s: the server failed (HTTP 503); "
        f"the version's page: {url}/versions/17/"
    )


def test_a_server_error_that_a_restart_does_not_explain_is_not_retried(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    fake, url = api
    fake.states = [{"proxy_status": 500}]
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file))
    assert code == 3 and fake.gets == 1
    assert out.splitlines()[-1] == "the server failed (HTTP 500)"


def test_an_interrupted_wait_names_the_page_where_the_verdict_will_be(
    api: tuple[FakeApi, str], token_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C and SIGTERM (which the command line turns into the same interrupt) stop only
    # the waiting: the upload was sent and is judged all the same.
    from arena.commands import submit as command

    def interrupted(*args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "_wait", interrupted)
    _fake, url = api
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file))
    assert code == 130
    assert out.splitlines()[-1] == (
        f"interrupted: the upload is validated all the same; see {url}/versions/17/"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["BOT", "--server", "ftp://x", "--token-file", "TOKEN"], "is not an http:// or https://"),
        (["BOT", "--server", "http://x", "--token-file", "MISSING"], "cannot be read"),
        (["BOT", "--server", "http://x", "--token-file", "EMPTY"], "does not hold a token"),
        (["NOBOT", "--server", "http://x", "--token-file", "TOKEN"], "has no bot.toml"),
        (["MISSING", "--server", "http://x", "--token-file", "TOKEN"], "does not exist"),
        (["TOKEN", "--server", "http://x", "--token-file", "TOKEN"], "neither a bot folder"),
        (["BADBOT", "--server", "http://x", "--token-file", "TOKEN"], "cannot be packed: entry"),
        (["BOT", "--server", "http://x", "--token-file", "TOKEN", "--timeout", "0"],
         "must be more than 0 seconds"),
        (["BOT", "--server", "http://x", "--token-file", "TOKEN", "--timeout", "soon"],
         "not a number of seconds"),
    ],
)  # fmt: skip
def test_usage_errors_exit_2_naming_the_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    (tmp_path / "token").write_text(TOKEN)
    (tmp_path / "empty").write_text("\n")
    (tmp_path / "nobot").mkdir()
    bad = tmp_path / "badbot"
    bad.mkdir()
    (bad / "bot.toml").write_text("")
    (bad / "link").symlink_to("/etc/passwd")
    names = {
        "BOT": str(BOT), "TOKEN": str(tmp_path / "token"), "EMPTY": str(tmp_path / "empty"),
        "MISSING": str(tmp_path / "missing"), "NOBOT": str(tmp_path / "nobot"), "BADBOT": str(bad),
    }  # fmt: skip
    with pytest.raises(SystemExit) as caught:
        submit(*(names.get(word, word) for word in argv))
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


def test_an_archive_over_the_servers_size_limit_is_refused_before_anything_is_sent(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    # The limit is the server's (its settings, read from GET /api/v1/limits/), not the
    # client's default: a site that allows less refuses here, naming its key and value.
    fake, url = api
    assert fake.limits is not None
    fake.limits["upload.archive_bytes"] = 100
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file))
    assert code == 1
    size = int(out.split("(", 1)[1].split(" bytes", 1)[0].replace(",", ""))
    assert out.splitlines()[-1] == (
        f"not sent: the archive is {size:,} bytes, over the limit of 100 "
        "(the server's upload.archive_bytes = 100); nothing was uploaded"
    )
    assert fake.limit_gets == 1 and fake.received == []


def test_too_many_files_for_the_server_is_refused_naming_its_file_count(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    fake, url = api
    assert fake.limits is not None
    fake.limits["upload.file_count"] = 1  # the starter bot has two files
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file))
    assert code == 1
    assert out.splitlines()[-1] == (
        "not sent: the archive holds more than 1 entries (files and folders) "
        "(the server's upload.file_count = 1); nothing was uploaded"
    )
    assert fake.received == []


def test_an_archive_the_server_would_refuse_for_another_rule_is_not_sent(
    api: tuple[FakeApi, str], token_file: Path, tmp_path: Path
) -> None:
    fake, url = api
    damaged = tmp_path / "bot.tar.gz"
    damaged.write_bytes(b"\x1f\x8b" + b"not gzip at all")
    code, out = submit(str(damaged), "--server", url, "--token-file", str(token_file))
    assert code == 1
    assert out.splitlines()[-1].startswith(
        "not sent: the server would refuse the archive: the archive is damaged"
    )
    assert fake.received == []


@pytest.mark.parametrize(
    "limits",
    [None, {"upload.file_count": "many"}, {"upload.file_count": [1]}, {"other": 1}, "none"],
    ids=["older server (404)", "a value not a count", "a list", "no limits", "not an object"],
)
def test_a_server_whose_limits_cannot_be_read_checks_the_upload_itself(
    api: tuple[FakeApi, str], token_file: Path, limits: Any
) -> None:
    fake, url = api
    fake.limits = limits
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file), "--no-wait")
    assert code == 0, out
    assert fake.limit_gets == 1 and [method for method, *_ in fake.received] == ["POST"]


def test_an_identical_upload_is_linked_to_its_version_and_not_validated_again(
    api: tuple[FakeApi, str], token_file: Path
) -> None:
    fake, url = api
    fake.upload_status = 200
    fake.upload_body = {"id": 9, "version": 2, "status": "accepted", "url": "/v/9/",
                        "identical": True}  # fmt: skip
    fake.states = [{"status": "accepted", "steps": []}]
    code, out = submit(str(BOT), "--server", url, "--token-file", str(token_file))
    assert code == 0, out
    assert out.splitlines()[1] == (
        "identical to version 2 (the same archive, by its SHA-256): not validated again: "
        f"{url}/versions/9/"
    )
    assert out.splitlines()[-1] == "accepted"
