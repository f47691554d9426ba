"""One BLAS thread while the ladder fits (:mod:`arena.server.ladder.blas`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena.server.ladder import blas


def test_the_block_runs_on_one_thread_and_the_threads_come_back_after_it() -> None:
    controls = blas._controls()
    if controls is None:  # numpy without OpenBLAS: nothing to set, the block still runs
        with blas.one_thread():
            pass
        return
    set_threads, get_threads = controls
    before = get_threads()
    set_threads(2)
    try:
        with blas.one_thread():
            assert get_threads() == 1
        assert get_threads() == 2
        with pytest.raises(RuntimeError), blas.one_thread():
            raise RuntimeError("a fit that fails gives the threads back too")
        assert get_threads() == 2
    finally:
        set_threads(before)


def test_without_openblas_the_block_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blas, "_controls", lambda: None)
    ran = []
    with blas.one_thread():
        ran.append(True)
    assert ran == [True]


def test_a_library_that_does_not_load_is_passed_over(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "numpy.libs"
    folder.mkdir()
    (folder / "libopenblas-broken.so").write_bytes(b"not a library")
    (tmp_path / "numpy").mkdir()
    monkeypatch.setattr(np, "__file__", str(tmp_path / "numpy" / "__init__.py"))
    blas._controls.cache_clear()
    try:
        assert blas._controls() is None
    finally:
        monkeypatch.undo()
        blas._controls.cache_clear()


def test_a_library_without_openblas_s_setter_is_passed_over(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    numpy_libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    others = [path for path in numpy_libs.glob("*.so*") if "openblas" not in path.name]
    if not others:  # numpy without its own libraries: nothing to try
        return
    folder = tmp_path / "numpy.libs"
    folder.mkdir()
    (folder / "libopenblas-other.so").write_bytes(others[0].read_bytes())
    (tmp_path / "numpy").mkdir()
    monkeypatch.setattr(np, "__file__", str(tmp_path / "numpy" / "__init__.py"))
    blas._controls.cache_clear()
    try:
        assert blas._controls() is None  # it loads, but sets no threads
    finally:
        monkeypatch.undo()
        blas._controls.cache_clear()
