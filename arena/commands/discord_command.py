"""``arena discord``: poker tables in a Discord server, people and bots at them.

The client connects with the token read from ``--token-file`` or the environment
(``ARENA_DISCORD_TOKEN``), never from the command line, where other users of the machine
could read it. Each manifest given is a bot people may seat at their tables (``!bot NAME``),
a bot process under the sandbox like in any match. Every table writes a run folder under
``--runs-dir`` (``hands.jsonl``, ``results.json``), which ``arena replay`` and
``arena report`` read. See ``docs/discord.md``.

``add_discord_parser`` adds the command to ``arena``'s parser; ``run_discord_command`` runs
it (discord.py is an optional extra: ``pip install '.[discord]'``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from arena.bots.build import run_build
from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.bots.process import process_factory
from arena.bots.sandbox.select import SandboxLevel
from arena.bots.transport import BotStartError, Transport
from arena.commands.play import open_launcher
from arena.commands.values import duration, fail
from arena.discord.tables import TableManager

__all__ = ["TOKEN_ENV", "add_discord_parser", "read_token", "run_discord_command"]

#: The environment variable the token is read from when no --token-file is given.
TOKEN_ENV = "ARENA_DISCORD_TOKEN"

#: Runs the client until it is closed (tests replace it).
RunClient = Callable[[Any, str], None]


def add_discord_parser(commands: Any) -> argparse.ArgumentParser:
    """Add ``discord`` to the ``arena`` subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "discord",
        help="host poker tables in a Discord server: people and bots play by chat commands",
        description=(
            "Connect to Discord and wait for table commands (!poker lists them) in the "
            "channels the bot may read. The token comes from --token-file or "
            f"${TOKEN_ENV}, never from the command line. See docs/discord.md."
        ),
    )
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
    parser.add_argument("--prefix", default="!", help="the commands' prefix (default !)")
    parser.add_argument(
        "--runs-dir",
        type=Path,
        default=Path("runs"),
        help="where each table's run folder goes (default runs)",
    )
    parser.add_argument(
        "--decision-timeout",
        type=duration,
        default=5.0,
        metavar="T",
        help="the bots' time per decision (5); people's is the table's turn setting",
    )
    parser.add_argument(
        "--sandbox",
        choices=[level.value for level in SandboxLevel],
        default=None,
        help="how the bots are isolated (default: the strongest layer that works here)",
    )
    return parser


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


def run_discord_command(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    out: TextIO,
    *,
    run_client: RunClient | None = None,
) -> int:
    """Serve tables until the client is stopped (Ctrl-C); returns the exit code (0, or 2
    for a bad flag, manifest or token)."""
    try:
        token = read_token(args.token_file)
    except ValueError as exc:
        fail(parser, "discord", str(exc))
    try:
        manifests = [load_manifest(path) for path in args.manifests]
    except ManifestError as exc:
        fail(parser, "discord", f"bad manifest: {exc}")
    names = [manifest.name for manifest in manifests]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        fail(parser, "discord", f"two bots are named {twice[0]!r}; names must differ")
    try:
        from arena.discord.bot import create_bot  # here: discord.py is an optional extra
    except ImportError:  # pragma: no cover - the extra is installed where tests run
        fail(parser, "discord", "discord.py is not installed: pip install '.[discord]'")
    launcher = open_launcher(args, parser, out)
    try:
        for manifest in manifests:
            _build(manifest, launcher, out)
        bots: dict[str, Callable[[], Transport]] = {
            m.name: process_factory(m, launcher=launcher) for m in manifests
        }
        managers: list[TableManager] = []

        def make_manager(sink: Any) -> TableManager:
            manager = TableManager(
                sink, bots, args.runs_dir, decision_timeout_s=args.decision_timeout
            )
            managers.append(manager)
            return manager

        client, _sink = create_bot(make_manager, prefix=args.prefix, channels=args.channel)
        out.write(f"bots: {', '.join(names) or 'none'}; connecting to Discord...\n")
        out.flush()
        try:
            (run_client or _run)(client, token)
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


def _build(manifest: BotManifest, launcher: Any, out: TextIO) -> None:
    """Build a bot; a failed build is noted (the bot then fails to start at its table)."""
    try:
        build = run_build(manifest, launcher=launcher)
    except BotStartError as exc:
        out.write(f"note: building {manifest.label} failed: {exc}\n")
        return
    if not build.is_ok:
        out.write(f"note: building {manifest.label} failed: {build.reason}\n")
