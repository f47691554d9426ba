"""``arena submit``: pack a bot's folder, upload it to a competition's server, wait for its
validation and print each step as it ends, then the verdict.

``docs/uploads.md`` is the user's guide: the server's API it calls, the upload limits it
checks before sending, identical uploads, the retries while a server restarts and the exit
codes. Every text the server sends back (a reason may quote the bot) is printed inert. The
upload itself is never sent twice: a second POST would make a second version.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from arena.server.competition import SITE_KEYS, SiteRules, rules_attribute
from arena.settings import SettingsError, UsageError
from arena.uploads import ArchiveError, inspect, pack
from protocol.inert import inert_text

__all__ = ["DEFAULT_RETRY_FOR_S", "DESCRIPTION", "UNREACHABLE", "add_arguments", "run"]

DESCRIPTION = (
    "Upload a bot to a competition's server: pack the folder (bot.toml at its top), send "
    "it with your team's API token, wait for its validation in the server's sandbox and "
    "print each step, then the verdict with the reason and the hint. Exit code 0 "
    "accepted, 1 rejected, 2 a usage error, 3 the server cannot be reached."
)

#: The exit code when the server cannot be reached, fails, or gives no verdict in time.
UNREACHABLE = 3
#: The exit code of an interrupted command (Ctrl-C or SIGTERM), as every command's.
INTERRUPTED = 130
_FINAL = ("accepted", "rejected")
_REQUEST_TIMEOUT_S = 30.0
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
#: A version's page on the site, below the server's address (the site's ``version`` URL).
_VERSION_PAGE = "/versions/{id}/"
#: How long the wait keeps asking a server that does not answer (a restart takes
#: seconds), and the first and the longest pause between two tries.
DEFAULT_RETRY_FOR_S = 120.0
_FIRST_PAUSE_S = 0.5
_LONGEST_PAUSE_S = 10.0
#: Where the server says its upload limits (the API's ``limits``).
_LIMITS = "/api/v1/limits/"
#: The competition file's key behind each limit an archive can break (an archive's
#: refusal names the rule by its code, :data:`arena.uploads.RULES`).
_KEY_OF_RULE = {
    "archive_too_large": "upload.archive_bytes",
    "unpacked_too_large": "upload.unpacked_bytes",
    "too_many_entries": "upload.file_count",
}
#: HTTP statuses a proxy answers while the server behind it restarts.
_PASSING_STATUSES = (502, 503, 504)


class _ServerError(Exception):
    """The server could not be asked, or answered with an error: the line, the exit code,
    and whether asking again later may work (a server that is restarting)."""

    def __init__(self, message: str, exit_code: int, *, is_passing: bool = False) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.is_passing = is_passing


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena submit``'s arguments."""
    parser.add_argument(
        "path", type=Path, metavar="PATH", help="the bot's folder (or a .tar.gz or .zip of it)"
    )
    parser.add_argument(
        "--server", required=True, metavar="URL", help="the competition's address (https://...)"
    )
    parser.add_argument(
        "--token-file",
        required=True,
        type=Path,
        metavar="FILE",
        help="a file holding your team's API token (made on the team's page, shown once)",
    )
    parser.add_argument(
        "--activate",
        action="store_true",
        help=(
            "play with this version once it is accepted (without it, only a team's first "
            "accepted version plays by itself)"
        ),
    )
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="upload and print the version's address, without waiting for the verdict",
    )
    parser.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=600.0,
        metavar="S",
        help="seconds to wait for the verdict (default: %(default)g)",
    )
    parser.add_argument(
        "--retry-for",
        type=_positive_seconds,
        default=DEFAULT_RETRY_FOR_S,
        metavar="S",
        help=(
            "while waiting, how long to keep asking a server that does not answer (a "
            "restart), with growing pauses (default: %(default)g)"
        ),
    )
    parser.add_argument(
        "--poll-interval",
        type=_positive_seconds,
        default=1.0,
        metavar="S",
        help="seconds between two looks at the validation (default: %(default)g)",
    )


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text!r}")
    return value


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Pack, upload, wait and print; the exit code (``docs/uploads.md``)."""
    base = _server_url(args.server)
    token = _token(args.token_file)
    archive, content_type = _archive(args.path)
    done = "packed" if args.path.is_dir() else "read"
    out.write(f"{done} {args.path} ({len(archive):,} bytes); uploading to {base}\n")
    try:
        refusal = _refusal_by_the_servers_limits(base, token, archive)
        if refusal is not None:
            out.write(f"not sent: {refusal}\n")
            return 1
        created = _request(
            f"{base}/api/v1/versions/" + ("?activate=true" if args.activate else ""),
            token,
            data=archive,
            content_type=content_type,
        )
        version_id = urllib.parse.quote(str(created["id"]))
        # The page a person opens, not the API's JSON address the upload's answer names.
        page = base + _VERSION_PAGE.format(id=version_id)
        if created.get("identical"):
            out.write(
                f"identical to version {_shown(created.get('version'))} (the same archive, by "
                f"its SHA-256): not validated again: {_shown(page)}\n"
            )
        else:
            out.write(f"uploaded as version {_shown(created.get('version'))}: {_shown(page)}\n")
        if args.no_wait:
            _print_plays_now(created, out)
            return 0
        status_url = f"{base}/api/v1/versions/{version_id}/"
        patience = _Patience(args.timeout, args.poll_interval, args.retry_for)
        try:
            return _wait(status_url, token, patience, page, out)
        except KeyboardInterrupt:
            # Only the waiting stops: the server validates the upload all the same.
            out.write(f"\ninterrupted: the upload is validated all the same; see {page}\n")
            return INTERRUPTED
    except _ServerError as exc:
        out.write(f"{exc}\n")
        return exc.exit_code


def _server_url(text: str) -> str:
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"--server {text!r} is not an http:// or https:// address")
    return text.rstrip("/")


def _token(path: Path) -> str:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"--token-file {str(path)!r} cannot be read: {why}") from None
    if not token or any(character.isspace() for character in token):
        raise UsageError(f"--token-file {str(path)!r} does not hold a token (one word)")
    return token


def _archive(path: Path) -> tuple[bytes, str]:
    """The bytes to upload and their content type: the folder packed, or the archive."""
    if path.is_dir():
        if not (path / "bot.toml").is_file():
            raise UsageError(f"{str(path)!r} has no bot.toml at its top")
        try:
            return pack(path), "application/gzip"
        except ArchiveError as exc:
            raise UsageError(f"{str(path)!r} cannot be packed: {exc}") from None
    if path.is_file():
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            return data, "application/gzip"
        if data[:4] in _ZIP_MAGICS:
            return data, "application/zip"
        raise UsageError(f"{str(path)!r} is neither a bot folder nor a .tar.gz or .zip archive")
    raise UsageError(f"{str(path)!r} does not exist")


def _refusal_by_the_servers_limits(base: str, token: str, archive: bytes) -> str | None:
    """Why the server would refuse ``archive`` by its upload limits, naming the key and the
    server's value; None when it passes, or when the server does not say its limits (an
    older server: it checks the upload itself)."""
    try:
        said = _request(base + _LIMITS, token).get("limits")
    except _ServerError as exc:
        if exc.exit_code != 1:  # a refused token, an unreachable or failing server
            raise
        return None  # 404: a server that does not say its limits
    if not isinstance(said, dict):
        return None
    stored = {rules_attribute(key): value for key, value in said.items() if key in SITE_KEYS}
    try:
        rules = SiteRules.from_stored(stored)
    except SettingsError:
        return None  # values this client cannot read: the server checks them itself
    try:
        inspect(archive, rules.archive_limits)
    except ArchiveError as error:
        key = _KEY_OF_RULE.get(error.code)
        if key is None:
            return f"the server would refuse the archive: {error}"
        value = getattr(rules, rules_attribute(key))
        return f"{error} (the server's {key} = {value:,}); nothing was uploaded"
    return None


def _request(
    url: str, token: str, *, data: bytes | None = None, content_type: str = ""
) -> dict[str, Any]:
    """The JSON answer of one request; :class:`_ServerError` for every way it can fail."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=_REQUEST_TIMEOUT_S) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        raise _http_error(exc) from None
    except (urllib.error.URLError, OSError) as exc:
        why = getattr(exc, "reason", None) or exc
        raise _ServerError(
            f"cannot reach the server at {url}: {why}", UNREACHABLE, is_passing=True
        ) from None
    try:
        answer = json.loads(body)
    except ValueError:
        raise _ServerError(f"the server's answer at {url} is not JSON", UNREACHABLE) from None
    if not isinstance(answer, dict):
        raise _ServerError(f"the server's answer at {url} is not a JSON object", UNREACHABLE)
    return answer


