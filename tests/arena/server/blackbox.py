"""A black-box security check of a live site (issue 31's findings), over HTTP only.

``python -m tests.arena.server.blackbox`` makes a site in a temporary folder with ``arena
server init``, serves it with ``arena server run`` on a free loopback port (and a second
one, made ``--behind-tls``, behind ``--trusted-proxy 127.0.0.1``), and tries each finding
of issue 31 as an outside attacker would: sign-up forms with their CSRF token, API tokens
from the tokens page, uploads through the API, plain ``http.client`` requests from chosen
loopback addresses (127.0.0.N, one per probe, so that one probe's rate limits do not spend
another's). No Django test client, no database: the organiser's commands (``init``,
``run``) are the only way in besides HTTP.

It prints one line per probe (the finding, what was tried, ``held`` or ``FAILED``), the
findings it cannot reach over HTTP with the reason, and a total; it exits 1 when a probe
failed. ``tests/arena/server/test_blackbox.py`` runs it in ``make test-long``.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import re
import secrets
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html import unescape
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from tests.arena.server.browser.live import ADMIN_PASSWORD, LiveSite, init_site, running_site

#: The bound of every wait for the site (a verdict, a ladder game).
WAIT_SECONDS = 240.0

#: Hands of a validation match on the probed site, and the length of a match past which the
#: crashing bot (:func:`crashing_bot`) dies at its start: a ladder game's, not validation's.
VALIDATION_HANDS = 10
CRASH_PAST_HANDS = 15

#: Deals of one ladder game on the probed site (the default, 100, takes longer).
LADDER_DEALS = 30
LADDER = json.dumps({"deals": LADDER_DEALS})

COMPETITION = (
    '[site]\nsignup = "open"\nvisibility = "showdowns"\n\n'
    f"[validation]\nhands = {VALIDATION_HANDS}\n"
)

#: What the crashing bot writes to its stderr: no other team may ever read it.
STDERR_MARKER = "STDERR-SECRET-" + secrets.token_hex(6)


@dataclass
class Answer:
    """One HTTP answer: status, headers and body as text."""

    status: int
    headers: http.client.HTTPMessage
    text: str

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.text)


@dataclass
class Client:
    """A browser-like HTTP client from one loopback address, keeping its cookies."""

    port: int
    address: str = "127.0.0.1"
    cookies: dict[str, str] = field(default_factory=dict)
    #: Every body read, for the leak check (:func:`check_no_paths`).
    seen: list[tuple[str, str]] = field(default_factory=list)
    #: The Host header (default: the address connected to).
    host: str | None = None
    #: Headers sent with every request (those a TLS proxy adds), and the scheme the
    #: browser's origin has (https behind that proxy).
    always: dict[str, str] = field(default_factory=dict)
    scheme: str = "http"

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        """One request on a new connection from this client's address."""
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=60, source_address=(self.address, 0)
        )
        sent = {"Host": self.host or f"127.0.0.1:{self.port}", **self.always, **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or ():
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        if not path.startswith("/admin/"):
            self.seen.append((path, text))
        return Answer(response.status, response.headers, text)

    def get(self, path: str, **headers: str) -> Answer:
        """A GET of ``path`` with ``headers``."""
        return self.request("GET", path, headers=headers)

    def post_form(self, path: str, form: dict[str, str]) -> Answer:
        """A form's POST with the CSRF token of the cookie (read from ``path`` first)."""
        if "csrftoken" not in self.cookies:
            self.get(path if not path.endswith("/remove/") else "/team/")
        data = {"csrfmiddlewaretoken": self.cookies.get("csrftoken", ""), **form}
        origin = f"{self.scheme}://{self.host or f'127.0.0.1:{self.port}'}"
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Referer": origin + path,
            "Origin": origin,
        }
        return self.request("POST", path, body=urlencode(data).encode(), headers=headers)

    def api(self, method: str, path: str, token: str, body: bytes | None = None) -> Answer:
        """An API request with ``token`` as its bearer token."""
        return self.request(method, path, body=body, headers={"Authorization": f"Bearer {token}"})


