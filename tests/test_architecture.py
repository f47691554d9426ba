"""The layering of the project: imports only point down (engine <- protocol <- arena).

``engine`` imports nothing from the project but itself and uses only the standard library;
``protocol`` may use ``engine``; sample bots import nothing from the project, which proves
that the protocol alone is enough to write a bot. Inside ``arena`` the parts are layered
too, by the table in the ``arena`` package docstring (read here, so the two cannot differ),
with no exception.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PACKAGES = {"engine", "protocol", "arena"}
ALLOWED = {
    "engine": {"engine"},
    "protocol": {"engine", "protocol"},
    "arena": {"engine", "protocol", "arena"},
}


def _imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _python_files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


# -- inside arena --------------------------------------------------------------------------------


def layers_from_docstring(text: str) -> dict[str, frozenset[str]]:
    """The table of the arena's parts in ``text`` (the ``arena`` package docstring): each
    ``part: other, parts`` line after the line ending ``::`` until a line that is not
    indented; a part may import itself and the parts after its name (``(every part)``:
    any; ``(every part but x)``: any but ``x``; ``(every part but x and y)``: any but those)."""
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.rstrip().endswith("::"))
    layers: dict[str, frozenset[str]] = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            if layers:
                break
            continue
        if not line.startswith(" "):
            break
        part, _colon, allowed = line.strip().partition(":")
        names = {name.strip() for name in allowed.split(",")} - {"(nothing)", ""}
        layers[part.strip()] = frozenset({part.strip(), *names})
    every = set(layers)
    for part, allowed_parts in list(layers.items()):
        for name in allowed_parts:
            if name.startswith("(every part"):
                but = name.removeprefix("(every part").removesuffix(")").removeprefix(" but ")
                excluded = {word.strip() for word in but.split(" and ")}
                layers[part] = frozenset(every - excluded | {part})
    return layers


#: For each part of ``arena``, the parts it may import (itself included), as the ``arena``
#: package docstring shows them. ``cli`` is the top: it may import anything.
ARENA_LAYERS: dict[str, frozenset[str]] = layers_from_docstring(
    ast.get_docstring(ast.parse((ROOT / "arena" / "__init__.py").read_text(encoding="utf-8"))) or ""
)


#: The same for each part of ``arena.server``, as the ``arena.server`` package docstring
#: shows them: the project, then its applications, then the shared base modules.
SERVER_LAYERS: dict[str, frozenset[str]] = layers_from_docstring(
    ast.get_docstring(
        ast.parse((ROOT / "arena" / "server" / "__init__.py").read_text(encoding="utf-8"))
    )
    or ""
)

#: Each layered package and its table; a module is held to the table of the innermost.
LAYERED = {"arena": ARENA_LAYERS, "arena.server": SERVER_LAYERS}


def _part(module: str, package: str = "arena") -> str:
    """The part of ``package`` that ``module`` belongs to: ``arena.match.loop`` -> ``match``;
    ``arena.cli`` -> ``cli``; ``arena`` -> ``""``; ``arena.server.site.models`` in
    ``arena.server`` -> ``site``."""
    parts = module.removeprefix(package).split(".")
    return parts[1] if len(parts) > 1 else ""


def _module_name(relative: str) -> str:
    """``arena/match/loop.py`` -> ``arena.match.loop`` (a package is its ``__init__``)."""
    name = relative.removesuffix(".py").replace("/", ".")
    return name.removesuffix(".__init__")


def _arena_imports(relative: str, source: str) -> list[tuple[int, str]]:
    """Every ``arena`` module imported by the file (line number, full module name),
    ``from arena import x`` and relative imports resolved."""
    package = _module_name(relative)
    if not relative.endswith("__init__.py"):
        package = package.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=relative)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            if base == "arena":
                found += [(node.lineno, f"arena.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, base))
    return [(line, name) for line, name in found if name.split(".")[0] == "arena"]


def forbidden_arena_imports(relative: str, source: str, package: str = "arena") -> list[str]:
    """What the file at ``relative`` (inside ``package``: ``arena`` or ``arena.server``)
    imports against ``package``'s layering, each as ``file:line imports module (why)``;
    imports from outside ``package`` are the outer table's business."""
    layers = LAYERED[package]
    part = _part(_module_name(relative), package)
    if part == "":  # the package's __init__.py: its docstring only
        allowed_parts: frozenset[str] = frozenset()
    elif part not in layers:
        return [
            f"{relative}: {package}.{part} is not in the {package}'s layers (the table in the"
            f" {package} package docstring): give it its place"
        ]
    else:
        allowed_parts = layers[part]
    problems = []
    for line, module in _arena_imports(relative, source):
        if not (module + ".").startswith(package + "."):
            continue
        if _part(module, package) in allowed_parts:
            continue
        may = ", ".join(f"{package}.{name}" for name in sorted(allowed_parts)) or "nothing"
        problems.append(
            f"{relative}:{line} imports {module}: {package}.{part} may import only {may}"
        )
    return problems


