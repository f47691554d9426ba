"""The list of the site's pages that the accessibility check must show
(:mod:`tests.arena.server.browser.every_page`): read from the URL patterns, so that a new
page is checked or named as no page; the check itself runs in the participant journey."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright)"
)

from tests.arena.server.browser.every_page import (
    NOT_PAGES,
    page_names,
    unvisited,
)


def test_every_pattern_named_as_no_page_is_a_pattern_of_the_site() -> None:
    # A page removed from the site leaves no stale excuse behind.
    assert set(NOT_PAGES) <= page_names()


def test_with_nothing_shown_every_page_kind_is_missing_and_no_api_or_post_is() -> None:
    missing = unvisited([])
    assert {"leaderboard", "protocol", "ladder-finals-report", "password-reset"} <= missing
    admin = {"admin:index", "admin:arena_server_team_changelist",
             "admin:arena_server_team_change", "admin:auth_user_password_change"}  # fmt: skip
    assert admin <= missing
    # An admin model's add, history and delete pages are one template each: one of a kind.
    assert "admin: any model's add" in missing
    assert "admin:arena_server_team_add" not in missing
    assert not {name for name in missing if name.startswith("api-")}
    assert not set(NOT_PAGES) & missing


def test_a_page_shown_is_no_longer_missing_and_one_add_form_stands_for_all() -> None:
    shown = ["/", "/teams/3/matches/", "/admin/auth/group/add/", "/admin/login/"]
    missing = unvisited(shown)
    assert not {"leaderboard", "team-matches", "arena.server.site.views.accounts.log_in"} & missing
    assert "admin: any model's add" not in missing and "admin: any model's history" in missing
