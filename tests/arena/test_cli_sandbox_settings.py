"""The sandbox's settings wired into every command: the time basis (``--time-basis``,
``limits.time_basis``), the host's exposed paths (``--expose``, ``expose = [...]``) and
the cgroup note at start (``--verbose``, or a CPU share asked for)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from arena import cli
from arena.bots.sandbox import select
from arena.bots.sandbox.select import Probe, SandboxLevel, SandboxUnavailableError
from arena.cli import main
from arena.cluster.job import MatchJob, failed_outcome
from arena.commands import common
from arena.match.config import MatchConfig
from arena.session.policy import TimeBasis, TimeLimits
from arena.settings import UsageError, given, group
from arena.settings.match import match_config
from arena.store.outcome import MatchOutcome
from arena.store.run_folder import RunFolder
from arena.store.sqlite import ResultsDatabase
from arena.tournament import host, worker
from arena.tournament.config import (
    TournamentConfigError,
    build_config,
    difference,
    fingerprint,
)
from arena.tournament.runner import TournamentRunner
from tests.arena.scripted import SAMPLE_BOTS

STATION = str(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
STRENGTH = str(SAMPLE_BOTS / "python_hand_strength" / "bot.toml")
#: A probe of a machine without cgroups (and without bwrap), for the start lines.
NO_CGROUPS = Probe("bwrap is not installed", None, "no cgroup file system is mounted")
CGROUP_NOTE = "cgroup limits are off"


def _exit_code(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        main(argv)
    code = info.value.code
    assert isinstance(code, int)
    return code


# -- the time basis ---------------------------------------------------------------------------


def test_a_match_on_the_cpu_time_basis_charges_cpu_time_and_records_it(tmp_path: Path) -> None:
    argv = ["match", STATION, STRENGTH, "--hands", "2", "--no-progress", "--no-report"]
    assert (
        main([*argv, "--sandbox", "none", "--time-basis", "cpu", "--out", str(tmp_path / "a")]) == 0
    )
    config = json.loads((tmp_path / "a" / "results.json").read_text("utf-8"))["config"]
    assert config["time_basis"] == "cpu"
    assert MatchConfig.from_dict(config).time_limits.time_basis is TimeBasis.CPU
    # The default basis is not written: files stay as they were before the CPU basis.
    assert main([*argv, "--sandbox", "none", "--out", str(tmp_path / "b")]) == 0
    config = json.loads((tmp_path / "b" / "results.json").read_text("utf-8"))["config"]
    assert "time_basis" not in config
    assert MatchConfig.from_dict(config).time_limits.time_basis is TimeBasis.WALL


def test_the_time_basis_flag_reaches_the_sessions_time_limits() -> None:
    args = cli.build_parser().parse_args(["match", STATION, STATION, "--time-basis", "CPU"])
    config = match_config(given(args, group("limits")), default_hands=10)
    assert config.time_limits.time_basis is TimeBasis.CPU
    check = cli.build_parser().parse_args(["check-bot", STATION, "--time-basis", "cpu"])
    assert check.time_basis == "cpu"


def test_a_bad_time_basis_is_one_error_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit_code(["match", STATION, STATION, "--time-basis", "sundial"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert "argument --time-basis" in lines[0] and "'sundial'" in lines[0]
    assert len(lines) == 2 and lines[1].strip().startswith("see ")
    weekly = tmp_path / "weekly.toml"
    weekly.write_text(f'bots = ["{STATION}", "{STRENGTH}"]\n[limits]\ntime_basis = "sundial"\n')
    with pytest.raises(TournamentConfigError) as info:
        build_config(file=weekly)
    assert str(info.value) == f'{weekly}: limits.time_basis = "sundial": must be wall or cpu'
    with pytest.raises(ValueError, match="time basis 'sundial': must be wall or cpu"):
        MatchConfig.from_dict({**MatchConfig().to_dict(), "time_basis": "sundial"})
    with pytest.raises(ValueError, match="time basis 'cpu'"):
        MatchConfig(time_limits=TimeLimits(time_basis="cpu"))  # type: ignore[arg-type]


def test_the_tournament_plays_every_match_on_its_time_basis(tmp_path: Path) -> None:
    weekly = tmp_path / "weekly.toml"
    weekly.write_text(f'bots = ["{STATION}", "{STRENGTH}"]\n[limits]\ntime_basis = "cpu"\n')
    config = build_config(file=weekly)
    assert config.time.time_basis is TimeBasis.CPU
    jobs = _jobs(config, tmp_path)
    assert jobs and all(job.config.time_limits.time_basis is TimeBasis.CPU for job in jobs)


def test_a_tournament_stored_before_the_time_basis_existed_is_still_recognised() -> None:
    values = {"bots": [STATION, STRENGTH], "seed": 3}
    wall = build_config(overrides=values)
    cpu = build_config(overrides={**values, "limits.time_basis": "cpu"})
    assert fingerprint(wall) != fingerprint(cpu)
    # A stored record written before the key existed has no limits.time_basis.
    stored = wall.to_dict()
    del stored["limits"]["time_basis"]
    assert difference(stored, wall) == ""
    assert difference(stored, cpu) == 'limits.time_basis = "wall", now "cpu"'
    unchanged = build_config(overrides={**values, "limits.time_basis": "wall"})
    assert fingerprint(unchanged) == fingerprint(wall)


# -- the host's exposed paths ------------------------------------------------------------------


def _capture_launchers(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[dict[str, Any]]:
    """Record every ``launcher_for`` call of ``module`` (the layer, then refuse to go on)."""
    calls: list[dict[str, Any]] = []

    def launcher_for(level: SandboxLevel, **options: Any) -> Any:
        calls.append({"level": level, **options})
        raise SandboxUnavailableError(level, "recorded")

    monkeypatch.setattr(module, "launcher_for", launcher_for)
    return calls


@pytest.mark.parametrize("command", ["match", "play", "check-bot", "discord", "demo"])
def test_every_command_gives_the_launcher_the_exposed_paths(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _capture_launchers(monkeypatch, common)
    manifests = [] if command == "demo" else [STATION] if command == "check-bot" else [STATION] * 2
    argv = [command, *manifests, "--expose", "/usr", "--expose", str(tmp_path)]
    args = cli.build_parser().parse_args([*argv, "--memory", "300MiB"])
    with pytest.raises(UsageError, match="recorded"):
        common.open_launcher(args, io.StringIO())
    assert calls[0]["expose"] == (Path("/usr"), tmp_path)
    assert calls[0]["overrides"] == {"memory_bytes": 300 * 1024**2}


def test_a_bad_exposed_path_is_one_error_line_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _exit_code(["match", STATION, STATION, "--expose", "relative/dir"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith("argument --expose: 'relative/dir' must be an absolute path")
    assert _exit_code(["match", STATION, STATION, "--expose", "/no/such/dir"]) == 2
    assert "--expose: '/no/such/dir': no such file or directory" in capsys.readouterr().err
    assert _exit_code(["tournament", STATION, STATION, "--expose", "/"]) == 2
    err = capsys.readouterr().err
    assert 'expose = ["/"]' in err and "the whole file system cannot be exposed" in err


def test_an_exposed_path_the_limits_layer_cannot_show_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(level: SandboxLevel, **options: Any) -> Any:
        raise ValueError("expose '/root/.cargo': the limits layer cannot show it to bots")

    monkeypatch.setattr(common, "launcher_for", refuse)
    args = cli.build_parser().parse_args(["match", STATION, STATION, "--expose", "/usr"])
    with pytest.raises(UsageError, match="limits layer cannot show it"):
        common.open_launcher(args, io.StringIO())


def test_the_tournament_exposes_its_paths_to_the_build_and_every_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weekly = tmp_path / "weekly.toml"
    weekly.write_text(f'bots = ["{STATION}", "{STRENGTH}"]\nexpose = ["/usr", "{tmp_path}"]\n')
    config = build_config(file=weekly)
    assert config.expose == (Path("/usr"), tmp_path)
    # The host's choice, not the results': the same tournament with or without it.
    assert fingerprint(config) == fingerprint(config.with_overrides({"expose": ["/usr"]}))
    assert config.to_dict()["expose"] == ["/usr", str(tmp_path)]
    with pytest.raises(TournamentConfigError, match="must be a list of absolute paths"):
        build_config(overrides={"bots": [STATION, STRENGTH], "expose": 5})
    flags = build_config(file=weekly, overrides={"expose": ["/opt"]})
    assert flags.expose == (Path("/opt"),)  # the command line's list replaces the file's
    builds = _capture_launchers(monkeypatch, host)
    with pytest.raises(host.TournamentSetupError, match="recorded"):
        host._build_bots(config, SandboxLevel.LIMITS, host._manifests(config), RunFolder(tmp_path))
    assert builds[0]["expose"] == config.expose
    jobs = _jobs(config, tmp_path)
    assert jobs and all(job.expose == config.expose for job in jobs)
    matches = _capture_launchers(monkeypatch, worker)
    outcome = worker.play_match(jobs[0])
    assert outcome.error is not None and "recorded" in outcome.error
    assert matches[0]["expose"] == config.expose


def test_a_manifest_cannot_expose_anything(tmp_path: Path) -> None:
    from arena.bots.manifest import ManifestError, load_manifest

    (tmp_path / "bot.toml").write_text('name = "b"\ncommand = ["./bot"]\nexpose = ["/root"]\n')
    with pytest.raises(ManifestError, match="expose"):
        load_manifest(tmp_path / "bot.toml")


class _RecordingExecutor:
    """An executor that keeps every job and fails its match (nothing is played)."""

    concurrency = 1

    def __init__(self) -> None:
        self.jobs: list[MatchJob] = []

    def submit(self, job: MatchJob) -> Future[MatchOutcome]:
        self.jobs.append(job)
        future: Future[MatchOutcome] = Future()
        future.set_result(failed_outcome(job, "not played", duration_s=0.0))
        return future

    def close(self) -> None:
        """Nothing to release."""


class _NoDisplay:
    def start(self, name: str, total: int, done: int) -> None:
        """Nothing shown."""

    def match_done(self, spec: object, outcome: MatchOutcome, *, total: int) -> None:
        """Nothing shown."""

    def close(self) -> None:
        """Nothing shown."""


def _jobs(config: Any, tmp_path: Path) -> list[MatchJob]:
    """The jobs the runner hands its executor for ``config`` (the first fails, so one)."""
    executor = _RecordingExecutor()
    with ResultsDatabase(tmp_path / "results.sqlite") as db:
        TournamentRunner(
            config, db, executor=executor, sandbox="none", out_dir=tmp_path, display=_NoDisplay()
        ).run()
    return executor.jobs


# -- the cgroup note at start --------------------------------------------------------------------


@pytest.fixture
def no_cgroups(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(select, "probe", lambda: NO_CGROUPS)
    yield


def _start_lines(argv: list[str]) -> list[str]:
    out = io.StringIO()
    args = cli.build_parser().parse_args([*argv, "--sandbox", "limits"])
    common.open_launcher(args, out).close()
    return out.getvalue().splitlines()


@pytest.mark.usefixtures("no_cgroups")
def test_the_cgroup_note_is_said_only_with_verbose_or_a_cpu_share() -> None:
    assert not any(CGROUP_NOTE in line for line in _start_lines(["match", STATION, STATION]))
    for extra in (["--verbose"], ["--cpu-percent", "50"]):
        lines = _start_lines(["match", STATION, STATION, *extra])
        notes = [line for line in lines if CGROUP_NOTE in line]
        assert len(notes) == 1 and notes[0].endswith("no cgroup file system is mounted")
    for command in (["check-bot", STATION], ["play", STATION], ["discord", STATION], ["demo"]):
        assert any(CGROUP_NOTE in line for line in _start_lines([*command, "--verbose"]))


@pytest.mark.usefixtures("no_cgroups")
def test_the_tournament_says_the_cgroup_note_only_with_verbose_or_a_cpu_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stop right after the start lines: the run folder is a file.
    (tmp_path / "file").write_text("")
    base = ["tournament", STATION, STRENGTH, "--out", str(tmp_path / "file")]

    def start_lines(*extra: str) -> list[str]:
        out = io.StringIO()
        with pytest.raises(SystemExit) as info:
            main([*base, "--sandbox", "limits", *extra], stdout=out)
        assert info.value.code == 2
        return out.getvalue().splitlines()

    assert not any(CGROUP_NOTE in line for line in start_lines())
    assert sum(CGROUP_NOTE in line for line in start_lines("--verbose")) == 1
    assert sum(CGROUP_NOTE in line for line in start_lines("--cpu-percent", "50")) == 1
