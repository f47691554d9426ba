"""A bot's manifest: a small TOML file (``bot.toml``) saying how to build and run it; its
keys are :data:`MANIFEST_KEYS`, explained in README.md ("Writing a bot") and
protocol/PROTOCOL.md ("How your bot is started").

``command`` and ``build`` are argument lists, never run through a shell; the launcher
replaces their placeholders ``{python}`` (the arena's interpreter) and ``{bot_dir}``
(:mod:`arena.bots.launcher`). ``[limits]`` holds this bot's sandbox limits
(:class:`arena.bots.sandbox.resources.ResourceLimits`), over the arena's defaults and
under the command line's. A bad manifest raises :class:`ManifestError` naming the file,
the key and the value. A name is shown everywhere (terminals, reports, chat), so it may
hold no control character and at most :data:`MAX_NAME_LENGTH` characters.

>>> m = parse_manifest({"name": "x", "command": ["{python}", "bot.py"]}, path=Path("/b/bot.toml"))
>>> m.name, m.command, str(m.working_dir)
('x', ('{python}', 'bot.py'), '/b')"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.sandbox.resources import DEFAULT_RESOURCES, ResourceLimitsError
from protocol.inert import control_characters, inert_text

__all__ = [
    "DEFAULT_BUILD_TIMEOUT_S",
    "MANIFEST_KEYS",
    "MAX_NAME_LENGTH",
    "BotManifest",
    "ManifestError",
    "load_manifest",
    "parse_manifest",
]

#: How long a build command may run unless the manifest says otherwise.
DEFAULT_BUILD_TIMEOUT_S = 120.0

#: The longest name a bot may have (the protocol's limit on the name in ``ready``).
MAX_NAME_LENGTH = 64

#: Every key a manifest may have; anything else is a typo worth reporting.
MANIFEST_KEYS = ("name", "command", "working_dir", "build", "build_timeout_s", "env", "limits")


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file, the key and the value."""

    code = "bad_manifest"

    def __init__(self, path: Path | str, key: str | None, message: str) -> None:
        self.path = Path(path)
        self.key = key
        where = f"{self.path}" + (f": key {key!r}" if key else "")
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class BotManifest:
    """How to build and run one bot; ``working_dir`` is absolute, ``command`` and ``build``
    keep their placeholders."""

    name: str
    command: tuple[str, ...]
    working_dir: Path
    build: tuple[str, ...] | None = None
    build_timeout_s: float = DEFAULT_BUILD_TIMEOUT_S
    env: Mapping[str, str] = field(default_factory=dict, hash=False)
    path: Path | None = None  # the manifest file it came from, if any
    #: The ``[limits]`` table, checked, as numbers (a sandbox launcher applies them).
    resources: Mapping[str, int] = field(default_factory=dict, hash=False)

    @property
    def label(self) -> str:
        """The name with the manifest file, for messages: ``'random' (bots/x/bot.toml)``."""
        return f"{self.name!r}" + (f" ({self.path})" if self.path else "")


