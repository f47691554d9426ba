"""The test modules whose every test is serial (must have the machine to itself), with the
reason: ``tests/conftest.py`` marks their tests ``serial``, and ``make test``'s second pass
runs these modules alone (``python -m tests.serial`` prints their paths), so that it does not
collect the whole suite again to find them. A test is serial only by its module being here:
``tests/conftest.py`` refuses a ``serial`` mark anywhere else, which that pass would miss.

Standard library only, so that printing the list costs no more than starting Python.
"""

from __future__ import annotations

#: Modules whose every test is serial (paths from the repository's root), with the reason.
SERIAL_MODULES: dict[str, str] = {
    "tests/arena/bots/sandbox/test_cgroup_kernel.py": "the kernel's memory, pids and CPU limits",
    "tests/arena/zoo/test_resources_zoo.py": "a fork bomb, a memory hog, a CPU spin, a big file",
}

if __name__ == "__main__":
    print(*SERIAL_MODULES)
