"""Bot-controlled text shown inert: no control, format or separator character survives."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from protocol.inert import control_characters, inert_text


def test_terminal_escape_sequences_are_shown_not_obeyed() -> None:
    shown = inert_text("evil\x1b[2J\x1b]0;pwned\x07 bot")
    assert "\x1b" not in shown and "\x07" not in shown
    assert shown == "evil\\x1b[2J\\x1b]0;pwned\\x07 bot"


def test_newlines_c1_nul_bidi_and_separators_are_escaped() -> None:
    assert inert_text("a\nb\tc\x00\x85\u202e\u2028\u2029") == (
        "a\\nb\\tc\\x00\\x85\\u202e\\u2028\\u2029"
    )


def test_lone_surrogates_and_astral_private_use_are_escaped() -> None:
    assert inert_text("\ud800") == "\\ud800"
    assert inert_text("\U000f0000") == "\\U000f0000"


def test_long_text_is_cut_with_an_ellipsis() -> None:
    assert inert_text("x" * 100, max_length=10) == "x" * 9 + "…"
    assert inert_text("short", max_length=10) == "short"


def test_control_characters_names_each_once_in_order() -> None:
    assert control_characters("a\x1bb\x1b\u202e") == ("\\x1b", "\\u202e")
    assert control_characters("plain name-1.0 ♠") == ()


@given(st.text())
def test_inert_text_never_contains_a_hidden_character(text: str) -> None:
    shown = inert_text(text)
    assert all(
        unicodedata.category(c) not in {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"} for c in shown
    )
    assert control_characters(shown) == ()
