"""The JSON Schema files: valid draft 2020-12, shipped, complete, compiled once."""

from __future__ import annotations

import json
import tomllib

import pytest
from jsonschema import Draft202012Validator

from protocol import schema
from protocol.errors import ErrorCode
from protocol.schema import (
    ARENA_TO_BOT,
    BOT_TO_ARENA,
    MESSAGE_TYPES,
    SCHEMA_NAMES,
    SchemaIssue,
    direction_of,
    find_issue,
    load_schema,
    validator_for,
)
from tests import REPO_ROOT

SCHEMA_FOLDER = REPO_ROOT / "protocol" / "schemas"


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    loaded = load_schema(name)
    Draft202012Validator.check_schema(loaded)
    assert loaded["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert loaded["$id"].endswith(f"/protocol/v1/{name}.json")


def test_the_schema_folder_holds_exactly_one_file_per_message_type_plus_defs() -> None:
    files = {path.stem for path in SCHEMA_FOLDER.glob("*.json")}
    assert files == set(SCHEMA_NAMES)
    assert set(MESSAGE_TYPES) == set(ARENA_TO_BOT) | set(BOT_TO_ARENA)
    assert not set(ARENA_TO_BOT) & set(BOT_TO_ARENA)


def test_schemas_are_shipped_as_package_data() -> None:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "schemas/*.json" in config["tool"]["setuptools"]["package-data"]["protocol"]


@pytest.mark.parametrize("message_type", MESSAGE_TYPES)
def test_each_schema_pins_its_type_and_every_ref_resolves(message_type: str) -> None:
    loaded = load_schema(message_type)
    assert loaded["properties"]["type"] == {"const": message_type}
    validator = validator_for(message_type)
    assert validator is validator_for(message_type)  # compiled once, then reused
    assert not validator.is_valid({"type": message_type})  # exercises the $refs


@pytest.mark.parametrize("message_type", ARENA_TO_BOT)
def test_arena_messages_are_closed_so_builder_typos_fail(message_type: str) -> None:
    loaded = load_schema(message_type)
    closed = loaded.get("additionalProperties") is False
    assert closed or loaded.get("unevaluatedProperties") is False


@pytest.mark.parametrize("message_type", BOT_TO_ARENA)
def test_replies_are_open_so_bots_may_add_fields(message_type: str) -> None:
    loaded = load_schema(message_type)
    assert "additionalProperties" not in loaded and "unevaluatedProperties" not in loaded


def test_directions() -> None:
    assert direction_of("hello") == "arena->bot"
    assert direction_of("discard") == "bot->arena"
    with pytest.raises(KeyError):
        direction_of("chat")


def test_unknown_schema_name_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="chat"):
        load_schema("chat")
    with pytest.raises(KeyError):
        validator_for("defs")


def test_find_issue_explains_non_objects_and_unknown_types() -> None:
    assert find_issue([1]) == SchemaIssue("", "a message must be a JSON object", "type")
    assert find_issue({"type": "chat"}) == SchemaIssue(
        "/type", "unknown message type 'chat'", "enum"
    )
    assert find_issue({"seq": 1}) == SchemaIssue("/type", "unknown message type None", "enum")
    assert find_issue({"type": "action", "seq": 1, "action": "FOLD"}) is None


def test_find_issue_points_at_nested_fields() -> None:
    issue = find_issue({"type": "discard", "seq": 1, "cards": [{"rank": "A"}]})
    assert issue == SchemaIssue("/cards/0/suit", "'suit' is a required property", "required")


def test_long_schema_messages_are_shortened() -> None:
    issue = find_issue({"type": "action", "seq": 1, "action": "X" * 5000})
    assert issue is not None and len(issue.message) <= 240 and issue.message.endswith("...")


def test_schemas_can_also_be_found_without_importlib_resources(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(package: str) -> None:
        raise NotADirectoryError(package)

    monkeypatch.setattr("protocol.schema.resources.files", refuse)
    folder = schema._schema_folder()
    assert json.loads(folder.joinpath("defs.json").read_text("utf-8"))["$defs"]


def test_error_codes_are_lower_snake_case_and_unique() -> None:
    values = [code.value for code in ErrorCode]
    assert len(values) == len(set(values))
    assert all(value.replace("_", "").isalnum() and value.islower() for value in values)
