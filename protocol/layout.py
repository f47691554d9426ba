"""The one wire layout of the messages built from a seat's view, and the code made from it.

Theory of operation. A message is written here once, as data: an ordered tuple of
:class:`Field` (wire key, where its value comes from, what kind of value it is), with
:class:`Group` for a run of fields that is the same all hand long. From each layout two
functions are generated, the way :mod:`dataclasses` generates ``__init__``:

* a *builder* that returns the message as a ``dict`` (for :func:`protocol.codec.encode`,
  the schemas and the tests), and
* a *writer* that returns the same message directly as compact JSON text, for the arena's
  hot path (:mod:`protocol.request_encoder`). A writer takes the encoder as ``enc`` and asks
  it for the bulky parts (cards, pots, seats, history), which it caches, and for a group's
  text, which it keeps for as long as the group's values do not change.

Both are one expression over the same fields in the same order, so the key names, their
order and the nesting (a seat inside ``table_state``, a pot inside ``pots``) cannot differ
between the dict and the text; the tests hold the writer's bytes to ``encode(builder(...))``.

>>> SEAT_STATE.build(SeatPublicView(1, "p1", 198, "ACTIVE", 2, 2, "big_blind", None))["stack"]
198
>>> SEAT_STATE.text(SeatPublicView(1, "p1", 198, "ACTIVE", 2, 2, "big_blind", None))[:32]
'{"player_id":"p1","seat_index":1'
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.actions import LegalActions
from engine.cards import FULL_DECK, Card
from engine.view import SeatPublicView, SeatView
from protocol.cards import cards_to_wire, text_cards_to_wire
from protocol.codec import json_text, scalar_text
from protocol.errors import ArenaBugError
from protocol.legal import legal_action_names

__all__ = [
    "ACT_REQUEST",
    "DEFAULT_MAX_ATTEMPTS",
    "DRAW_REQUEST",
    "HAND_START",
    "POT_STATE",
    "SEAT_STATE",
    "Field",
    "Group",
    "Kind",
    "Layout",
    "action_names_text",
    "actor_legal",
    "cards_text",
    "own_seat",
    "wire_event",
    "wire_history",
]

#: Invalid replies allowed per decision before the arena applies the default (fold).
DEFAULT_MAX_ATTEMPTS = 3


class Kind(StrEnum):
    """What a field's value is, which says how it goes on the wire (see ``_KINDS``)."""

    CONSTANT = "constant"  # a Python literal, written into the text once
    SCALAR = "scalar"  # an int, str, bool or None
    INTS = "ints"  # a sequence of ints, as a list
    HOLE_CARDS = "hole_cards"  # engine cards, as wire cards
    BOARD = "board"  # the same, cached apart from the hole cards
    ACTION_NAMES = "action_names"  # LegalActions, as the list of legal action names
    POTS = "pots"  # PotView values, as POT_STATE objects
    TABLE = "table"  # SeatPublicView values, as SEAT_STATE objects
    HISTORY = "history"  # engine event dicts, as wire events


@dataclass(frozen=True, slots=True)
class Field:
    """One key of a message: ``value`` is a Python expression over the layout's inputs."""

    key: str
    value: str
    kind: Kind = Kind.SCALAR


class Group:
    """Scalar fields that stay the same all hand long; the fast writer keeps their text in
    the encoder's attribute ``name`` (``(values, text)``, initially ``((), "")``) and
    writes it anew (with ``text``, from the fields' values in order) only when one of the
    values changes.

    The values are compared with ``==``: the view's fields are the engine's ``int`` and
    ``str`` values (never a ``bool``, which would equal an ``int`` and share its text).
    """

    __slots__ = ("fields", "name", "text")

    def __init__(self, name: str, fields: Sequence[Field]) -> None:
        self.name = name
        self.fields = tuple(fields)
        self.text: Callable[..., str] = _group_writer(self)


