"""The validation of an uploaded bot: :func:`validate`, plain functions the server's
worker calls (no Django here).

Four steps (:data:`~arena.server.validation.report.STEP_NAMES`; docs/uploads.md,
"Validation: what a team sees", says when each passes), each reported to ``on_step`` when
it starts and when it ends. The first failed step rejects the upload with its reason and
hint; the steps after it are reported ``skipped``. Everything runs under one sandbox
launcher of the rules' layer (strict by default), closed at the end. The bot's build output
and stderr go to :attr:`Verdict.team_log` only. A problem that is not the bot's (the
sandbox cannot run here, the house bot cannot be loaded) raises
:class:`InfrastructureError`."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.bots.build import build_bots, without_paths
from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.bots.sandbox.resources import ResourceLimitsError
from arena.bots.sandbox.select import (
    SandboxLauncher,
    SandboxUnavailableError,
    choose,
    launcher_for,
)
from arena.checkbot import check_bot
from arena.server.validation.match_step import play_validation_match
from arena.server.validation.report import (
    STEP_NAMES,
    InfrastructureError,
    StepFailed,
    StepReport,
    StepStatus,
    Verdict,
)
from arena.server.validation.rules import ValidationRules
from arena.uploads import ArchiveError, unpack

__all__ = ["archive_seed", "validate"]

#: Longest team log kept per part (build output, stderr), from its end.
TEAM_LOG_MAX_CHARS = 64 * 1024

MANIFEST_HINT = (
    "put bot.toml at the top of the archive (or in its one top folder); "
    "'arena check-bot bot.toml' checks it on your machine"
)
BUILD_HINT = (
    "the build runs in the sandbox: no network, no home folder, only the system's tools; "
    "put what it needs in the archive. Your build output is in the team log"
)


@dataclass
class _Run:
    """One validation in progress: the reports so far and the team's log."""

    on_step: Callable[[StepReport], None]
    reports: dict[str, StepReport] = field(default_factory=dict)
    team_log: list[str] = field(default_factory=list)

    def step(self, name: str, body: Callable[[], str]) -> None:
        """Run one step, reporting it as it starts and ends; StepFailed passes through."""
        self._report(StepReport(name, StepStatus.RUNNING))
        started = time.monotonic()
        try:
            message = body()
        except StepFailed as exc:
            took = time.monotonic() - started
            self._report(StepReport(name, StepStatus.FAILED, exc.message, exc.hint, took))
            raise
        self._report(StepReport(name, StepStatus.PASSED, message, "", time.monotonic() - started))

    def log(self, title: str, text: str) -> None:
        """Keep ``text`` (the bot's own output) for the team, its end if long."""
        if text.strip():
            self.team_log.append(f"== {title} ==\n{text[-TEAM_LOG_MAX_CHARS:].rstrip()}\n")

    def _report(self, report: StepReport) -> None:
        self.reports[report.step] = report
        self.on_step(report)

    def verdict(self, failure: StepFailed | None) -> Verdict:
        for name in STEP_NAMES:
            if name not in self.reports:
                self._report(StepReport(name, StepStatus.SKIPPED, "an earlier step failed"))
        steps = tuple(self.reports[name] for name in STEP_NAMES)
        log = "\n".join(self.team_log)
        if failure is None:
            return Verdict(True, "every step passed", "", steps, log)
        return Verdict(False, failure.message, failure.hint, steps, log)


def validate(
    archive: Path,
    work_dir: Path,
    rules: ValidationRules,
    on_step: Callable[[StepReport], None] | None = None,
) -> Verdict:
    """Take the upload ``archive`` through every step in ``work_dir`` (a new folder, or an
    empty one, kept for the caller to remove) and return the verdict.

    Raises :class:`InfrastructureError` when the validation cannot run here (the
    sandbox layer of ``rules`` does not work, the house bot cannot be loaded).
    """
    work_dir.mkdir(parents=True, exist_ok=True)
    run = _Run(on_step or (lambda _report: None))
    house = _house_bot(rules)
    launcher = _launcher(rules)
    found: list[BotManifest] = []
    try:
        run.step("unpack", lambda: _unpack(archive, work_dir / "upload", rules, found))
        manifest = found[0]
        rules = replace(rules, match=replace(rules.match, seed=archive_seed(archive)))
        run.step("build", lambda: _build(manifest, launcher, run))
        run.step("protocol_check", lambda: _protocol_check(manifest, rules, launcher, run))
        run.step(
            "validation_match",
            lambda: play_validation_match(
                _as_built(manifest, launcher), house, rules, work_dir / "match", launcher, run.log
            ),
        )
    except StepFailed as failure:
        return run.verdict(failure)
    finally:
        launcher.close()
    return run.verdict(None)


