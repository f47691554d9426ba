"""Wrong current passwords given to the password change are limited per account
(:data:`arena.server.site.ratelimit.PASSWORD_CHANGES`, issue 31): a session left open
cannot be used to guess the account's password without bound; the right password is
refused too once the limit is used up, and another account is not affected."""

from __future__ import annotations

import pytest
from django.test import Client

from arena.server.site import ratelimit
from tests.arena.server.factories import PASSWORD, make_team

pytestmark = pytest.mark.usefixtures("db")

NEW = "another long passphrase"


def _change(client: Client, old: str) -> int:
    form = {"old_password": old, "new_password1": NEW, "new_password2": NEW}
    return int(client.post("/password/", form).status_code)


def test_wrong_current_passwords_are_limited_per_account() -> None:
    make_team("ants", member="ann")
    make_team("bees", member="bob")
    ann, bob = Client(), Client()
    assert ann.login(username="ann", password=PASSWORD)
    assert bob.login(username="bob", password=PASSWORD)
    for _ in range(ratelimit.PASSWORD_CHANGES.count):
        assert _change(ann, "a wrong guess") == 200  # the form again, with its error
    # Used up: even the right password is refused now, and the page says why.
    refused = ann.post(
        "/password/", {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW}
    )
    assert refused.status_code == 429
    assert ratelimit.PASSWORD_CHANGES.refusal in refused.content.decode()
    assert Client().login(username="ann", password=PASSWORD)  # unchanged
    # Another account's change is its own.
    assert _change(bob, PASSWORD) == 302
    assert Client().login(username="bob", password=NEW)


def test_a_refused_new_password_is_no_guess() -> None:
    # Only a wrong current password counts: a weak new one is the form's own error.
    make_team("ants", member="ann")
    ann = Client()
    assert ann.login(username="ann", password=PASSWORD)
    weak = {"old_password": PASSWORD, "new_password1": "ann", "new_password2": "ann"}
    for _ in range(ratelimit.PASSWORD_CHANGES.count + 1):
        assert ann.post("/password/", weak).status_code == 200
    assert _change(ann, PASSWORD) == 302
