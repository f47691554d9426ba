"""Running a bot's build command: no shell, its own time limit, its whole tree killed.

A manifest's ``build`` (e.g. ``["make", "--silent"]``) runs in the bot's working
directory, in its own session, with the manifest's environment. Its output (stdout and
stderr together) is kept in a capped log. If it runs past ``build_timeout_s`` its whole
process tree is killed and the build fails; the result says why in one sentence (and
that it filled its disk, when a sandbox held its private folder to ``disk_bytes`` and the
build failed with it full: :mod:`arena.bots.sandbox.disk`).
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.bots.launcher import DirectLauncher, Launcher
from arena.bots.manifest import BotManifest
from arena.bots.process_tree import kill_session
from arena.bots.sandbox.disk import disk_breach
from arena.bots.stderr_log import CappedLog
from arena.bots.transport import BotStartError, describe_exit, split_returncode
from protocol.inert import inert_text

__all__ = [
    "OUTPUT_TAIL_LINES",
    "BuildResult",
    "BuiltBot",
    "build_bots",
    "run_build",
    "without_paths",
]

_OUTPUT_CAP_BYTES = 64 * 1024
#: What a folder of the machine's is written as in a build's output shown to its author.
_FOLDER_SHOWN = "<your bot's folder>"


def without_paths(text: str, folders: Sequence[Path]) -> str:
    """``text`` (a build's output) with each of ``folders`` (where the bot was unpacked and
    built on a server), as given and resolved, written as ``<your bot's folder>``: a team
    reads its own output without the server's layout.

    >>> without_paths("/srv/w/.7-ab/upload/x.c:3: error", [Path("/srv/w/.7-ab/upload")])
    "<your bot's folder>/x.c:3: error"
    """
    names = {str(folder) for folder in folders} | {str(folder.resolve()) for folder in folders}
    for name in sorted(names, key=len, reverse=True):  # the longest first: a folder's own
        text = text.replace(name, _FOLDER_SHOWN)
    return text


#: Lines of a failed build's output quoted with its reason: a compiler writes its error
#: last, and a person reading a terminal needs it, not the whole log.
OUTPUT_TAIL_LINES = 20


@dataclass(frozen=True, slots=True)
class BuildResult:
    """How a build went. ``has_run`` is False when the manifest has no build step."""

    bot_name: str
    has_run: bool
    is_ok: bool
    reason: str
    exit_code: int | None = None
    signal: int | None = None
    duration_s: float = 0.0
    output: str = ""
    is_timed_out: bool = False

    def output_tail(self) -> list[str]:
        """The last :data:`OUTPUT_TAIL_LINES` non-blank lines of the build's output (where
        a compiler writes its error), oldest first.

        >>> BuildResult("b", True, False, "r", output="cc x.c\\n\\nx.c:3: error\\n").output_tail()
        ['cc x.c', 'x.c:3: error']
        """
        lines = [line.rstrip() for line in self.output.splitlines() if line.strip()]
        return lines[-OUTPUT_TAIL_LINES:]

    def explain(self) -> str:
        """The reason and, below it, the end of the build's output: what every command
        shows for a failed build (a reason alone, ``failed (exit code 2)``, never says
        what to fix).

        >>> failed = BuildResult("b", True, False, "build 'make' failed", output="x.c:3: err")
        >>> print(failed.explain())
        build 'make' failed; its output ends with:
          | x.c:3: err
        """
        return self.reason + self.quoted_output()

    def quoted_output(self) -> str:
        """``"; its output ends with:"`` and the lines of :meth:`output_tail`, each on a
        line of its own after ``  | `` (``""`` when the build printed nothing)."""
        tail = self.output_tail()
        if not tail:
            return ""
        # The output is the bot author's text: shown inert, as their stderr is.
        quoted = ("  | " + inert_text(line.expandtabs(8)) for line in tail)
        return "\n".join(["; its output ends with:", *quoted])


def run_build(
    manifest: BotManifest,
    *,
    launcher: Launcher | None = None,
    timeout_s: float | None = None,
) -> BuildResult:
    """Run ``manifest.build`` (if any) and report; never raises for a failing build.

    ``timeout_s`` overrides the manifest's ``build_timeout_s``.
    """
    spec = (launcher or DirectLauncher()).prepare_build(manifest)
    if spec is None:
        return BuildResult(manifest.name, has_run=False, is_ok=True, reason="no build step")
    limit = manifest.build_timeout_s if timeout_s is None else timeout_s
    # Messages name the manifest's command as its author wrote it, not the argv a sandbox
    # wrapped around it (bwrap's options, the supervisor's).
    command = " ".join(manifest.build or spec.argv)
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            list(spec.argv),
            cwd=spec.cwd,
            env=dict(spec.env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        program = spec.argv[0]
        run_as = "" if manifest.build and program == manifest.build[0] else f" (as {program!r})"
        reason = f"cannot run the build command {command!r}{run_as}: {exc.strerror or exc}"
        return BuildResult(manifest.name, has_run=True, is_ok=False, reason=reason)
    output = CappedLog(_OUTPUT_CAP_BYTES)
    assert process.stdout is not None
    reader = threading.Thread(target=output.capture, args=(process.stdout.fileno(),), daemon=True)
    reader.start()
    is_timed_out = False
    try:
        returncode = process.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        is_timed_out = True
        # The group (compilers fork) and what left it; the leader is not reaped yet.
        kill_session(process.pid)
        returncode = process.wait()
    reader.join(timeout=1.0)
    process.stdout.close()
    duration = time.monotonic() - started
    exit_code, signal_number = split_returncode(returncode)
    if is_timed_out:
        reason = f"build {command!r} took longer than {limit:g} s and was killed"
    elif returncode != 0:
        reason = f"build {command!r} failed ({describe_exit(exit_code, signal_number)})"
        full = (
            None
            if spec.resources is None
            else disk_breach(spec.private_dir, spec.resources.disk_bytes)
        )
        if full is not None:
            reason += f"; stopped by the sandbox: {full.describe()}"
    else:
        reason = f"build {command!r} succeeded in {duration:.2f} s"
    return BuildResult(
        manifest.name,
        has_run=True,
        is_ok=returncode == 0 and not is_timed_out,
        reason=reason,
        exit_code=exit_code,
        signal=signal_number,
        duration_s=duration,
        output=output.text(),
        is_timed_out=is_timed_out,
    )


@dataclass(frozen=True, slots=True)
class BuiltBot:
    """One bot after :func:`build_bots`: its name, manifest and how its build went;
    ``built_copy`` is the private folder a sandbox built it in (None: built in place, or
    no build), which goes away with the launcher."""

    name: str
    manifest: BotManifest
    result: BuildResult
    built_copy: Path | None = None


def build_bots(
    bots: Iterable[tuple[str, BotManifest]], *, launcher: Launcher
) -> Iterator[BuiltBot]:
    """Build each bot (``(name, manifest)``) under ``launcher``, a manifest listed twice
    once, and yield how each went; never raises for a bot's build.

    A build that cannot even be prepared (the sandbox cannot run the build tool) is a
    failed build whose reason says so. The one way every command builds its bots.
    """
    done: dict[Path | None, BuildResult] = {}
    for name, manifest in bots:
        result = done.get(manifest.path) if manifest.path is not None else None
        if result is None:
            try:
                result = run_build(manifest, launcher=launcher)
            except BotStartError as exc:
                result = BuildResult(manifest.name, has_run=False, is_ok=False, reason=str(exc))
            done[manifest.path] = result
        built_copy = getattr(launcher, "built_copy", None)
        copy = built_copy(manifest) if built_copy is not None and result.is_ok else None
        yield BuiltBot(name, manifest, result, copy)
