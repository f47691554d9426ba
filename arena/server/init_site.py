"""``arena server init``: make a site folder from a competition file, its database, its
secret key and an administrator.

Everything that can be wrong with the input (the competition file, the folder, the
database URL, the administrator's password's length) is checked before anything is
created; a folder is made only when it is new or empty, so ``init`` never overwrites a
site. The administrator's password must also pass the site's password validators
(Django's, ``AUTH_PASSWORD_VALIDATORS``: not like the name, not a common password, not
all digits), which need Django started for the new folder: a password they refuse
undoes what ``init`` made, and the folder is as it was.
"""

from __future__ import annotations

import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.server.competition import Competition, read_competition
from arena.server.site_folder import SiteFolder, database_settings, write_secret_key
from arena.settings import UsageError

__all__ = ["NewSite", "init_site"]


@dataclass(frozen=True, slots=True)
class NewSite:
    """What ``init`` made: the folder, the administrator's name and, when it was drawn at
    random, the password (shown once, never stored in clear)."""

    site: SiteFolder
    admin: str
    generated_password: str | None


def init_site(
    root: Path,
    competition_file: Path,
    *,
    admin: str = "admin",
    password: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
    behind_tls: bool = False,
    database: str | None = None,
) -> NewSite:
    """Make the site at ``root`` (see the module docstring); :class:`UsageError` for a bad
    competition file, folder or database URL."""
    competition = read_competition(competition_file)
    if database is not None:
        database_settings(database)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise UsageError(f"site folder {str(root)!r} exists and is not empty: give a new one")
    if password is not None and len(password) < 10:
        raise UsageError("the administrator's password must have at least 10 characters")
    is_new = not root.exists()
    root = root.absolute()
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    site = SiteFolder(
        root=root,
        competition_file=competition_file.absolute(),
        allowed_hosts=allowed_hosts or SiteFolder(root).allowed_hosts,
        behind_tls=behind_tls,
        database=database,
    )
    site.layout.uploads.mkdir(mode=0o700)
    site.layout.work.mkdir(mode=0o700)
    write_secret_key(site.layout.secret_key_file)
    site.save()
    generated = None if password is not None else secrets.token_urlsafe(12)
    try:
        _make_database(site, competition, admin, password or generated or "")
    except UsageError:
        _undo(root, is_new)
        raise
    return NewSite(site, admin, generated)


def _undo(root: Path, is_new: bool) -> None:
    """Remove what ``init`` made in ``root`` (it was new, or empty)."""
    if is_new:
        shutil.rmtree(root, ignore_errors=True)
        return
    for entry in root.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _check_password(password: str, admin: str) -> None:
    """:class:`UsageError` with the site's password validators' messages when they
    refuse the administrator's ``password`` (Django started: their messages need it)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    try:
        validate_password(password, get_user_model()(username=admin))
    except ValidationError as error:
        why = " ".join(error.messages)
        raise UsageError(f"the administrator's password is refused: {why}") from None


def _make_database(site: SiteFolder, competition: Competition, admin: str, password: str) -> None:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from arena.server.django_start import start_django

    start_django(site.root)
    _check_password(password, admin)
    call_command("migrate", verbosity=0, interactive=False)
    from arena.server.site.models import SiteSettings

    SiteSettings.copy_rules(competition.rules)
    users = get_user_model()
    if not users.objects.filter(username=admin).exists():
        users.objects.create_superuser(username=admin, email="", password=password)
