"""``python -m arena.server.manage COMMAND`` with ``ARENA_SITE_DIR`` set: Django's
management commands for a site (``migrate``, ``createsuperuser``, the worker
``validate_uploads``). ``arena server run`` starts the workers this way."""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Run a management command."""
    from django.core.management import execute_from_command_line

    from arena.server.django_start import start_django

    start_django()
    execute_from_command_line(["arena-server", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":  # pragma: no cover - run as a program by arena server run
    main()
