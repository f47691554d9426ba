"""The project's documents stay true: links resolve, the numbers they state are the code's,
and nothing of the product cites the requirement documents it was written from.

The arena's constants are looked up by name in a list of candidate modules, so the tests
follow the arena's modules when they move; the engine's and the protocol's are imported.
"""

from __future__ import annotations

import importlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from engine.actions import Check, Discard, Fold, LegalActions
from engine.config import AnteMode, BettingStructure, DrawLimit, GameConfig, Variant
from engine.evaluator import WORST_CLASS
from engine.table import MAX_SEAT_COUNT, MIN_SEAT_COUNT
from protocol.framing import DEFAULT_MAX_LINE_BYTES
from protocol.messages import DEFAULT_MAX_ATTEMPTS
from tests import REPO_ROOT

README = REPO_ROOT / "README.md"
PROTOCOL = REPO_ROOT / "protocol" / "PROTOCOL.md"
DOCS = REPO_ROOT / "docs"
RULES = DOCS / "rules.md"
FAULTS = DOCS / "faults.md"

#: Where the arena's watchdog, fault ledger and match configuration live (old names last).
WATCHDOG_MODULES = ("arena.session.watchdog", "arena.session.policy", "arena.session")
FAULT_MODULES = ("arena.session.faults", "arena.faults")
MATCH_MODULES = ("arena.match.loop", "arena.match.config", "arena.match")


def _fail(message: str) -> NoReturn:
    pytest.fail(message)


def arena_name(name: str, modules: tuple[str, ...]) -> Any:
    """``name`` from the first of ``modules`` that defines it."""
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if hasattr(module, name):
            return getattr(module, name)
    _fail(f"{name} is in none of {modules}: add the module it moved to")


# -- links ----------------------------------------------------------------------------------

_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def markdown_files() -> list[Path]:
    """The project's own Markdown documents."""
    files = [README, PROTOCOL, *sorted(DOCS.glob("*.md"))]
    for extra in (REPO_ROOT / "sample_bots" / "README.md", REPO_ROOT / "tests/bots/README.md"):
        if extra.exists():
            files.append(extra)
    return files


def links(text: str) -> list[str]:
    """Link targets of ``text``, outside fenced code blocks.

    >>> links("see [the rules](docs/rules.md#pots) and [x](https://example.org)")
    ['docs/rules.md#pots', 'https://example.org']
    """
    return _LINK.findall(_FENCE.sub("", text))


def anchors(text: str) -> set[str]:
    """The anchors GitHub makes for the headings of ``text``.

    >>> sorted(anchors("# A title\\n## `hello` (reply: `ready`)\\n## A title"))
    ['a-title', 'a-title-1', 'hello-reply-ready']
    """
    seen: dict[str, int] = {}
    result = set()
    for heading in _HEADING.findall(_FENCE.sub("", text)):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


