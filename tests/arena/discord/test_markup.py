"""A name in chat is text: ``@everyone`` never pings, ``**`` and ``||`` never format, and
every message goes out with mentions off."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import discord

from arena.discord.bot import NO_MENTIONS, DiscordSink, create_bot
from arena.discord.markup import chat_name
from tests.arena.discord.helpers import RecordingSink, manager, play_out, station_factory

CHANNEL, ANN, BOB = 7, 1, 2
PERSON = "@everyone **boss** ||x||"
BOT = "@here __bot__"


def test_a_name_shows_as_plain_text_without_a_mention_or_markup() -> None:
    shown = chat_name(PERSON)
    assert shown == "@\u200beveryone \\*\\*boss\\*\\* \\|\\|x\\|\\|"
    assert chat_name("<@123> `x` > #h -l [a](b) :e: ~s~ \\") == (
        "\\<@\u200b123\\> \\`x\\` \\> \\#h \\-l \\[a\\]\\(b\\) \\:e\\: \\~s\\~ \\\\"
    )
    assert chat_name("bidi\u202e\x1b[2J") == "bidi\\\\u202e\\\\x1b\\[2J"


def test_every_text_of_a_table_names_people_and_bots_as_plain_text(tmp_path: Path) -> None:
    sink = RecordingSink()
    tables = manager(sink, tmp_path, **{BOT: station_factory})
    replies = [
        tables.open(CHANNEL, ANN, PERSON, "stack=100 blinds=1/20 level=1h"),
        tables.join(CHANNEL, BOB, "bob"),
        tables.seat_bot(CHANNEL, ANN, BOT),
        tables.seat_bot(CHANNEL, ANN, "@everyone"),  # no such bot: the reply quotes it
        tables.status(CHANNEL),
        tables.start(CHANNEL, ANN),
    ]
    replies += play_out(tables, CHANNEL, {0: lambda table: "all in", 1: lambda table: "call"})
    texts = replies + [sent.text for sent in sink.sent]
    assert any(chat_name(PERSON) in text for text in texts)
    assert any(chat_name(BOT) in text for text in texts)
    for text in texts:
        assert "@everyone" not in text and "@here" not in text, text
        assert "**boss**" not in text and "||x||" not in text and "__bot__" not in text, text


class _Target:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def send(self, text: str, **options: Any) -> None:
        self.sent.append((text, options.get("allowed_mentions")))


class _Client:
    def __init__(self, target: _Target) -> None:
        self.target = target

    def get_channel(self, channel_id: int) -> _Target:
        return self.target

    def get_user(self, user_id: int) -> _Target:
        return self.target


def test_the_sink_sends_every_message_with_mentions_off() -> None:
    target = _Target()

    async def run() -> None:
        sink = DiscordSink(_Client(target))  # type: ignore[arg-type]
        sink.start()
        sink.to_channel(CHANNEL, "@everyone hello")
        sink.to_person(ANN, "x" * 2500)  # two messages
        await asyncio.sleep(0)
        await sink.stop()

    asyncio.run(run())
    assert len(target.sent) == 3
    assert all(options is NO_MENTIONS for _, options in target.sent)


def test_the_client_mentions_nobody_by_default() -> None:
    bot, _ = create_bot(lambda sink: manager(RecordingSink(), Path(".")))
    assert bot.allowed_mentions is NO_MENTIONS
    assert NO_MENTIONS.everyone is False and NO_MENTIONS.users is False
    assert NO_MENTIONS.roles is False and isinstance(NO_MENTIONS, discord.AllowedMentions)
