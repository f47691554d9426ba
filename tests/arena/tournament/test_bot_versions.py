"""A tournament knows its bots by their content: a rerun after a bot's code changed is
refused instead of resuming with the old code's results; an unchanged rerun resumes; a
database that kept no contents (an older arena) reads as unknown (issue 22 #7)."""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.bots.contents import BotContents, folder_contents
from arena.bots.manifest import load_manifest
from arena.store.sqlite import ResultsDatabase
from arena.store.sqlite.schema import create_schema
from arena.tournament import host
from arena.tournament.bot_versions import SHOWN_FILES, changed_bots_message, read_contents
from arena.tournament.config import build_config
from arena.tournament.display import PlainDisplay
from arena.tournament.host import TournamentSetupError
from tests.arena.store.sqlite.test_sqlite import stored_bots
from tests.arena.tournament.helpers import ROOT, STATION, run_tournament

RANDOM = ROOT / "sample_bots" / "python_random" / "bot.toml"


def _weekly(tmp_path: Path, *, build: str = "") -> tuple[Path, Path]:
    """A tournament file of 'alice' (a copy of the calling station, in tmp_path) and 'bob',
    and its run folder."""
    alice = tmp_path / "alice"
    shutil.copytree(STATION.parent, alice)
    if build:
        manifest = alice / "bot.toml"
        manifest.write_text(manifest.read_text() + f"build = {build}\n")
    config = tmp_path / "weekly.toml"
    config.write_text(
        'deals = 4\nblock_deals = 4\nseed = 3\nsandbox = "none"\nconcurrency = 1\n'
        f'[[bots]]\nname = "alice"\nmanifest = "{alice / "bot.toml"}"\n'
        f'[[bots]]\nname = "bob"\nmanifest = "{RANDOM}"\n',
        encoding="utf-8",
    )
    return config, tmp_path / "runs" / "weekly"


def _run(config: Path, out: Path) -> tuple[int, str]:
    return run_tournament("--config", config, "--out", out, "--no-progress", "--no-report")


def test_a_rerun_after_editing_a_bot_is_refused_naming_the_bot_and_its_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, out = _weekly(tmp_path)
    assert _run(config, out)[0] == 0
    bot = tmp_path / "alice" / "bot.py"
    bot.write_text(bot.read_text() + "\n# a better strategy\n")
    (tmp_path / "alice" / "lib").mkdir()
    (tmp_path / "alice" / "lib" / "util.py").write_text("X = 1\n")
    code, _text = _run(config, out)
    assert code == 2
    (line, *_hint) = capsys.readouterr().err.splitlines()
    assert "bot 'alice' (bot.py, lib/util.py) changed since the stored results" in line
    assert f"under a new --out, or delete {str(out)!r} to start again" in line
    assert "bob" not in line


