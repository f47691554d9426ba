"""The commands the documentation shows keep working: every ``arena ...`` line of a shell
block in README.md and docs/*.md, and every ``arena ...`` code span of README.md, parses
with today's flags, and every ``--flag`` README.md names is a flag of some command."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from arena import cli
from tests import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCUMENTS = (README, *sorted((REPO_ROOT / "docs").glob("*.md")))
#: Fenced blocks of these languages hold commands to type.
SHELL_BLOCKS = ("sh", "bash", "shell", "console", "")
#: Flags README.md names that belong to other tools (mypy --strict, make --silent).
OTHER_TOOLS_FLAGS = frozenset({"--strict", "--silent"})
#: How a benchmark script declares a flag: ``parser.add_argument("--rounds", ...)``.
BENCH_FLAG = re.compile(r"add_argument\(\s*\"(--[a-z][a-z0-9-]*)\"")


def _shell_lines(path: Path) -> list[tuple[int, str]]:
    """Each command line of the shell blocks (continuations joined), with its line number."""
    found: list[tuple[int, str]] = []
    language: str | None = None
    pending, start = "", 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            language = line.strip()[3:].strip() if language is None else None
            continue
        if language not in SHELL_BLOCKS:
            continue
        start = start if pending else number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        found.append((start, pending + line))
        pending = ""
    return found


def _arena_argv(text: str) -> list[str] | None:
    """The arguments after ``arena`` when ``text`` runs it (after any ``NAME=value``), with
    each ``<placeholder>`` filled in (``1`` for a number, else a word); None otherwise."""
    filled = re.sub(r"<[^>]*>", lambda m: "1" if "number" in m.group() else "x", text)
    try:
        words = shlex.split(filled, comments=True)
    except ValueError:  # prose, not a command
        return None
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        words = words[1:]
    if not words or not (words[0] == "arena" or words[0].endswith("/arena")):
        return None
    return words[1:]


def _documented_commands() -> list[tuple[str, list[str]]]:
    commands = []
    for path in DOCUMENTS:
        for number, line in _shell_lines(path):
            argv = _arena_argv(line)
            if argv is not None:
                commands.append((f"{path.name}:{number}", argv))
    readme = README.read_text(encoding="utf-8")
    for span in re.finditer(r"`(arena [^`]+)`", readme):
        argv = _arena_argv(span.group(1))
        # A command named in prose (`arena match`) is no command line, nor is a
        # placeholder for one (`arena <command> --help`).
        is_line = argv is not None and (len(argv) > 1 or argv[:1] == ["--version"])
        if is_line and not span.group(1).startswith("arena <"):
            assert argv is not None
            commands.append((f"README.md:`{span.group(1)}`", argv))
    return commands


COMMANDS = _documented_commands()


def test_the_documents_show_commands_to_check() -> None:
    shown = {argv[0] for where, argv in COMMANDS if where.startswith("README.md") and argv}
    assert {"match", "tournament", "report", "replay", "check-bot", "play", "export"} <= shown


@pytest.mark.parametrize(("where", "argv"), COMMANDS, ids=[where for where, _ in COMMANDS])
def test_every_documented_command_parses(
    where: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    command = argv[0] if argv and not argv[0].startswith("-") else None
    try:
        cli.build_parser(only=command).parse_args(argv)
    except SystemExit as exc:  # --help and --version exit 0; a bad flag exits 2
        assert exc.code == 0, f"{where}: arena {' '.join(argv)}: {capsys.readouterr().err}"


def _flags_of(parser: argparse.ArgumentParser) -> set[str]:
    """The parser's flags and those of its subcommands, at any depth (``arena server run``)."""
    flags = {option for action in parser._actions for option in action.option_strings}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                flags |= _flags_of(subparser)
    return flags


def _every_flag() -> set[str]:
    return _flags_of(cli.build_parser()) | _bench_flags()


def _bench_flags() -> set[str]:
    """The flags the benchmark scripts declare (README's benchmark lines run them too)."""
    return {
        flag
        for script in sorted((REPO_ROOT / "bench").glob("*.py"))
        for flag in BENCH_FLAG.findall(script.read_text(encoding="utf-8"))
    }


def test_every_flag_the_readme_names_is_a_flag_of_some_command() -> None:
    known = _every_flag() | OTHER_TOOLS_FLAGS
    readme = README.read_text(encoding="utf-8")
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", readme))
    assert named - known == set()


def test_the_benchmark_flags_are_read_from_the_scripts() -> None:
    assert {"--luck-only", "--rounds"} <= _bench_flags()
    assert "--dealz" not in _bench_flags()


def test_the_checks_catch_a_command_that_no_longer_parses() -> None:
    argv = _arena_argv("FOO=1 .venv/bin/arena match a/bot.toml <other> --dealz 3  # a typo")
    assert argv == ["match", "a/bot.toml", "x", "--dealz", "3"]
    with pytest.raises(SystemExit) as info:
        cli.build_parser(only="match").parse_args(argv)
    assert info.value.code == 2
    assert _arena_argv("the arena's user") is None and _arena_argv("make demo") is None
    assert "--dealz" not in _every_flag() and "--deals" in _every_flag()