def archive_seed(archive: Path) -> int:
    """The validation match's seed: from the archive's bytes (SHA-256), so the same upload
    meets the same cards when it is validated again (a fault can be reproduced) and
    another upload other cards."""
    digest = hashlib.sha256(archive.read_bytes()).digest()
    return int.from_bytes(digest[:8], "big")


def _house_bot(rules: ValidationRules) -> BotManifest:
    try:
        return load_manifest(rules.house_bot)
    except (ManifestError, OSError) as exc:
        raise InfrastructureError(f"the house bot cannot be loaded: {exc}") from exc


def _launcher(rules: ValidationRules) -> SandboxLauncher:
    try:
        level, _reasons = choose(rules.sandbox)
        return launcher_for(level, overrides=rules.resource_limits, expose=rules.expose)
    except (SandboxUnavailableError, ResourceLimitsError, ValueError) as exc:
        raise InfrastructureError(str(exc)) from exc


def _unpack(archive: Path, dest: Path, rules: ValidationRules, found: list[BotManifest]) -> str:
    try:
        summary = unpack(archive, dest, rules.archive)
    except ArchiveError as exc:
        raise StepFailed(
            str(exc), "'arena submit' packs a folder by these rules (docs/uploads.md)"
        ) from None
    manifest = _manifest(dest, rules)
    found.append(manifest)
    return (
        f"{summary.file_count} files, {summary.unpacked_bytes:,} bytes ({summary.format}); "
        f"bot {manifest.name!r}"
    )


def _manifest(dest: Path, rules: ValidationRules) -> BotManifest:
    """The upload's manifest: ``bot.toml`` at the top, or in the one top folder."""
    path = dest / "bot.toml"
    tops = list(dest.iterdir())
    if not path.is_file() and len(tops) == 1 and tops[0].is_dir():
        path = tops[0] / "bot.toml"
    if not path.is_file():
        raise StepFailed("the archive holds no bot.toml", MANIFEST_HINT)
    try:
        manifest = load_manifest(path)
    except ManifestError as exc:
        shown = str(exc).replace(str(path), "bot.toml")
        raise StepFailed(shown, MANIFEST_HINT) from None
    if not manifest.working_dir.is_relative_to(path.parent.resolve()):
        raise StepFailed(
            "bot.toml: working_dir leaves the bot's folder", "give a folder inside the archive"
        )
    if manifest.build_timeout_s > rules.max_build_timeout_s:
        raise StepFailed(
            f"bot.toml: build_timeout_s {manifest.build_timeout_s:g} is over the "
            f"competition's limit of {rules.max_build_timeout_s:g} s",
            "lower build_timeout_s, or leave it out",
        )
    return manifest


def _build(manifest: BotManifest, launcher: SandboxLauncher, run: _Run) -> str:
    (built,) = build_bots([(manifest.name, manifest)], launcher=launcher)
    result = built.result
    # The bot's folders on this machine (unpacked, and the sandbox's copy) by name only.
    copy = launcher.built_copy(manifest)
    folders = [manifest.working_dir, *([] if copy is None else [copy])]
    run.log("build output", without_paths(result.output, folders))
    if not result.is_ok:
        raise StepFailed(result.reason, BUILD_HINT)
    return result.reason


def _as_built(manifest: BotManifest, launcher: SandboxLauncher) -> BotManifest:
    """The bot as the launcher last built it, with nothing left to build: check-bot and the
    match play that copy instead of building it again."""
    copy = launcher.built_copy(manifest)
    return manifest if copy is None else replace(manifest, build=None, working_dir=copy)


def _protocol_check(
    manifest: BotManifest, rules: ValidationRules, launcher: SandboxLauncher, run: _Run
) -> str:
    config = rules.match
    # The bot as the build step left it: check-bot does not build it again.
    built = _as_built(manifest, launcher)
    report = check_bot(
        built, limits=config.time_limits, launcher=launcher, variant=config.game.variant
    )
    run.log("stderr during the protocol check", report.stderr_tail)
    failure = report.first_failure
    if failure is not None:
        raise StepFailed(f"{failure.name}: {failure.reason}", failure.hint)
    return f"all {len(report.steps)} steps of check-bot passed"