def _http_error(error: urllib.error.HTTPError) -> _ServerError:
    try:
        said = json.loads(error.read()).get("error", "")
    except (ValueError, AttributeError, OSError):
        said = ""
    detail = f": {_shown(said)}" if said else ""
    code = error.code
    if code in (401, 403):
        return _ServerError(f"the server refused the token (HTTP {code}){detail}", 2)
    if 400 <= code < 500:
        return _ServerError(f"the server refused the upload (HTTP {code}){detail}", 1)
    return _ServerError(
        f"the server failed (HTTP {code}){detail}",
        UNREACHABLE,
        is_passing=code in _PASSING_STATUSES,
    )


@dataclass(frozen=True, slots=True)
class _Patience:
    """How long to wait for a verdict, how often to look, and how long to keep asking a
    server that does not answer; the clock and the pause are the real ones but in tests."""

    timeout_s: float
    interval_s: float
    retry_for_s: float
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep


def _wait(url: str, token: str, patience: _Patience, page: str, out: TextIO) -> int:
    """Poll the version until its verdict, printing each step once it has ended; a server
    that stops answering is asked again with growing pauses (``docs/uploads.md``)."""
    clock = patience.clock
    deadline = clock() + patience.timeout_s
    printed: set[tuple[str, str]] = set()
    silent_since: float | None = None
    pause = _FIRST_PAUSE_S
    while True:
        try:
            state = _request(url, token)
        except _ServerError as exc:
            if not exc.is_passing:
                raise
            now = clock()
            if silent_since is None:
                silent_since = now
                out.write(
                    f"{exc}; asking again for up to {patience.retry_for_s:g} s "
                    "(the server may be restarting)\n"
                )
            if now - silent_since + pause > patience.retry_for_s or now + pause > deadline:
                out.write(
                    f"the server has not answered for {now - silent_since:.0f} s: {exc}; "
                    f"the version's page: {page}\n"
                )
                return UNREACHABLE
            patience.sleep(pause)
            pause = min(2 * pause, _LONGEST_PAUSE_S)
            continue
        if silent_since is not None:
            out.write(f"the server answers again after {clock() - silent_since:.0f} s\n")
            silent_since, pause = None, _FIRST_PAUSE_S
        for step in state.get("steps") or []:
            _print_step(step, printed, out)
        status = str(state.get("status", ""))
        if status in _FINAL:
            return _verdict(state, status, out)
        if clock() + patience.interval_s > deadline:
            out.write(
                f"no verdict within {patience.timeout_s:g} s (the version is "
                f"{_shown(status)}); see {page}\n"
            )
            return UNREACHABLE
        patience.sleep(patience.interval_s)