def load_manifest(path: str | Path) -> BotManifest:
    """Read and check the manifest at ``path``; raise :class:`ManifestError` if it is bad."""
    file_path = Path(path)
    try:
        raw = file_path.read_bytes()
    except OSError as exc:
        raise ManifestError(file_path, None, f"cannot read the manifest: {exc.strerror}") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ManifestError(file_path, None, f"not UTF-8 text: {exc.reason}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(file_path, None, f"not valid TOML: {exc}") from exc
    manifest = parse_manifest(data, path=file_path.resolve())
    if not manifest.working_dir.is_dir():
        raise ManifestError(
            file_path,
            "working_dir",
            f"{str(manifest.working_dir)!r} is not a directory",
        )
    return manifest


def parse_manifest(data: Mapping[str, Any], *, path: Path) -> BotManifest:
    """Check a manifest already parsed from TOML; ``path`` locates relative directories.

    Unlike :func:`load_manifest` this does not look at the file system, so a manifest can
    be built for a bot that is not there yet.
    """
    unknown = sorted(set(data) - set(MANIFEST_KEYS))
    if unknown:
        raise ManifestError(
            path,
            unknown[0],
            f"unknown key (allowed: {', '.join(MANIFEST_KEYS)})",
        )
    name = _name(path, data.get("name"))
    if "command" not in data:
        raise ManifestError(path, "command", 'is missing (an argument list, e.g. ["./bot"])')
    command = _argument_list(path, "command", data["command"])
    build = _argument_list(path, "build", data["build"]) if "build" in data else None
    working_dir = data.get("working_dir", ".")
    if not isinstance(working_dir, str) or not working_dir:
        raise ManifestError(path, "working_dir", f"must be a non-empty string, got {working_dir!r}")
    timeout = data.get("build_timeout_s", DEFAULT_BUILD_TIMEOUT_S)
    if (
        not isinstance(timeout, int | float)
        or isinstance(timeout, bool)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ManifestError(path, "build_timeout_s", f"must be a positive number, got {timeout!r}")
    env = data.get("env", {})
    if not isinstance(env, Mapping):
        raise ManifestError(path, "env", f"must be a table of strings, got {env!r}")
    for key, value in env.items():
        if not isinstance(value, str):
            raise ManifestError(path, f"env.{key}", f"must be a string, got {value!r}")
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ManifestError(path, f"env.{key}", "is not a valid environment variable")
    resources = _resources(path, data.get("limits", {}))
    return BotManifest(
        name=name,
        command=command,
        working_dir=(path.parent / working_dir).resolve(),
        build=build,
        build_timeout_s=float(timeout),
        env=dict(env),
        path=path,
        resources=resources,
    )


def _name(path: Path, name: object) -> str:
    """The bot's name, stripped: shown in terminals, tables, reports and chat, so it may
    hold no control character (an escape sequence, a newline, a bidi override would act
    there instead of showing) and at most :data:`MAX_NAME_LENGTH` characters."""
    if not isinstance(name, str) or not name.strip():
        raise ManifestError(path, "name", f"must be a non-empty string, got {name!r}")
    bad = control_characters(name)
    if bad:
        raise ManifestError(
            path,
            "name",
            f"holds the control character {bad[0]} (a name is shown in terminals and pages, "
            f"where it would act instead of showing): '{inert_text(name, max_length=80)}'",
        )
    name = name.strip()
    if len(name) > MAX_NAME_LENGTH:
        raise ManifestError(
            path,
            "name",
            f"is {len(name)} characters long, more than {MAX_NAME_LENGTH}: "
            f"'{inert_text(name, max_length=40)}'",
        )
    return name


def _resources(path: Path, table: object) -> dict[str, int]:
    if not isinstance(table, Mapping):
        raise ManifestError(path, "limits", f"must be a table of limits, got {table!r}")
    try:
        checked = DEFAULT_RESOURCES.with_overrides(table, source=str(path))
    except ResourceLimitsError as exc:
        raise ManifestError(path, f"limits.{exc.key}", f"{exc.reason}, got {exc.value!r}") from None
    return {key: getattr(checked, key) for key in table}


def _argument_list(path: Path, key: str, value: object) -> tuple[str, ...]:
    # A string would be split by a shell; we never use one, so only lists are accepted.
    if isinstance(value, str):
        raise ManifestError(
            path,
            key,
            f'must be an argument list like ["./bot", "--fast"], not the string {value!r}',
        )
    if not isinstance(value, list) or not value:
        raise ManifestError(path, key, f"must be a non-empty list of strings, got {value!r}")
    for index, item in enumerate(value):
        if not isinstance(item, str) or (index == 0 and not item):
            raise ManifestError(
                path, f"{key}[{index}]", f"must be a non-empty string, got {item!r}"
            )
        if "\0" in item:
            raise ManifestError(path, f"{key}[{index}]", f"contains a NUL byte: {item!r}")
    return tuple(value)