class Probes:
    """The probes' lines and their tally."""

    def __init__(self) -> None:
        self.failed = 0
        self.held = 0
        self.uncovered: list[str] = []

    def check(self, finding: str, tried: str, held: bool, detail: str = "") -> bool:
        """Count and print one probe of ``finding``; ``detail`` is shown when it failed."""
        verdict = "held" if held else "FAILED"
        self.held += held
        self.failed += not held
        suffix = "" if held or not detail else f"  [{detail[:300]}]"
        print(f"finding {finding:>2} | {tried} | {verdict}{suffix}", flush=True)
        return held

    def not_covered(self, finding: str, why: str) -> None:
        """Say that ``finding`` (or part of it) is not probed over HTTP, and why."""
        self.uncovered.append(finding)
        print(f"finding {finding:>2} | not covered over HTTP: {why}", flush=True)


def archive(files: dict[str, str]) -> bytes:
    """A tar.gz of ``files`` (name: text)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


_BOT = """import json, sys
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello" and (message["game"].get("hand_count") or 0) > CRASH:
        sys.stderr.write("MARKER\\n" * 40)
        sys.stderr.flush()
        sys.exit(3)
    seq = message.get("seq")
    if kind == "hello":
        reply = {"type": "ready", "name": "probe", "protocol_version": 1}
    elif kind == "act":
        legal = message["legal_actions"]
        action = next(a for a in ("CHECK", "CALL", "FOLD") if a in legal)
        reply = {"type": "action", "action": action}
    elif kind == "draw":
        reply = {"type": "discard", "cards": []}
    elif kind == "match_end":
        break
    else:
        continue
    reply["seq"] = seq
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""


def calling_bot(variant: int = 0) -> bytes:
    """A bot that checks or calls, for ever (each ``variant`` another archive: the site
    links an identical upload to the version it repeats instead of queueing it)."""
    text = _BOT.replace("CRASH", "10**9").replace("MARKER", "ok") + f"# variant {variant}\n"
    return archive(
        {"bot.toml": 'name = "caller"\ncommand = ["{python}", "bot.py"]\n', "bot.py": text}
    )


def crashing_bot() -> bytes:
    """A bot that passes validation, then does not start in a ladder game (a longer match),
    writing :data:`STDERR_MARKER` to its stderr."""
    text = _BOT.replace("CRASH", str(CRASH_PAST_HANDS)).replace("MARKER", STDERR_MARKER)
    return archive(
        {"bot.toml": 'name = "crasher"\ncommand = ["{python}", "bot.py"]\n', "bot.py": text}
    )


def until(what: str, check: Callable[[], object], seconds: float = WAIT_SECONDS) -> object:
    """The first true answer of ``check`` (asked twice a second), or TimeoutError."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.5)
    raise TimeoutError(f"timed out waiting for {what}")


def sign_up(client: Client, name: str, password: str) -> Answer:
    """The sign-up form, filled in and sent (302 when the account was made)."""
    client.get("/signup/")
    return client.post_form(
        "/signup/", {"username": name, "password1": password, "password2": password}
    )


def member(
    port: int, address: str, name: str, team: str | None = None, password: str | None = None
) -> Client:
    """A new account (signed up from ``address``; ``password`` or a drawn one) and, with
    ``team``, its new team."""
    client = Client(port, address)
    done = sign_up(client, name, password or f"{name} pass-{secrets.token_hex(4)}")
    if done.status != 302:
        raise RuntimeError(f"sign-up of {name} answered {done.status}: {done.text[-500:]}")
    if team is not None:
        made = client.post_form("/team/new/", {"name": team})
        if made.status != 302:
            raise RuntimeError(f"team {team} answered {made.status}: {made.text[-500:]}")
    return client


def token_of(client: Client, name: str = "probe") -> str:
    """A new API token of the client's team, made on the tokens page (shown that once)."""
    page = client.post_form("/tokens/", {"name": name, "days": ""})
    found = re.search(r'<pre id="new-token">([^<]+)</pre>', page.text)
    if not found:
        raise RuntimeError(f"no token shown ({page.status}): {page.text[-500:]}")
    return unescape(found.group(1)).strip()


