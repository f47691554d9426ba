"""The engine package's shape: no import cycle among its modules, a docstring on each."""

from __future__ import annotations

import ast
from pathlib import Path

from tests import REPO_ROOT

ENGINE = REPO_ROOT / "engine"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def engine_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(ENGINE.rglob("*.py"))}


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """Every engine module ``path`` imports, those under ``TYPE_CHECKING`` included, with
    the packages that importing them runs first (``engine.speed`` for
    ``engine.speed.view_cache``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found.add(node.module)
            # ``from engine import showdown`` imports the module engine.showdown.
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    modules: set[str] = set()
    for name in found:
        parts = name.split(".")
        modules.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return modules & known


def import_graph() -> dict[str, set[str]]:
    modules = engine_modules()
    known = set(modules)
    graph = {name: imported_modules(path, known) for name, path in modules.items()}
    for name, edges in graph.items():
        edges.discard(name)
        # A module's own packages are run before it; that is not a cycle.
        edges.difference_update(p for p in known if name.startswith(p + "."))
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state:
            cycle = visit(name)
            if cycle is not None:
                return cycle
    return None


def test_no_import_cycle_among_engine_modules() -> None:
    graph = import_graph()
    assert "engine.hand" in graph and "engine.speed.view_cache" in graph["engine.hand_state"]
    assert find_cycle(graph) is None


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_redaction_reads_neither_the_hand_nor_the_events() -> None:
    graph = import_graph()
    assert not {"engine.hand", "engine.hand_state", "engine.events"} & graph["engine.redaction"]


def test_every_engine_module_has_a_docstring_and_stays_small() -> None:
    for name, path in engine_modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{name} has no docstring"
        if name != "engine._eval_tables":  # generated tables
            line_count = len(path.read_text(encoding="utf-8").splitlines())
            assert line_count <= 520, f"{name} has {line_count} lines"
