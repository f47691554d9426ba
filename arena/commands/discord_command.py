"""``arena discord``: poker tables in a Discord server, people and bots at them.

The client connects with the token read from ``--token-file`` or the environment
(``ARENA_DISCORD_TOKEN``), never from the command line, where other users of the machine
could read it. Each manifest given is a bot people may seat at their tables (``!bot NAME``),
a bot process under the sandbox like in any match. Every table writes a run folder under
``--runs-dir`` (``hands.jsonl``, ``results.json``), which ``arena replay`` and
``arena report`` read. See ``docs/discord.md``.

discord.py is an optional extra: ``pip install '.[discord]'``. A client that cannot reach
Discord (no network, a refused token) ends with one line, exit code 1.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from arena.bots.build import build_bots
from arena.bots.process import process_factory
from arena.bots.transport import Transport
from arena.commands.common import load_manifests, open_launcher
from arena.discord.tables import TableManager
from arena.session.policy import TimeLimits
from arena.settings import UsageError, add_groups

__all__ = ["DESCRIPTION", "TOKEN_ENV", "add_arguments", "read_token", "run"]

#: The environment variable the token is read from when no --token-file is given.
TOKEN_ENV = "ARENA_DISCORD_TOKEN"

#: Runs the client until it is closed (tests replace it).
RunClient = Callable[[Any, str], None]


DESCRIPTION = (
    "Connect to Discord and wait for table commands (!poker lists them) in the channels "
    f"the bot may read. The token comes from --token-file or ${TOKEN_ENV}, never from "
    "the command line. See docs/discord.md."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena discord``'s arguments."""
    parser.add_argument(
        "manifests",
        nargs="*",
        type=Path,
        metavar="MANIFEST",
        help="bot.toml of a bot people may seat (by its manifest name)",
    )
    parser.add_argument(
        "--token-file",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"a file holding the bot's token (default: ${TOKEN_ENV})",
    )
    parser.add_argument(
        "--channel",
        type=int,
        action="append",
        default=[],
        metavar="ID",
        help="serve only this channel (repeat for more; default: every channel it can read)",
    )
    parser.add_argument(
        "--prefix", default="!", metavar="TEXT", help="the commands' prefix (default !)"
    )
    parser.add_argument(
        "--runs-dir",
        type=Path,
        default=Path("runs"),
        metavar="FOLDER",
        help="where each table's run folder goes (default runs)",
    )
    # People's time is the table's turn setting; this is the bots'.
    add_groups(parser, "limits", only=("limits.decision_timeout",))
    add_groups(parser, "sandbox")
    add_groups(parser, "output", only=("verbose",))


def read_token(token_file: Path | None, environ: Any = os.environ) -> str:
    """The token from ``token_file`` or the environment; ``ValueError`` saying what is
    missing (the token itself is never shown)."""
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read --token-file {str(token_file)!r}: {exc}") from None
        if not token:
            raise ValueError(f"--token-file {str(token_file)!r} is empty")
        return token
    token = str(environ.get(TOKEN_ENV, "")).strip()
    if not token:
        raise ValueError(f"no token: give --token-file PATH or set ${TOKEN_ENV}")
    return token


def run(args: argparse.Namespace, out: TextIO, *, run_client: RunClient | None = None) -> int:
    """Serve tables until the client is stopped (Ctrl-C); returns the exit code (0, or 1
    when Discord cannot be reached; a bad flag, manifest or token is a usage error)."""
    try:
        token = read_token(args.token_file)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    manifests = load_manifests(args.manifests)
    names = [manifest.name for manifest in manifests]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise UsageError(f"two bots are named {twice[0]!r}; names must differ")
    try:
        from arena.discord.bot import create_bot  # here: discord.py is an optional extra
    except ImportError:  # pragma: no cover - the extra is installed where tests run
        raise UsageError("discord.py is not installed: pip install '.[discord]'") from None
    launcher = open_launcher(args, out)
    try:
        for bot in build_bots(((m.name, m) for m in manifests), launcher=launcher):
            if not bot.result.is_ok:
                # Noted, not refused: the bot fails to start at a table that seats it.
                out.write(f"note: building {bot.manifest.label} failed: {bot.result.reason}\n")
        bots: dict[str, Callable[[], Transport]] = {
            m.name: process_factory(m, launcher=launcher) for m in manifests
        }
        managers: list[TableManager] = []

        def make_manager(sink: Any) -> TableManager:
            manager = TableManager(
                sink, bots, args.runs_dir, time_limits=TimeLimits(decision_s=args.decision_timeout)
            )
            managers.append(manager)
            return manager

        client, _sink = create_bot(make_manager, prefix=args.prefix, channels=args.channel)
        out.write(f"bots: {', '.join(names) or 'none'}; connecting to Discord...\n")
        out.flush()
        try:
            (run_client or _run)(client, token)
        except OSError as exc:
            # aiohttp's connector errors are OSErrors: no network, a name that does not
            # resolve. One line, not the client library's traceback.
            out.write(f"arena discord: cannot reach Discord: {exc}\n")
            return 1
        finally:
            for manager in managers:
                manager.close()
    finally:
        launcher.close()
    return 0


def _run(client: Any, token: str) -> None:  # pragma: no cover - needs Discord itself
    import discord  # here: discord.py is an optional extra

    try:
        client.run(token)
    except discord.LoginFailure as exc:
        raise SystemExit(f"arena discord: error: Discord refused the token: {exc}") from None
