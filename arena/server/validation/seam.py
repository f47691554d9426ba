"""The seam between the worker and the validation pipeline (:mod:`arena.server.validation`):
the worker hands it an archive, a work folder, the rules and a callback for each step, and
gets a :class:`Verdict`.

``ARENA_SERVER_PIPELINE=module:function`` puts another function with the same signature in
its place (the tests' scripted pipelines); nothing else changes.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.server.validation.queue import StepReport

__all__ = [
    "PIPELINE_ENV",
    "Pipeline",
    "SiteFailure",
    "ValidationRules",
    "Verdict",
    "load_pipeline",
]

PIPELINE_ENV = "ARENA_SERVER_PIPELINE"


class SiteFailure(RuntimeError):
    """The validation could not run here (the sandbox does not work, the house bot cannot
    be loaded): not the bot's fault. The worker puts the upload back in the queue."""


@dataclass(frozen=True, slots=True)
class ValidationRules:
    """What a validation needs from the site: its settings and the competition file."""

    competition_file: Path | None
    hands: int
    allowed_faults: int
    house_bot: Path | None
    archive_bytes: int
    unpacked_bytes: int
    file_count: int


@dataclass(frozen=True, slots=True)
class Verdict:
    """A validation's outcome: accepted or not, each step, the reason and hint of a
    rejection, and the bot's stderr (for its team only)."""

    accepted: bool
    steps: tuple[StepReport, ...] = ()
    reason: str = ""
    hint: str = ""
    stderr: str = ""


class Pipeline(Protocol):
    """Validate the archive at ``archive`` in ``work_dir`` under ``rules``, calling
    ``on_step`` as each step starts and ends."""

    def __call__(
        self,
        archive: Path,
        work_dir: Path,
        rules: ValidationRules,
        on_step: Callable[[StepReport], None],
    ) -> Verdict: ...


def load_pipeline() -> Pipeline:
    """The pipeline ``ARENA_SERVER_PIPELINE`` names, else the uploads' validation."""
    name = os.environ.get(PIPELINE_ENV) or "arena.server.validation.adapter:validate"
    module_name, _, function = name.partition(":")
    found: Any = getattr(importlib.import_module(module_name), function)
    pipeline: Pipeline = found
    return pipeline
