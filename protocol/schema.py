"""The JSON Schemas (draft 2020-12) of every message, loaded once, compiled once.

The schemas ship as package data in ``protocol/schemas/<type>.json`` (plus ``defs.json``,
the shared definitions they ``$ref``) and are read with :mod:`importlib.resources`. A
validator is built lazily the first time a message type is validated and then reused.

Arena-to-bot schemas are closed (``additionalProperties: false``): they say exactly what
version 1 sends, so a typo in a builder fails the tests. Bot-to-arena schemas are open: the
arena ignores fields it does not know, as bots must.

>>> direction_of("act"), direction_of("action")
('arena->bot', 'bot->arena')
>>> find_issue({"type": "action", "seq": 4, "action": "RAISE"})
SchemaIssue(path='/amount', message="'amount' is a required property", keyword='required')
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from protocol.errors import ArenaBugError

__all__ = [
    "ARENA_TO_BOT",
    "BOT_TO_ARENA",
    "MESSAGE_TYPES",
    "SCHEMA_NAMES",
    "SchemaIssue",
    "direction_of",
    "find_issue",
    "load_schema",
    "validate_outgoing",
    "validator_for",
]

#: Message types the arena sends (``hello``, ``act`` and ``draw`` expect a reply).
ARENA_TO_BOT: tuple[str, ...] = (
    "hello",
    "act",
    "draw",
    "error",
    "hand_start",
    "hand_end",
    "match_end",
)
#: Message types a bot sends, each the reply to one request.
BOT_TO_ARENA: tuple[str, ...] = ("ready", "action", "discard")
MESSAGE_TYPES: tuple[str, ...] = ARENA_TO_BOT + BOT_TO_ARENA
#: Every schema file, without ``.json``.
SCHEMA_NAMES: tuple[str, ...] = (*MESSAGE_TYPES, "defs")

_MAX_MESSAGE_CHARS = 240


@dataclass(frozen=True, slots=True)
class SchemaIssue:
    """The most relevant reason an object breaks its schema.

    ``path`` is a JSON pointer to the bad field (for a missing field, the field's own
    pointer), ``keyword`` the JSON Schema keyword that failed.
    """

    path: str
    message: str
    keyword: str


def direction_of(message_type: str) -> str:
    """``"arena->bot"`` or ``"bot->arena"``; ``KeyError`` for an unknown type."""
    if message_type in ARENA_TO_BOT:
        return "arena->bot"
    if message_type in BOT_TO_ARENA:
        return "bot->arena"
    raise KeyError(message_type)


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema file ``protocol/schemas/<name>.json``."""
    if name not in SCHEMA_NAMES:
        raise KeyError(f"no schema named {name!r}")
    text = _schema_folder().joinpath(f"{name}.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _schema_folder() -> Traversable:
    try:
        return resources.files("protocol").joinpath("schemas")
    except NotADirectoryError:
        # An editable install can add a path hook to the package's __path__, which Python
        # 3.11's resources reader rejects; the files sit next to this module either way.
        return Path(__file__).parent / "schemas"


@functools.cache
def _registry() -> Registry[Any]:
    pairs = []
    for name in SCHEMA_NAMES:
        schema = load_schema(name)
        pairs.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(pairs)


@functools.cache
def validator_for(message_type: str) -> Draft202012Validator:
    """The compiled validator of one message type (built on first use, then reused)."""
    direction_of(message_type)  # unknown types raise KeyError
    return Draft202012Validator(load_schema(message_type), registry=_registry())


def find_issue(message: object, message_type: str | None = None) -> SchemaIssue | None:
    """Why ``message`` breaks the schema of ``message_type`` (default: its own ``type``).

    Returns ``None`` when it is valid. This is the slow, precise path; it costs about a
    millisecond for a full ``act`` request.
    """
    if message_type is None:
        if not isinstance(message, Mapping):
            return SchemaIssue("", "a message must be a JSON object", "type")
        declared = message.get("type")
        if not isinstance(declared, str) or declared not in MESSAGE_TYPES:
            return SchemaIssue("/type", f"unknown message type {declared!r}", "enum")
        message_type = declared
    error = best_match(validator_for(message_type).iter_errors(message))
    if error is None:
        return None
    return _issue(error)


def validate_outgoing(message: Mapping[str, Any]) -> None:
    """Check a message the arena is about to send; a failure is our bug (ArenaBugError)."""
    declared = message.get("type") if isinstance(message, Mapping) else None
    if declared not in ARENA_TO_BOT:
        raise ArenaBugError(f"outgoing message has an unknown type {declared!r}")
    issue = find_issue(message, str(declared))
    if issue is not None:
        raise ArenaBugError(
            f"outgoing {declared!r} message breaks its schema at {issue.path or '/'}: "
            f"{issue.message}",
        )


def _issue(error: ValidationError) -> SchemaIssue:
    parts = [str(part) for part in error.absolute_path]
    required = error.validator_value
    if error.validator == "required" and isinstance(error.instance, Mapping):
        assert isinstance(required, list)
        missing = [name for name in required if name not in error.instance]
        parts.append(str(missing[0]))
    path = "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)
    message = error.message
    if len(message) > _MAX_MESSAGE_CHARS:
        message = message[: _MAX_MESSAGE_CHARS - 3] + "..."
    return SchemaIssue(path, message, str(error.validator))