def test_an_unchanged_rerun_resumes_as_before(tmp_path: Path) -> None:
    config, out = _weekly(tmp_path)
    assert _run(config, out)[0] == 0
    # Caches an interpreter writes beside the sources are not a change of the bot.
    (tmp_path / "alice" / "__pycache__").mkdir(exist_ok=True)
    (tmp_path / "alice" / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    code, text = _run(config, out)
    assert code == 0, text
    assert "resumed: 2 matches were already finished" in text
    with ResultsDatabase(out / "results.sqlite", read_only=True) as db:
        (record,) = db.tournaments()
        kept = db.bot_contents(record.id)
    assert BotContents.from_json(kept["alice"] or "") == folder_contents(tmp_path / "alice")


def test_with_sandbox_none_the_contents_are_kept_as_the_build_left_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Without a sandbox the build writes into the bot's own folder: the next run, reading
    # before its build, finds the build's output as this run left it, and resumes.
    build = "[\"{python}\", \"-c\", \"open('built.txt', 'w').write('compiled')\"]"
    config, out = _weekly(tmp_path, build=build)
    assert _run(config, out)[0] == 0
    assert (tmp_path / "alice" / "built.txt").exists()
    code, text = _run(config, out)
    assert code == 0 and "resumed: 2 matches" in text
    # Output the bot's folder no longer holds (a clean, say) is a change it names.
    (tmp_path / "alice" / "built.txt").write_text("compiled elsewhere")
    assert _run(config, out)[0] == 2
    assert "bot 'alice' (built.txt) changed" in capsys.readouterr().err


def test_a_manifest_broken_after_the_config_was_read_is_one_error(tmp_path: Path) -> None:
    config, out = _weekly(tmp_path)
    settings = build_config(file=config, overrides={"out": str(out)})
    (tmp_path / "alice" / "bot.toml").write_text("command = 5\n")
    with pytest.raises(TournamentSetupError, match=r"^bad manifest: .*bot\.toml"):
        host.run(settings, display=PlainDisplay(io.StringIO()))


def test_contents_an_older_arena_did_not_keep_are_unknown_and_kept_now(tmp_path: Path) -> None:
    config, out = _weekly(tmp_path)
    assert _run(config, out)[0] == 0
    with sqlite3.connect(out / "results.sqlite") as connection:
        connection.execute("UPDATE bots SET contents_json = NULL")
    (tmp_path / "alice" / "notes.txt").write_text("edited while nothing was kept")
    code, text = _run(config, out)
    assert code == 0 and "resumed: 2 matches" in text
    with ResultsDatabase(out / "results.sqlite", read_only=True) as db:
        kept = db.bot_contents(db.tournaments()[0].id)
    assert "notes.txt" in BotContents.from_json(kept["alice"] or "").files


def test_a_database_without_the_contents_column_is_read_and_given_it(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    create_schema(connection)
    connection.execute("ALTER TABLE bots DROP COLUMN contents_json")  # as before it existed
    connection.execute(
        "INSERT INTO tournaments (name, fingerprint, config_json, seed, seed_was_given,"
        ' created_at) VALUES (\'t\', \'f\', \'{"bots": [{"name": "a", "manifest": "m"}]}\','
        " '1', 1, 'now')"
    )
    connection.execute("INSERT INTO bots (tournament_id, name, manifest_path) VALUES (1, 'a', 'm')")
    connection.close()
    with ResultsDatabase(path, read_only=True) as db:
        assert db.bot_contents(1) == {"a": None}
    with ResultsDatabase(path) as db:
        assert db.bot_contents(1) == {"a": None}
        db.keep_bot_contents(1, {"a": '{"bot.py":"11"}', "b": '{"b.py":"22"}'})
        assert db.bot_contents(1) == {"a": '{"bot.py":"11"}', "b": '{"b.py":"22"}'}
        assert stored_bots(db, 1) == {"a": "m", "b": ""}


def test_the_run_folder_inside_a_bots_folder_is_not_part_of_the_bot(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "b"\ncommand = ["./bot"]\n')
    (tmp_path / "bot").write_text("program")
    (tmp_path / "runs" / "weekly").mkdir(parents=True)
    (tmp_path / "runs" / "weekly" / "results.sqlite").write_text("changes every run")
    (tmp_path / "runs" / "other.txt").write_text("kept")
    manifest = load_manifest(tmp_path / "bot.toml")
    contents = read_contents({"b": manifest, "b-2": manifest}, skip=tmp_path / "runs" / "weekly")
    assert sorted(contents["b"].files) == ["bot", "bot.toml", "runs/other.txt"]
    assert contents["b-2"] is contents["b"]  # one folder, read once
    assert read_contents({"b": manifest}, skip=tmp_path)["b"].files == {}
    elsewhere = read_contents({"b": manifest}, skip=tmp_path.parent / "elsewhere")
    assert "runs/weekly/results.sqlite" in elsewhere["b"].files


def test_the_refusal_names_every_changed_bot_and_at_most_a_few_files_each() -> None:
    before = BotContents({f"f{i}.py": "1" for i in range(SHOWN_FILES + 2)})
    after = BotContents({f"f{i}.py": "2" for i in range(SHOWN_FILES + 2)})
    stored = {"a": before.to_json(), "b": "not json", "c": None, "d": before.to_json()}
    now = {"a": after, "b": BotContents({"x.c": "1"}), "c": after, "d": before}
    message = changed_bots_message(stored, now, Path("runs/weekly"))
    assert message is not None
    shown = ", ".join(f"f{i}.py" for i in range(SHOWN_FILES))
    assert message.startswith(f"bots 'a' ({shown} and 2 more), 'b' (x.c) changed since")
    assert "Run them under a new --out, or delete 'runs/weekly' to start again" in message
    assert changed_bots_message(stored, {"d": before, "e": after}, Path("r")) is None
