"""arena.uploads: every archive rule refuses its hostile archive with a message naming the
rule and the entry, writes nothing, and leaves no folder; good archives unpack whole."""

from __future__ import annotations

import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.uploads import ArchiveError, ArchiveLimits, inspect, pack, unpack
from arena.uploads.formats import Entry, EntryKind, tar_second_layer
from tests import REPO_ROOT
from tests.arena.uploads import hostile

BIG_ARCHIVES = ArchiveLimits(max_archive_bytes=64 * 1024 * 1024)


def refused(
    archive: bytes, dest: Path, archive_limits: ArchiveLimits = BIG_ARCHIVES
) -> ArchiveError:
    """The refusal of ``archive``, checked to leave no folder behind."""
    with pytest.raises(ArchiveError) as caught:
        unpack(archive, dest, archive_limits)
    assert not dest.exists()
    return caught.value


def test_zip_slip_is_refused_naming_the_entry(tmp_path: Path) -> None:
    archive = hostile.zip_bytes(("bot.py", b"ok"), ("../../evil.sh", b"rm -rf ~"))
    error = refused(archive, tmp_path / "bot")
    assert error.code == "leaves_folder"
    assert str(error) == "entry '../../evil.sh': a path may not leave the bot's folder"
    assert not (tmp_path / "evil.sh").exists()


def test_dot_dot_inside_a_tar_path_is_refused(tmp_path: Path) -> None:
    error = refused(hostile.tar_gz(hostile.file_info("src/../../x")), tmp_path / "bot")
    assert error.code == "leaves_folder"


def test_a_symlink_to_etc_is_refused_in_a_tar(tmp_path: Path) -> None:
    archive = hostile.tar_gz(hostile.special_info("etc", tarfile.SYMTYPE, "/etc"))
    error = refused(archive, tmp_path / "bot")
    assert error.code == "link"
    assert "entry 'etc'" in str(error) and "'/etc'" in str(error)


def test_a_symlink_is_refused_in_a_zip_even_pointing_inside(tmp_path: Path) -> None:
    archive = hostile.zip_bytes(("bot.py", b"ok"), hostile.zip_symlink("alias.py", "bot.py"))
    assert refused(archive, tmp_path / "bot").code == "link"


def test_a_hardlink_out_is_refused(tmp_path: Path) -> None:
    link = hostile.special_info("passwd", tarfile.LNKTYPE, "../../etc/passwd")
    assert refused(hostile.tar_gz(link), tmp_path / "bot").code == "link"


@pytest.mark.parametrize(
    ("kind", "word"),
    [(tarfile.CHRTYPE, "device"), (tarfile.BLKTYPE, "device"), (tarfile.FIFOTYPE, "fifo")],
)
def test_a_device_or_fifo_in_a_tar_is_refused(tmp_path: Path, kind: bytes, word: str) -> None:
    error = refused(hostile.tar_gz(hostile.special_info("dev", kind)), tmp_path / "bot")
    assert error.code == "special_file"
    assert f"not a {word}" in str(error)


def test_a_device_in_a_zip_is_refused(tmp_path: Path) -> None:
    info = zipfile.ZipInfo("null")
    info.external_attr = (stat.S_IFCHR | 0o666) << 16
    assert refused(hostile.zip_bytes((info, b"")), tmp_path / "bot").code == "special_file"


def test_a_10_gib_tar_gz_bomb_is_refused_after_a_few_megabytes(tmp_path: Path) -> None:
    archive = hostile.tar_gz_bomb()
    error = refused(archive, tmp_path / "bot")
    assert error.code == "compression_ratio"


def test_a_10_gib_zip_bomb_is_refused_after_a_few_megabytes(tmp_path: Path) -> None:
    error = refused(hostile.zip_bomb(), tmp_path / "bot")
    assert error.code == "compression_ratio"


def test_100000_empty_files_are_refused_by_the_entry_limit() -> None:
    # inspect: the same rules without writing the first 2,000 files (slow on some disks).
    with pytest.raises(ArchiveError) as caught:
        inspect(hostile.many_empty_files_tar_gz(100_000), BIG_ARCHIVES)
    error = caught.value
    assert error.code == "too_many_entries"
    assert "more than 2,000 entries" in str(error)


def test_a_zip_with_too_many_entries_is_refused_before_reading_any(tmp_path: Path) -> None:
    error = refused(hostile.many_empty_files_zip(2001), tmp_path / "bot")
    assert error.code == "too_many_entries"


def test_the_unpacked_size_is_counted_not_taken_from_headers(tmp_path: Path) -> None:
    archive = hostile.tar_gz(
        hostile.file_info("a", b"x" * 5000), hostile.file_info("b", b"y" * 5000)
    )
    error = refused(archive, tmp_path / "bot", ArchiveLimits(max_unpacked_bytes=8000))
    assert error.code == "unpacked_too_large"
    assert error.entry == "b"


def test_an_archive_over_its_size_limit_is_refused_before_reading(tmp_path: Path) -> None:
    error = refused(
        b"\x1f\x8b" + bytes(2000), tmp_path / "bot", ArchiveLimits(max_archive_bytes=1000)
    )
    assert error.code == "archive_too_large"
    assert "2,002 bytes" in str(error)


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("/etc/passwd", "absolute_path"),
        ("C:/Windows/evil.exe", "absolute_path"),
        ("..\\..\\evil.bat", "backslash"),
        ("bot\x1b[31m.py", "control_character"),
        ("bot\n.py", "control_character"),
        ("gnp.\u202eexe", "control_character"),
        ("a" * 256, "name_too_long"),
    ],
)
def test_bad_names_are_refused_in_a_tar(tmp_path: Path, name: str, code: str) -> None:
    error = refused(hostile.tar_gz(hostile.file_info(name)), tmp_path / "bot")
    assert error.code == code
    assert "\x1b" not in str(error) and "\n" not in str(error) and "\u202e" not in str(error)


