"""The validation of an upload: a good bot is accepted; a bot that does not build,
crashes at start, answers garbage or faults in play is rejected at the step that shows it,
with the reason and the hint, its own output kept for its team only."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.bots.build import build_bots
from arena.bots.sandbox.select import choose
from arena.match.config import MatchConfig
from arena.server.validation.pipeline import archive_seed, validate
from arena.server.validation.report import (
    STEP_NAMES,
    InfrastructureError,
    StepReport,
    Verdict,
)
from arena.server.validation.rules import ValidationRules
from arena.session.policy import TimeLimits
from arena.uploads import pack
from tests import REPO_ROOT
from tests.arena.uploads import hostile

HOUSE = REPO_ROOT / "sample_bots" / "python_calling_station" / "bot.toml"
RULES = ValidationRules(
    house_bot=HOUSE,
    match=MatchConfig(time_limits=TimeLimits(decision_s=5.0, startup_s=10.0), seed=7),
    hand_count=4,
    sandbox=choose(None)[0],  # the strongest layer here (strict where bwrap works)
)

# A calling station that answers check-bot's hands ("check-1", "check-2") well and sends
# an amount nobody asked for in every hand of the match.
FAULTY_IN_PLAY = """\
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        reply = {"type": "ready", "seq": m["seq"], "name": "x", "protocol_version": 1}
    elif m["type"] == "act":
        legal = m["legal_actions"]
        action = next(a for a in ("CHECK", "CALL", "FOLD") if a in legal)
        reply = {"type": "action", "seq": m["seq"], "action": action}
        if not m["hand_id"].startswith("check"):
            reply = {"type": "action", "seq": m["seq"], "action": "RAISE", "amount": -5}
    elif m["type"] == "match_end":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


def bot_archive(tmp_path: Path, manifest: Mapping[str, object], files: dict[str, str]) -> Path:
    """A packed bot folder with ``bot.toml`` from ``manifest`` and ``files``."""
    folder = tmp_path / "source"
    folder.mkdir()
    lines = [f"{key} = {json.dumps(value)}" for key, value in manifest.items()]
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    for name, text in files.items():
        (folder / name).write_text(text)
    archive = tmp_path / "upload.tar.gz"
    archive.write_bytes(pack(folder))
    return archive


def run(
    archive: Path, tmp_path: Path, rules: ValidationRules = RULES
) -> tuple[Verdict, list[StepReport]]:
    seen: list[StepReport] = []
    verdict = validate(archive, tmp_path / "work", rules, seen.append)
    return verdict, seen


def statuses(verdict: Verdict) -> dict[str, str]:
    return {report.step: str(report.status) for report in verdict.steps}


def test_a_sample_bot_is_accepted_and_each_step_is_reported_as_it_starts_and_ends(
    tmp_path: Path,
) -> None:
    archive = tmp_path / "upload.tar.gz"
    archive.write_bytes(pack(REPO_ROOT / "sample_bots" / "python_random"))
    verdict, seen = run(archive, tmp_path)
    assert verdict.is_accepted, verdict
    expected = [(name, status) for name in STEP_NAMES for status in ("running", "passed")]
    assert [(report.step, str(report.status)) for report in seen] == expected
    assert (
        "4 hands against 'python calling station': no fault"
        in verdict.step("validation_match").message
    )
    # The match's cards come from the archive: the same upload meets the same cards again.
    results = json.loads((tmp_path / "work" / "match" / "results.json").read_text())
    assert results["seed"] == archive_seed(archive) != archive_seed(REPO_ROOT / "README.md")


def test_a_bot_that_does_not_build_is_rejected_with_its_output_for_its_team_only(
    tmp_path: Path,
) -> None:
    script = "echo 'bot.c:3: error: missing header SECRET-42' >&2\nexit 2\n"
    manifest = {"name": "b", "command": ["./bot"], "build": ["sh", "build.sh"]}
    archive = bot_archive(tmp_path, manifest, {"build.sh": script})
    verdict, _seen = run(archive, tmp_path)
    assert not verdict.is_accepted
    assert statuses(verdict) == {
        "unpack": "passed", "build": "failed", "protocol_check": "skipped",
        "validation_match": "skipped",
    }  # fmt: skip
    assert "failed (exit code 2)" in verdict.reason
    assert "sandbox" in verdict.hint
    assert "SECRET-42" in verdict.team_log
    assert all("SECRET-42" not in report.message for report in verdict.steps)


def test_a_bot_that_crashes_at_start_is_rejected_at_the_protocol_check(tmp_path: Path) -> None:
    crash = "import sys\nsys.stderr.write('boom: no config SECRET-7\\n')\nsys.exit(3)\n"
    archive = bot_archive(
        tmp_path, {"name": "c", "command": ["{python}", "bot.py"]}, {"bot.py": crash}
    )
    verdict, _seen = run(archive, tmp_path)
    assert statuses(verdict)["protocol_check"] == "failed"
    assert verdict.reason.startswith("handshake: ")
    assert "exit" in verdict.reason
    assert "SECRET-7" in verdict.team_log and "SECRET-7" not in verdict.reason


def test_a_bot_that_answers_garbage_is_rejected_with_the_reason(tmp_path: Path) -> None:
    garbage = "import sys\nfor line in sys.stdin:\n    print('hello there!', flush=True)\n"
    archive = bot_archive(
        tmp_path, {"name": "g", "command": ["{python}", "bot.py"]}, {"bot.py": garbage}
    )
    verdict, _seen = run(archive, tmp_path)
    assert statuses(verdict)["protocol_check"] == "failed"
    assert verdict.reason.startswith("handshake: ")
    assert "hello there!" in verdict.reason or "JSON" in verdict.reason


