"""Start Django for a site folder, once per process (the commands and the worker)."""

from __future__ import annotations

import os
from pathlib import Path

from arena.server.site_folder import SITE_ENV

__all__ = ["SETTINGS_MODULE", "start_django"]

SETTINGS_MODULE = "arena.server.settings"


def start_django(site_dir: Path | None = None) -> None:
    """Configure Django from ``site_dir`` (None: the settings' throwaway site, or the one
    the environment names already) and load the applications. A second call for the same
    process does nothing."""
    import django
    from django.apps import apps

    wanted = None if site_dir is None else str(site_dir.absolute())
    if apps.ready:
        if wanted is not None and os.environ.get(SITE_ENV) != wanted:
            raise RuntimeError(f"Django already runs another site here, not {wanted}")
        return
    if wanted is not None:
        os.environ[SITE_ENV] = wanted
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", SETTINGS_MODULE)
    django.setup()