def _print_step(step: Any, printed: set[tuple[str, str]], out: TextIO) -> None:
    if not isinstance(step, dict):
        return
    name, status = str(step.get("step", "")), str(step.get("status", ""))
    if status in ("", "running") or (name, status) in printed:
        return
    printed.add((name, status))
    message = step.get("message") or ""
    out.write(
        f"  {_shown(name)}: {_shown(status)}" + (f": {_shown(message)}" if message else "") + "\n"
    )
    if step.get("hint") and status == "failed":
        out.write(f"    hint: {_shown(step['hint'])}\n")


def _print_plays_now(state: dict[str, Any], out: TextIO) -> None:
    """The server's sentence on what plays for the team now (an older server has none)."""
    if state.get("plays_now"):
        out.write(f"plays now: {_shown(state['plays_now'])}\n")


def _verdict(state: dict[str, Any], status: str, out: TextIO) -> int:
    if status == "accepted":
        out.write("accepted\n")
        _print_plays_now(state, out)
        return 0
    out.write(f"rejected: {_shown(state.get('reason') or 'no reason given')}\n")
    if state.get("hint"):
        out.write(f"hint: {_shown(state['hint'])}\n")
    return 1


def _shown(value: object) -> str:
    """A value the server sent, inert (it may quote what a bot wrote)."""
    return inert_text(str(value), max_length=2000)