def join_code(client: Client) -> str:
    """The client's team's code, as its team page shows it."""
    found = re.search(r"Team code[^<]*<code>([^<]+)</code>", client.get("/team/").text)
    if not found:
        raise RuntimeError("no team code on /team/")
    return unescape(found.group(1))


def upload(client: Client, token: str, body: bytes) -> Answer:
    """An upload through the API, to play once accepted."""
    return client.api("POST", "/api/v1/versions/?activate=true", token, body)


def verdict(client: Client, token: str, version_id: int) -> str:
    """The version's final status (accepted or rejected), once it has one."""

    def done() -> str | None:
        status = str(client.api("GET", f"/api/v1/versions/{version_id}/", token).json()["status"])
        return status if status in {"accepted", "rejected"} else None

    return str(until(f"version {version_id}'s verdict", done))


# --- the probes ---------------------------------------------------------------------------


def probe_spellings(probes: Probes, port: int) -> None:
    """4: the log-in limit counts an account whatever its spelling."""
    password = f"alice's {secrets.token_hex(4)}"
    member(port, "127.0.0.20", "alice", "alices", password)
    guesser = Client(port, "127.0.0.21")
    guesser.get("/login/")
    for _ in range(5):
        guesser.post_form("/login/", {"username": "alice", "password": "wrong guess"})
    for spelling in ("alice ", " alice", "\uff41lice", "ALICE"):
        answer = guesser.post_form("/login/", {"username": spelling, "password": "wrong guess"})
        probes.check(
            "4",
            f"6th wrong log-in as {spelling!r} after 5 as 'alice': 429",
            answer.status == 429,
            f"status {answer.status}",
        )
    right = guesser.post_form("/login/", {"username": "alice ", "password": password})
    probes.check(
        "4",
        "then the right password as 'alice ' from that address: still refused (429)",
        right.status == 429 and "sessionid" not in guesser.cookies,
        f"status {right.status}",
    )


def probe_lock_out(probes: Probes, port: int) -> None:
    """5: no one locks the administrator out from another address."""
    attacker = Client(port, "127.0.0.22")
    attacker.get("/admin/login/")
    for _ in range(8):
        last = attacker.post_form("/admin/login/", {"username": "admin", "password": "nope"})
    probes.check(
        "5",
        "8 wrong admin passwords from one address: refused (429) there",
        last.status == 429,
        f"status {last.status}",
    )
    admin = Client(port, "127.0.0.23")
    admin.get("/admin/login/")
    answer = admin.post_form(
        "/admin/login/", {"username": "admin", "password": ADMIN_PASSWORD, "next": "/admin/"}
    )
    landed = admin.get("/admin/")
    probes.check(
        "5",
        "the administrator then logs in from its own address and reaches /admin/",
        answer.status == 302 and landed.status == 200 and "log out" in landed.text.lower(),
        f"log-in {answer.status}, /admin/ {landed.status}",
    )


def probe_sign_up_rate(probes: Probes, port: int) -> None:
    """7: accounts from one address are limited."""
    client = Client(port, "127.0.0.24")
    statuses = []
    for number in range(12):
        client.cookies.clear()
        statuses.append(
            sign_up(client, f"flood{number}", f"flood {number} {secrets.token_hex(4)}").status
        )
        if statuses[-1] == 429:
            break
    probes.check(
        "7",
        f"12 sign-ups from one address: refused (429) by the 11th ({statuses})",
        429 in statuses and statuses.index(429) <= 10,
    )


