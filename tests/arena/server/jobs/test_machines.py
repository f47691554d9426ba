"""Workers on other machines: ``arena server join`` makes a worker folder for a site (its
PostgreSQL database, its secret key, a copy of its competition file, its archives as this
machine mounts them), and ``arena server work`` runs only workers. The three-machine layout
of docs/server.md (the web and the database; two worker machines), run here with two
worker processes whose folders share nothing with the site's: each builds the versions and
plays its games in its own work folder, the archives found through its own path."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.server.worker_folder import join_site
from arena.settings import UsageError
from tests.postgres import PostgresServer, fresh_database

WAIT = 180.0
URL = "postgresql://arena:secret@db.example:5432/arena"

SEED = """
from tests.arena.server.ladder.conftest import team_with
team_with("ants", "station")
team_with("bees", "folder")
team_with("cats", "random")
"""

REPORT = """
import json
from arena.server.ladder.models import Game
print(json.dumps([[g.status, g.claimed_by, g.hand_count] for g in Game.objects.all()]))
"""


def _files(tmp_path: Path) -> dict[str, Path]:
    competition = tmp_path / "competition.toml"
    competition.write_text("", encoding="utf-8")
    key = tmp_path / "secret_key"
    key.write_text("the site's key\n", encoding="utf-8")
    archives = tmp_path / "mnt" / "arena-uploads"
    archives.mkdir(parents=True)
    return {"competition": competition, "secret_key_file": key, "archives": archives}


def test_a_worker_folder_links_the_archives_and_keeps_its_own_work(tmp_path: Path) -> None:
    files = _files(tmp_path)
    site = join_site(tmp_path / "worker", database=URL, **files)
    layout = site.layout
    assert layout.uploads.is_symlink() and layout.uploads.resolve() == files["archives"]
    assert layout.work.is_dir() and not layout.work.is_symlink()
    assert layout.secret_key_file.read_text(encoding="utf-8") == "the site's key\n"
    assert layout.secret_key_file.stat().st_mode & 0o777 == 0o600
    assert layout.config_file.stat().st_mode & 0o777 == 0o600  # it holds the password
    saved = json.loads(layout.config_file.read_text(encoding="utf-8"))
    assert saved["database"] == URL and saved["competition_file"] == str(files["competition"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"database": "sqlite:////srv/site.sqlite3"}, "--database: workers on other machines"),
        ({"competition": Path("/nonexistent.toml")}, "--competition: no file at"),
        ({"secret_key_file": Path("/nonexistent")}, "--secret-key-file: no file at"),
        ({"archives": Path("/nonexistent")}, "--archives: no folder at"),
    ],
)
def test_a_bad_join_is_an_error_naming_what_is_wrong(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    arguments: dict[str, Any] = {"database": URL, **_files(tmp_path), **change}
    with pytest.raises(UsageError, match=message):
        join_site(tmp_path / "worker", **arguments)
    assert not (tmp_path / "worker").exists()


def test_a_folder_in_use_is_not_made_a_worker_folder(tmp_path: Path) -> None:
    (tmp_path / "worker").mkdir()
    (tmp_path / "worker" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(UsageError, match="exists and is not an empty folder"):
        join_site(tmp_path / "worker", database=URL, **_files(tmp_path))


def test_work_runs_the_workers_only_and_a_signal_ends_it_with_0(tmp_path: Path) -> None:
    site = join_site(tmp_path / "worker", database=URL, **_files(tmp_path))
    command = [sys.executable, "-m", "arena.cli", "server", "work", str(site.root),
               "--ladder-workers", "0"]  # fmt: skip
    worker = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None
        assert "with 0 validation and 0 ladder worker(s)" in worker.stdout.readline()
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(WAIT) == 0 and worker.stdout.read() == "stopped\n"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


@pytest.fixture
def database(postgres_server: PostgresServer) -> Any:
    """A fresh PostgreSQL database's URL (skipped where there is no PostgreSQL)."""
    yield from fresh_database(postgres_server)


