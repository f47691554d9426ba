"""``arena server run`` whose validation workers use a scripted pipeline, for the tests
that kill a worker in the middle of a validation (``tests/arena/server/test_run.py``).

``python -m tests.arena.server.scripted_site run SITE_DIR`` serves the site as ``arena
server run SITE_DIR --port 0`` does, starting its workers as ``python -m
tests.arena.server.scripted_site COMMAND``: ``validate_uploads`` is the site's validation
worker with :func:`tests.arena.server.scripted_pipeline.hang_first_time` as its pipeline
(the worker's seam: :func:`arena.server.validation.worker.validation_worker`), any other
command the site's own.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from arena.server.django_start import start_django

PROGRAM = (sys.executable, "-m", "tests.arena.server.scripted_site")


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    """Serve (``run SITE_DIR``) or run one worker command."""
    if argv[0] == "run":
        from arena.server.serve import serve

        signal.signal(signal.SIGTERM, _interrupt)  # as the arena command line does
        # Ctrl-C's own handler, whatever the test run was started under: a shell starts a
        # command it runs in the background with SIGINT ignored, which Python keeps (then
        # the test's SIGINT would end nothing; seen under `(make test &)`).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        return serve(Path(argv[1]), host="127.0.0.1", port=0, workers=1, threads=4,
                     out=sys.stdout, program=PROGRAM)  # fmt: skip
    start_django()
    if argv[0] == "validate_uploads":
        from arena.server.validation.worker import validation_worker
        from tests.arena.server.scripted_pipeline import hang_first_time

        validation_worker(sys.stderr.write, pipeline=hang_first_time).run()
        return 0
    from django.core.management import call_command

    call_command(*argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
