"""The disk limit (:mod:`arena.bots.sandbox.disk`): a bot's or a build's private folder and
its ``/tmp`` are one tmpfs of ``disk_bytes``, held by the kernel.

These run the real kernel: a tmpfs needs root (the tests that mount are skipped with the
reason without it), the strict layer bubblewrap (skipped with the reason where it cannot
run). The hostile bot writes files of 1 MiB each, none past the file size limit, as the
build of the report wrote 64 MiB under a 4 MiB file limit.
"""

from __future__ import annotations

import errno
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from arena.bots.build import run_build
from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.process import ProcessTransport
from arena.bots.sandbox import disk, limited
from arena.bots.sandbox.confinement import remove_private_dir
from arena.bots.sandbox.disk import (
    MIN_INODES,
    disk_breach,
    hold_disk,
    is_held,
    release_disk,
    tmpfs_options,
)
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.private_dir import PrivateDirError
from arena.bots.sandbox.resources import DEFAULT_RESOURCES, LimitReason, ResourceLimits
from arena.bots.sandbox.select import SandboxLauncher, SandboxLevel, launcher_for, probe
from arena.bots.transport import TransportClosedError
from tests import TEST_BOTS

_MIB = 1024**2
#: An 8 MiB disk with a 4 MiB file limit: only the disk limit can stop 1 MiB files.
SMALL_DISK: ResourceLimits = replace(
    DEFAULT_RESOURCES,
    memory_bytes=256 * _MIB,
    processes=20,
    file_size_bytes=4 * _MIB,
    disk_bytes=8 * _MIB,
)
DEADLINE_S = 20.0

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="only root may mount the tmpfs that holds the disk limit"
)


def _launcher_or_skip(level: SandboxLevel) -> SandboxLauncher:
    found = probe()
    if level is SandboxLevel.STRICT and found.strict_problem is not None:
        pytest.skip(f"the strict layer cannot run here: {found.strict_problem}")
    return launcher_for(level, SMALL_DISK, probe=found)


@pytest.fixture(params=[SandboxLevel.LIMITS, SandboxLevel.STRICT], ids=str)
def launcher(request: pytest.FixtureRequest) -> Iterator[SandboxLauncher]:
    """Each layer that has a private folder, with an 8 MiB disk; closed at the end."""
    made = _launcher_or_skip(request.param)
    try:
        yield made
    finally:
        made.close()


def writer(*args: str) -> BotManifest:
    manifest = load_manifest(TEST_BOTS / "sandbox_writer" / "bot.toml")
    return replace(manifest, command=(*manifest.command[:2], *args))


def run_until_stopped(manifest: BotManifest, launcher: SandboxLauncher) -> tuple[str, str, str]:
    """Start the bot, wait until it is gone; its limit reason, detail and stderr."""
    transport = ProcessTransport.start(manifest, launcher=launcher)
    try:
        deadline = time.monotonic() + DEADLINE_S
        with pytest.raises(TransportClosedError):
            while time.monotonic() < deadline:
                transport.read_line(deadline)
    finally:
        info = transport.close(0.0)
    return info.limit_reason or "", info.limit_detail, info.stderr_tail


# -- the kernel holds the folder and /tmp -------------------------------------------------------


@needs_root
@pytest.mark.parametrize("where", ["files", "tmp"])
def test_a_bot_writing_past_its_disk_gets_enospc_and_a_disk_limit_fault(
    launcher: SandboxLauncher, where: str
) -> None:
    # 64 files of 1 MiB, none past the 4 MiB file limit, in its folder or in /tmp: the
    # kernel refuses the write that would pass 8 MiB (the copy of the bot counts too).
    reason, detail, stderr = run_until_stopped(writer("start", "64", where), launcher)
    assert reason == str(LimitReason.DISK) == "disk_limit"
    assert "8 MiB" in detail and "ENOSPC" in detail
    written = int(stderr.rsplit("wrote ", 1)[1].split(" MiB")[0])
    assert "ENOSPC" in stderr and 4 <= written <= 8


@needs_root
def test_a_build_that_fills_its_disk_fails_saying_so(
    launcher: SandboxLauncher, tmp_path: Path
) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "fill.py").write_text(
        "for n in range(64):\n"
        "    with open(f'out-{n}.bin', 'wb') as f:\n"
        "        f.write(bytes(1024 * 1024))\n"
    )
    manifest = BotManifest(
        name="filler",
        command=("{python}", "fill.py"),
        working_dir=folder,
        build=("{python}", "fill.py"),
    )
    result = run_build(manifest, launcher=launcher)
    assert not result.is_ok
    assert "stopped by the sandbox: disk_limit: it filled its disk limit of 8 MiB" in result.reason
    assert "No space left on device" in result.output
    assert not list(folder.glob("out-*"))  # the checkout is never written