def test_a_bot_that_faults_in_play_is_rejected_at_the_validation_match(tmp_path: Path) -> None:
    archive = bot_archive(
        tmp_path, {"name": "f", "command": ["{python}", "bot.py"]}, {"bot.py": FAULTY_IN_PLAY}
    )
    verdict, _seen = run(archive, tmp_path, replace(RULES, hand_count=2))
    assert statuses(verdict)["protocol_check"] == "passed", verdict
    assert statuses(verdict)["validation_match"] == "failed"
    assert "invalid_reply" in verdict.reason and "0 allowed" in verdict.reason
    assert "legal_actions" in verdict.hint


def test_a_hostile_archive_is_rejected_at_unpack_and_nothing_else_runs(tmp_path: Path) -> None:
    archive = tmp_path / "upload.zip"
    archive.write_bytes(hostile.zip_bytes(("bot.toml", b"x"), ("../../evil", b"x")))
    verdict, seen = run(archive, tmp_path)
    assert verdict.reason == "entry '../../evil': a path may not leave the bot's folder"
    assert [str(report.status) for report in seen][-3:] == ["skipped"] * 3
    assert not (tmp_path / "evil").exists()


@pytest.mark.parametrize(
    ("manifest", "files", "reason"),
    [
        (None, {"bot.py": ""}, "the archive holds no bot.toml"),
        ({"name": "x"}, {}, "bot.toml: key 'command'"),
        ({"name": "x", "command": ["a"], "working_dir": ".."}, {}, "working_dir leaves"),
        ({"name": "x", "command": ["a"], "build": ["a"], "build_timeout_s": 9999}, {},
         "build_timeout_s 9999 is over the competition's limit of 120 s"),
    ],
)  # fmt: skip
def test_a_missing_or_bad_manifest_is_rejected_at_unpack(
    tmp_path: Path, manifest: dict[str, object] | None, files: dict[str, str], reason: str
) -> None:
    if manifest is None:
        archive = tmp_path / "upload.tar.gz"
        archive.write_bytes(hostile.tar_gz(hostile.file_info("bot.py")))
    else:
        archive = bot_archive(tmp_path, manifest, files)
    verdict, _seen = run(archive, tmp_path)
    assert statuses(verdict)["unpack"] == "failed"
    assert reason in verdict.reason
    assert str(tmp_path) not in verdict.reason  # the server's folders are nobody's business


def test_a_bot_in_one_top_folder_is_found(tmp_path: Path) -> None:
    source = REPO_ROOT / "sample_bots" / "python_calling_station"
    archive = tmp_path / "upload.tar.gz"
    archive.write_bytes(
        hostile.tar_gz(
            *(
                hostile.file_info(f"station/{name}", (source / name).read_bytes())
                for name in ("bot.py", "bot.toml")
            )
        )
    )
    verdict, _seen = run(archive, tmp_path, replace(RULES, hand_count=1))
    assert verdict.is_accepted, verdict


def test_a_house_bot_that_cannot_be_loaded_is_not_the_uploads_fault(tmp_path: Path) -> None:
    with pytest.raises(InfrastructureError, match="the house bot cannot be loaded"):
        validate(
            tmp_path / "x.tar.gz", tmp_path / "work", replace(RULES, house_bot=tmp_path / "no.toml")
        )


def test_rules_refuse_bad_values() -> None:
    with pytest.raises(ValueError, match="hand_count must be at least 1"):
        replace(RULES, hand_count=0)
    with pytest.raises(ValueError, match="allowed_faults must not be negative"):
        replace(RULES, allowed_faults=-1)
    with pytest.raises(ValueError, match="unknown resource limit 'gpu'"):
        replace(RULES, resource_limits={"gpu": 1})
    with pytest.raises(ValueError, match="max_build_timeout_s must be positive"):
        replace(RULES, max_build_timeout_s=0)


def test_a_bot_with_a_build_step_plays_its_built_copy(tmp_path: Path) -> None:
    source = (REPO_ROOT / "sample_bots" / "python_calling_station" / "bot.py").read_text()
    manifest = {"name": "built", "command": ["{python}", "bot.py"], "build": ["sh", "build.sh"]}
    files = {"bot.py.in": source, "build.sh": "cp bot.py.in bot.py\n"}
    verdict, _seen = run(
        bot_archive(tmp_path, manifest, files), tmp_path, replace(RULES, hand_count=1)
    )
    assert verdict.is_accepted, verdict
    assert verdict.step("build").message.startswith("build 'sh build.sh' succeeded")


def test_a_bot_with_a_build_step_is_built_once_per_validation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Building is the slow part of a compiled bot's validation: the build step builds it,
    # check-bot and the match play that build.
    builds: list[str] = []

    def counting(real: Callable[..., Any]) -> Callable[..., Any]:
        def build(bots: Any, **kwargs: Any) -> Any:
            builds.extend(name for name, manifest in bots if manifest.build is not None)
            return real(bots, **kwargs)

        return build

    for module in ("arena.server.validation.pipeline", "arena.checkbot"):
        monkeypatch.setattr(f"{module}.build_bots", counting(build_bots))
    source = (REPO_ROOT / "sample_bots" / "python_calling_station" / "bot.py").read_text()
    manifest = {"name": "built", "command": ["{python}", "bot.py"], "build": ["sh", "build.sh"]}
    files = {"bot.py.in": source, "build.sh": "cp bot.py.in bot.py\n"}
    verdict, _seen = run(
        bot_archive(tmp_path, manifest, files), tmp_path, replace(RULES, hand_count=1)
    )
    assert verdict.is_accepted, verdict
    assert builds == ["built"]
