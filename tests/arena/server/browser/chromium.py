"""What the browser tests share: a person's browser context on a live site
(:class:`Visitor`: every script error, dialog and request off the site recorded), the
Chromium they drive (the system's, never a downloaded one), screenshots of each page for
review, and axe-core's accessibility check of a page.

axe-core comes with the ``axe-playwright-python`` package (its bundled ``axe.min.js``, a
pinned dev dependency): nothing is fetched at test time. A page passes when axe finds no
violation of impact ``serious`` or ``critical``.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright import sync_api

from tests.arena.report.test_report_in_chromium import CHROMIUM

__all__ = [
    "CHROMIUM",
    "FLAGS",
    "PASSWORD",
    "SCREENSHOTS_VARIABLE",
    "Camera",
    "Visitor",
    "accessibility_problems",
    "launched",
    "new_visitor",
    "sync_api",
]

#: Chromium quiet and offline: no GPU, no QUIC, none of its own background traffic.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

PASSWORD = "a long enough password 1"

#: The environment variable naming the folder the journeys' screenshots go to (else a
#: folder of the test's own temporary one; the test prints which).
SCREENSHOTS_VARIABLE = "ARENA_SCREENSHOTS"

#: The tallest page photographed whole, in CSS pixels.
MAX_SHOT_HEIGHT = 6000

#: axe-core's impacts that fail a page.
FAILING_IMPACTS = ("serious", "critical")


@dataclass
class Visitor:
    """One person's browser context on the site, and what went wrong in it."""

    page: Any
    site: str
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    elsewhere: list[str] = field(default_factory=list)
    #: Addresses whose 404 is the point (their "failed to load" is no error).
    missing: set[str] = field(default_factory=set)

    def go(self, path: str) -> Any:
        """Open ``path`` of the site; the response."""
        return self.page.goto(self.site + path.lstrip("/"))

    def path(self) -> str:
        """The address of the page shown, below the site's (``/ladder/``), without its hash."""
        return "/" + str(self.page.url).removeprefix(self.site).split("#")[0]

    def sign_up_with_team(self, user: str, team: str) -> None:
        """Sign up through the form, then make a team."""
        self.go("signup/")
        self.page.fill("#id_username", user)
        self.page.fill("#id_password1", PASSWORD)
        self.page.fill("#id_password2", PASSWORD)
        self.page.click("button:text('Sign up')")
        sync_api.expect(self.page.locator("h1")).to_have_text("Your team")
        self.page.fill("#id_name", team)
        self.page.click("button:text('Make the team')")
        sync_api.expect(self.page.locator("h1")).to_have_text(team)

    def make_token(self, name: str) -> str:
        """A new API token made on the tokens page (shown there this once)."""
        self.go("tokens/")
        self.page.fill("#id_name", name)
        self.page.click("button:text('Make a token')")
        token: str = self.page.locator("#new-token").inner_text().strip()
        assert token.startswith("arena_")
        return token

    def api(self, path: str, token: str) -> Any:
        """A GET of the site's API with ``token`` (the response)."""
        headers = {"Authorization": f"Bearer {token}"}
        return self.page.request.get(self.site + path.lstrip("/"), headers=headers)

    def check_clean(self) -> None:
        """No script error, no dialog, no request off the site."""
        assert self.errors == [], "\n".join(self.errors)
        assert self.dialogs == [], "\n".join(self.dialogs)
        assert self.elsewhere == [], "\n".join(self.elsewhere)


@contextlib.contextmanager
def launched() -> Iterator[Any]:
    """Headless Chromium (the system's), closed at the end (the ``browser`` fixture)."""
    assert CHROMIUM is not None
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


