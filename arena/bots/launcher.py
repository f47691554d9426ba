"""Turning a manifest into the exact argv, directory and environment of a bot process.

:class:`Launcher` is the one seam a sandbox will wrap (a container, ``bwrap``, resource
limits): it receives a manifest and returns a :class:`LaunchSpec`; the process code runs
whatever spec it gets. :class:`DirectLauncher`, the default, runs the bot as it is.

Placeholders in ``command`` and ``build`` arguments (documented in :mod:`arena.bots.manifest`):
``{python}`` becomes the arena's own interpreter, ``{bot_dir}`` the bot's directory.

>>> expand_placeholders(["{python}", "{bot_dir}/bot.py"], python="/usr/bin/python3",
...                     bot_dir=Path("/bots/a"))
('/usr/bin/python3', '/bots/a/bot.py')
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from arena.bots.manifest import BotManifest
from arena.bots.sandbox.cgroup import BotCgroup
from arena.bots.sandbox.resources import ResourceLimits

__all__ = [
    "DirectLauncher",
    "LaunchSpec",
    "Launcher",
    "expand_placeholders",
]


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """Exactly what to execute: no shell, no further expansion.

    ``resources``, when set, are watched by the process code while the bot runs (its tree's
    memory, CPU time and process count; :mod:`arena.bots.sandbox.watch`).
    ``private_dir`` is the bot's own temporary directory (its working copy, home and
    temporary files): a wrapping layer makes it the bot's only writable place, and the
    process code removes it when the bot is closed.
    ``cgroup``, when set, is the bot's own cgroup, which ``argv`` joins before anything
    else runs (:func:`arena.bots.sandbox.cgroup.join_command`); the process code removes
    it when the bot is closed.
    """

    argv: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str] = field(hash=False)
    resources: ResourceLimits | None = None
    private_dir: Path | None = None
    cgroup: BotCgroup | None = None


class Launcher(Protocol):
    """Prepares the bot's command (the seam a sandbox wraps)."""

    def prepare(self, manifest: BotManifest) -> LaunchSpec:
        """The spec to run ``manifest.command``."""
        ...

    def prepare_build(self, manifest: BotManifest) -> LaunchSpec | None:
        """The spec to run ``manifest.build``, or None when the bot has no build step."""
        ...


def expand_placeholders(argv: Iterable[str], *, python: str, bot_dir: Path) -> tuple[str, ...]:
    """Replace ``{python}`` and ``{bot_dir}`` inside each argument."""
    return tuple(arg.replace("{python}", python).replace("{bot_dir}", str(bot_dir)) for arg in argv)


class DirectLauncher:
    """Runs the bot directly as the arena's user (no sandbox).

    The environment is the arena's own plus the manifest's ``env``, plus
    ``PYTHONUNBUFFERED=1``: Python bots that forget to flush would otherwise sit on a
    full buffer and time out, and other programs ignore the variable.
    """

    def __init__(
        self,
        *,
        python: str = sys.executable,
        base_env: Mapping[str, str] | None = None,
    ) -> None:
        self.python = python
        self.base_env = dict(os.environ if base_env is None else base_env)

    def prepare(self, manifest: BotManifest) -> LaunchSpec:
        """Expand placeholders, resolve a relative program path, merge the environment."""
        return self._spec(manifest, manifest.command)

    def prepare_build(self, manifest: BotManifest) -> LaunchSpec | None:
        """Like :meth:`prepare` for the build command."""
        return None if manifest.build is None else self._spec(manifest, manifest.build)

    def _spec(self, manifest: BotManifest, argv: tuple[str, ...]) -> LaunchSpec:
        bot_dir = manifest.working_dir
        expanded = list(expand_placeholders(argv, python=self.python, bot_dir=bot_dir))
        program = expanded[0]
        # "build/bot" means the file in the bot's directory; how exec resolves a relative
        # path with a cwd differs between platforms, so make it absolute here.
        if os.sep in program and not os.path.isabs(program):
            expanded[0] = str(bot_dir / program)
        env = {**self.base_env, **manifest.env, "PYTHONUNBUFFERED": "1"}
        return LaunchSpec(argv=tuple(expanded), cwd=bot_dir, env=env)
