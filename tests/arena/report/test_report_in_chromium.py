"""The report as a person sees it: rendered by headless Chromium (driven by Playwright).

Each test opens a report from disk and fails on any script error (a console error or an
uncaught exception), on any dialog (a bot name that ran as a script would open one) and
on any request other than the file itself (every other request is also blocked). It
saves screenshots to ``tmp_path/screenshots`` (printed; with ``ARENA_KEEP_SCREENSHOTS=1``
also copied to ``/tmp/report-screenshots/``).

Skipped, with the reason, where Playwright or a Chromium is not installed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.report import write_report
from arena.report.page import render_page
from tests.arena.report.conftest import HOSTILE, embedded_data

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright)"
)

#: Chromium's own headless build first (Debian's chromium-headless-shell: the build Playwright
#: itself runs headless, the same Blink; measured: the report's tests cost 7.4 s of CPU with
#: it against 18.1 s with the full browser, whose headless mode starts a window's user
#: interface renderer for every context), then the full browser.
_CANDIDATES = (
    "chromium-headless-shell",
    "/usr/lib/chromium/chromium",
    "chromium",
    "chromium-browser",
    "google-chrome",
)


def _chromium() -> str | None:
    for name in (os.environ.get("ARENA_CHROMIUM", ""), *_CANDIDATES):
        found = shutil.which(name) if name else None
        if found:
            return found
    return None


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium found (apt-get install chromium, or set ARENA_CHROMIUM to its path)",
)

KEEP_FOLDER = Path("/tmp/report-screenshots")


@dataclass
class Browser:
    """One page in headless Chromium, and everything it did that a report must not do."""

    page: Any
    shots: Path
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    allowed: str = ""

    def open(self, report: Path, fragment: str = "") -> None:
        """Open ``report`` from disk and wait until its script has drawn it."""
        self.allowed = report.resolve().as_uri()
        self.page.goto(self.allowed + fragment)
        self.page.wait_for_selector("body[data-ready]")

    def shot(self, name: str, selector: str | None = None) -> Path:
        """A screenshot of the page (or of one element)."""
        path = self.shots / f"{name}.png"
        if selector is None:
            self.page.screenshot(path=str(path), full_page=True)
        else:
            self.page.locator(selector).screenshot(path=str(path))
        if os.environ.get("ARENA_KEEP_SCREENSHOTS") == "1":
            KEEP_FOLDER.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, KEEP_FOLDER / path.name)
        return path

    def check_clean(self) -> None:
        """No script error, no dialog, no request but the report itself."""
        assert self.errors == []
        assert self.dialogs == []
        assert [url for url in self.requests if url.split("#")[0] != self.allowed] == []


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the module's tests (each test gets a fresh context of its
    own, so no cookie, page or listener passes from one test to the next): starting
    Playwright's driver and the browser for every test cost about two seconds each.

    The browser starts its GPU, network and storage processes at its first page, not at
    launch: a first page opened here starts them before any test begins, so the check
    that a test leaves no process behind (tests/conftest.py) counts them as the module's.
    """
    blank = tmp_path_factory.mktemp("chromium") / "blank.html"
    blank.write_text("<!doctype html><title>blank</title><p>blank</p>", encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            first = launched.new_context()
            first.new_page().goto(blank.as_uri())
            first.close()
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser(chromium: Any, tmp_path: Path) -> Iterator[Browser]:
    shots = tmp_path / "screenshots"
    shots.mkdir()
    print(f"screenshots: {shots}")
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        seen = Browser(page, shots)
        page.on("console", lambda m: seen.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: seen.errors.append(str(error)))

        def on_dialog(dialog: Any) -> None:
            seen.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)
        context.on("request", lambda request: seen.requests.append(request.url))
        context.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith("file:") else route.abort()
            ),
        )
        yield seen
        seen.check_clean()
    finally:
        context.close()


def _cells(browser: Browser, selector: str) -> list[str]:
    texts: list[str] = browser.page.locator(selector).all_inner_texts()
    return texts


def test_the_leaderboard_crosstable_and_charts_are_drawn(
    rr_run: Path, tmp_path: Path, browser: Browser
) -> None:
    report = tmp_path / "report.html"
    write_report(rr_run, report)
    browser.open(report)
    rows = _cells(browser, "#leaderboard tbody tr td.name")
    assert sorted(rows) == sorted(["ann", "bob", HOSTILE])  # the hostile name is text
    assert browser.page.locator("#crosstable td.cell").count() == 6
    marks = _cells(browser, "#crosstable td.cell span.mark")
    assert len(marks) == 6 and {"+", "-", "++", "--", ""} >= set(marks)
    assert browser.page.locator("#charts svg.chips path.raw").count() == 3
    assert browser.page.locator("#charts svg.chips path.adjusted").count() == 3
    assert browser.page.locator("#latency svg.latency rect.bar").count() > 3
    assert "timeout" in browser.page.locator("#faults").inner_text()
    assert browser.page.locator("#viewer").is_hidden()
    browser.shot("leaderboard", "#leaderboard")
    browser.shot("crosstable", "#crosstable")
    browser.shot("charts", "#charts")
    browser.shot("tournament-page")


