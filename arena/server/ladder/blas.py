"""One thread for numpy's linear algebra while the ladder fits.

numpy's OpenBLAS starts a thread per core for a matrix product or a factorisation. On a
site's machine the cores are busy playing games, serving pages and running bots, and a
thread pool that waits for its busy siblings is far slower than one thread: on a loaded
2-core machine the fit of a thousand versions took 2 to 3 s with the pool and 0.2 s on one
thread (``bench/bench_ladder_scale.py``). :func:`one_thread` sets OpenBLAS to one thread
for a block and back, through the library numpy loaded (found by its exported setter, as
threadpoolctl does); with another BLAS, or none found, it changes nothing.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

__all__ = ["one_thread"]

#: The setter and getter names OpenBLAS builds export (numpy's wheels prefix theirs).
_NAMES = (
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)


@functools.cache
def _controls() -> tuple[Callable[[int], object], Callable[[], int]] | None:
    """OpenBLAS's thread setter and getter in the library numpy loaded, or None."""
    folder = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for library in sorted(folder.glob("*openblas*")):
        try:
            loaded = ctypes.CDLL(str(library))
        except OSError:
            continue
        for setter, getter in _NAMES:
            if hasattr(loaded, setter) and hasattr(loaded, getter):
                return getattr(loaded, setter), getattr(loaded, getter)
    return None


@contextmanager
def one_thread() -> Iterator[None]:
    """OpenBLAS on one thread inside the block, as many as before after it."""
    controls = _controls()
    if controls is None:
        yield
        return
    set_threads, get_threads = controls
    before = int(get_threads())
    set_threads(1)
    try:
        yield
    finally:
        set_threads(before)
