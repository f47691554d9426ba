"""A ``to_dict`` generated for each event class (a speed helper of ``engine.speed``).

Every event of every hand is turned into a dict once, for views and hand histories. The
generic conversion (:func:`plain_value` of each field) asks each value its type at run
time; the function made here knows each field's type from its annotation and is one dict
literal, like the ``__init__`` that ``dataclasses`` generates. Same keys, same order, same values.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import fields
from enum import Enum
from typing import Any

from engine.cards import FULL_DECK, Card

__all__ = ["CARD_TEXT", "compile_to_dict", "plain_value"]

# Values that are JSON-ready as they are (``type()`` is exact: a Card is an int subclass).
_AS_IS = frozenset({int, str, bool, type(None)})
#: Each card's text, looked up instead of calling ``Card.__str__``.
CARD_TEXT: dict[Card, str] = {card: str(card) for card in FULL_DECK}

# How a field becomes JSON, by its annotation (event modules use postponed annotations, so
# these are the annotations' text); any other annotation goes through plain_value at run
# time.
_AS_IS_TYPES = frozenset({"int", "str", "bool", "int | None", "str | None"})
_CONVERSIONS = {
    "tuple[Card, ...]": "[_card_text[card] for card in {}]",
    "tuple[int, ...]": "list({})",
}


def plain_value(value: Any) -> Any:
    """Convert cards, enums and tuples to JSON-ready values.

    >>> plain_value((Card.parse("As"), 3))
    ['As', 3]
    >>> plain_value({"seat_index": 2})  # anything else is left as it is
    {'seat_index': 2}
    """
    if type(value) in _AS_IS:
        return value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [plain_value(item) for item in value]
    return value


def compile_to_dict(cls: type[Any]) -> Callable[[Any], dict[str, Any]]:
    """Give the event class ``cls`` a ``to_dict`` made for its fields; return it.

    ``cls`` is a dataclass with the class attributes ``type`` (the dict's ``type`` key) and
    ``record_fields`` (fields holding tuples of records, with the keys of each record).

    A flat event becomes one dict literal (``{"type": ..., "seat_index":
    self.seat_index, ...}``), with the same keys in the same order and the same values as
    the generic conversion: cards as text, tuples as lists, enums as their values, records
    (``record_fields``) as objects.
    """
    namespace: dict[str, Any] = {"_card_text": CARD_TEXT, "_convert": plain_value}
    module = vars(sys.modules[cls.__module__])
    entries = [f"{'type'!r}: {cls.type!r}"]
    for item in fields(cls):
        name = item.name
        annotation = str(item.type)
        value = f"self.{name}"
        keys = cls.record_fields.get(name)
        if keys is not None:
            names = [f"_{number}" for number in range(len(keys))]
            record = ", ".join(f"{key!r}: {part}" for key, part in zip(keys, names, strict=True))
            value = f"[{{{record}}} for {', '.join(names)} in {value}]"
        elif _is_enum(module.get(annotation)):
            value += "._value_"  # what Enum.value returns, without the descriptor's call
        elif annotation in _CONVERSIONS:
            value = _CONVERSIONS[annotation].format(value)
        elif annotation not in _AS_IS_TYPES:
            value = f"_convert({value})"
        entries.append(f"{name!r}: {value}")
    source = "def to_dict(self):\n    return {" + ", ".join(entries) + "}"
    exec(source, namespace)  # built from the dataclass's own field names and annotations
    function: Callable[[Any], dict[str, Any]] = namespace["to_dict"]
    function.__qualname__ = f"{cls.__qualname__}.to_dict"
    function.__doc__ = "Plain JSON-ready form with a ``type`` key."
    cls.to_dict = function
    return function


def _is_enum(named: object) -> bool:
    return isinstance(named, type) and issubclass(named, Enum)