def test_a_nul_in_a_zip_name_is_refused_though_zipfile_cuts_the_name(tmp_path: Path) -> None:
    info = zipfile.ZipInfo("bot.py")
    archive = bytearray(hostile.zip_bytes((info, b"ok"), ("other", b"")))
    # Rewrite "bot.py" as "bo\0.py" in both headers: zipfile reads it as "bo".
    archive = bytearray(bytes(archive).replace(b"bot.py", b"bo\x00.py"))
    error = refused(bytes(archive), tmp_path / "bot")
    assert error.code == "control_character"
    assert "\\x00" in str(error)


def test_a_name_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    # An ASCII name is stored without the UTF-8 flag; its bytes are then made not UTF-8.
    archive = hostile.zip_bytes(("botX.py", b"x")).replace(b"botX.py", b"bot\xff.py")
    assert refused(archive, tmp_path / "bot").code == "bad_encoding"


def test_the_same_name_twice_is_refused(tmp_path: Path) -> None:
    archive = hostile.tar_gz(hostile.file_info("bot.py"), hostile.file_info("./bot.py"))
    error = refused(archive, tmp_path / "bot")
    assert error.code == "duplicate" and error.entry == "./bot.py"


def test_a_folder_over_a_file_is_refused(tmp_path: Path) -> None:
    archive = hostile.tar_gz(hostile.file_info("lib"), hostile.file_info("lib/x.py"))
    error = refused(archive, tmp_path / "bot")
    assert error.code == "through_file"


def test_a_file_over_a_folder_is_refused(tmp_path: Path) -> None:
    archive = hostile.zip_bytes(("lib/x.py", b""), ("lib", b""))
    assert refused(archive, tmp_path / "bot").code == "duplicate"


def test_an_encrypted_zip_entry_is_refused(tmp_path: Path) -> None:
    archive = bytearray(hostile.zip_bytes(("secret.py", b"x")))
    central = archive.index(b"PK\x01\x02")
    archive[6] |= 0x1  # the "encrypted" flag, in the local header and the central one
    archive[central + 8] |= 0x1
    assert refused(bytes(archive), tmp_path / "bot").code == "encrypted"


@pytest.mark.parametrize(
    ("archive", "code"),
    [
        (b"#!/bin/sh\necho not an archive\n", "not_an_archive"),
        (hostile.tar_gz(hostile.file_info("a", b"x" * 100_000))[:-20], "damaged"),
        (b"PK\x03\x04" + bytes(100), "damaged"),
    ],
)
def test_what_is_not_a_whole_archive_is_refused(tmp_path: Path, archive: bytes, code: str) -> None:
    assert refused(archive, tmp_path / "bot").code == code


def test_tarfile_data_filter_is_the_second_layer() -> None:
    member, _data = hostile.file_info("../x")
    with pytest.raises(ArchiveError) as caught:
        tar_second_layer(Entry("../x", EntryKind.FILE, tar_member=member), "/srv/bot")
    assert caught.value.code == "data_filter"
    assert str(caught.value).startswith("entry '../x': refused by Python's tar data filter: ")
    good, _data = hostile.file_info("src/x")
    tar_second_layer(Entry("src/x", EntryKind.FILE, tar_member=good), None)  # passes
    tar_second_layer(Entry("x", EntryKind.FILE), None)  # a zip entry: no tar member


def test_a_packed_sample_bot_unpacks_whole_with_fresh_modes(tmp_path: Path) -> None:
    source = REPO_ROOT / "sample_bots" / "python_random"
    summary = unpack(pack(source), tmp_path / "bot")
    assert summary.format == "tar.gz"
    assert set(summary.files) == {"bot.py", "bot.toml"}
    for name in summary.files:
        assert (tmp_path / "bot" / name).read_bytes() == (source / name).read_bytes()
        assert stat.S_IMODE((tmp_path / "bot" / name).stat().st_mode) & 0o7022 == 0


def test_a_zip_with_folders_and_an_executable_unpacks(tmp_path: Path) -> None:
    run = zipfile.ZipInfo("bin/run")
    run.external_attr = (stat.S_IFREG | 0o4755) << 16  # set-uid is dropped
    archive = hostile.zip_bytes(("bin/", b""), (run, b"#!/bin/sh\n"), ("./bot.toml", b"x"))
    summary = inspect(archive)
    assert summary.format == "zip" and summary.files == ("bin/run", "bot.toml")
    assert summary.folder_count == 1 and summary.unpacked_bytes == 11
    unpack(archive, tmp_path / "bot")
    assert stat.S_IMODE((tmp_path / "bot" / "bin" / "run").stat().st_mode) == 0o755


def test_inspect_writes_nothing(tmp_path: Path) -> None:
    archive = hostile.tar_gz(hostile.file_info("bot.py", b"print()"))
    before = set(tmp_path.iterdir())
    assert inspect(archive).file_count == 1
    assert set(tmp_path.iterdir()) == before


def test_unpack_into_an_existing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileExistsError):
        unpack(hostile.tar_gz(hostile.file_info("a")), tmp_path)


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_ratio must be a positive integer, got 0"):
        ArchiveLimits(max_ratio=0)