def probe_join_codes(probes: Probes, port: int, owner: Client) -> None:
    """7 and 13: join codes are rate-limited and rotate."""
    code = join_code(owner)
    guesser = member(port, "127.0.0.25", "guesser")
    statuses = [
        guesser.post_form("/team/join/", {"code": f"WRONG{i:03d}"}).status for i in range(11)
    ]
    right = guesser.post_form("/team/join/", {"code": code})
    probes.check(
        "7",
        f"11 wrong team codes, then the right one, from one address: 429 "
        f"({statuses}, {right.status})",
        statuses[-1] == 429 and right.status == 429,
    )
    rotated = owner.post_form("/team/code/", {})
    new_code = join_code(owner)
    joiner = member(port, "127.0.0.26", "latecomer")
    old = joiner.post_form("/team/join/", {"code": code})
    probes.check(
        "13",
        "a team rotates its code: the old code joins no one",
        rotated.status == 302 and new_code != code and old.status == 400,
        f"rotate {rotated.status}, old code {old.status}",
    )


def probe_removed_member_token(probes: Probes, port: int, owner: Client) -> None:
    """8 and 13: a removed member's token stops working; the team's code changes."""
    code = join_code(owner)
    carol = member(port, "127.0.0.27", "carol")
    joined = carol.post_form("/team/join/", {"code": code})
    token = token_of(carol, "carol's")
    before = carol.api("GET", "/api/v1/versions/", token).status
    buttons = re.findall(
        r'action="(/team/members/\d+/remove/)".*?<button[^>]*>([^<]*)</button>',
        owner.get("/team/").text,
        re.S,
    )
    found = next((action for action, label in buttons if label == "Remove"), None)
    if found is None:
        probes.check(
            "13", "the first member removes a later one", False, "no Remove button on /team/"
        )
        return
    removed = owner.post_form(found, {})
    after = carol.api("GET", "/api/v1/versions/", token)
    upload_after = carol.api("POST", "/api/v1/versions/", token, calling_bot())
    probes.check(
        "13",
        "the first member removes a later one",
        removed.status == 302,
        f"status {removed.status}",
    )
    probes.check(
        "8",
        "the removed member's token lists (401) and uploads (401) no more",
        joined.status == 302
        and before == 200
        and after.status == 401
        and upload_after.status == 401,
        f"joined {joined.status}, before {before}, after {after.status}/{upload_after.status}",
    )
    probes.check("13", "removing a member gives the team a new code", join_code(owner) != code)


def token_row(client: Client, name: str) -> list[str]:
    """The cells of the tokens page's row of the token ``name`` (name, start, maker, made,
    last used, expires, scope, the revoke form), or [] when there is none."""
    for row in re.findall(r"<tr><td>(.*?)</tr>", client.get("/tokens/").text, re.S):
        cells = re.split(r"</td>\s*<td>", row)
        if unescape(cells[0]) == name:
            return cells
    return []


def probe_revoked_token(probes: Probes, owner: Client) -> None:
    """8: a token shows its last use; a revoked one stops at once; an expiry can be set."""
    token = token_of(owner, "to revoke")
    unused = token_row(owner, "to revoke")
    before = owner.api("GET", "/api/v1/versions/", token).status
    used = token_row(owner, "to revoke")
    probes.check(
        "8",
        "the tokens page shows a token's last use ('never', then a time once used)",
        len(unused) > 4 and unused[4].strip() == "never" and used[4].strip() != "never",
        f"{unused[4:5]} then {used[4:5]}",
    )
    form = re.search(r'action="(/tokens/\d+/revoke/)"', used[-1] if used else "")
    revoked = owner.post_form(form.group(1), {}) if form else None
    after = owner.api("GET", "/api/v1/versions/", token).status
    probes.check(
        "8",
        "a revoked token is refused at once (401)",
        before == 200 and revoked is not None and revoked.status == 302 and after == 401,
        f"before {before}, after {after}",
    )
    expiring = owner.post_form("/tokens/", {"name": "a week", "days": "7"})
    row = token_row(owner, "a week")
    probes.check(
        "8",
        "a token made to work 7 days shows its expiry",
        expiring.status == 200 and len(row) > 5 and row[5].strip() != "never",
        f"status {expiring.status}, row {row[:6]}",
    )