def _showdown_hand(data: dict[str, Any]) -> dict[str, Any]:
    hands: list[dict[str, Any]] = data["hands"]
    for hand in hands:
        if hand["result"]["reason"] == "showdown" and len(hand["board"]) == 5:
            return hand
    raise AssertionError("no embedded hand went to a showdown")


def _state(browser: Browser) -> tuple[int, int, str]:
    """Board cards showing, chips in the middle, and the step counter."""
    board = browser.page.locator("#viewer-table g.board g.card").count()
    total = int(browser.page.locator("#viewer-pot-total").get_attribute("data-total"))
    return board, total, browser.page.locator("#viewer-counter").inner_text()


def test_the_arrow_keys_step_through_a_hand(
    match_run: Path, tmp_path: Path, browser: Browser
) -> None:
    report = tmp_path / "report.html"
    write_report(match_run, report)
    hand = _showdown_hand(embedded_data(report.read_text(encoding="utf-8")))
    browser.open(report)
    browser.page.locator(f'#hands a[href="#hand={hand["id"].replace("/", "%2F")}"]').click()
    assert browser.page.locator("#viewer h2").inner_text() == f"Hand {hand['id']}"
    states = [_state(browser)]
    assert states[0][:2] == (0, 0)  # nothing on the board, nothing in the middle yet
    steps = len(hand["steps"])
    for number in range(2, steps + 1):
        browser.page.keyboard.press("ArrowRight")
        states.append(_state(browser))
        assert states[-1][2] == f"step {number} of {steps}"
        if number == steps // 2:
            browser.shot("hand-midway", "#viewer")
    boards = [board for board, _total, _counter in states]
    assert boards == sorted(boards) and boards[-1] == 5 and 3 in boards  # flop, turn, river
    totals = [total for _board, total, _counter in states]
    assert max(totals) >= hand["pot"] > 0  # the pot grew to what was won
    winner = hand["result"]["winners"][0]
    result = browser.page.locator("#viewer-result").inner_text()
    assert winner["name"] in result and winner["why"] in result
    browser.shot("hand-showdown", "#viewer")
    browser.page.keyboard.press("Home")
    assert _state(browser)[2] == f"step 1 of {steps}"
    browser.page.keyboard.press("End")
    assert _state(browser)[2] == f"step {steps} of {steps}"
    browser.page.keyboard.press("ArrowRight")  # past the end: stays
    assert _state(browser)[2] == f"step {steps} of {steps}"


def test_a_link_to_a_hand_opens_it(rr_run: Path, tmp_path: Path, browser: Browser) -> None:
    report = tmp_path / "report.html"
    write_report(rr_run, report)
    browser.open(report, "#hand=rr-002-b01-swap/3")
    assert browser.page.locator("#viewer").is_visible()
    assert browser.page.locator("#viewer h2").inner_text() == "Hand rr-002-b01-swap/3"
    assert _state(browser)[2].startswith("step 1 of ")
    browser.page.evaluate("window.location.hash = '#hand=rr-001-b02/1'")
    browser.page.wait_for_function(
        "document.querySelector('#viewer h2').textContent === 'Hand rr-001-b02/1'"
    )
    browser.page.evaluate("window.location.hash = '#hand=rr-009-b09/9'")
    browser.page.wait_for_selector("#viewer .missing")
    text = browser.page.locator("#viewer").inner_text()
    assert "rr-009-b09/9 is not in this report" in text
    assert "--hand rr-009-b09/9 -o hand.html" in text


def test_a_five_card_draw_hand_shows_the_discards_and_replacements(
    draw_run: Path, tmp_path: Path, browser: Browser
) -> None:
    report = tmp_path / "report.html"
    write_report(draw_run, report)
    data = embedded_data(report.read_text(encoding="utf-8"))
    hand = next(h for h in data["hands"] if any(d["discarded"] for d in h["draws"]))
    draw_step = next(i for i, step in enumerate(hand["steps"]) if step.get("draw", {}).get("drawn"))
    browser.open(report, f"#hand={hand['id']}")
    for _ in range(draw_step):
        browser.page.keyboard.press("ArrowRight")
    drawn = hand["steps"][draw_step]["draw"]["drawn"]
    fresh = browser.page.locator("#viewer-table g.card.fresh")
    assert sorted(fresh.evaluate_all("nodes => nodes.map(n => n.dataset.card)")) == sorted(drawn)
    assert browser.page.locator("#viewer .draws tbody tr").count() == len(hand["draws"])
    assert "discards" in browser.page.locator("#viewer-say").inner_text()
    browser.shot("five-card-draw", "#viewer")