@needs_root
def test_an_honest_bot_under_its_disk_is_not_blamed(launcher: SandboxLauncher) -> None:
    # 2 MiB in files, then it plays; it is closed without a fault of the disk.
    transport = ProcessTransport.start(writer("start", "2", "files"), launcher=launcher)
    try:
        transport.send(b'{"type":"hello","seq":1}\n')
        assert b'"ready"' in (transport.read_line(time.monotonic() + DEADLINE_S) or b"")
    finally:
        info = transport.close(2.0)
    assert info.limit_reason is None


# -- the mount itself ----------------------------------------------------------------------------


def test_the_tmpfs_options_give_one_inode_per_4_kib_and_at_least_the_minimum() -> None:
    assert tmpfs_options(1024**3) == f"size={1024**3},nr_inodes=262144,mode=0700"
    assert f"nr_inodes={MIN_INODES}," in tmpfs_options(_MIB)


@needs_root
def test_a_held_folder_is_a_sized_tmpfs_that_release_empties(tmp_path: Path) -> None:
    folder = tmp_path / "held"
    folder.mkdir()
    assert hold_disk(folder, 2 * _MIB)
    try:
        assert is_held(folder)
        usage = os.statvfs(folder)
        assert usage.f_blocks * usage.f_frsize == 2 * _MIB
        assert disk_breach(folder, 2 * _MIB) is None  # empty
        with pytest.raises(OSError) as raised, open(folder / "big", "wb") as file:
            file.write(bytes(3 * _MIB))
        assert raised.value.strerror == "No space left on device"
        breach = disk_breach(folder, 2 * _MIB)
        assert breach is not None and breach.reason == LimitReason.DISK
        assert "no space left" in breach.detail
    finally:
        release_disk(folder)
    assert not is_held(folder) and not (folder / "big").exists()
    release_disk(folder)  # not a mount any more: nothing to do


@needs_root
def test_a_folder_out_of_inodes_counts_as_full(tmp_path: Path) -> None:
    folder = tmp_path / "held"
    folder.mkdir()
    assert hold_disk(folder, _MIB)  # MIN_INODES files at most
    try:
        with pytest.raises(OSError):
            for number in range(MIN_INODES + 1):
                (folder / str(number)).touch()
        breach = disk_breach(folder, _MIB)
        assert breach is not None and "no files left" in breach.detail
    finally:
        remove_private_dir(folder)  # unmounts it, then removes it
    assert not folder.exists()


def test_a_plain_folder_is_never_a_disk_breach(tmp_path: Path) -> None:
    assert disk_breach(tmp_path, _MIB) is None
    assert disk_breach(None, _MIB) is None
    assert not is_held(tmp_path / "missing")


def test_mounting_without_the_right_says_false_and_a_missing_folder_raises(
    tmp_path: Path,
) -> None:
    if os.geteuid() != 0:
        assert hold_disk(tmp_path, _MIB) is False
        return
    with pytest.raises(OSError, match="cannot mount a tmpfs on"):
        hold_disk(tmp_path / "missing", _MIB)
    # A folder straight in the temporary directory, which the other user can reach.
    target = Path(tempfile.mkdtemp(prefix="arena-disk-test-"))
    try:
        child = os.fork()
        if child == 0:  # pragma: no cover (the child's answer is its exit code)
            try:
                os.setuid(65534)  # a user who may not mount
                os._exit(0 if hold_disk(target, _MIB) is False else 1)
            finally:
                os._exit(2)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        remove_private_dir(target)


def test_a_folder_that_cannot_be_unmounted_is_left_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Removing a bot's folder must never raise: an unmount the kernel refuses is logged,
    # and the next arena's sweep tries again.
    class Refusing:
        def umount2(self, _path: bytes, _flags: int) -> int:
            return -1

    monkeypatch.setattr(disk, "_libc", Refusing())
    monkeypatch.setattr(disk, "is_held", lambda _folder: True)
    release_disk(tmp_path)
    assert f"cannot unmount {tmp_path}" in caplog.text


def test_a_mount_the_kernel_refuses_is_a_private_dir_error_naming_the_bot(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def refuse(folder: Path, _size: int) -> bool:
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(limited, "hold_disk", refuse)
    folder = tmp_path / "bot"
    folder.mkdir()
    manifest = BotManifest(name="refused", command=("{python}", "bot.py"), working_dir=folder)
    launcher = LimitsLauncher(temp_dir=tmp_path, drop_privileges=False, hold_disks=True)
    with pytest.raises(PrivateDirError, match="cannot start bot 'refused': Invalid argument"):
        launcher.prepare(manifest)
    assert not list(tmp_path.glob("arena-bot-*"))  # nothing left behind
    launcher.close()
