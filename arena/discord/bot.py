"""The Discord client: chat commands in, the table manager's texts out. Nothing else.

Prefix commands (``!`` by default; discord.py's message commands, which need the message
content intent): ``!open [settings]``, ``!join``, ``!leave``, ``!bot NAME``, ``!bots``,
``!start``, ``!status``, and during a hand ``!check``, ``!call``, ``!fold``, ``!bet 40``,
``!raise to 120``, ``!all in`` (or ``!allin``), or any entry after ``!act``. ``!poker``
lists them. Each command is one call of :class:`~arena.discord.tables.TableManager`; its
reply goes back to the channel. What the tables send from their worker threads goes
through a :class:`DiscordSink`, which keeps their order: the channel's texts to the
channel, a person's to their direct messages.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Coroutine
from typing import Any

import discord
from discord.ext import commands

from arena.discord.settings import SETTINGS_HELP
from arena.discord.tables import TableManager

__all__ = [
    "MAX_MESSAGE_CHARS",
    "NO_MENTIONS",
    "DiscordSink",
    "create_bot",
    "help_text",
    "split_text",
]

_log = logging.getLogger(__name__)

#: Discord's limit on one message's length.
MAX_MESSAGE_CHARS = 2000

#: Every message is sent with mentions off: a name like ``@everyone`` (a person's display
#: name, a bot's manifest name, a bot name typed after ``!bot``) must never ping anyone.
#: Names are also escaped where they are written (:mod:`arena.discord.markup`).
NO_MENTIONS = discord.AllowedMentions.none()

Context = commands.Context[commands.Bot]


def help_text(prefix: str) -> str:
    """The commands, as ``!poker`` lists them."""
    p = prefix
    return (
        f"**Poker table commands** (prefix `{p}`)\n"
        f"`{p}open [settings]` open a table here ({SETTINGS_HELP})\n"
        f"`{p}join` / `{p}leave` take or leave a seat · `{p}bot NAME` seat a bot "
        f"(`{p}bots` lists them) · `{p}start` deal (the host) · `{p}status` the table\n"
        f"On your turn: `{p}check` `{p}call` `{p}fold` `{p}bet 40` `{p}raise to 120` "
        f"`{p}all in` (amounts are totals: your bet after the raise)\n"
        "Your cards come by direct message; leaving a started table folds your seat "
        "every hand."
    )


def split_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at line ends when possible.

    >>> split_text("ab\\ncd", limit=3)
    ['ab', 'cd']
    >>> split_text("abcdef", limit=4)
    ['abcd', 'ef']
    """
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit + 1)
        if cut <= 0:
            pieces.append(rest[:limit])
            rest = rest[limit:]
        else:
            pieces.append(rest[:cut])
            rest = rest[cut + 1 :]
    if rest.strip():
        pieces.append(rest)
    return pieces


class DiscordSink:
    """The tables' texts, from any thread, sent in order by one task of the client's loop."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[tuple[bool, int, str] | None] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start sending (on the client's running loop); calling it again does nothing."""
        if self._task is None:
            self._loop = asyncio.get_running_loop()
            self._queue = asyncio.Queue()
            self._task = self._loop.create_task(self._send_all())

    async def stop(self) -> None:
        """Send what is queued, then stop."""
        if self._task is not None and self._queue is not None:
            self._queue.put_nowait(None)
            await self._task
            self._task = None

    def to_channel(self, channel_id: int, text: str) -> None:
        """Queue ``text`` for the channel."""
        self._put((True, channel_id, text))

    def to_person(self, user_id: int, text: str) -> None:
        """Queue ``text`` for a person's direct messages."""
        self._put((False, user_id, text))

    def _put(self, item: tuple[bool, int, str]) -> None:
        if self._loop is None or self._queue is None:
            raise RuntimeError("the Discord sink is not started")
        if self._loop.is_closed():
            # The client has shut down: a table closing after it has nobody to tell.
            _log.info("not sent (the client is closed): %s", item[2][:80])
            return
        self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    async def _send_all(self) -> None:
        assert self._queue is not None
        while True:
            item = await self._queue.get()
            if item is None:
                return
            try:
                await self._send(*item)
            except discord.DiscordException:
                # A person who blocks direct messages, a channel gone: the game goes on.
                _log.warning("could not send to %s", item[1], exc_info=True)

    async def _send(self, is_channel: bool, target_id: int, text: str) -> None:
        target: Any
        if is_channel:
            target = self.client.get_channel(target_id) or await self.client.fetch_channel(
                target_id
            )
        else:
            target = self.client.get_user(target_id) or await self.client.fetch_user(target_id)
        for piece in split_text(text):
            await target.send(piece, allowed_mentions=NO_MENTIONS)