# Per kind: the builder's expression and the writer's, around the field's value ``{}``.
# The writer's parts come from the encoder (``enc``) when it caches them.
_KINDS: Mapping[Kind, tuple[str, str]] = {
    Kind.SCALAR: ("{}", "scalar_text({})"),
    Kind.INTS: ("list({})", "ints_text({})"),
    Kind.HOLE_CARDS: ("cards_to_wire({})", "enc.hole_text({})"),
    Kind.BOARD: ("cards_to_wire({})", "enc.board_text({})"),
    Kind.ACTION_NAMES: ("legal_action_names({})", "action_names_text({})"),
    Kind.POTS: ("[POT_STATE.build(pot) for pot in {}]", "enc.pots_text({})"),
    Kind.TABLE: ("[SEAT_STATE.build(seat) for seat in {}]", "enc.table_text({})"),
    Kind.HISTORY: ("wire_history({})", "enc.history_text({})"),
}


class Layout:
    """A message's fields, with its builder (``build``) and writers (``text``, and ``line``
    which ends in a newline) made from them.

    ``inputs`` are the names the fields' expressions use, in the order ``build`` takes them;
    ``text`` takes the encoder first when a field needs it (``needs_encoder``).
    """

    __slots__ = ("build", "fields", "inputs", "line", "name", "needs_encoder", "text")

    def __init__(self, name: str, inputs: Sequence[str], fields: Sequence[Field | Group]) -> None:
        self.name = name
        self.inputs = tuple(inputs)
        self.fields = tuple(fields)
        self.needs_encoder = any(
            item.kind not in (Kind.CONSTANT, Kind.SCALAR, Kind.INTS)
            for item in self.fields
            if isinstance(item, Field)
        ) or any(isinstance(item, Group) for item in self.fields)
        self.build: Callable[..., dict[str, Any]] = _define(
            f"{name} builder", _builder_source(self)
        )
        # The writers find each group under its name.
        groups = {item.name: item for item in self.fields if isinstance(item, Group)}
        self.text: Callable[..., str] = _define(f"{name} writer", _writer_source(self, "}"), groups)
        self.line: Callable[..., str] = _define(f"{name} line", _writer_source(self, "}\n"), groups)

    def __repr__(self) -> str:
        return f"Layout({self.name!r}, {list(self.keys())})"

    def keys(self) -> tuple[str, ...]:
        """The wire keys, in order."""
        return tuple(
            field.key
            for item in self.fields
            for field in (item.fields if isinstance(item, Group) else (item,))
        )


def _builder_source(layout: Layout) -> str:
    entries = []
    for item in layout.fields:
        for field in item.fields if isinstance(item, Group) else (item,):
            if field.kind is Kind.CONSTANT:
                value = field.value
            else:
                value = _KINDS[field.kind][0].format(_checked(field.value))
            entries.append(f"{field.key!r}: {value}")
    return f"def generated({', '.join(layout.inputs)}):\n    return {{{', '.join(entries)}}}\n"


def _writer_source(layout: Layout, end: str) -> str:
    """A function returning the message as one f-string: literal JSON around the fields'
    text expressions.

    A group's text is kept in the encoder's attribute of the group's name, as ``(values,
    text)``, and written anew when the values change (inline: this runs for every request).
    """
    lines: list[str] = []
    pieces: list[tuple[bool, str]] = [(False, "{")]
    for index, item in enumerate(layout.fields):
        if index:
            pieces.append((False, ","))
        if isinstance(item, Group):
            name = item.name
            values = ", ".join(_checked(field.value) for field in item.fields)
            lines += [
                f"{name}_key = ({values},)",
                f"{name}_last = enc.{name}",
                f"if {name}_key != {name}_last[0]:",
                f"    {name}_last = enc.{name} = ({name}_key, {name}.text(*{name}_key))",
            ]
            pieces.append((True, f"{name}_last[1]"))
        elif item.kind is Kind.CONSTANT:
            constant = json_text(ast.literal_eval(item.value))
            pieces.append((False, f"{json_text(item.key)}:{constant}"))
        else:
            pieces.append((False, f"{json_text(item.key)}:"))
            pieces.append((True, _KINDS[item.kind][1].format(_checked(item.value))))
    pieces.append((False, end))
    lines.append(f"return {_string_source(pieces)}")
    parameters = ("enc", *layout.inputs) if layout.needs_encoder else layout.inputs
    body = "".join(f"    {line}\n" for line in lines)
    return f"def generated({', '.join(parameters)}):\n{body}"


