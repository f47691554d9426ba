"""A build's output kept for its team (the version page's "Your bot's stderr") names the
bot's folder on the server as ``<your bot's folder>``, not the server's path (issue 32:
the site showed the server's paths)."""

from __future__ import annotations

from pathlib import Path

from tests.arena.server.validation.test_pipeline import bot_archive, run


def test_a_failed_builds_output_shows_no_server_path(tmp_path: Path) -> None:
    script = "echo \"compiling in $(pwd)\"\necho 'bot.c:3: error: SECRET-9' >&2\nexit 2\n"
    manifest = {"name": "b", "command": ["./bot"], "build": ["sh", "build.sh"]}
    archive = bot_archive(tmp_path, manifest, {"build.sh": script})
    verdict, _seen = run(archive, tmp_path)
    assert not verdict.is_accepted and "SECRET-9" in verdict.team_log
    assert "compiling in <your bot's folder>" in verdict.team_log, verdict.team_log
    assert str(tmp_path) not in verdict.team_log and "/tmp/arena-bot-" not in verdict.team_log
