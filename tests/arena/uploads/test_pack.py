"""arena.uploads.pack: the same folder gives the same bytes; caches are left out; a link
inside is packed as its file, a link out or to a folder is refused."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.uploads import ArchiveError, ArchiveLimits, inspect, pack


def bot_folder(root: Path) -> Path:
    folder = root / "bot"
    (folder / "src").mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "b"\ncommand = ["./run"]\n')
    (folder / "run").write_text("#!/bin/sh\n")
    (folder / "run").chmod(0o755)
    (folder / "src" / "main.py").write_text("print()\n")
    return folder


def members(archive: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        return {member.name: member for member in tar.getmembers()}


def test_packing_twice_gives_the_same_bytes_whatever_the_times(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    first = pack(folder)
    os.utime(folder / "bot.toml", (1, 1))
    assert pack(folder) == first
    found = members(first)
    assert list(found) == ["bot.toml", "run", "src", "src/main.py"]
    assert found["run"].mode == 0o755 and found["bot.toml"].mode == 0o644
    assert {member.mtime for member in found.values()} == {0}
    assert inspect(first).files == ("bot.toml", "run", "src/main.py")


def test_version_control_and_caches_are_left_out(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref\n")
    (folder / "src" / "__pycache__").mkdir()
    (folder / "src" / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    (folder / "old.pyc").write_bytes(b"\0")
    assert list(members(pack(folder))) == ["bot.toml", "run", "src", "src/main.py"]


def test_a_link_to_a_file_inside_is_packed_as_the_file(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    (folder / "main.py").symlink_to("src/main.py")
    archive = pack(folder)
    member = members(archive)["main.py"]
    assert member.isfile() and member.size == len("print()\n")


def test_a_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    (folder / "passwd").symlink_to("/etc/passwd")
    with pytest.raises(ArchiveError) as caught:
        pack(folder)
    assert caught.value.code == "link" and caught.value.entry == "passwd"
    assert "outside the folder" in str(caught.value)


def test_a_link_to_a_folder_is_refused(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    (folder / "lib").symlink_to("src")
    with pytest.raises(ArchiveError, match="entry 'lib': links are not accepted"):
        pack(folder)


def test_a_fifo_is_refused(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    os.mkfifo(folder / "pipe")
    with pytest.raises(ArchiveError, match="entry 'pipe': only files and folders"):
        pack(folder)


def test_a_name_the_server_refuses_is_refused_here(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    (folder / "bad\x1bname").write_text("")
    with pytest.raises(ArchiveError) as caught:
        pack(folder)
    assert caught.value.code == "control_character"


def test_the_limits_hold_while_packing(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    with pytest.raises(ArchiveError) as caught:
        pack(folder, ArchiveLimits(max_entry_count=2))
    assert caught.value.code == "too_many_entries"
    with pytest.raises(ArchiveError) as caught:
        pack(folder, ArchiveLimits(max_unpacked_bytes=20))
    assert caught.value.code == "unpacked_too_large"


def test_packing_what_is_not_a_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a folder"):
        pack(tmp_path / "missing")
