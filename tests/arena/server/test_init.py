"""``arena server init``: the site folder, its secret key (0600), its database and its
administrator; a bad competition file makes nothing."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from arena.server.site_folder import SiteFolder, write_secret_key


def _arena(*argv: str) -> subprocess.CompletedProcess[str]:
    # Django is set up once per process: a new site is made by a new process.
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *argv], capture_output=True, text=True, timeout=120
    )


def test_init_makes_the_site_and_an_administrator(tmp_path: Path) -> None:
    competition = tmp_path / "comp.toml"
    competition.write_text('[site]\nsignup = "open"\nvisibility = "nothing"\n', encoding="utf-8")
    password = tmp_path / "password"
    password.write_text("correct horse battery\n", encoding="utf-8")
    site_dir = tmp_path / "site"
    done = _arena(
        "server",
        "init",
        str(site_dir),
        "--competition",
        str(competition),
        "--admin-password-file",
        str(password),
        "--host-name",
        "poker.example.org",
    )
    assert done.returncode == 0, done.stderr
    assert "administrator admin\n" in done.stdout and "password" not in done.stdout
    site = SiteFolder.load(site_dir)
    assert site.allowed_hosts == ("poker.example.org",)
    assert site.competition_file == competition
    assert stat.S_IMODE(site.layout.secret_key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(site.layout.config_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(site_dir.stat().st_mode) == 0o700
    assert len(site.secret_key()) > 40
    with sqlite3.connect(site.layout.sqlite_file) as database:
        admins = database.execute(
            "select username, is_staff, is_superuser from auth_user"
        ).fetchall()
        rules = database.execute("select signup, visibility from arena_server_sitesettings")
        assert admins == [("admin", 1, 1)]
        assert rules.fetchall() == [("open", "nothing")]
    again = _arena("server", "init", str(site_dir), "--competition", str(competition))
    assert again.returncode == 2 and "exists and is not empty" in again.stderr


def test_a_bad_competition_file_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    competition = tmp_path / "comp.toml"
    competition.write_text('[site]\nsignup = "everyone"\n', encoding="utf-8")
    done = _arena("server", "init", str(tmp_path / "site"), "--competition", str(competition))
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f'arena server: error: {competition}: site.signup = "everyone": '
        "must be one of open, invite, admin"
    )
    assert not (tmp_path / "site").exists()


def test_the_secret_key_file_is_never_overwritten(tmp_path: Path) -> None:
    key = tmp_path / "secret_key"
    write_secret_key(key)
    with pytest.raises(FileExistsError):
        write_secret_key(key)


@pytest.mark.parametrize(
    ("setup", "arguments", "message"),
    [
        ("full", {}, "exists and is not empty"),
        ("", {"password": "short"}, "at least 10 characters"),
        ("", {"database": "mysql://x/y"}, "must start with sqlite:/// or postgresql://"),
    ],
)
def test_init_refuses_before_making_anything(
    tmp_path: Path, setup: str, arguments: dict[str, str], message: str
) -> None:
    from arena.server.init_site import init_site
    from arena.settings import UsageError

    competition = tmp_path / "comp.toml"
    competition.write_text("", encoding="utf-8")
    root = tmp_path / "site"
    if setup == "full":
        root.mkdir()
        (root / "something").write_text("x", encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        init_site(root, competition, **arguments)  # type: ignore[arg-type]
    assert not (root / "site.json").exists()