def test_a_sit_and_go_report_shows_the_places(
    sng_run: Path, tmp_path: Path, browser: Browser
) -> None:
    report = tmp_path / "report.html"
    write_report(sng_run, report)
    browser.open(report)
    assert browser.page.locator("#places tbody tr").count() == 3
    assert browser.page.locator("#crosstable").count() == 0
    assert "rating" in browser.page.locator("#leaderboard thead").inner_text()
    browser.shot("sit-and-go", "#places")


def test_only_the_reports_own_script_runs(rr_run: Path, tmp_path: Path, browser: Browser) -> None:
    # The policy names our script by its hash: a script element or an event handler that
    # got into the page some other way is refused, while ours draws the report.
    report = tmp_path / "report.html"
    write_report(rr_run, report)
    injected = (
        '<script>document.body.dataset.injected = "script"</script>\n'
        "<svg onload=\"document.body.dataset.handler = 'ran'\"></svg>\n</body>"
    )
    report.write_text(
        report.read_text(encoding="utf-8").replace("</body>", injected), encoding="utf-8"
    )
    browser.open(report)
    assert browser.page.locator("#leaderboard tbody tr").count() == 3  # ours ran
    assert browser.page.evaluate("document.body.dataset.injected") is None
    assert browser.page.evaluate("document.body.dataset.handler") is None
    refused = [error for error in browser.errors if "Content Security Policy" in error]
    assert len(refused) == 2
    browser.errors.clear()  # the refusals are the point; nothing else may have failed


def test_the_crosstable_follows_the_leaderboards_ranks_and_the_lead_is_judged(
    rr_run: Path, tmp_path: Path, browser: Browser
) -> None:
    report = tmp_path / "report.html"
    write_report(rr_run, report)
    browser.open(report)
    board = browser.page.locator("#leaderboard tbody tr").evaluate_all(
        "rows => rows.map(row => row.dataset.bot)"
    )
    crosstable = browser.page.locator("#crosstable tbody tr").evaluate_all(
        "rows => rows.map(row => row.dataset.bot)"
    )
    assert crosstable == board
    ranks = _cells(browser, "#leaderboard tbody tr td:first-child")
    heads = _cells(browser, "#crosstable tbody tr th.name")
    assert [head.split(".")[0] for head in heads] == ranks
    lead = browser.page.locator("#lead").inner_text()
    assert lead.startswith(f"#1 {board[0]} against #2 {board[1]}: ")
    assert "significantly ahead" in lead and "interval" in lead
    # The sentence about the dashed line is by the charts, not under the title.
    assert "The dashed line" in browser.page.locator("#charts").inner_text()
    assert "The dashed line" not in browser.page.locator("#summary").inner_text()
    assert browser.page.locator("#charts svg.chips path.gap").count() == 3
    browser.shot("lead-and-charts", "#charts")


def test_the_hands_can_be_filtered_by_bot_and_sorted_by_loss_and_show_nets(
    rr_run: Path, tmp_path: Path, browser: Browser
) -> None:
    report = tmp_path / "report.html"
    write_report(rr_run, report)
    data = embedded_data(report.read_text(encoding="utf-8"))
    browser.open(report)
    page = browser.page
    page.select_option("#hand-bot", "ann")
    page.select_option("#hand-order", "loss")
    ids = page.locator("#hands tbody tr").evaluate_all("rows => rows.map(row => row.dataset.hand)")
    by_id = {hand["id"]: hand for hand in data["hands"]}
    with_ann = [hand for hand in data["hands"] if any(s["name"] == "ann" for s in hand["seats"])]
    assert sorted(ids) == sorted(hand["id"] for hand in with_ann) and ids
    nets = [sum(s["net"] for s in by_id[i]["seats"] if s["name"] == "ann") for i in ids]
    assert nets == sorted(nets) and nets[0] < 0  # its biggest loss first
    assert page.locator("#hand-count").inner_text() == f"{len(ids)} of {len(data['hands'])} hands"
    browser.shot("hands-filtered", "#hands")
    page.locator(f'#hands a[href="#hand={ids[0].replace("/", "%2F")}"]').click()
    # The link's hand opens before the key is pressed, and its nets are drawn before they
    # are read (a fast browser reads them before the script has drawn them).
    sync_api.expect(page.locator("#viewer h2")).to_have_text(f"Hand {ids[0]}")
    page.keyboard.press("End")
    sync_api.expect(page.locator("#viewer-nets li").first).to_be_attached()
    shown = page.locator("#viewer-nets li").evaluate_all(
        "items => items.map(item => Number(item.dataset.net))"
    )
    assert shown == [seat["net"] for seat in by_id[ids[0]]["seats"]] and sum(shown) == 0
    assert "this hand" in page.locator("#viewer-nets").inner_text()


