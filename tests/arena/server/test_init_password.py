"""``arena server init`` applies the site's password validators (Django's) to the
administrator's password, as sign-up does to every member's: one like the name, a common
one or all digits is refused with the validators' words, exit code 2, and the folder is
left as it was (issue 31: "admin" with any password of 10 characters was accepted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _init(tmp_path: Path, site: Path, password: str) -> subprocess.CompletedProcess[str]:
    competition = tmp_path / "comp.toml"
    competition.write_text("", encoding="utf-8")
    password_file = tmp_path / "password"
    password_file.write_text(password + "\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "server", "init", str(site), "--competition",
         str(competition), "--admin-password-file", str(password_file),
         "--admin", "administrator"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("password", "words"),
    [
        ("administrator1", "too similar to the username"),
        ("password1234", "too common"),
        ("12345678901234", "entirely numeric"),
    ],
)
def test_a_weak_administrators_password_is_refused_and_nothing_is_left(
    tmp_path: Path, password: str, words: str
) -> None:
    site = tmp_path / "site"
    done = _init(tmp_path, site, password)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the administrator's password is refused:" in done.stderr and words in done.stderr
    assert not site.exists()


def test_an_empty_folder_given_is_emptied_again(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    done = _init(tmp_path, site, "12345678901234")
    assert done.returncode == 2
    assert site.is_dir() and list(site.iterdir()) == []


def test_the_password_check_names_each_refusal_in_one_line() -> None:
    # In this process, as in init's once Django is started for the new site.
    from arena.server.init_site import _check_password
    from arena.settings import UsageError

    with pytest.raises(UsageError, match=r"refused: .*too common.*entirely numeric"):
        _check_password("1234567890", "administrator")
    _check_password("a long and unusual passphrase", "administrator")  # passes


def test_undo_leaves_a_given_empty_folder_empty_and_removes_a_new_one(tmp_path: Path) -> None:
    from arena.server.init_site import _undo

    given = tmp_path / "given"
    (given / "work").mkdir(parents=True)
    (given / "site.json").write_text("{}", encoding="utf-8")
    _undo(given, is_new=False)
    assert given.is_dir() and list(given.iterdir()) == []
    made = tmp_path / "made"
    (made / "uploads").mkdir(parents=True)
    _undo(made, is_new=True)
    assert not made.exists()