def _group_writer(group: Group) -> Callable[..., str]:
    """The text of ``group``'s fields (without braces), from their values in order."""
    pieces: list[tuple[bool, str]] = []
    for index, field in enumerate(group.fields):
        if field.kind is not Kind.SCALAR:
            raise ArenaBugError(f"group {group.name!r}: field {field.key!r} is not a scalar")
        pieces.append((False, f"{',' if index else ''}{json_text(field.key)}:"))
        pieces.append((True, f"scalar_text(v{index})"))
    arguments = ", ".join(f"v{index}" for index in range(len(group.fields)))
    source = f"def generated({arguments}):\n    return {_string_source(pieces)}\n"
    return _define(f"group {group.name}", source)


def _define(name: str, source: str, names: Mapping[str, Any] | None = None) -> Callable[..., Any]:
    """The function ``generated`` that ``source`` defines, seeing this module's helpers
    and ``names``."""
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<{name}>", "exec"), {**_GLOBALS, **(names or {})}, namespace)
    return namespace["generated"]  # type: ignore[no-any-return]


def _string_source(pieces: Sequence[tuple[bool, str]]) -> str:
    """Python source of one string made of ``(is_expression, text)`` pieces.

    Adjacent string literals are joined by the compiler into one f-string, so a literal
    piece is its plain ``repr`` (no brace escaping) and an expression an ``f"{...}"``.
    """
    return " ".join(
        f'f"{{{text}}}"' if is_expression else repr(text) for is_expression, text in pieces
    )


def _checked(source: str) -> str:
    """``source``, which goes inside an ``f"..."`` piece, so has no quote or backslash."""
    if any(char in source for char in "\"'\\{}"):
        raise ArenaBugError(f"layout expression {source!r} must not quote, escape or brace")
    return source


# -- what the generated code uses ------------------------------------------------------------

# Each card's wire JSON text, by card and by the engine's text ("As").
CARD_TEXTS: Mapping[Card, str] = {card: json_text(card.to_wire()) for card in FULL_DECK}
TEXT_CARD_TEXTS: Mapping[str, str] = {str(card): text for card, text in CARD_TEXTS.items()}

# The wire JSON text of each list of legal action names (at most 2**5 of them, so the
# table is small and lives as long as the program: it is keyed by value, not identity).
_ACTION_NAME_TEXTS: dict[tuple[str, ...], str] = {}

# Fields of engine events that hold cards as text ("As"); on the wire they are objects.
EVENT_CARD_FIELDS = ("cards", "board", "discarded", "drawn")


def cards_text(cards: Iterable[Card]) -> str:
    """``json_text(cards_to_wire(cards))``, by look-up."""
    return "[" + ",".join([CARD_TEXTS[card] for card in cards]) + "]"


def ints_text(values: Iterable[int]) -> str:
    """``json_text(list(values))`` for a few ints."""
    return "[" + ",".join([scalar_text(value) for value in values]) + "]"


def action_names_text(legal: LegalActions) -> str:
    """``json_text(legal_action_names(legal))`` (each combination encoded once)."""
    names = tuple(legal_action_names(legal))
    text = _ACTION_NAME_TEXTS.get(names)
    if text is None:
        text = _ACTION_NAME_TEXTS[names] = json_text(names)
    return text