def probe_body_size(probes: Probes, port: int) -> None:
    """9: a 65 MiB body with a bogus token is refused before it is read."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=20, source_address=("127.0.0.28", 0)
    )
    try:
        connection.putrequest("POST", "/api/v1/versions/")
        connection.putheader("Authorization", "Bearer bogus")
        connection.putheader("Content-Length", str(65 * 2**20))
        connection.endheaders()
        connection.send(b"x" * 65536)  # a little of it, then wait for the answer
        response = connection.getresponse()
        status = response.status
    except (OSError, http.client.HTTPException) as error:
        status = -1
        detail = repr(error)
    else:
        detail = f"status {status}"
    finally:
        connection.close()
    probes.check(
        "9",
        "POST of 65 MiB (Content-Length) with a bogus token, 64 KiB sent: refused "
        "at once (413) without the rest",
        status == 413,
        detail,
    )


def probe_weak_passwords(probes: Probes, port: int, owner: Client) -> None:
    """10: a password equal to the name is refused; a member can change its password."""
    client = Client(port, "127.0.0.29")
    answer = sign_up(client, "samename", "samename")
    probes.check(
        "10",
        "sign-up with the password equal to the name: refused",
        answer.status != 302 and "sessionid" not in client.cookies,
        f"status {answer.status}",
    )
    short = sign_up(Client(port, "127.0.0.29"), "shorty", "abc")
    probes.check(
        "10",
        "sign-up with a 3-character password: refused",
        short.status != 302,
        f"status {short.status}",
    )
    page = owner.get("/password/")
    probes.check(
        "10",
        "a member can change its password (/password/ has the form)",
        page.status == 200 and "new_password1" in page.text,
        f"status {page.status}",
    )


def probe_queue_cap(probes: Probes, port: int) -> None:
    """7: one team cannot queue uploads without bound."""
    flooder = member(port, "127.0.0.30", "flooder", "flooders")
    token = token_of(flooder)
    statuses = []
    for variant in range(8):
        statuses.append(upload(flooder, token, calling_bot(variant)).status)
        if statuses[-1] in {400, 429}:
            break
    probes.check(
        "7",
        f"8 uploads in a row by one team: refused once its queue is full ({statuses})",
        statuses[-1] in {400, 429} and statuses.count(201) <= 5,
    )


def probe_message(probes: Probes, client: Client, token: str, version_id: int) -> None:
    """12: ``?message=`` on the ladder version page shows no text of the link's."""
    marker = "INJECTED-" + secrets.token_hex(4)
    page = client.get(f"/ladder/versions/{version_id}/?message={marker}+%3Cb%3Ebold%3C/b%3E")
    probes.check(
        "12",
        "?message=<text> on the ladder version page: the text is not shown",
        page.status == 200 and marker not in page.text,
        f"status {page.status}",
    )
    del token


#: The reasons of a game no bot's fault ended (not yet over, or played to its end).
FINE = ("", None, "played to its end")