def test_arena_parts_import_only_down_their_layers() -> None:
    problems = []
    for path in _python_files("arena"):
        relative = path.relative_to(ROOT).as_posix()
        problems += forbidden_arena_imports(relative, path.read_text(encoding="utf-8"))
    assert not problems, "imports against the arena's layering:\n" + "\n".join(problems)


def test_server_parts_import_only_down_their_layers() -> None:
    # The project imports its applications, they import the shared base modules, never back up.
    problems = []
    for path in _python_files("arena/server"):
        relative = path.relative_to(ROOT).as_posix()
        source = path.read_text(encoding="utf-8")
        problems += forbidden_arena_imports(relative, source, package="arena.server")
    assert not problems, "imports against the server's layering:\n" + "\n".join(problems)


def test_every_server_part_has_its_place_in_the_layers() -> None:
    folder = ROOT / "arena" / "server"
    parts = {
        path.stem if path.is_file() else path.name
        for path in folder.iterdir()
        if (path.is_dir() and (path / "__init__.py").exists())
        or (path.suffix == ".py" and path.name != "__init__.py")
    }
    assert parts == set(SERVER_LAYERS), f"differ: {sorted(parts ^ set(SERVER_LAYERS))}"
    assert set().union(*SERVER_LAYERS.values()) <= set(SERVER_LAYERS)


