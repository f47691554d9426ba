"""A bot's name is shown in terminals, tables, reports and chat: the manifest refuses one
that would act there (control characters, bidi overrides, line breaks) or is too long."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.manifest import MAX_NAME_LENGTH, ManifestError, load_manifest, parse_manifest

PATH = Path("/bots/x/bot.toml")


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("evil\x1b[2J\x1b]0;pwned\x07 bot", "\\x1b"),
        ("nul\x00byte", "\\x00"),
        ("c1\x9bcontrol", "\\x9b"),
        ("next\x85line", "\\x85"),
        ("gnirts\u202ereversed", "\\u202e"),
        ("two\nlines", "\\n"),
        ("tab\tbed", "\\t"),
        ("line\u2028separator", "\\u2028"),
    ],
)
def test_a_name_with_a_control_character_is_refused_naming_it_by_its_escape(
    name: str, shown: str
) -> None:
    with pytest.raises(ManifestError) as info:
        parse_manifest({"name": name, "command": ["./bot"]}, path=PATH)
    message = str(info.value)
    assert f"key 'name': holds the control character {shown} " in message
    assert message.isprintable()  # the error itself shows the name inert


def test_a_name_longer_than_the_limit_is_refused_and_one_at_the_limit_is_not() -> None:
    longest = "b" * MAX_NAME_LENGTH
    assert parse_manifest({"name": longest, "command": ["./bot"]}, path=PATH).name == longest
    with pytest.raises(ManifestError, match=f"10000 characters long, more than {MAX_NAME_LENGTH}"):
        parse_manifest({"name": "b" * 10_000, "command": ["./bot"]}, path=PATH)


def test_a_name_is_stripped_and_may_hold_any_printable_text() -> None:
    data = {"name": "  Größe 🂡 **bold** @everyone  ", "command": ["./bot"]}
    assert parse_manifest(data, path=PATH).name == "Größe 🂡 **bold** @everyone"


def test_a_manifest_file_with_an_escape_in_its_name_fails_to_load(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text('name = "evil\\u001b[2J bot"\ncommand = ["./bot"]\n')
    with pytest.raises(ManifestError, match=r"control character \\x1b"):
        load_manifest(path)
