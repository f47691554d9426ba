"""``arena discord``: the token, the bots, and the client it runs (without Discord)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from discord.ext import commands

from arena.cli import run_command
from arena.commands.discord_command import TOKEN_ENV, read_token
from tests.arena.scripted import SAMPLE_BOTS

STATION = SAMPLE_BOTS / "python_calling_station" / "bot.toml"


def run(argv: list[str]) -> tuple[int, list[tuple[Any, str]], str]:
    ran: list[tuple[Any, str]] = []
    out = io.StringIO()
    code = run_command(
        "discord", argv, out, run_client=lambda client, token: ran.append((client, token))
    )
    return code, ran, out.getvalue()


def test_the_client_runs_with_the_token_from_the_file_and_the_bots_given(
    tmp_path: Path,
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("  secret-token\n")
    code, ran, out = run(
        [str(STATION), "--token-file", str(token_file), "--sandbox", "none", "--prefix", "?"]
    )
    assert code == 0
    ((client, token),) = ran
    assert token == "secret-token" and "secret-token" not in out
    assert isinstance(client, commands.Bot) and client.command_prefix == "?"
    assert {"open", "join", "bot", "start", "check", "raise", "all"} <= {
        command.name for command in client.commands
    }
    assert "bots: python calling station; connecting to Discord..." in out


def test_the_token_comes_from_the_environment_when_no_file_is_given() -> None:
    assert read_token(None, {TOKEN_ENV: " abc "}) == "abc"
    with pytest.raises(ValueError, match=f"no token: give --token-file PATH or set \\${TOKEN_ENV}"):
        read_token(None, {})


@pytest.mark.parametrize(
    ("content", "message"),
    [("", "is empty"), (None, "cannot read --token-file")],
)
def test_a_token_file_that_holds_no_token_is_an_error(
    tmp_path: Path, content: str | None, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    token_file = tmp_path / "token"
    if content is not None:
        token_file.write_text(content)
    with pytest.raises(SystemExit) as exit_info:
        run(["--token-file", str(token_file)])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_two_bots_of_one_name_and_a_bad_manifest_are_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("t")
    with pytest.raises(SystemExit):
        run([str(STATION), str(STATION), "--token-file", str(token_file)])
    assert "two bots are named 'python calling station'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run([str(tmp_path / "missing.toml"), "--token-file", str(token_file)])
    assert "bad manifest" in capsys.readouterr().err


def test_no_network_is_one_line_and_exit_code_1(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("secret\n")

    def unreachable(client: Any, token: str) -> None:
        raise OSError("Cannot connect to host discord.com:443 [Name or service not known]")

    out = io.StringIO()
    argv = ["--token-file", str(token), "--sandbox", "none"]
    assert run_command("discord", argv, out, run_client=unreachable) == 1
    lines = out.getvalue().splitlines()
    assert lines[-1] == (
        "arena discord: cannot reach Discord: Cannot connect to host discord.com:443 "
        "[Name or service not known]"
    )


def test_a_bot_whose_build_fails_is_noted_and_the_tables_still_open(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("secret\n")
    broken = tmp_path / "broken" / "bot.toml"
    broken.parent.mkdir()
    broken.write_text('name = "broken"\ncommand = ["./bot"]\nbuild = ["false"]\n')
    code, ran, output = run([str(broken), "--token-file", str(token), "--sandbox", "none"])
    assert code == 0 and len(ran) == 1
    assert f"note: building 'broken' ({broken}) failed: build 'false' failed" in output
