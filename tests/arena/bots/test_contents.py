"""A bot is known by the content of its folder: an edit, a new file, a removed file or a
changed link is a change; caches and version control are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.contents import BotContents, changed_files, folder_contents


def _bot(folder: Path) -> Path:
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "lib" / "util.py").write_text("X = 1\n")
    (folder / "bot.toml").write_text('name = "b"\ncommand = ["{python}", "bot.py"]\n')
    return folder


def test_the_same_files_give_the_same_digest_wherever_the_folder_is(tmp_path: Path) -> None:
    one = folder_contents(_bot(tmp_path / "one"))
    two = folder_contents(_bot(tmp_path / "two"))
    assert one == two and one.digest == two.digest
    assert set(one.files) == {"bot.py", "bot.toml", "lib/util.py"}


def test_an_edited_file_is_named_as_changed(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "b")
    before = folder_contents(folder)
    (folder / "lib" / "util.py").write_text("X = 2\n")
    after = folder_contents(folder)
    assert before.digest != after.digest
    assert changed_files(before, after) == ("lib/util.py",)


def test_added_and_removed_files_are_changes(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "b")
    before = folder_contents(folder)
    (folder / "bot.py").unlink()
    (folder / "new.py").write_text("")
    assert changed_files(before, folder_contents(folder)) == ("bot.py", "new.py")


def test_caches_and_version_control_do_not_count(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "b")
    before = folder_contents(folder)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    (folder / "lib" / "util.pyc").write_bytes(b"\0")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref\n")
    assert folder_contents(folder) == before


def test_links_count_by_their_target_and_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("a")
    folder = _bot(tmp_path / "b")
    (folder / "data").symlink_to(outside)
    (folder / "model").symlink_to(outside / "secret")
    before = folder_contents(folder)
    assert "data" in before.files and "data/secret" not in before.files
    (outside / "secret").write_text("b")  # the target's content is not the bot's
    assert folder_contents(folder) == before
    (folder / "model").unlink()
    (folder / "model").symlink_to(folder / "bot.py")
    assert changed_files(before, folder_contents(folder)) == ("model",)


def test_an_unreadable_file_counts_by_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _bot(tmp_path / "b")
    real_open = open

    def refuse(path: object, *args: object, **kwargs: object) -> object:
        if str(path).endswith("bot.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", refuse)
    assert folder_contents(folder).files["bot.py"] == "unreadable: Permission denied"


def test_contents_round_trip_through_json_and_refuse_other_shapes() -> None:
    contents = BotContents({"b.py": "2", "a.py": "1"})
    assert contents.to_json() == '{"a.py":"1","b.py":"2"}'
    assert BotContents.from_json(contents.to_json()) == contents
    for bad in ("[]", '{"a": 1}', "{1: 2}"):
        with pytest.raises(ValueError):
            BotContents.from_json(bad)