def probe_ladder(probes: Probes, port: int, team_a: Client, team_b: Client) -> None:
    """0 and 2: after ladder games with a bot that crashes writing to stderr, neither team
    reads a seed (visibility showdowns) and the opponent reads no stderr."""
    token_a, token_b = token_of(team_a, "ladder"), token_of(team_b, "ladder")
    version_a = upload(team_a, token_a, calling_bot()).json()["id"]
    version_b = upload(team_b, token_b, crashing_bot()).json()["id"]
    verdicts = (verdict(team_a, token_a, version_a), verdict(team_b, token_b, version_b))
    if verdicts != ("accepted", "accepted"):
        probes.check("0", "both ladder bots accepted", False, f"verdicts {verdicts}")
        return
    probe_message(probes, team_a, token_a, version_a)

    def games() -> list[dict[str, object]] | None:
        data = team_a.api("GET", f"/api/v1/ladder/versions/{version_a}/", token_a).json()
        over = [g for g in data.get("games", []) if g.get("reason") not in FINE]
        return over or None

    try:
        until("a ladder game the crashing bot did not start", games)
    except TimeoutError as error:
        probes.check("2", "a ladder game between the two teams ends", False, str(error))
        return
    views = {
        "team A's API": team_a.api("GET", f"/api/v1/ladder/versions/{version_a}/", token_a).text,
        "team B's API": team_b.api("GET", f"/api/v1/ladder/versions/{version_b}/", token_b).text,
        "team A's page": team_a.get(f"/ladder/versions/{version_a}/").text,
        "the public ladder": Client(port, "127.0.0.31").get("/api/v1/ladder/").text,
    }
    for name in ("team A's API", "team B's API"):
        games_seen = json.loads(views[name]).get("games", [])
        seeds = [g.get("seed") for g in games_seen]
        played = sum(g.get("reason") == "played to its end" for g in games_seen)
        probes.check(
            "0",
            f"{name}: no game's seed under visibility showdowns ({len(games_seen)} games, "
            f"{played} played to their end)",
            bool(games_seen) and all(s is None for s in seeds),
            f"seeds {seeds[:3]}",
        )
    reasons = [g.get("reason") for g in json.loads(views["team A's API"]).get("games", [])]
    # The probe means something only when the crashing bot did not start in a game A read.
    faults = [r for r in reasons if r not in FINE]
    probes.check(
        "2",
        f"a game ended by the crashing bot not starting, its reason read by A ({faults[:1]})",
        bool(faults),
        str(reasons),
    )
    for name in ("team A's API", "team A's page", "the public ladder"):
        probes.check(
            "2", f"{name}: the crashing bot's stderr is not shown", STDERR_MARKER not in views[name]
        )
    probes.check(
        "12",
        "team A's game reasons hold no raw OSError text",
        not any("Errno" in str(r) or "OSError" in str(r) for r in reasons),
        str(reasons[:3]),
    )


def probe_finals(probes: Probes, live: LiveSite, admin: Client, folder: Path) -> None:
    """3: the finals' public report (anonymous) holds no seed, no stderr and no path; the
    finals are played by the organiser's own command, the report read over HTTP."""
    try:
        live.manage("ladder_finals", "--now")
    except RuntimeError as error:
        probes.check(
            "3",
            "the organiser plays the finals (manage ladder_finals --now)",
            False,
            str(error)[-300:],
        )
        return
    port = int(urlsplit(live.url).port or 0)
    whole = admin.get("/ladder/finals/report/")
    public = Client(port, "127.0.0.33").get("/ladder/finals/report/")
    seed = re.search(r'\["seed", ?"([^"]+)"\]', whole.text)
    private = {
        "the seed": seed.group(1) if seed else None,
        "the crashing bot's stderr": STDERR_MARKER,
        "the site's folder": str(folder),
    }
    # The organiser's whole copy holds some of them: their absence from the public one
    # then means something.
    held_back = [name for name, text in private.items() if text and text in whole.text]
    probes.check(
        "3",
        f"the organiser's whole report (read by the administrator) holds {held_back}",
        whole.status == 200 and bool(held_back),
        f"status {whole.status}",
    )
    shown = [name for name, text in private.items() if text and text in public.text]
    probes.check(
        "3",
        "the anonymous finals report shows no seed, no stderr, no server path",
        public.status == 200 and not shown,
        f"status {public.status}, shows {shown}",
    )


