"""Run folders for the report's tests, made once per session and only read by the tests
(each test writes its report under its own ``tmp_path``)."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from engine.config import Variant
from tests.arena.report.runs import write_match_folder, write_tournament

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "tests" / "bots" / "folder" / "bot.toml"
STATION = ROOT / "sample_bots" / "python_calling_station" / "bot.toml"

#: A bot name written to break out of the page's script element if it were not escaped.
HOSTILE = "</script><script>alert(1)</script>"


def embedded_data(page: str) -> dict[str, Any]:
    """The JSON document a report page embeds."""
    import json

    found = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S
    )
    assert found is not None, "the page has no data element"
    document: dict[str, Any] = json.loads(found.group(1))
    return document


@pytest.fixture(scope="session")
def rr_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished round robin of three bots (one hostile name, one that times out)."""
    return write_tournament(
        tmp_path_factory.mktemp("rr") / "run", bots=("ann", "bob", HOSTILE), faulty=["bob"]
    )


@pytest.fixture(scope="session")
def ring_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tournament(tmp_path_factory.mktemp("ring") / "run", fmt="ring", standings=False)


@pytest.fixture(scope="session")
def sng_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tournament(tmp_path_factory.mktemp("sng") / "run", fmt="sit_and_go", deals=6)


@pytest.fixture(scope="session")
def match_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A five-seat hold'em match with results.json; one bot times out."""
    return write_match_folder(
        tmp_path_factory.mktemp("match") / "run",
        ["ann", "bob", "cat", "dan", "eve"],
        hand_count=30,
        faulty=["cat"],
    )


@pytest.fixture(scope="session")
def draw_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A three-seat five-card-draw match."""
    return write_match_folder(
        tmp_path_factory.mktemp("draw") / "run",
        ["ann", "bob", "cat"],
        hand_count=15,
        variant=Variant.FIVE_CARD_DRAW,
    )


@pytest.fixture(scope="session")
def real_tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real duplicate round robin of two starter bots (processes, worker pool, the
    results database and standings.json as the tournament writes them)."""
    out = tmp_path_factory.mktemp("real") / "run"
    args = [STATION, FOLDER, "--deals", "20", "--block-deals", "10", "--seed", "5"]
    args += ["--out", out, "--sandbox", "none", "--concurrency", "1", "--no-progress"]
    buffer = io.StringIO()
    code = main(["tournament", *(str(arg) for arg in args)], stdout=buffer)
    assert code == 0, buffer.getvalue()
    return out
