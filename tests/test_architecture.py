"""The layering of the project: imports only point down (engine <- protocol <- arena).

``engine`` imports nothing from the project but itself and uses only the standard library;
``protocol`` may use ``engine``; sample bots import nothing from the project, which proves
that the protocol alone is enough to write a bot.
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


def test_engine_and_protocol_do_no_io_and_read_no_clock() -> None:
    # Purity: no clock, no global random, no processes or files in the pure packages.
    forbidden = {"time", "subprocess", "socket", "os", "threading", "asyncio", "datetime"}
    for package in ("engine", "protocol"):
        for path in _python_files(package):
            used = _imported_top_levels(path) & forbidden
            assert not used, f"{path} imports {sorted(used)}"


def test_engine_never_uses_the_global_random_generator() -> None:
    # Only random.Random instances passed in may shuffle: random.shuffle() would make
    # hands depend on hidden global state (pokerkit's global shuffle is what not to copy).
    for path in _python_files("engine"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", f"{path}:{node.lineno} uses random.{node.attr}"
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                names = {alias.name for alias in node.names}
                assert names <= {"Random"}, f"{path} imports {names} from random"
