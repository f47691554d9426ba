"""The limits launcher's specs: the wrapper's arguments, the private copy, the environment."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.manifest import BotManifest
from arena.bots.sandbox.cgroup import CgroupParent, is_zombie, join_command
from arena.bots.sandbox.cgroup_probe import probe_cgroups
from arena.bots.sandbox.confinement import abandon
from arena.bots.sandbox.limited import SUPERVISOR_PATH, LimitsLauncher, address_space_backstop
from arena.bots.sandbox.private_dir import (
    PrivateDirError,
    _start_time,  # how the launcher names its owner
    private_dir_owner,
    sweep_private_dirs,
)
from arena.bots.sandbox.reach import is_runnable_by_anyone
from arena.bots.sandbox.resources import DEFAULT_RESOURCES, ResourceLimits, ResourceLimitsError
from arena.bots.transport import BotStartError

ENV = {"PATH": os.defpath, "LANG": "C.UTF-8", "LC_TIME": "C", "TZ": "UTC", "SECRET": "x"}


def bot_dir(tmp_path: Path) -> Path:
    """A small bot directory: a script, a data file in a folder, a link."""
    folder = tmp_path / "bot"
    (folder / "data").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "data" / "book.txt").write_text("opening book\n")
    (folder / "book").symlink_to("data/book.txt")
    return folder


def manifest_of(folder: Path, *command: str, **fields: object) -> BotManifest:
    return BotManifest(
        name="b",
        command=command or ("{python}", "bot.py"),
        working_dir=folder,
        **fields,  # type: ignore[arg-type]
    )


@pytest.fixture
def launcher(tmp_path: Path) -> LimitsLauncher:
    return LimitsLauncher(base_env=ENV, temp_dir=tmp_path, drop_privileges=False)


def test_the_spec_runs_the_bot_under_the_supervisor_in_a_private_copy(
    launcher: LimitsLauncher, tmp_path: Path
) -> None:
    folder = bot_dir(tmp_path)
    spec = launcher.prepare(manifest_of(folder, "{python}", "{bot_dir}/bot.py", "--fast"))
    private = spec.private_dir
    assert private is not None and private.parent == tmp_path
    assert spec.cwd == private / "bot"
    assert spec.argv[:4] == (sys.executable, "-I", "-S", str(SUPERVISOR_PATH))
    separator = spec.argv.index("--")
    assert spec.argv[separator + 1 :] == (sys.executable, str(private / "bot" / "bot.py"), "--fast")
    options = spec.argv[4:separator]
    assert f"--cpu={DEFAULT_RESOURCES.cpu_seconds}" in options
    assert f"--fsize={DEFAULT_RESOURCES.file_size_bytes}" in options
    assert f"--nofile={DEFAULT_RESOURCES.open_files}" in options
    assert f"--as={address_space_backstop(DEFAULT_RESOURCES)}" in options
    assert f"--private-dir={private}" in options
    assert not any(option.startswith(("--uid", "--nproc")) for option in options)
    assert spec.resources == DEFAULT_RESOURCES
    # The copy: files, folders and links (as links); the checkout is not where it runs.
    assert (private / "bot" / "data" / "book.txt").read_text() == "opening book\n"
    assert os.readlink(private / "bot" / "book") == "data/book.txt"
    assert (private / "tmp").is_dir()


def test_the_environment_is_a_short_allow_list_plus_the_manifest_s(
    launcher: LimitsLauncher, tmp_path: Path
) -> None:
    manifest = manifest_of(bot_dir(tmp_path), env={"LEVEL": "3", "LANG": "fr_FR.UTF-8"})
    spec = launcher.prepare(manifest)
    assert spec.private_dir is not None
    assert dict(spec.env) == {
        "PATH": os.defpath,
        "LANG": "fr_FR.UTF-8",
        "LC_TIME": "C",
        "TZ": "UTC",
        "LEVEL": "3",
        "HOME": str(spec.private_dir),
        "TMPDIR": str(spec.private_dir / "tmp"),
        "PYTHONUNBUFFERED": "1",
    }


def test_a_relative_program_is_the_one_in_the_copy(
    launcher: LimitsLauncher, tmp_path: Path
) -> None:
    folder = bot_dir(tmp_path)
    program = folder / "build" / "bot"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    spec = launcher.prepare(manifest_of(folder, "build/bot"))
    assert spec.private_dir is not None
    assert spec.argv[spec.argv.index("--") + 1] == str(spec.private_dir / "bot" / "build" / "bot")


@pytest.mark.parametrize("program", ["no-such-program-anywhere", "build/missing", "bot.py"])
def test_a_program_that_is_not_there_is_a_start_error_and_leaves_nothing(
    launcher: LimitsLauncher, tmp_path: Path, program: str
) -> None:
    folder = bot_dir(tmp_path)  # bot.py is there, but not executable
    with pytest.raises(BotStartError, match=f"no executable {program!r}"):
        launcher.prepare(manifest_of(folder, program))
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bot"]


def test_a_bot_directory_over_the_cap_is_refused_with_its_size(tmp_path: Path) -> None:
    folder = bot_dir(tmp_path)
    (folder / "big.bin").write_bytes(b"x" * 5000)
    launcher = LimitsLauncher(temp_dir=tmp_path, drop_privileges=False, copy_cap_bytes=4000)
    with pytest.raises(PrivateDirError) as caught:
        launcher.prepare(manifest_of(folder))
    assert str(folder) in str(caught.value) and "4000 bytes" in str(caught.value)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bot"]
    few = LimitsLauncher(temp_dir=tmp_path, drop_privileges=False, copy_cap_files=3)
    with pytest.raises(PrivateDirError, match="3 files"):
        few.prepare(manifest_of(folder))


def test_only_files_folders_and_links_are_copied(launcher: LimitsLauncher, tmp_path: Path) -> None:
    folder = bot_dir(tmp_path)
    os.mkfifo(folder / "pipe")  # reading it would block the copy forever
    spec = launcher.prepare(manifest_of(folder))
    assert spec.private_dir is not None
    assert not (spec.private_dir / "bot" / "pipe").exists()
    assert (spec.private_dir / "bot" / "bot.py").exists()


def test_an_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    folder = bot_dir(tmp_path)
    (folder / "secret").write_text("x")
    (folder / "secret").chmod(0)
    launcher = LimitsLauncher(temp_dir=tmp_path, drop_privileges=False)
    with pytest.raises(PrivateDirError, match="cannot copy its directory"):
        launcher.prepare(manifest_of(folder))


def test_the_manifest_s_limits_come_before_the_command_line_s(tmp_path: Path) -> None:
    folder = bot_dir(tmp_path)
    manifest = manifest_of(folder, resources={"processes": 8, "open_files": 99})
    launcher = LimitsLauncher(
        ResourceLimits(1024**3, 60, 10, 1024, 64, 1024),
        overrides={"open_files": "32"},
        temp_dir=tmp_path,
        drop_privileges=False,
    )
    resources = launcher.resources_for(manifest)
    assert (resources.processes, resources.open_files, resources.cpu_seconds) == (8, 32, 60)
    assert launcher.prepare(manifest).resources == resources
    with pytest.raises(ResourceLimitsError, match="command line: limit 'processes' = 'many'"):
        LimitsLauncher(overrides={"processes": "many"})


def test_with_its_own_user_the_bot_gets_a_fresh_id_and_a_process_limit(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root gives a bot a user of its own")
    folder = bot_dir(tmp_path)
    launcher = LimitsLauncher(base_env=ENV, temp_dir=tmp_path)
    assert launcher.drop_privileges
    assert is_runnable_by_anyone(launcher.bot_python)
    specs = [launcher.prepare(manifest_of(folder)) for _ in range(2)]
    users = []
    for spec in specs:
        assert spec.private_dir is not None
        options = spec.argv[: spec.argv.index("--")]
        uid = next(int(option[6:]) for option in options if option.startswith("--uid="))
        assert f"--gid={uid}" in options
        assert f"--nproc={DEFAULT_RESOURCES.processes * 4}" in options
        assert spec.private_dir.stat().st_uid == uid
        assert (spec.private_dir / "bot" / "data" / "book.txt").stat().st_uid == uid
        assert spec.argv[spec.argv.index("--") + 1] == launcher.bot_python
        users.append(uid)
    assert users[0] != users[1] and min(users) >= 0x4000_0000


def test_runnable_by_anyone_needs_every_directory_open(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    program = closed / "prog"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    closed.chmod(0o755)
    tmp_path.chmod(0o755)
    assert is_runnable_by_anyone(program) == all(
        parent.stat().st_mode & stat.S_IXOTH for parent in tmp_path.parents
    )
    closed.chmod(0o700)
    assert not is_runnable_by_anyone(program)
    assert not is_runnable_by_anyone(tmp_path / "missing")


def test_a_build_runs_in_a_kept_copy_that_later_starts_copy(tmp_path: Path) -> None:
    folder = bot_dir(tmp_path)
    manifest = manifest_of(folder, build=("{python}", "-c", "pass"))
    launcher = LimitsLauncher(temp_dir=tmp_path, drop_privileges=False)
    assert launcher.prepare_build(manifest_of(folder)) is None
    build = launcher.prepare_build(manifest)
    assert build is not None and build.private_dir is not None
    (build.cwd / "built.txt").write_text("made by the build")
    run = launcher.prepare(manifest)
    assert run.private_dir is not None and run.private_dir != build.private_dir
    assert (run.cwd / "built.txt").read_text() == "made by the build"
    assert not (folder / "built.txt").exists()  # the checkout is never written
    again = launcher.prepare_build(manifest)  # a new build replaces the old copy
    assert again is not None and not build.private_dir.exists()
    launcher.close()
    assert again.private_dir is not None and not again.private_dir.exists()


def _left_behind(temp_dir: Path, pid: int, start: int, word: str) -> Path:
    """A private directory as an arena left it: its bot's files (the bot's own user's when
    run as root), a folder closed to everyone."""
    path = temp_dir / f"arena-bot-{pid}-{start}-{word}"
    closed = path / "bot" / "closed"
    closed.mkdir(parents=True)
    (closed / "notes.txt").write_text("left behind\n")
    if os.geteuid() == 0:
        bot_user = 0x4000_0000 + 7
        for item in (path, path / "bot", closed, closed / "notes.txt"):
            os.chown(item, bot_user, bot_user)
    closed.chmod(0)
    return path


def test_a_new_launcher_sweeps_the_private_dirs_of_arenas_that_are_gone(tmp_path: Path) -> None:
    launcher = LimitsLauncher(base_env=ENV, temp_dir=tmp_path, drop_privileges=False)
    spec = launcher.prepare(manifest_of(bot_dir(tmp_path)))
    assert spec.private_dir is not None
    owner = private_dir_owner(spec.private_dir.name)
    assert owner is not None and owner[0] == os.getpid()
    pid, start = owner
    gone = int(subprocess.check_output([sys.executable, "-c", "import os; print(os.getpid())"]))
    dead = _left_behind(tmp_path, gone, start, "deaddead")
    reused = _left_behind(tmp_path, pid, start + 1, "reused00")  # another process, same id
    alive = _left_behind(tmp_path, pid, start, "alive000")
    unnamed = tmp_path / "arena-bot-k2j3h4g5"  # no owner in the name: not ours to judge
    unnamed.mkdir()
    link = tmp_path / f"arena-bot-{gone}-{start}-linklink"
    link.symlink_to(alive)
    try:
        LimitsLauncher(base_env=ENV, temp_dir=tmp_path, drop_privileges=False)  # sweeps
        assert not dead.exists() and not reused.exists()
        assert spec.private_dir.is_dir() and alive.is_dir() and unnamed.is_dir()
        assert link.is_symlink() and (alive / "bot").is_dir()
        assert sweep_private_dirs(tmp_path) == []
    finally:
        (alive / "bot" / "closed").chmod(0o700)


def test_a_zombie_owner_s_private_dirs_are_swept(tmp_path: Path) -> None:
    # A killed arena that its parent has not collected yet is a zombie: it has ended, and
    # a quick resume must not take it for a live arena.
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        while not is_zombie(zombie.pid):
            os.sched_yield()
        start = _start_time(zombie.pid)
        assert start is not None
        left = _left_behind(tmp_path, zombie.pid, start, "zombie00")
        assert sweep_private_dirs(tmp_path) == [left]
        assert not left.exists()
    finally:
        zombie.wait()


def test_private_dir_owner_reads_only_names_the_launcher_made() -> None:
    assert private_dir_owner("arena-bot-12-345-abcdefgh") == (12, 345)
    for name in ("arena-bot-abcdefgh", "arena-bot-1-x-abc", "other-1-2-abc", "arena-bot-1-2-a-b"):
        assert private_dir_owner(name) is None, name


def test_each_start_and_build_gets_a_cgroup_that_is_removed_with_it(tmp_path: Path) -> None:
    parent = probe_cgroups().parent
    if parent is None:
        pytest.skip(f"no cgroup can be made here: {probe_cgroups().reason}")
    folder = bot_dir(tmp_path)
    manifest = manifest_of(folder, build=("{python}", "-c", "pass"))
    launcher = LimitsLauncher(temp_dir=tmp_path, drop_privileges=False, cgroups=parent)
    build = launcher.prepare_build(manifest)
    assert build is not None and build.cgroup is not None
    assert build.argv[:4] == join_command(build.cgroup, ())[:4]  # joined before the supervisor
    unjoined = launcher.prepare(manifest, is_joined=False)
    assert unjoined.cgroup is not None and unjoined.argv[0] == launcher.python
    abandon(unjoined)
    again = launcher.prepare_build(manifest)  # a new build's cgroup replaces the old one
    assert again is not None and again.cgroup is not None
    assert not any(path.exists() for path in build.cgroup.directories)
    launcher.close()
    assert not any(path.exists() for path in again.cgroup.directories)


def test_a_cgroup_that_cannot_be_made_leaves_the_bot_to_the_watch(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    nowhere = CgroupParent.unified(tmp_path / "missing" / "poker-arena")
    launcher = LimitsLauncher(temp_dir=tmp_path, drop_privileges=False, cgroups=nowhere)
    spec = launcher.prepare(manifest_of(bot_dir(tmp_path)))
    assert spec.cgroup is None and spec.resources is not None
    assert "bot 'b' runs without a cgroup: cannot" in caplog.text
    abandon(spec)
    launcher.close()
