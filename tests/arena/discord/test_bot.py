"""The Discord client offline, with dpytest: commands in a channel, texts out."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import discord.ext.test as dpytest
import pytest
import pytest_asyncio
from discord.ext import commands

from arena.discord.bot import DiscordSink, create_bot, help_text, split_text
from arena.discord.markup import chat_name
from arena.discord.table import TableState
from arena.discord.tables import TableManager
from tests.arena.discord.helpers import CARD, WAIT_S, station_factory


class Harness:
    """The client under dpytest, its manager, and every message it sent."""

    def __init__(self, bot: commands.Bot, sink: DiscordSink, manager: TableManager) -> None:
        self.bot, self.sink, self.manager = bot, sink, manager
        self.sent: list[discord.Message] = []

    async def drain(self) -> None:
        """Move what the client sent into ``sent`` (after the sink's queue emptied)."""
        await asyncio.sleep(0)
        await dpytest.run_all_events()
        while not dpytest.sent_queue.empty():
            self.sent.append(dpytest.get_message())

    def channel_texts(self) -> list[str]:
        return [m.content for m in self.sent if isinstance(m.channel, discord.TextChannel)]

    def direct_texts(self, member: discord.Member) -> list[str]:
        dm = member.dm_channel  # dpytest's direct messages name no recipient: match the channel
        assert dm is not None
        return [m.content for m in self.sent if m.channel.id == dm.id]


@pytest_asyncio.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    made: list[TableManager] = []

    def make_manager(sink: DiscordSink) -> TableManager:
        manager = TableManager(sink, {"station": station_factory}, tmp_path, seed=lambda: 3)
        made.append(manager)
        return manager

    bot, sink = create_bot(make_manager, intents=discord.Intents.all())
    await bot._async_setup_hook()
    dpytest.configure(bot, members=["ann", "bob"])
    yield Harness(bot, sink, made[0])
    made[0].close(WAIT_S)
    await sink.stop()
    await dpytest.empty_queue()


async def say(harness: Harness, text: str, member: int) -> None:
    await dpytest.message(text, member=member)
    await harness.drain()


async def wait_for(harness: Harness, predicate: object) -> None:
    """Let the worker thread and the sink run until ``predicate()`` holds."""
    assert callable(predicate)
    for _ in range(int(WAIT_S / 0.005)):
        await harness.drain()
        if predicate():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the table did not get there")


@pytest.mark.asyncio
async def test_two_people_and_a_bot_play_through_chat_commands(harness: Harness) -> None:
    config = dpytest.get_config()
    ann, bob = config.members
    ann_name = chat_name(ann.display_name)  # as the channel shows it: plain text
    await say(harness, "!open stack=100 blinds=1/20 level=1h", 0)
    assert harness.channel_texts()[-1].startswith(f"{ann_name} opened a table: stacks 100")
    await say(harness, "!join", 1)
    await say(harness, "!bot station", 0)
    await say(harness, "!status", 1)
    assert "`seat 2` station (bot)" in harness.channel_texts()[-1]
    await say(harness, "!start", 0)
    table = harness.manager.table(config.channels[0].id)
    assert table is not None
    await wait_for(harness, lambda: table.turn() is not None)
    # Bob acts out of turn; then Ann's bad entry, then her real action.
    await say(harness, "!fold", 1)
    assert harness.channel_texts()[-1] == (f"It is not your turn: it is {ann_name}'s turn.")
    await say(harness, "!bet 3", 0)
    assert "below minimum 10. You may: fold, call 5, raise 10..100" in harness.channel_texts()[-1]
    await say(harness, "!raise to 20", 0)
    await wait_for(
        harness,
        lambda: any(f"{ann_name} raises to 20" in t for t in harness.channel_texts()),
    )
    turn = None
    while table.state is not TableState.OVER:
        turn = await asyncio.to_thread(table.wait_turn, WAIT_S, after=turn)
        if turn is not None and turn.seat_index in (0, 1):
            await say(harness, "!all in", turn.seat_index)
    await asyncio.to_thread(table.join, WAIT_S)
    await wait_for(harness, lambda: harness.channel_texts()[-1].startswith("Hand history:"))
    # Hole cards went by direct message; the channel shows board and shown cards only.
    assert any("Your cards: " in text for text in harness.direct_texts(ann))
    assert any("Your cards: " in text for text in harness.direct_texts(bob))
    assert not any("Your cards" in text for text in harness.channel_texts())
    assert any("Match over" in text for text in harness.channel_texts())
    for text in harness.channel_texts():
        if CARD.search(text):
            assert "Board:" in text or " shows " in text, text


@pytest.mark.asyncio
async def test_help_and_the_bots_and_a_missing_argument(harness: Harness) -> None:
    await say(harness, "!poker", 0)
    assert harness.channel_texts()[-1] == help_text("!")
    await say(harness, "!bots", 0)
    assert harness.channel_texts()[-1] == "Bots: station"
    # dpytest raises what the client's error handler saw, after the handler ran.
    with pytest.raises(commands.MissingRequiredArgument):
        await dpytest.message("!bot", member=0)
    await harness.drain()
    assert harness.channel_texts()[-1] == (
        "name is a required argument that is missing. (see !poker)"
    )
    before = len(harness.sent)
    with pytest.raises(commands.CommandNotFound):  # another bot's command: no answer
        await dpytest.message("!dance", member=0)
    await harness.drain()
    assert len(harness.sent) == before


def test_long_texts_are_split_for_discord() -> None:
    text = "\n".join(["x" * 1500, "y" * 1500])
    assert split_text(text) == ["x" * 1500, "y" * 1500]


@pytest.mark.asyncio
async def test_a_channel_not_served_gets_no_answer(tmp_path: Path) -> None:
    def make_manager(sink: DiscordSink) -> TableManager:
        return TableManager(sink, {}, tmp_path)

    bot, sink = create_bot(make_manager, channels=[12345], intents=discord.Intents.all())
    await bot._async_setup_hook()
    dpytest.configure(bot)
    with pytest.raises(commands.CheckFailure):
        await dpytest.message("!open")
    assert dpytest.sent_queue.empty()
    await sink.stop()
    await dpytest.empty_queue()
