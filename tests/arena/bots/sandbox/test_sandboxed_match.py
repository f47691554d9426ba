"""Whole matches under the limits layer: a bot stopped by a limit is a crash fault whose
code names the limit, the match completes and chips are conserved."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.resources import DEFAULT_RESOURCES
from arena.bots.transport import ExitInfo, TransportClosedError
from arena.match.config import MatchConfig
from arena.match.run import open_sessions, run_match
from arena.session.faults import FaultKind, FaultLedger, FaultRecorder
from arena.session.policy import TimeLimits
from tests import REPO_ROOT, TEST_BOTS

RESOURCES = replace(
    DEFAULT_RESOURCES,
    memory_bytes=200 * 1024**2,
    processes=20,
    file_size_bytes=1024**2,
    cpu_seconds=1,
)


def station() -> BotManifest:
    return load_manifest(REPO_ROOT / "sample_bots" / "python_calling_station" / "bot.toml")


def hostile(name: str, *args: str) -> BotManifest:
    manifest = load_manifest(TEST_BOTS / name / "bot.toml")
    return replace(manifest, command=(*manifest.command[:2], *args))


@pytest.mark.parametrize(
    ("manifest", "code"),
    [
        (hostile("sandbox_hog", "act", "2048"), "memory_limit"),
        (hostile("sandbox_forkbomb", "act", "200"), "process_limit"),
        (hostile("sandbox_writer", "act", "1024"), "file_size_limit"),
        (hostile("sandbox_spinner", "act", "60"), "cpu_limit"),
    ],
    ids=["memory", "processes", "file_size", "cpu"],
)
def test_a_bot_stopped_by_a_limit_is_a_crash_with_the_limit_as_its_code(
    manifest: BotManifest, code: str, tmp_path: Path
) -> None:
    config = MatchConfig(
        hand_count=2,
        seed=5,
        time_limits=TimeLimits(decision_s=5.0),
        restart_budget=0,
        allow_absent_bots=True,
    )
    launcher = LimitsLauncher(RESOURCES)
    sessions = open_sessions([station(), manifest], config, launcher=launcher)
    result = run_match(config, sessions, tmp_path)
    assert result.hands_played == 2
    assert sum(player.chips_won for player in result.players) == 0  # chips conserved
    crashes = [fault for fault in result.player("p1").faults["faults"] if fault["kind"] == "crash"]
    assert [fault["code"] for fault in crashes] == [code]
    assert f"stopped by the sandbox: {code}" in crashes[0]["detail"]
    assert result.player("p0").faults["counts"]["crash"] == 0


def test_the_crash_code_is_the_limit_the_exit_info_names() -> None:
    ledger = FaultLedger()
    recorder = FaultRecorder(ledger, player_id="p1", seat_index=1)
    error = TransportClosedError("bot 'x' exited (killed by signal 9 (SIGKILL))", signal=9)
    stopped = ExitInfo(
        exit_code=None,
        signal=9,
        limit_reason="memory_limit",
        limit_detail="resident memory 300 MiB",
    )
    recorder.crash(error, stopped)
    recorder.crash(error, ExitInfo(exit_code=None, signal=9))
    recorder.crash(error, None)
    codes = [fault.code for fault in ledger.of_kind(FaultKind.CRASH)]
    assert codes == ["memory_limit", "crash", "crash"]
    assert ledger.faults[0].detail.endswith(
        "; stopped by the sandbox: memory_limit: resident memory 300 MiB"
    )