def test_the_documents_exist_and_the_readme_lists_them() -> None:
    readme = README.read_text(encoding="utf-8")
    documentation = readme.split("## Documentation", 1)[1].split("\n## ", 1)[0]
    for target in ("docs/rules.md", "docs/faults.md", "protocol/PROTOCOL.md"):
        assert (REPO_ROOT / target).is_file(), target
        assert f"]({target})" in documentation, f"README's Documentation list lacks {target}"
    rules = readme.split("## Rules", 1)[1].split("\n## ", 1)[0]
    assert "](docs/rules.md)" in rules


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_relative_link_points_at_an_existing_file_and_heading(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    broken = []
    for target in links(text):
        if re.match(r"^[a-z]+:", target):
            continue  # https:, mailto:
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif (
            anchor
            and linked.suffix == ".md"
            and anchor not in anchors(linked.read_text(encoding="utf-8"))
        ):
            broken.append(f"{target}: no such heading")
    assert not broken, f"{path.relative_to(REPO_ROOT)}: {broken}"


# -- no citations of the requirement documents ----------------------------------------------

#: A requirement document cited by its number: the word "seed", an optional space, dash
#: or underscore, and a three-digit number from zero to four (as in a sentence, a test name
#: or a file name); or the folder that holds the documents.
SEED_CITATION = re.compile(r"seeds?[ _-]?00[0-4](?!\d)|\bseeds/", re.IGNORECASE)
PRODUCT_DIRS = ("engine", "protocol", "arena", "sample_bots", "docs", "bench", "tests")
PRODUCT_FILES = ("README.md", "pyproject.toml", "Makefile")
TEXT_SUFFIXES = {".py", ".md", ".json", ".toml", ".txt", ".c", ".h", ".js", ".cfg", ".sh", ""}
SKIPPED_DIRS = {"__pycache__", "build", ".mypy_cache", ".pytest_cache", ".hypothesis"}


def product_files() -> Iterator[Path]:
    """Every text file of the product (this test file aside: it names the pattern)."""
    for name in PRODUCT_FILES:
        if (REPO_ROOT / name).is_file():
            yield REPO_ROOT / name
    for directory in PRODUCT_DIRS:
        for path in sorted((REPO_ROOT / directory).rglob("*")):
            parts = set(path.relative_to(REPO_ROOT).parts)
            if (
                path.is_file()
                and path.suffix in TEXT_SUFFIXES
                and not parts & SKIPPED_DIRS
                and path.resolve() != Path(__file__).resolve()
            ):
                yield path


def test_the_citation_pattern_finds_what_it_should() -> None:
    # The examples are built, not written out, so that this file cites nothing itself.
    number = [f"{index:03d}" for index in range(5)]
    cited = (f"seed {number[0]}", f"Seed {number[2]}'s table", f"test_x_seed_{number[4]}")
    for text in (*cited, "shared/" + "seeds/"):
        assert SEED_CITATION.search(text), text
    for fine in ("--seed 7", f"seed {number[0]}1", "runs/seed7-1200", "hand_seed(42, 7)"):
        assert not SEED_CITATION.search(fine), fine


def test_no_product_file_cites_the_requirement_documents() -> None:
    files = list(product_files())
    assert any(path.name == "hand.py" for path in files)  # the walk found the engine
    citations = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a binary file
        for number, line in enumerate(text.splitlines(), start=1):
            if SEED_CITATION.search(line):
                citations.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert not citations, "explain the rule in the project's own words:\n" + "\n".join(citations)


# -- numbers the documents state --------------------------------------------------------------


def table_cell(text: str, row_name: str, column: int = 1) -> str:
    """The cell in ``column`` of the Markdown table row whose first cell is ``row_name``.

    >>> table_cell("| a | b |\\n|---|---|\\n| `x` | 5 s |", "x")
    '5 s'
    """
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.lstrip().startswith("|") and cells[0].strip("`") == row_name:
            return cells[column]
    _fail(f"no table row {row_name!r}")


def seconds(cell: str) -> float:
    """``"5 s"`` -> 5.0, ``"50 ms"`` -> 0.05."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?) (s|ms)", cell)
    assert match is not None, f"not a duration: {cell!r}"
    value = float(match.group(1))
    return value / 1000 if match.group(2) == "ms" else value


def test_time_limits_in_the_fault_page_are_the_arenas_defaults() -> None:
    text = FAULTS.read_text(encoding="utf-8")
    limits = arena_name("TimeLimits", WATCHDOG_MODULES)()
    match_config = arena_name("MatchConfig", MATCH_MODULES)()
    # A match carries the one time limits value; hello announces its wire form.
    assert match_config.time_limits == limits
    wire = limits.to_wire()
    decision = seconds(table_cell(text, "decision time"))
    startup = seconds(table_cell(text, "startup time"))
    bank = seconds(table_cell(text, "time bank"))
    assert decision == limits.decision_s
    assert decision * 1000 == wire.decision_ms
    assert startup == limits.startup_s
    assert startup * 1000 == wire.startup_ms
    assert bank == limits.time_bank_s == wire.time_bank_ms
    assert seconds(table_cell(text, "grace")) == limits.grace_s
    assert seconds(table_cell(text, "exit grace")) == limits.match_end_grace_s


def test_command_line_defaults_in_the_fault_page_are_the_parsers() -> None:
    text = FAULTS.read_text(encoding="utf-8")
    build_parser = arena_name("build_parser", ("arena.cli",))
    match_args = build_parser().parse_args(["match", "a/bot.toml", "b/bot.toml"])
    assert match_args.decision_timeout == seconds(table_cell(text, "decision time"))
    assert match_args.startup_timeout == seconds(table_cell(text, "startup time"))
    assert match_args.time_bank == seconds(table_cell(text, "time bank"))
    for row, option in (
        ("decision time", "--decision-timeout"),
        ("startup time", "--startup-timeout"),
        ("time bank", "--time-bank"),
    ):
        assert table_cell(text, row, 2) == f"`{option}`"
    demo = build_parser().parse_args(["demo"]).decision_timeout
    assert f"`arena demo` uses a {demo:g} s decision time" in text


def test_attempts_restarts_and_line_length_in_the_fault_page_are_the_codes() -> None:
    text = FAULTS.read_text(encoding="utf-8")
    match_config = arena_name("MatchConfig", MATCH_MODULES)()
    attempts = int(table_cell(text, "invalid attempts"))
    assert attempts == DEFAULT_MAX_ATTEMPTS == match_config.max_invalid_attempts
    restarts = int(table_cell(text, "restart budget"))
    assert restarts == arena_name("DEFAULT_RESTART_BUDGET", WATCHDOG_MODULES)
    assert restarts == match_config.restart_budget
    assert table_cell(text, "longest reply line") == f"{DEFAULT_MAX_LINE_BYTES} bytes"


def test_the_fault_table_names_every_kind_of_fault() -> None:
    text = FAULTS.read_text(encoding="utf-8")
    fault_kind = arena_name("FaultKind", FAULT_MODULES)
    kinds = [str(kind) for kind in fault_kind]
    assert "timeout" in kinds
    for kind in kinds:
        table_cell(text, kind)  # fails when the kind has no row


def test_the_default_actions_are_the_watchdogs() -> None:
    default_action = arena_name("default_action", WATCHDOG_MODULES)
    free = LegalActions(
        seat_index=0,
        stack=10,
        current_bet=2,
        committed=2,
        can_fold=True,
        can_check=True,
        can_call=False,
        call_amount=0,
        can_raise=False,
        min_raise_to=0,
        max_raise_to=0,
    )
    draw = LegalActions(
        seat_index=0,
        stack=10,
        current_bet=0,
        committed=0,
        can_fold=False,
        can_check=False,
        can_call=False,
        call_amount=0,
        can_raise=False,
        min_raise_to=0,
        max_raise_to=0,
        can_draw=True,
        max_discard_count=5,
    )
    # The page: a fold even when checking is free, except a timeout with --check-on-timeout;
    # stand pat in a draw.
    assert default_action(free) == Fold()
    assert default_action(free, check_when_free=True) == Check()
    assert default_action(draw) == Discard(())
    assert default_action(draw, check_when_free=True) == Discard(())
    text = FAULTS.read_text(encoding="utf-8")
    assert table_cell(text, "timeout, with `--check-on-timeout` and nothing to call") == "check"


def test_game_options_in_the_rules_page_are_the_configs() -> None:
    text = RULES.read_text(encoding="utf-8")
    config = GameConfig()
    for enum in (Variant, BettingStructure, AnteMode, DrawLimit):
        field_name = {
            Variant: "variant",
            BettingStructure: "structure",
            AnteMode: "ante_mode",
            DrawLimit: "draw_limit",
        }[enum]
        values = table_cell(text, field_name)
        for member in enum:
            assert f"`{member.value}`" in values, f"{field_name}: {member.value} not listed"
        assert table_cell(text, field_name, 2) == f"`{getattr(config, field_name).value}`"
    assert table_cell(text, "small_blind`, `big_blind", 2) == (
        f"{config.small_blind}, {config.big_blind}"
    )
    assert table_cell(text, "ante", 2) == str(config.ante)
    assert table_cell(text, "raise_cap", 2) == str(config.raise_cap)
    assert table_cell(text, "max_discard_count", 2) == str(config.max_discard_count)
    assert f"(default {config.raise_cap}: one bet and three raises)" in text
    assert f"(default {config.max_discard_count}; 0 is standing" in text


def test_table_size_and_hand_ranks_in_the_rules_page_are_the_engines() -> None:
    text = RULES.read_text(encoding="utf-8")
    assert f"A table has {MIN_SEAT_COUNT} to {MAX_SEAT_COUNT} seats." in text
    assert f"from 1 (a royal flush) to {WORST_CLASS} (7-5-4-3-2" in text


# -- the minimal bot at the top of PROTOCOL.md ------------------------------------------------


def _protocol_opening() -> str:
    """PROTOCOL.md up to its first section: the minimal bot and how to run it."""
    text = PROTOCOL.read_text(encoding="utf-8")
    return text[: text.index("\n## ")]


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


@pytest.fixture
def minimal_bot(tmp_path: Path) -> Path:
    """The document's ``bot.py`` and ``bot.toml``, written as they are; returns the manifest."""
    opening = _protocol_opening()
    (code,) = _fenced(opening, "python")
    (manifest,) = _fenced(opening, "toml")
    (tmp_path / "bot.py").write_text(code, encoding="utf-8")
    (tmp_path / "bot.toml").write_text(manifest, encoding="utf-8")
    return tmp_path / "bot.toml"


def test_the_protocol_opens_with_a_short_bot_and_how_to_run_it() -> None:
    opening = _protocol_opening()
    (code,) = _fenced(opening, "python")
    (manifest,) = _fenced(opening, "toml")
    (commands,) = _fenced(opening, "sh")
    assert len(code.splitlines()) <= 20, "the minimal bot stays minimal"
    assert not re.findall(r"^import (?!json$|sys$)", code, re.MULTILINE), "standard library only"
    assert len(manifest.splitlines()) == 3
    build_parser = arena_name("build_parser", ("arena.cli",))
    lines = commands.splitlines()
    assert len(lines) == 3
    for line in lines:
        argv = line.split("#", 1)[0].split()
        assert argv[0] == "arena", line
        build_parser().parse_args(argv[1:])  # each command, as written, is a valid one


def test_the_minimal_bot_passes_check_bot_and_its_quick_hands(minimal_bot: Path) -> None:
    check_bot = arena_name("check_bot", ("arena.checkbot",))
    report = check_bot(minimal_bot, hand_count=20, seed=11)
    assert report.passed, report.format()
    assert report.hands.hands_played == 20 and report.hands.fault_count == 0
    handshake = report.step("handshake").reason
    assert "ready as 'minimal'" in handshake
    assert "results show the manifest's name 'my-first-bot'" in handshake


def test_the_minimal_bot_plays_a_match_and_results_use_the_manifest_name(
    minimal_bot: Path, tmp_path: Path
) -> None:
    main = arena_name("main", ("arena.cli",))
    out = tmp_path / "run"
    opponent = REPO_ROOT / "sample_bots" / "python_random" / "bot.toml"
    argv = ["match", str(minimal_bot), str(opponent), "--hands", "30", "--seed", "5"]
    argv += ["--sandbox", "none", "--out", str(out), "--no-progress", "--log-level", "off"]
    assert main(argv, stdout=io.StringIO()) == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    bot = results["players"][0]
    assert bot["hands_played"] == 30
    assert sum(bot["faults"]["counts"].values()) == 0
    # What the document says: results show the manifest's name, not the one sent in ready.
    opening = _protocol_opening()
    assert 'name = "my-first-bot"' in opening and '"name": "minimal"' in opening
    assert "this one plays as `my-first-bot`" in opening
    assert bot["name"] == "my-first-bot"
    header = json.loads((out / "hands.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert header["players"][0]["name"] == "my-first-bot"


def test_the_citation_check_covers_the_protocol() -> None:
    assert PROTOCOL.resolve() in {path.resolve() for path in product_files()}