def probe_visibility_nothing(probes: Probes, port: int, admin: Client) -> None:
    """11: with visibility ``nothing`` (set in /admin/, as the organiser would), the public
    ladder shows no pair and no table."""
    listing = admin.get("/admin/arena_server/sitesettings/")
    found = re.search(r'href="(/admin/arena_server/sitesettings/\d+/change/)"', listing.text)
    if found is None:
        probes.not_covered("11", "no site settings to change in /admin/")
        return
    before = Client(port, "127.0.0.32").get("/api/v1/ladder/").json()
    probes.check(
        "11",
        "under visibility showdowns the public ladder shows the pairs (so that "
        "their absence under nothing means something)",
        bool(before.get("pairs")),
    )
    form_page = admin.get(found.group(1)).text
    form = admin_form(form_page)
    if "visibility" not in form:
        probes.not_covered("11", "the site settings form has no visibility field")
        return
    form["visibility"] = "nothing"
    form.pop("_addanother", None)
    form.pop("_continue", None)
    saved = admin.post_form(found.group(1), form)
    public = Client(port, "127.0.0.32").get("/api/v1/ladder/")
    data = public.json() if public.status == 200 else {}
    probes.check(
        "11",
        "visibility nothing: the public ladder API shows no pairs and no tables",
        saved.status == 302
        and public.status == 200
        and not data.get("pairs")
        and not data.get("tables"),
        f"saved {saved.status}, ladder {public.status}: {public.text[:200]}",
    )