def wire_history(history: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The engine's events in wire form."""
    return [wire_event(event) for event in history]


def wire_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """An engine event dict with its text cards (``"As"``) turned into wire cards."""
    data = dict(event)
    for name in EVENT_CARD_FIELDS:
        value = data.get(name)
        if isinstance(value, list):
            data[name] = text_cards_to_wire(value)
    return data


def own_seat(view: SeatView) -> SeatPublicView:
    """The public state of the seat the view belongs to."""
    for seat in view.seats:
        if seat.seat_index == view.seat_index:
            return seat
    raise ArenaBugError(f"the view's seat {view.seat_index!r} is not at the table")


def actor_legal(view: SeatView) -> LegalActions:
    """The legal actions of the view's seat, which must be the one to act."""
    legal = view.legal_actions
    if legal is None or view.seat_index is None or legal.seat_index != view.seat_index:
        raise ArenaBugError(
            f"seat {view.seat_index!r} is not to act (actor {view.actor_index!r})",
        )
    return legal


_GLOBALS: dict[str, Any] = {
    "scalar_text": scalar_text,
    "ints_text": ints_text,
    "cards_to_wire": cards_to_wire,
    "legal_action_names": legal_action_names,
    "action_names_text": action_names_text,
    "wire_history": wire_history,
}


# -- the layouts -------------------------------------------------------------------------

#: One seat's public state, an entry of ``table_state``.
SEAT_STATE = Layout(
    "seat_state",
    ["seat"],
    [
        Field("player_id", "seat.player_id"),
        Field("seat_index", "seat.seat_index"),
        Field("position", "seat.position"),
        Field("stack", "seat.stack"),
        Field("status", "seat.status"),
        Field("current_bet", "seat.street_committed"),
        Field("hand_committed", "seat.hand_committed"),
        Field("discard_count", "seat.discard_count"),
    ],
)

#: One gathered pot, an entry of ``pots``.
POT_STATE = Layout(
    "pot_state",
    ["pot"],
    [
        Field("amount", "pot.amount"),
        Field("eligible_seats", "pot.eligible_seat_indexes", Kind.INTS),
    ],
)
_GLOBALS.update(SEAT_STATE=SEAT_STATE, POT_STATE=POT_STATE)

# Who the message is for, in which hand: the same all hand long.
_SEAT_HEADER = Group(
    "header",
    (
        Field("hand_id", "hand_id"),
        Field("hand_number", "view.hand_number"),
        Field("player_id", "own.player_id"),
        Field("seat_index", "own.seat_index"),
    ),
)
# The button and the blinds of the hand, in hand_start and in every request alike.
_BLINDS = Group(
    "blinds",
    (
        Field("button_seat", "view.button_index"),
        Field("small_blind_seat", "view.small_blind_index"),
        Field("big_blind_seat", "view.big_blind_index"),
        Field("small_blind", "view.small_blind"),
        Field("big_blind", "view.big_blind"),
        Field("ante", "view.ante"),
    ),
)

#: A new hand for one seat: its own hole cards and the table.
HAND_START = Layout(
    "hand_start",
    ["view", "own", "hand_id"],
    [
        Field("type", "'hand_start'", Kind.CONSTANT),
        _SEAT_HEADER,
        Field("hole_cards", "view.hole_cards", Kind.HOLE_CARDS),
        _BLINDS,
        Field("table_state", "view.seats", Kind.TABLE),
    ],
)


def _request(message_type: str, decision: Sequence[Field]) -> Layout:
    """An ``act`` or ``draw`` request: the core fields every bot reads first (who and where
    it is, its cards, the board, the bet), the decision, then the context of the hand."""
    return Layout(
        message_type,
        ["view", "legal", "own", "seq", "hand_id", "time_limit_ms", "attempt", "max_attempts"],
        [
            Field("type", repr(message_type), Kind.CONSTANT),
            Field("seq", "seq"),
            _SEAT_HEADER,
            Field("game_state", "view.phase"),
            Field("hole_cards", "view.hole_cards", Kind.HOLE_CARDS),
            Field("community_cards", "view.board", Kind.BOARD),
            Field("current_bet", "legal.current_bet"),
            *decision,
            Field("player_stack", "legal.stack"),
            Field("pot_total", "view.pot_total"),
            Field("pots", "view.pots", Kind.POTS),
            Field("table_state", "view.seats", Kind.TABLE),
            _BLINDS,
            Field("history", "view.history", Kind.HISTORY),
            Field("time_limit_ms", "time_limit_ms"),
            Field("attempt", "attempt"),
            Field("attempts_left", "max_attempts - attempt + 1"),
        ],
    )


#: Asks the actor for a betting action; the raise bounds are null when it may not raise.
ACT_REQUEST = _request(
    "act",
    [
        Field("to_call", "legal.call_amount"),
        Field("min_raise_to", "legal.min_raise_to if legal.can_raise else None"),
        Field("max_raise_to", "legal.max_raise_to if legal.can_raise else None"),
        Field("legal_actions", "legal", Kind.ACTION_NAMES),
    ],
)

#: Asks the actor, in a draw phase, which cards it discards.
DRAW_REQUEST = _request("draw", [Field("max_discards", "legal.max_discard_count")])
