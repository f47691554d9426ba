"""Django's settings, built from the site folder named by ``ARENA_SITE_DIR`` (see
:mod:`arena.server.site_folder`): the database, the secret key, the host names, the uploads
folder. Debug is always off; static files are served by the application itself (no
separate web server needed in front, though TLS should be); with ``behind_tls`` the
cookies are ``Secure`` and plain HTTP is redirected (the scheme is waitress's, taken from
the trusted proxy only: :mod:`arena.server.serve`).

Without ``ARENA_SITE_DIR`` (type checking, importing the package's modules in tests) the
settings are a throwaway in-memory site with a random key; nothing is served that way.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from arena.server.site_folder import (
    DATABASE_ENV,
    SITE_ENV,
    SiteFolder,
    database_settings,
    security_settings,
)

_site_dir = os.environ.get(SITE_ENV)
SITE = SiteFolder.load(Path(_site_dir)) if _site_dir else None
PACKAGE_DIR = Path(__file__).resolve().parent

DEBUG = False
SECRET_KEY = SITE.secret_key() if SITE is not None else secrets.token_urlsafe(50)
ALLOWED_HOSTS = list(SITE.allowed_hosts) if SITE is not None else ["testserver", "localhost"]
# The environment's database wins over the site folder's (tests, containers).
DATABASES = {
    "default": database_settings(
        os.environ.get(DATABASE_ENV)
        or (SITE.database_url if SITE is not None else "sqlite:///:memory:")
    )
}
MEDIA_ROOT = str(SITE.layout.uploads) if SITE is not None else "/nonexistent-uploads"
ARENA_WORK_DIR = str(SITE.layout.work) if SITE is not None else "/nonexistent-work"
ARENA_COMPETITION_FILE = (
    str(SITE.competition_file) if SITE is not None and SITE.competition_file else None
)


def _number(name: str, default: float, *, least: float) -> float:
    """The environment's ``name`` as a number of at least ``least`` (``default`` when unset
    or empty); ``ImproperlyConfigured`` naming the variable and its value otherwise."""
    text = os.environ.get(name) or ""
    try:
        value = float(text) if text.strip() else default
    except ValueError:
        value = float("nan")
    if not value >= least or value == float("inf"):  # (NaN fails the comparison)
        raise ImproperlyConfigured(f"{name} must be a number of at least {least:g}, got {text!r}")
    return value


# The site's knobs from the environment, read here and nowhere else:
#: How long a worker's claim on a job (a validation, a ladder game) holds without renewal.
ARENA_LEASE_SECONDS = _number("ARENA_SERVER_LEASE_SECONDS", 60.0, least=0.001)
#: The most ladder games each ladder worker starts in an hour (0: as many as it can play).
ARENA_LADDER_GAMES_PER_HOUR = _number("ARENA_SERVER_LADDER_GAMES_PER_HOUR", 0.0, least=0.0)
#: The ladder's knobs over their defaults (arena.server.ladder.config): a JSON object.
ARENA_LADDER = json.loads(os.environ.get("ARENA_LADDER") or "{}")

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "arena.server.jobs.apps.JobsConfig",
    "arena.server.site.apps.SiteConfig",
    "arena.server.validation.apps.ValidationConfig",
    "arena.server.ladder.apps.LadderConfig",
    # After the site's application, so that the site's admin/base_site.html (its additions
    # for accessibility) comes before Django's, which it extends.
    "django.contrib.admin",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "arena.server.middleware.content_security_policy",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "arena.server.urls"
WSGI_APPLICATION = "arena.server.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "arena.server.site.context_processors.competition",
            ]
        },
    }
]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en"
STATIC_URL = "/static/"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
# An account is found by its name in any spelling (NFKC, spaces, case): see the backend.
AUTHENTICATION_BACKENDS = ["arena.server.site.names.NameBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
     "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]  # fmt: skip
# An upload's body is read in full before it is checked; above this it is refused at once
# (the site's own archive limit, usually smaller, is checked next).
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_PERMISSIONS = 0o600

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Behind a proxy that ends TLS: secure cookies, HTTPS only (see security_settings).
globals().update(security_settings(behind_tls=SITE is not None and SITE.behind_tls,
                                   allowed_hosts=ALLOWED_HOSTS))  # fmt: skip

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django": {"handlers": ["console"], "level": "WARNING"}},
}