def test_raw_and_adjusted_are_shown_side_by_side_with_the_explanation_and_each_matchs_luck(
    rr_run: Path, tmp_path: Path, browser: Browser
) -> None:
    report = tmp_path / "report.html"
    write_report(rr_run, report)
    data = embedded_data(report.read_text(encoding="utf-8"))
    browser.open(report)
    page = browser.page
    head = _cells(browser, "#leaderboard thead th")
    assert {"raw mbb/hand (95%)", "adjusted mbb/hand (95%)", "luck"} <= set(head)
    assert len(_cells(browser, "#leaderboard tbody td.luck")) == 3
    # The mark is on the score that ranks (adjusted); the raw column carries none.
    assert set(_cells(browser, "#leaderboard tbody td.raw span.mark")) == {""}
    explained = page.locator("#adjustment").inner_text()
    assert explained.startswith(data["adjustment"]) and data["estimator"] in explained
    # Every crosstable cell shows the other (raw) score under the adjusted one.
    others = _cells(browser, "#crosstable td.cell span.other")
    assert len(others) == 6 and all(other.startswith("raw ") for other in others)
    assert page.locator("#luck tbody tr").count() == 12 * 2  # each seat of each match
    first = data["luck"][0]["seats"][0]
    row = page.locator("#luck tbody tr").first
    assert row.get_attribute("data-bot") == first["bot"]
    assert len(row.locator("td.luck").all_inner_texts()) == 2
    assert page.locator('nav.toc a[data-section="luck"]').count() == 1
    browser.shot("luck", "#luck")


#: Counts the words of each bot name cell that the browser laid out over two lines.
_BROKEN_WORDS = """cells => cells.flatMap(cell => {
  const node = cell.firstChild;
  if (!node || node.nodeType !== Node.TEXT_NODE) return [];
  const broken = [];
  const text = node.textContent;
  for (const found of text.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(node, found.index);
    range.setEnd(node, found.index + found[0].length);
    const tops = new Set([...range.getClientRects()].map(rect => Math.round(rect.top)));
    if (tops.size > 1) broken.push(found[0]);
  }
  return broken;
})"""


def test_a_single_match_names_its_columns_once_and_never_breaks_a_bot_name_mid_word(
    tmp_path: Path, browser: Browser
) -> None:
    # A match's report had two columns headed "hands" (its hands, and the units of its
    # rates, which are hands too), an unnamed bb/100 and, at 1,280 px, a bot name broken
    # inside a word ("strengt" / "h").
    from tests.arena.report.runs import write_match_folder

    names = ["python hand strength", "python calling station"]
    run = write_match_folder(tmp_path / "run", names, hand_count=40)
    report = tmp_path / "report.html"
    write_report(run, report)
    browser.open(report)
    head = _cells(browser, "#leaderboard thead th")
    assert len(head) == len(set(head)) and head.count("hands") == 1
    assert "adjusted bb/100" in head and "bb/100" not in head
    assert browser.page.title() == "python hand strength vs python calling station"
    cells = browser.page.locator("#leaderboard td.name, #hands td.text")
    assert cells.evaluate_all(_BROKEN_WORDS) == []
    browser.shot("single-match", "#leaderboard")


def test_the_sites_viewer_leaves_out_what_speaks_of_a_report_file(
    rr_run: Path, tmp_path: Path, browser: Browser
) -> None:
    # The site embeds the report's page with ``on_site`` set (issue 32: its hand viewer
    # showed an empty leaderboard, "write a report that holds it" and "report.html#hand=").
    report = tmp_path / "report.html"
    write_report(rr_run, report)
    document = embedded_data(report.read_text(encoding="utf-8"))
    shown = len(document["hands"])
    document.update(on_site=True, hands_total=shown + 50, leaderboard={}, open_other="")
    site_page = tmp_path / "site.html"
    site_page.write_text(render_page("match 7", document), encoding="utf-8")
    browser.open(site_page, "#hand=rr-009-b09/9")
    text = browser.page.locator("body").inner_text()
    for offline in ("Leaderboard", "Freezeouts", "write a report", "report.html#hand"):
        assert offline not in text, offline
    assert f"This page holds the first {shown} of the match's {shown + 50} hands." in text
    assert "Hand rr-009-b09/9 is not in this page." in text
    assert "site.html#hand=MATCH/N" in text
    browser.shot("site-viewer")