def new_visitor(browser: Any, site: str) -> Visitor:
    """A new browser context (a person with no cookies yet) on ``site``."""
    # Over https the site's certificate is the test's own, self-signed.
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  ignore_https_errors=site.startswith("https:"),
                                  accept_downloads=True)  # fmt: skip
    page = context.new_page()
    seen = Visitor(page, site)

    def on_console(message: Any) -> None:
        # A browser asks every site for /favicon.ico; the site has none (404), as is fine.
        where = message.location.get("url", "")
        expected = where.endswith("/favicon.ico") or where in seen.missing
        if message.type == "error" and not expected:
            seen.errors.append(f"{message.text} (on {page.url})")

    page.on("console", on_console)
    page.on("pageerror", lambda error: seen.errors.append(str(error)))

    def on_dialog(dialog: Any) -> None:
        seen.dialogs.append(dialog.message)
        dialog.dismiss()

    def on_route(route: Any) -> None:
        if route.request.url.startswith(site):
            route.continue_()
        else:
            seen.elsewhere.append(route.request.url)
            route.abort()

    page.on("dialog", on_dialog)
    context.route("**/*", on_route)
    return seen


def _axe_script() -> str:
    return (importlib.resources.files("axe_playwright_python") / "axe.min.js").read_text("utf-8")


def accessibility_problems(page: Any) -> list[str]:
    """axe-core's violations of impact serious or critical on the page shown, one line
    each (the rule, its impact, what it asks and the first elements at fault); empty when
    there is none. Every page the site shows is HTML (the protocol's text too is a page,
    its file a download), so every one is checked."""
    page.evaluate(_axe_script())
    # No preload: axe's own fetch of the style sheets' CSSOM resolves an ``@import`` against
    # the page's address, not the sheet's (Django's admin forms.css imports 'widgets.css':
    # axe asked for /admin/password_change/widgets.css, a 404 of its own making). The one
    # rule that needs it, css-orientation-lock, then checks nothing; no style sheet of the
    # site, the report or the admin mentions orientation.
    results = page.evaluate("axe.run(document, {resultTypes: ['violations'], preload: false})")
    return [
        f"{found['id']} ({found['impact']}): {found['help']} at "
        + ", ".join(str(node["target"]) for node in found["nodes"][:3])
        for found in results["violations"]
        if found["impact"] in FAILING_IMPACTS
    ]


@dataclass
class Camera:
    """Screenshots of each page a journey shows, numbered in order, in ``folder``; each
    page also checked by axe-core (:func:`accessibility_problems`), its problems kept by
    page."""

    folder: Path
    taken: list[Path] = field(default_factory=list)
    problems: dict[str, list[str]] = field(default_factory=dict)
    #: The address of each page checked (below the site's, without its query or hash).
    paths: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def for_test(cls, tmp_path: Path, name: str) -> Camera:
        """The folder named by :data:`SCREENSHOTS_VARIABLE` (a subfolder ``name``), else
        ``tmp_path/screenshots``; made, and printed."""
        given = os.environ.get(SCREENSHOTS_VARIABLE)
        folder = Path(given) / name if given else tmp_path / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        print(f"screenshots of the journey's pages: {folder}")
        return cls(folder)

    def shoot(self, visitor: Visitor, what: str) -> Path:
        """A full-page screenshot of the page ``visitor`` shows, and its axe check."""
        slug = re.sub(r"[^a-z0-9]+", "-", what.lower()).strip("-")
        path = self.folder / f"{len(self.taken) + 1:02d}-{slug}.jpg"
        # A page taller than MAX_SHOT_HEIGHT (the protocol's) is shot as far as the
        # window shows: Chromium takes long over a full page of that size. JPEG, for a
        # person to look at: half the CPU of a PNG of the same page (measured: 0.26 s
        # against 0.50 s for a page 5,800 pixels tall).
        height = visitor.page.evaluate("document.documentElement.scrollHeight")
        visitor.page.screenshot(
            path=str(path), full_page=height <= MAX_SHOT_HEIGHT, type="jpeg", quality=80
        )
        self.taken.append(path)
        self.problems[f"{what} ({visitor.path()})"] = accessibility_problems(visitor.page)
        self.paths.append(visitor.path().split("?")[0])
        print(f"{path.name} at {time.monotonic() - self.started:.1f} s")
        return path

    def failing_pages(self) -> dict[str, list[str]]:
        """The pages with a serious or critical accessibility problem."""
        return {page: found for page, found in self.problems.items() if found}