def create_bot(
    make_manager: Callable[[DiscordSink], TableManager],
    *,
    prefix: str = "!",
    channels: Collection[int] = (),
    intents: discord.Intents | None = None,
) -> tuple[commands.Bot, DiscordSink]:
    """The Discord client with the table commands; ``make_manager`` builds the tables'
    manager over the client's sink. With ``channels``, only those channels are served.
    ``intents`` default to the default ones and the message content (a test's fake
    server also needs the members)."""
    if intents is None:
        intents = discord.Intents.default()
        intents.message_content = True  # prefix commands read the message's text
    bot = commands.Bot(
        command_prefix=prefix, intents=intents, help_command=None, allowed_mentions=NO_MENTIONS
    )
    sink = DiscordSink(bot)
    manager = make_manager(sink)
    allowed = frozenset(channels)

    @bot.check
    async def served_here(ctx: Context) -> bool:
        sink.start()
        return ctx.guild is not None and (not allowed or ctx.channel.id in allowed)

    @bot.event
    async def on_command_error(ctx: Context, error: commands.CommandError) -> None:
        if isinstance(error, commands.CommandNotFound | commands.CheckFailure):
            return  # another bot's command, or a channel this one does not serve
        if isinstance(error, commands.UserInputError):
            await ctx.send(f"{error} (see {prefix}poker)", allowed_mentions=NO_MENTIONS)
            return
        raise error

    async def answer(ctx: Context, reply: str) -> None:
        for piece in split_text(reply):
            await ctx.send(piece, allowed_mentions=NO_MENTIONS)

    def act(entry: Callable[[str], str]) -> Callable[..., Coroutine[Any, Any, None]]:
        async def command(ctx: Context, *, rest: str = "") -> None:
            await answer(ctx, manager.act(ctx.channel.id, ctx.author.id, entry(rest)))

        return command

    @bot.command(name="poker")
    async def poker(ctx: Context) -> None:
        await answer(ctx, help_text(prefix))

    @bot.command(name="open")
    async def open_table(ctx: Context, *, settings: str = "") -> None:
        name = ctx.author.display_name
        await answer(ctx, manager.open(ctx.channel.id, ctx.author.id, name, settings))

    @bot.command(name="join")
    async def join(ctx: Context) -> None:
        name = ctx.author.display_name
        await answer(ctx, manager.join(ctx.channel.id, ctx.author.id, name))

    @bot.command(name="leave")
    async def leave(ctx: Context) -> None:
        await answer(ctx, manager.leave(ctx.channel.id, ctx.author.id))

    @bot.command(name="bot")
    async def seat_bot(ctx: Context, *, name: str) -> None:
        # The rest of the line: a manifest's name may have spaces.
        await answer(ctx, manager.seat_bot(ctx.channel.id, ctx.author.id, name))

    @bot.command(name="bots")
    async def bots(ctx: Context) -> None:
        await answer(ctx, "Bots: " + (", ".join(sorted(manager.bots)) or "none configured"))

    @bot.command(name="start")
    async def start(ctx: Context) -> None:
        await answer(ctx, manager.start(ctx.channel.id, ctx.author.id))

    @bot.command(name="status", aliases=["table"])
    async def status(ctx: Context) -> None:
        await answer(ctx, manager.status(ctx.channel.id))

    # The actions: each is the entry a person would type at the terminal seat.
    words = {
        "check": lambda rest: "check",
        "call": lambda rest: "call",
        "fold": lambda rest: "fold",
        "bet": lambda rest: f"bet {rest}",
        "raise": lambda rest: f"raise {rest}",
        "all": lambda rest: "all in",
        "allin": lambda rest: "all in",
        "act": lambda rest: rest,
    }
    for word, entry in words.items():
        bot.add_command(commands.Command(act(entry), name=word))
    return bot, sink