def import_graph(folder: str) -> dict[str, set[str]]:
    """Each module under ``folder`` (``arena/server``) and the modules under it that it
    imports anywhere in its body (a function's import too: one there must not hide a cycle);
    ``from package import module`` is an arrow to the module."""
    files = {
        _module_name(path.relative_to(ROOT).as_posix()): path for path in _python_files(folder)
    }
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        relative = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
        imported = {module for _line, module in _arena_imports(relative, path.read_text("utf-8"))}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported |= {f"{node.module}.{alias.name}" for alias in node.names}
        graph[name] = {module for module in imported if module in files and module != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of ``graph`` as the modules along it, first one repeated at the end; ``[]``
    when there is none.

    >>> find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    ['a', 'b', 'c', 'a']
    >>> find_cycle({"a": {"b"}, "b": set()})
    []
    """
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str]:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return []
        for following in sorted(graph.get(node, ())):
            cycle = visit(following, [*path, node])
            if cycle:
                return cycle
        done.add(node)
        return []

    for start in sorted(graph):
        cycle = visit(start, [])
        if cycle:
            return cycle
    return []


def test_the_server_has_no_import_cycle() -> None:
    # A cycle dodged by an import inside a function is a cycle all the same.
    cycle = find_cycle(import_graph("arena/server"))
    assert not cycle, "an import cycle in arena/server: " + " -> ".join(cycle)


def test_a_cycle_through_a_function_level_import_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_every_arena_part_has_its_place_in_the_layers() -> None:
    parts = {
        path.stem if path.is_file() else path.name
        for path in (ROOT / "arena").iterdir()
        if (path.is_dir() and (path / "__init__.py").exists())
        or (path.suffix == ".py" and path.name != "__init__.py")
    }
    assert parts <= set(ARENA_LAYERS), f"not in the layers: {sorted(parts - set(ARENA_LAYERS))}"


def test_the_layer_table_is_read_from_the_arena_package_docstring() -> None:
    import arena

    assert layers_from_docstring(arena.__doc__ or "") == ARENA_LAYERS
    assert ARENA_LAYERS["bots"] == {"bots"}
    assert ARENA_LAYERS["match"] == {"match", "luck", "store", "session", "bots"}
    assert "commands" not in ARENA_LAYERS["server"] and "cli" not in ARENA_LAYERS["server"]
    # Every part a part may import is itself a part of the table.
    assert set().union(*ARENA_LAYERS.values()) <= set(ARENA_LAYERS)


def test_a_layer_table_is_parsed_part_by_part() -> None:
    text = (
        "Title.\n\nLayers::\n\n    low:   (nothing)\n    high:  low\n"
        "    glue:  (every part but top)\n    top:   (every part)\n\nAfter.\n"
    )
    assert layers_from_docstring(text) == {
        "low": frozenset({"low"}),
        "high": frozenset({"high", "low"}),
        "glue": frozenset({"low", "high", "glue"}),
        "top": frozenset({"low", "high", "glue", "top"}),
    }


@pytest.mark.parametrize(
    ("relative", "source", "named"),
    [
        (
            "arena/bots/process.py",
            "from arena.session.faults import FaultKind\n",
            "arena/bots/process.py:1 imports arena.session.faults: arena.bots may import only "
            "arena.bots",
        ),
        (
            "arena/session/watchdog.py",
            "import json\nfrom arena.match import config\n",
            "arena/session/watchdog.py:2 imports arena.match: arena.session may import only",
        ),
        (
            "arena/match/loop.py",
            "from arena.tournament.plan import MatchSpec\n",
            "arena/match/loop.py:1 imports arena.tournament.plan: arena.match may import only "
            "arena.bots, arena.luck, arena.match, arena.session, arena.store",
        ),
        (
            "arena/store/sqlite.py",
            "from arena.tournament.outcome import MatchOutcome\n",
            "arena/store/sqlite.py:1 imports arena.tournament.outcome",
        ),
        (
            "arena/store/base.py",
            "from arena.match.records import HandRecord\n",
            "arena/store/base.py:1 imports arena.match.records",
        ),
        (
            "arena/store/jsonl.py",
            "from arena.match.loop import MatchRunner\n",
            "arena/store/jsonl.py:1 imports arena.match.loop",
        ),
        (
            "arena/checkbot/wire.py",
            "from arena import cli\n",
            "arena/checkbot/wire.py:1 imports arena.cli",
        ),
        (
            "arena/match/players.py",
            "from ..checkbot import check_bot\n",
            "arena/match/players.py:1 imports arena.checkbot",
        ),
        (
            "arena/session/policy.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import arena.match.config\n",
            "arena/session/policy.py:3 imports arena.match.config",
        ),
        (
            "arena/server/site/versions.py",
            "def frozen():\n    from arena.server.ladder.finals import is_frozen_now\n",
            "arena/server/site/versions.py:2 imports arena.server.ladder.finals: arena.server.site"
            " may import only",
        ),
        (
            "arena/server/competition.py",
            "from arena.server.settings import SITE\n",
            "arena/server/competition.py:1 imports arena.server.settings: arena.server.competition"
            " may import only arena.server.competition",
        ),
        (
            "arena/hall/rating.py",
            "import math\n",
            "arena/hall/rating.py: arena.hall is not in the arena's layers",
        ),
    ],
)
def test_an_import_against_the_arena_layers_is_named_with_its_file_and_line(
    relative: str, source: str, named: str
) -> None:
    package = "arena.server" if relative.startswith("arena/server/") else "arena"
    problems = forbidden_arena_imports(relative, source, package)
    assert len(problems) == 1 and problems[0].startswith(named), problems


def test_imports_down_the_arena_layers_are_allowed() -> None:
    allowed = {
        "arena/match/run.py": "from arena.store.jsonl import JsonLinesStore\n",
        "arena/match/records.py": "from arena.store.hand_log import HISTORY_FORMAT\n",
        "arena/match/replay.py": "from arena.store.hand_log import read_hand_log\n",
        "arena/checkbot/hands.py": "from arena.match.run import seat_session\n",
        "arena/cli.py": "from arena.commands import play\nfrom arena import checkbot\n",
        "arena/session/reading.py": "from . import faults\nfrom ..bots import transport\n",
    }
    for relative, source in allowed.items():
        assert forbidden_arena_imports(relative, source) == [], relative


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_only_point_down(package: str) -> None:
    for path in _python_files(package):
        project_imports = _imported_top_levels(path) & PROJECT_PACKAGES
        assert project_imports <= ALLOWED[package], f"{path} imports {project_imports}"


def test_engine_uses_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__", "engine"}
    for path in _python_files("engine"):
        foreign = _imported_top_levels(path) - stdlib
        assert not foreign, f"{path} imports non-stdlib modules {sorted(foreign)}"


def test_sample_bots_import_nothing_from_the_project() -> None:
    files = _python_files("sample_bots")
    for path in files:
        stdlib = set(sys.stdlib_module_names) | {"__future__"}
        foreign = _imported_top_levels(path) - stdlib
        assert not foreign, f"{path} imports {sorted(foreign)}: bots must use only the stdlib"


#: The pure parts of the project: no I/O, no clock, no global random (each package says so in
#: its docstring; the tests below hold it to that). Time comes in as a number and chance from
#: a ``random.Random`` passed in, so every result is reproducible and tested without a server.
PURE_PACKAGES = ("engine", "protocol", "arena/ladder", "arena/luck", "arena/stats")

#: Standard modules that reach the clock, processes, sockets, files or threads.
IMPURE_MODULES = frozenset(
    {"time", "subprocess", "socket", "os", "threading", "asyncio", "datetime"}
)

#: Built-in functions that read or write a file or the terminal.
IO_BUILTINS = frozenset({"open", "print", "input"})


def impurities(source: str) -> list[str]:
    """What in ``source`` breaks purity, each as ``line: what``: an import of an
    :data:`IMPURE_MODULES` module, a call of an :data:`IO_BUILTINS` function, and any use of
    the global random generator (``random.shuffle``, ``from random import choice``; only
    ``random.Random`` instances passed in may draw: pokerkit's global shuffle is what not to
    copy)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [
                f"{node.lineno}: imports {alias.name}"
                for alias in node.names
                if alias.name.split(".")[0] in IMPURE_MODULES
            ]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in IMPURE_MODULES:
                found.append(f"{node.lineno}: imports {node.module}")
            names = {alias.name for alias in node.names}
            if node.module == "random" and not names <= {"Random"}:
                found.append(f"{node.lineno}: imports {sorted(names)} from random")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr != "Random"
        ):
            found.append(f"{node.lineno}: uses random.{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in IO_BUILTINS
        ):
            found.append(f"{node.lineno}: calls {node.func.id}()")
    return found


@pytest.mark.parametrize("package", PURE_PACKAGES)
def test_the_pure_packages_do_no_io_read_no_clock_and_use_no_global_random(package: str) -> None:
    problems = [
        f"{path.relative_to(ROOT).as_posix()}:{problem}"
        for path in _python_files(package)
        for problem in impurities(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "impure code in a pure package:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ("import time\n", "1: imports time"),
        ("from os.path import join\n", "1: imports os.path"),
        ("import random\nrandom.shuffle(deck)\n", "2: uses random.shuffle"),
        ("from random import Random, choice\n", "1: imports ['Random', 'choice'] from random"),
        ("def f(rng):\n    print(rng.random())\n", "2: calls print()"),
    ],
)
def test_an_impurity_is_named_with_its_line(source: str, named: str) -> None:
    assert impurities(source) == [named]


def test_a_random_generator_passed_in_is_pure() -> None:
    source = "import random\n\ndef f(rng: random.Random) -> float:\n    return rng.random()\n"
    assert impurities(source) == []
