"""A real deployment behind TLS: ``arena server run --trusted-proxy 127.0.0.1`` of a site
made with ``--behind-tls``, behind nginx running the configuration docs/server.md shows
(word for word: it is read from there), with a self-signed certificate made for the test.
Over https: no redirect loop, ``Secure`` cookies, HSTS, a POST that passes CSRF, and the
log-in limit counting the browser's address (a loopback address other than the proxy's),
whatever ``X-Forwarded-For`` the browser sends; the same headers sent to waitress by anyone
but the proxy are not believed. Skipped, saying why, where nginx or openssl is missing
(the Makefile installs nginx where it can)."""

from __future__ import annotations

import http.client
import json
import ssl
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from tests.arena.server.browser.live import (
    ADMIN_PASSWORD,
    LiveSite,
    init_site,
    running_site,
)
from tests.arena.server.browser.proxy import (
    BROWSER,
    HOST,
    WAIT,
    behind_nginx,
    missing_tool,
    nginx_config,
)


class Browser:
    """An https client from :data:`BROWSER`, keeping cookies as a browser would."""

    def __init__(self, port: int, cert: Path) -> None:
        self.port = port
        self.origin = f"https://{HOST}:{port}"
        self.context = ssl.create_default_context(cafile=str(cert))
        # The certificate is checked against the test's own; the name is localhost, the
        # address connected to 127.0.0.1 (an address, so that the browser's can be chosen).
        self.context.check_hostname = False
        self.cookies: dict[str, str] = {}
        self.set_cookies: list[str] = []

    def request(
        self, method: str, path: str, form: dict[str, str] | None = None, **headers: str
    ) -> http.client.HTTPResponse:
        connection = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=WAIT,
                                                 context=self.context,
                                                 source_address=(BROWSER, 0))  # fmt: skip
        sent = {"Host": f"{HOST}:{self.port}", **headers}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            sent.update({"Content-Type": "application/x-www-form-urlencoded",
                         "Origin": self.origin, "Referer": f"{self.origin}{path}"})  # fmt: skip
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        response.read()
        connection.close()
        for header in response.headers.get_all("Set-Cookie") or ():
            self.set_cookies.append(header)
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return response


def _failure_addresses(live: LiveSite) -> list[str]:
    # A failed log-in is counted per address (the limit's key) as a rate event.
    script = ("import json; from arena.server.site.models import RateEvent as E;"
              "from arena.server.site.ratelimit import LOG_IN_ADDRESS as L;"
              "print(json.dumps(sorted(E.objects.filter(kind=L.kind)"
              ".values_list('key', flat=True))))")  # fmt: skip
    # The shell may say more before it; the script's line is the last.
    return list(json.loads(live.manage("shell", "-c", script).strip().splitlines()[-1]))


@pytest.mark.slow  # a site, its workers and nginx: half a minute
def test_the_site_behind_nginx_over_https(tmp_path: Path) -> None:
    why = missing_tool()
    if why is not None:
        pytest.skip(why)
    site = init_site(tmp_path, options=["--behind-tls", "--host-name", HOST])
    with running_site(site, options=["--trusted-proxy", "127.0.0.1"]) as live:
        upstream = live.url.rstrip("/")
        with behind_nginx(tmp_path / "nginx", live) as proxied:
            browser = Browser(proxied.port, proxied.cert)
            page = browser.request("GET", "/login/")
            # No redirect to itself: Django sees the https the proxy ended.
            assert page.status == 200, page.headers
            assert "max-age=31536000" in page.headers["Strict-Transport-Security"]
            assert browser.set_cookies and all("Secure" in c for c in browser.set_cookies)
            # A wrong password, a made-up X-Forwarded-For: the POST passes CSRF (not 403)
            # and the failure is counted against the browser's address.
            form = {"csrfmiddlewaretoken": browser.cookies["csrftoken"],
                    "username": "admin", "password": "not the password"}  # fmt: skip
            failed = browser.request("POST", "/login/", form, **{"X-Forwarded-For": "198.51.100.7"})
            assert failed.status == 200
            assert _failure_addresses(live) == [BROWSER]
            form["password"] = ADMIN_PASSWORD
            logged_in = browser.request("POST", "/login/", form)
            assert logged_in.status == 302 and urlsplit(logged_in.headers["Location"]).path == "/"
            session = [c for c in browser.set_cookies if c.startswith("sessionid=")]
            assert session and all("Secure" in c and "HttpOnly" in c for c in session)
        # Anyone but the proxy claiming https straight to waitress is not believed.
        direct = http.client.HTTPConnection("127.0.0.1", int(upstream.rsplit(":", 1)[1]),
                                            timeout=WAIT, source_address=(BROWSER, 0))  # fmt: skip
        direct.request("GET", "/login/", headers={"Host": HOST, "X-Forwarded-Proto": "https"})
        answer = direct.getresponse()
        direct.close()
        assert answer.status == 301 and answer.headers["Location"].startswith("https://")


def test_the_documented_nginx_configuration_is_the_one_tested() -> None:
    # The test runs the block docs/server.md shows; each value it makes its own is there
    # once, so the documented text is what ran, word for word.
    folder = Path("/nonexistent")
    config = nginx_config(folder, port=1, upstream="http://127.0.0.1:2", cert=folder / "c",
                          key=folder / "k")  # fmt: skip
    for directive in ("proxy_set_header X-Forwarded-Proto $scheme;",
                      "proxy_set_header X-Forwarded-For $remote_addr;"):  # fmt: skip
        assert directive in config