def _cli(*arguments: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "arena.cli", *arguments], env=env, check=True,
                          capture_output=True, text=True, timeout=WAIT)  # fmt: skip
    return done.stdout


def _manage(site: Path, code: str) -> str:
    env = {**os.environ, "ARENA_SITE_DIR": str(site)}
    done = subprocess.run([sys.executable, "-m", "arena.server.manage", "shell", "-c", code],
                          env=env, check=True, capture_output=True, text=True,
                          timeout=WAIT)  # fmt: skip
    return done.stdout


@pytest.mark.slow  # a PostgreSQL site, two worker machines' processes, real games
def test_two_worker_machines_play_a_site_s_ladder_without_sharing_its_folder(
    tmp_path: Path, database: str
) -> None:
    competition = tmp_path / "competition.toml"
    competition.write_text('[site]\nsignup = "open"\n', encoding="utf-8")
    password = tmp_path / "password"
    password.write_text("a long password 1\n", encoding="utf-8")
    web = tmp_path / "web"
    _cli("server", "init", str(web), "--competition", str(competition), "--database", database,
         "--admin-password-file", str(password))  # fmt: skip
    _manage(web, SEED)  # three teams' archives, uploaded to the web's folder
    workers = []
    for name in ("a", "b"):
        machine = tmp_path / f"machine-{name}"
        # The web's uploads as this machine mounts it: a path of its own.
        mount = machine / "mnt" / "site-archives"
        mount.parent.mkdir(parents=True)
        mount.symlink_to(web / "uploads")
        copy = machine / "competition.toml"
        copy.write_text(competition.read_text(encoding="utf-8"), encoding="utf-8")
        key = machine / "secret_key"
        key.write_text((web / "secret_key").read_text(encoding="utf-8"), encoding="utf-8")
        _cli("server", "join", str(machine / "worker"), "--database", database,
             "--competition", str(copy), "--secret-key-file", str(key),
             "--archives", str(mount))  # fmt: skip
        workers.append(machine / "worker")
    env = {**os.environ, "ARENA_LADDER": json.dumps({"deals": 30, "placement_games": 1}),
           "ARENA_SERVER_LEASE_SECONDS": "10"}  # fmt: skip
    command = [sys.executable, "-m", "arena.cli", "server", "work", "--ladder-workers", "1"]
    processes = [
        subprocess.Popen(
            [*command, str(folder)], env=env, stdout=subprocess.DEVNULL, start_new_session=True
        )
        for folder in workers
    ]
    try:
        deadline = time.monotonic() + WAIT
        while True:
            games = json.loads(_manage(web, REPORT).splitlines()[-1])
            done = [game for game in games if game[0] == "done"]
            by = {game[1] for game in done}
            if len(done) >= 6 and len(by) == 2:
                break
            assert time.monotonic() < deadline, f"the two machines did not both play: {games}"
            time.sleep(1.0)
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                assert process.wait(WAIT) == 0
            finally:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
    assert all(game[2] == 60 for game in done)  # each played whole
    # Each machine built the versions in its own folder; the web's holds no ladder work.
    for folder in workers:
        assert any((folder / "work" / "ladder" / "versions").iterdir())
    assert not (web / "work" / "ladder").exists()


def test_join_on_the_command_line_makes_the_folder_or_exits_2_naming_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.cli import main

    files = _files(tmp_path)
    arguments = ["server", "join", str(tmp_path / "worker"), "--competition",
                 str(files["competition"]), "--secret-key-file", str(files["secret_key_file"]),
                 "--archives", str(files["archives"])]  # fmt: skip
    with pytest.raises(SystemExit) as ended:
        main([*arguments, "--database", "sqlite:////srv/site.sqlite3"])
    assert (
        ended.value.code == 2 and "--database: workers on other machines" in capsys.readouterr().err
    )
    assert main([*arguments, "--database", URL]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"made the worker folder {tmp_path / 'worker'}\n")
    assert f"arena server work {tmp_path / 'worker'} --ladder-workers N" in said