def admin_form(page: str) -> dict[str, str]:
    """The fields of the admin's change form on ``page`` and their current values."""
    form: dict[str, str] = {}
    for tag in re.findall(r"<input[^>]*>", page):
        name = re.search(r'name="([^"]+)"', tag)
        kind = re.search(r'type="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name is None or (kind and kind.group(1) in {"submit", "file"}):
            continue
        if kind and kind.group(1) == "checkbox":
            if "checked" in tag:
                form[name.group(1)] = "on"
            continue
        form[name.group(1)] = unescape(value.group(1)) if value else ""
    for name, body in re.findall(r'<select[^>]*name="([^"]+)"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', body)
        form[name] = unescape(chosen.group(1)) if chosen else ""
    for name, body in re.findall(r'<textarea[^>]*name="([^"]+)"[^>]*>(.*?)</textarea>', page, re.S):
        form[name] = unescape(body.lstrip("\n"))
    form.pop("csrfmiddlewaretoken", None)
    return form


def probe_behind_tls(probes: Probes, folder: Path) -> None:
    """1: behind a trusted proxy, the proxy's https is believed; no one else's."""
    site = init_site(
        folder, competition=COMPETITION, options=["--behind-tls", "--host-name", "localhost"]
    )
    with running_site(site, options=["--trusted-proxy", "127.0.0.1"]) as live:
        port = int(urlsplit(live.url).port or 0)
        proxy = Client(port, "127.0.0.1", host=f"localhost:{port}")
        answer = proxy.get(
            "/login/", **{"X-Forwarded-Proto": "https", "X-Forwarded-For": "127.0.0.40"}
        )
        probes.check(
            "1",
            "X-Forwarded-Proto: https from the trusted proxy: 200, Secure cookies, HSTS",
            answer.status == 200
            and "Strict-Transport-Security" in answer.headers
            and all("Secure" in c for c in answer.headers.get_all("Set-Cookie") or ()),
            f"status {answer.status} {answer.headers.get('Location')}",
        )
        probe_limit_behind_proxy(probes, port)
        stranger = Client(port, "127.0.0.41", host=f"localhost:{port}")
        direct = stranger.get("/login/", **{"X-Forwarded-Proto": "https"})
        probes.check(
            "1",
            "the same header from anyone else is not believed (301 to https)",
            direct.status == 301,
            f"status {direct.status}",
        )


def probe_limit_behind_proxy(probes: Probes, port: int) -> None:
    """1 and 5: behind the proxy, the log-in limit counts each browser's address (the
    proxy's X-Forwarded-For), not the proxy's: one browser's wrong passwords lock no one
    else out, the administrator included."""

    def browser(address: str) -> Client:
        headers = {"X-Forwarded-Proto": "https", "X-Forwarded-For": address}
        return Client(port, "127.0.0.1", host=f"localhost:{port}", always=headers, scheme="https")

    guesser = browser("198.51.100.7")
    statuses = [
        guesser.post_form("/login/", {"username": "admin", "password": "nope"}).status
        for _ in range(6)
    ]
    probes.check(
        "1",
        f"behind the proxy, 6 wrong admin passwords from one browser: the POSTs pass CSRF "
        f"over https, the 6th is refused (429) ({statuses})",
        statuses[:5] == [200] * 5 and statuses[5] == 429,
    )
    admin = browser("198.51.100.8")
    answer = admin.post_form("/login/", {"username": "admin", "password": ADMIN_PASSWORD})
    probes.check(
        "1",
        "then the administrator, another browser behind the same proxy, logs in (302)",
        answer.status == 302,
        f"status {answer.status}",
    )


def check_no_paths(probes: Probes, clients: list[Client], folder: Path) -> None:
    """12: no page or API answer read by a team or a visitor names the site's folder."""
    leaks = [
        (path, str(folder))
        for client in clients
        for path, text in client.seen
        if str(folder) in text
    ]
    count = sum(len(client.seen) for client in clients)
    probes.check(
        "12",
        f"no answer of {count} read by teams and visitors names a server path",
        not leaks,
        str(leaks[:3]),
    )


def run(folder: Path) -> Probes:
    """Every probe, against sites made in ``folder``; their tally."""
    probes = Probes()
    site = init_site(folder / "main", competition=COMPETITION)
    os.environ["ARENA_LADDER"] = LADDER
    with running_site(site, workers=1) as live:
        port = int(urlsplit(live.url).port or 0)
        print(f"site {live.url} in {site}", flush=True)
        team_a = member(port, "127.0.0.10", "anna", "ants")
        team_b = member(port, "127.0.0.11", "bert", "bees")
        visitor = Client(port, "127.0.0.12")
        admin = Client(port, "127.0.0.13")
        admin.get("/admin/login/")
        admin.post_form("/admin/login/", {"username": "admin", "password": ADMIN_PASSWORD})
        probe_spellings(probes, port)
        probe_lock_out(probes, port)
        probe_body_size(probes, port)
        probe_weak_passwords(probes, port, team_a)
        probe_sign_up_rate(probes, port)
        probe_join_codes(probes, port, team_b)
        probe_removed_member_token(probes, port, team_a)
        probe_revoked_token(probes, team_a)
        probe_queue_cap(probes, port)
        probe_ladder(probes, port, team_a, team_b)
        probe_finals(probes, live, admin, folder)
        visitor.get("/ladder/")
        visitor.get("/")
        visitor.get("/ladder/finals/")
        probe_visibility_nothing(probes, port, admin)
        check_no_paths(probes, [team_a, team_b, visitor], folder)
    probe_behind_tls(probes, folder / "tls")
    probes.not_covered(
        "12",
        "(in part) 'the site failed: <exception>' on a version's steps needs the site "
        "itself to fail, which no request of a team's can cause",
    )
    probes.not_covered(
        "7",
        "(in part) the per-team upload limit (20 an hour) is not reached over HTTP: "
        "the queue cap refuses a team's 4th queued upload first",
    )
    probes.not_covered(
        "6", "disk quotas are the sandbox's (a bot filling its folder), not reachable over HTTP"
    )
    probes.not_covered(
        "14",
        "state kept between a duplicate pair's halves is a bot's, "
        "inside the sandbox, not reachable over HTTP",
    )
    return probes


def main() -> int:
    """Run the probes in a temporary folder, print the total; 1 when any failed."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="arena-blackbox-") as folder:
        probes = run(Path(folder))
    print(
        f"total: {probes.held + probes.failed} probes, {probes.held} held, "
        f"{probes.failed} failed; not covered over HTTP: findings "
        f"{', '.join(probes.uncovered)}; {time.monotonic() - started:.0f} s"
    )
    return 1 if probes.failed else 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
