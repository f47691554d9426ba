"""What a job has written so far, as the sign that it advances: the lease of a job is
renewed only while this changes (:class:`arena.server.jobs.worker.Worker`'s
``progress``). A match appends a line to its hands file at every hand, a build writes its
output: either one moves the figure; a worker stuck on its job does not."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["files_written"]


def files_written(*folders: Path) -> tuple[int, int]:
    """The number of files under ``folders`` and their total size in bytes (a folder that
    does not exist yet, or a file gone while they are counted, counts nothing).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as name:
    ...     before = files_written(Path(name), Path(name) / "missing")
    ...     _ = (Path(name) / "hands.jsonl").write_text("one hand\\n")
    ...     before, files_written(Path(name))
    ((0, 0), (1, 9))
    """
    count = size = 0
    for folder in folders:
        for parent, _dirs, names in os.walk(folder):
            for name in names:
                try:
                    size += os.lstat(os.path.join(parent, name)).st_size
                except OSError:  # gone meanwhile (a build's scratch folder renamed)
                    continue
                count += 1
    return count, size
