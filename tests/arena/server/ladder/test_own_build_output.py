"""A version whose build fails on the ladder's machine (it was accepted: the build broke
later, a tool or a limit changed): its team sees its own build output in the game's faults,
the server's folders left out; the opponent's team sees none of it (issue 32: a ladder
build failure showed only "its build failed")."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command

from arena.server.ladder.models import OwnFaults
from arena.server.ladder.own_faults import BUILD_FAILED
from arena.uploads import pack
from tests.arena.server.factories import make_team
from tests.arena.server.ladder.conftest import accepted, team_with
from tests.arena.server.ladder.test_own_faults import _page_and_api

#: What the failing build prints (its working folder is the server's, then a secret).
_BUILD = (
    "import os, sys\n"
    "print('compiling in', os.getcwd())\n"
    "sys.stderr.write('build: KEY=SECRETBUILD missing\\n')\n"
    "sys.exit(2)\n"
)


def test_a_ladder_build_failure_shows_its_team_its_own_output_without_server_paths(
    small_ladder: None, tmp_path: Path
) -> None:
    ants, station = team_with("ants", "station")
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "build.py").write_text(_BUILD, encoding="utf-8")
    (folder / "bot.toml").write_text(
        'name = "broken"\ncommand = ["{python}", "bot.py"]\nbuild = ["{python}", "build.py"]\n',
        encoding="utf-8",
    )
    bees = make_team("bees")
    broken = accepted(bees, pack(folder))
    call_command("ladder_worker", "--games", "1")
    (own,) = OwnFaults.objects.all()
    assert own.version == broken
    page, api = _page_and_api(bees, broken)
    (row,) = api["games"]
    assert [fault["kind"] for fault in row["fault_details"]] == [BUILD_FAILED]
    assert row["fault_details"][0]["match"] == f"game-{row['id']}"
    assert "KEY=SECRETBUILD missing" in row["stderr"] and "SECRETBUILD" in page
    # Where it was built is the server's business: the folder is named, not its path.
    assert "compiling in <your bot's folder>" in row["stderr"], row["stderr"]
    assert str(tmp_path) not in row["stderr"] and "/ladder/versions/" not in row["stderr"]
    # The public reason says only that it failed; the opponent reads no build output.
    assert "SECRETBUILD" not in row["reason"]
    their_page, their_api = _page_and_api(ants, station)
    assert "SECRETBUILD" not in their_page and "SECRETBUILD" not in str(their_api)
