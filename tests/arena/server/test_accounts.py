"""Accounts against a stranger (issue 31): the log-in limit counts an account however its
name is typed and locks no one out; passwords like the name are refused, a member changes
its password and the administrator makes a one-time link; a token dies with its maker's
membership or its expiry; a team rotates its code and removes members; sign-up, codes and
uploads are rate-limited and a team's waiting versions are capped."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from arena.server.site import ratelimit, throttle
from arena.server.site.models import (
    ApiToken,
    Membership,
    RateEvent,
    SiteSettings,
    Team,
    VersionStatus,
)
from arena.server.site.names import find_account
from tests.arena.server.factories import PASSWORD, bot_archive, make_team, make_token, make_version

pytestmark = pytest.mark.usefixtures("db")

ATTACKER = "203.0.113.66"
OWNER = "198.51.100.20"


def _log_in(address: str, name: str, password: str, url: str = "/login/") -> int:
    response = Client(REMOTE_ADDR=address).post(url, {"username": name, "password": password})
    return int(response.status_code)


# -- finding 4: one account, however its name is typed ------------------------------------


@pytest.mark.parametrize("spelling", [" alice", "alice ", "\uff41lice", "ALICE"])
def test_every_spelling_of_a_name_is_the_same_account_to_the_limit(spelling: str) -> None:
    # Before the fix each spelling had five guesses of its own, and the right password
    # under another spelling logged in while "alice" was blocked.
    make_team("ants", member="alice")
    for _ in range(ratelimit.LOG_IN_PAIR.count):
        assert _log_in(ATTACKER, "alice", "wrong") == 200
    assert _log_in(ATTACKER, spelling, PASSWORD) == 429


def test_failures_under_other_spellings_add_up() -> None:
    make_team("ants", member="alice")
    for spelling in (" alice", "alice ", "\uff41lice", "Alice", "ALICE"):
        assert _log_in(ATTACKER, spelling, "wrong") == 200
    assert _log_in(ATTACKER, "alice", PASSWORD) == 429


@pytest.mark.parametrize("spelling", ["ALICE", " alice", "\uff41lice"])
def test_a_name_logs_in_whatever_its_spelling(spelling: str) -> None:
    make_team("ants", member="alice")
    client = Client()
    response = client.post("/login/", {"username": spelling, "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(User.objects.get(username="alice").pk)


@pytest.mark.parametrize(
    ("name", "error"),
    [("ALICE", "already exists"), ("\uff41lice", "already exists"), ("\u00e4rger", "ASCII")],
)
def test_sign_up_refuses_another_spelling_of_a_name_and_names_outside_ascii(
    name: str, error: str
) -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"signup": "open"})
    make_team("ants", member="alice")
    form = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    response = Client().post("/signup/", form)
    assert response.status_code == 200 and error in response.content.decode()
    assert User.objects.count() == 1


def test_an_account_is_found_exactly_first_and_never_by_guessing_among_two() -> None:
    # Accounts an administrator made apart only by case: the exact one, else none.
    for name in ("Bob", "BOB"):
        User.objects.create_user(name, password=PASSWORD)
    found = find_account("BOB")
    assert found is not None and found.username == "BOB"
    assert find_account("bob") is None
    assert find_account("nobody") is None
    assert _log_in(OWNER, "bob", PASSWORD) == 200  # no account: a failed log-in


def test_a_log_in_without_a_password_fails() -> None:
    from arena.server.site.names import NameBackend

    make_team("ants", member="alice")
    assert NameBackend().authenticate(None, username="alice") is None
    User.objects.filter(username="alice").update(is_active=False)
    assert NameBackend().authenticate(None, username="alice", password=PASSWORD) is None


# -- finding 5: no one can lock an account out ----------------------------------------------


def test_an_attacker_cannot_lock_the_administrator_out() -> None:
    # Before the fix five wrong passwords every 15 minutes kept the real admin out.
    make_team("ants", member="root")
    User.objects.filter(username="root").update(is_staff=True, is_superuser=True)
    for _ in range(ratelimit.LOG_IN_PAIR.count * 2):
        _log_in(ATTACKER, "root", "wrong", url="/admin/login/")
    assert _log_in(ATTACKER, "root", PASSWORD, url="/admin/login/") == 429
    admin = Client(REMOTE_ADDR=OWNER)
    response = admin.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 302
    assert admin.get("/admin/").status_code == 200
    # The owner's success lifts nothing for the attacker's address.
    assert _log_in(ATTACKER, "root", PASSWORD, url="/admin/login/") == 429


def test_a_guesser_pays_the_address_limit_across_accounts() -> None:
    for number in range(ratelimit.LOG_IN_ADDRESS.count // ratelimit.LOG_IN_PAIR.count):
        name = f"user{number}"
        User.objects.create_user(name, password=PASSWORD)
        for _ in range(ratelimit.LOG_IN_PAIR.count):
            _log_in(ATTACKER, name, "wrong")
    make_team("ants", member="alice")
    assert _log_in(ATTACKER, "alice", PASSWORD) == 429
    assert _log_in(OWNER, "alice", PASSWORD) == 302


def test_an_ipv6_guesser_gets_one_allowance_per_64_network() -> None:
    # A host holds a whole /64: counted per address it would have 2**64 fresh allowances.
    make_team("ants", member="alice")
    for host in range(ratelimit.LOG_IN_PAIR.count):
        assert _log_in(f"2001:db8:1:2::{host + 1:x}", "alice", "wrong") == 200
    assert _log_in("2001:db8:1:2:ffff::9", "alice", PASSWORD) == 429
    assert _log_in("2001:db8:1:3::1", "alice", PASSWORD) == 302  # another network


# -- finding 10: passwords ------------------------------------------------------------------


@pytest.mark.parametrize(
    "password", ["charlotte-smith", "Charlotte-Smith1", "4829105736281"], ids=str
)
def test_sign_up_refuses_a_password_like_the_name_or_all_digits(password: str) -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"signup": "open"})
    form = {"username": "charlotte-smith", "password1": password, "password2": password}
    response = Client().post("/signup/", form)
    assert response.status_code == 200
    assert not User.objects.filter(username="charlotte-smith").exists()


def test_a_member_changes_its_password() -> None:
    make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password=PASSWORD)
    assert client.get("/password/").status_code == 200
    new = "another long passphrase"
    form = {"old_password": "wrong", "new_password1": new, "new_password2": new}
    assert client.post("/password/", form).status_code == 200  # the old one is asked
    response = client.post("/password/", {**form, "old_password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/password/changed/"
    assert "Password set" in client.get("/password/changed/").content.decode()
    assert Client().login(username="ann", password=new)
    assert not Client().login(username="ann", password=PASSWORD)


def test_the_change_of_password_needs_a_log_in() -> None:
    response = Client().get("/password/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def _password_link(name: str) -> str:
    out = io.StringIO()
    call_command("password_link", name, "--site-url", "https://poker.example.org/", stdout=out)
    return out.getvalue().strip()


def test_the_administrators_one_time_link_sets_a_password_once() -> None:
    make_team("ants", member="ann")
    link = _password_link("ANN")  # found as the log-in finds it
    assert link.startswith("https://poker.example.org/reset/")
    path = link.removeprefix("https://poker.example.org")
    client = Client()
    form_page = client.get(path, follow=True)  # Django moves the token into the session
    assert form_page.status_code == 200 and 'name="new_password1"' in form_page.content.decode()
    new = "another long passphrase"
    response = client.post(
        form_page.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}
    )
    assert response.status_code == 302 and response["Location"] == "/reset/done/"
    assert Client().login(username="ann", password=new)
    # Used once: the same link sets nothing any more.
    again = Client().get(path, follow=True)
    assert "has been used or has expired" in again.content.decode()


def test_the_link_refuses_a_weak_password() -> None:
    make_team("ants", member="ann")
    path = _password_link("ann").removeprefix("https://poker.example.org")
    client = Client()
    page = client.get(path, follow=True)
    response = client.post(page.redirect_chain[-1][0],
                           {"new_password1": "ann", "new_password2": "ann"})  # fmt: skip
    assert response.status_code == 200
    assert Client().login(username="ann", password=PASSWORD)


def test_a_link_for_no_account_is_an_error_naming_it() -> None:
    with pytest.raises(CommandError, match="'nobody'"):
        _password_link("nobody")


def test_the_admin_makes_one_time_links_on_the_users_page() -> None:
    make_team("ants", member="ann")
    User.objects.create_superuser("root", password=PASSWORD)
    admin = Client()
    admin.login(username="root", password=PASSWORD)
    ann = User.objects.get(username="ann")
    response = admin.post(
        "/admin/auth/user/",
        {"action": "make_password_links", "_selected_action": [ann.pk]},
        follow=True,
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert re.search(r"link for ann: http://testserver/reset/\w+/[\w-]+/", text)


# -- finding 8: tokens ----------------------------------------------------------------------


def _api(token: str) -> int:
    response = Client().get("/api/v1/versions/", headers={"Authorization": f"Bearer {token}"})
    return int(response.status_code)


def _second_member(team: Team, name: str) -> Client:
    user = User.objects.create_user(name, password=PASSWORD)
    Membership.objects.create(user=user, team=team)
    client = Client()
    client.login(username=name, password=PASSWORD)
    return client


def _made_token(client: Client, **form: object) -> str:
    page = client.post("/tokens/", {"name": "laptop", **form}).content.decode()
    shown = re.search(r'<pre id="new-token">(arena_[\w-]+)</pre>', page)
    assert shown is not None
    return shown.group(1)


def test_a_removed_members_token_stops_working_at_once() -> None:
    # Before the fix a member the administrator removed still listed and uploaded.
    team = make_team("ants", member="ann")
    token = _made_token(_second_member(team, "bea"))
    assert _api(token) == 200
    Membership.objects.filter(user__username="bea").delete()
    assert _api(token) == 401
    # Joining another team does not bring it back: the token is its first team's.
    other = make_team("bees", member="bob")
    Membership.objects.create(user=User.objects.get(username="bea"), team=other)
    assert _api(token) == 401


def test_a_deactivated_or_deleted_makers_token_stops_working() -> None:
    team = make_team("ants", member="ann")
    token = make_token(team)
    assert _api(token) == 200
    User.objects.filter(username="ann").update(is_active=False)
    assert _api(token) == 401
    User.objects.filter(username="ann").delete()  # the token's maker becomes None
    assert _api(token) == 401


def test_a_token_expires_after_its_days() -> None:
    make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password=PASSWORD)
    token = _made_token(client, days=7)
    row = ApiToken.objects.get(name="laptop")
    assert row.expires is not None
    assert timedelta(days=6) < row.expires - timezone.now() <= timedelta(days=7)
    assert _api(token) == 200
    ApiToken.objects.filter(pk=row.pk).update(expires=timezone.now() - timedelta(seconds=1))
    assert _api(token) == 401


def test_the_tokens_page_shows_maker_last_use_and_expiry() -> None:
    make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password=PASSWORD)
    token = _made_token(client, days=30)
    _api(token)
    page = client.get("/tokens/").content.decode()
    used = ApiToken.objects.get(name="laptop").last_used
    assert used is not None and used.strftime("%Y-%m-%d %H:%M") in page
    expires = ApiToken.objects.get(name="laptop").expires
    assert expires is not None and expires.strftime("%Y-%m-%d %H:%M") in page
    assert "<td>ann</td>" in page


# -- finding 13: a team's code and members ---------------------------------------------------


def test_a_member_rotates_the_code_and_the_old_one_joins_no_one() -> None:
    team = make_team("ants", member="ann")
    old = team.join_code
    client = Client()
    client.login(username="ann", password=PASSWORD)
    assert client.post("/team/code/").status_code == 302
    team.refresh_from_db()
    assert team.join_code != old and team.join_code in client.get("/team/").content.decode()
    newcomer = Client()
    newcomer.force_login(User.objects.create_user("cat", password=PASSWORD))
    assert newcomer.post("/team/join/", {"code": old}).status_code == 400
    assert newcomer.post("/team/join/", {"code": team.join_code}).status_code == 302


def test_a_member_removes_a_later_one_and_the_code_changes() -> None:
    team = make_team("ants", member="ann")
    _second_member(team, "bea")
    old = team.join_code
    founder = Client()
    founder.login(username="ann", password=PASSWORD)
    later = Membership.objects.get(user__username="bea")
    response = founder.post(f"/team/members/{later.pk}/remove/")
    assert response.status_code == 302 and response["Location"] == "/team/"
    assert list(team.memberships.values_list("user__username", flat=True)) == ["ann"]
    team.refresh_from_db()
    assert team.join_code != old  # the removed member cannot come back with the code it knew


def test_a_later_member_cannot_remove_an_earlier_one_but_may_leave() -> None:
    team = make_team("ants", member="ann")
    joiner = _second_member(team, "bea")
    founder = Membership.objects.get(user__username="ann")
    assert joiner.post(f"/team/members/{founder.pk}/remove/").status_code == 403
    mine = Membership.objects.get(user__username="bea")
    response = joiner.post(f"/team/members/{mine.pk}/remove/")
    assert response.status_code == 302 and response["Location"] == "/team/new/"
    assert list(team.memberships.values_list("user__username", flat=True)) == ["ann"]


def test_the_last_member_cannot_leave() -> None:
    team = make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password=PASSWORD)
    response = client.post(f"/team/members/{team.memberships.get().pk}/remove/")
    assert response.status_code == 400 and b"last member" in response.content
    assert team.memberships.count() == 1


def test_a_member_removed_in_the_admin_cannot_join_again_with_the_code_it_knew() -> None:
    # The admin's inline deletes the membership row by row (Membership.delete), as here.
    team = make_team("ants", member="ann")
    _second_member(team, "bea")
    old = team.join_code
    Membership.objects.get(user__username="bea").delete()
    team.refresh_from_db()
    assert team.join_code != old
    bea = Client()
    bea.login(username="bea", password=PASSWORD)
    assert bea.post("/team/join/", {"code": old}).status_code == 400


def test_the_team_page_offers_only_the_removals_a_member_may_make() -> None:
    team = make_team("ants", member="ann")
    joiner = _second_member(team, "bea")
    founder = Client()
    founder.login(username="ann", password=PASSWORD)
    ann, bea = (Membership.objects.get(user__username=name).pk for name in ("ann", "bea"))
    page = founder.get("/team/").content.decode()
    assert f"/team/members/{bea}/remove/" in page and f"/team/members/{ann}/remove/" in page
    page = joiner.get("/team/").content.decode()
    assert f"/team/members/{bea}/remove/" in page and f"/team/members/{ann}/remove/" not in page
    Membership.objects.get(pk=bea).delete()
    assert "/remove/" not in founder.get("/team/").content.decode()  # the last member stays


def test_a_token_removes_no_member() -> None:
    team = make_team("ants", member="ann")
    _second_member(team, "bea")
    later = Membership.objects.get(user__username="bea")
    response = Client().post(f"/team/members/{later.pk}/remove/",
                             headers={"Authorization": f"Bearer {make_token(team)}"})  # fmt: skip
    assert response.status_code == 403
    assert team.memberships.count() == 2


# -- finding 7: rate limits and the per-team queue cap --------------------------------------


def _sign_up(address: str, name: str, **extra: str) -> int:
    form = {"username": name, "password1": PASSWORD, "password2": PASSWORD, **extra}
    return int(Client(REMOTE_ADDR=address).post("/signup/", form).status_code)


def test_sign_up_is_limited_per_address() -> None:
    # Before the fix one address made 21 accounts in 15 s.
    SiteSettings.objects.update_or_create(pk=1, defaults={"signup": "open"})
    assert Client(REMOTE_ADDR=ATTACKER).get("/signup/").status_code == 200  # a look is free
    for number in range(ratelimit.SIGN_UPS.count):
        assert _sign_up(ATTACKER, f"bot{number}") == 302
    assert _sign_up(ATTACKER, "onemore") == 429
    assert _sign_up(OWNER, "someone") == 302


def test_invitation_codes_are_rate_limited_per_address() -> None:
    SiteSettings.objects.update_or_create(
        pk=1, defaults={"signup": "invite", "invite_code": "blue-42"}
    )
    for number in range(ratelimit.CODE_GUESSES.count):
        assert _sign_up(ATTACKER, "dan", invite_code=f"guess-{number}") == 200
    assert _sign_up(ATTACKER, "dan", invite_code="blue-42") == 429
    assert _sign_up(OWNER, "dan", invite_code="blue-42") == 302


def test_team_codes_are_rate_limited_per_address() -> None:
    team = make_team("ants", member="ann")
    guesser = Client(REMOTE_ADDR=ATTACKER)
    guesser.force_login(User.objects.create_user("eve", password=PASSWORD))
    for number in range(ratelimit.CODE_GUESSES.count):
        assert guesser.post("/team/join/", {"code": f"guess-{number}"}).status_code == 400
    response = guesser.post("/team/join/", {"code": team.join_code})
    assert response.status_code == 429 and "too many wrong codes" in response.content.decode()
    assert not Membership.objects.filter(user__username="eve").exists()


def _upload(token: str, address: str = OWNER) -> tuple[int, str]:
    response = Client(REMOTE_ADDR=address).post(
        "/api/v1/versions/",
        data=bot_archive(),
        content_type="application/gzip",
        headers={"Authorization": f"Bearer {token}"},
    )
    return int(response.status_code), str(response.json().get("error", ""))


def test_a_team_may_have_only_so_many_versions_waiting() -> None:
    # Before the fix 25 uploads in 3 s were all queued, delaying every other team.
    team = make_team("ants", member="ann")
    token = make_token(team)
    cap = SiteSettings.current().upload_queued_per_team
    for _ in range(cap):
        assert _upload(token)[0] == 201
    status, error = _upload(token)
    assert status == 429 and "upload.queued_per_team = 3" in error
    # Once one has its verdict, the team may upload again; another team never waited.
    team.versions.filter(number=1).update(status=VersionStatus.ACCEPTED)
    assert _upload(token)[0] == 201
    assert _upload(make_token(make_team("bees", member="bob")))[0] == 201


def test_the_queue_cap_is_a_site_setting_and_the_upload_form_answers_429() -> None:
    team = make_team("ants", member="ann")
    SiteSettings.objects.update_or_create(pk=1, defaults={"upload_queued_per_team": 1})
    make_version(team, status=VersionStatus.QUEUED)
    client = Client()
    client.login(username="ann", password=PASSWORD)
    archive = io.BytesIO(bot_archive())
    archive.name = "bot.tar.gz"
    response = client.post("/upload/", {"archive": archive})
    assert response.status_code == 429
    assert "upload.queued_per_team = 1" in response.content.decode()


def test_uploads_are_limited_per_team_and_per_address() -> None:
    team = make_team("ants", member="ann")
    token = make_token(team)
    for _ in range(ratelimit.TEAM_UPLOADS.count):
        throttle.note(ratelimit.TEAM_UPLOADS, f"team {team.pk}")
    assert _upload(token) == (429, ratelimit.TEAM_UPLOADS.refusal)
    other = make_token(make_team("bees", member="bob"))
    for _ in range(ratelimit.UPLOADS_FROM_ADDRESS.count):
        throttle.note(ratelimit.UPLOADS_FROM_ADDRESS, ATTACKER)
    assert _upload(other, ATTACKER) == (429, ratelimit.UPLOADS_FROM_ADDRESS.refusal)
    assert _upload(other, OWNER)[0] == 201


def test_each_upload_counts_towards_its_teams_limit() -> None:
    team = make_team("ants", member="ann")
    token = make_token(team)
    assert _upload(token, ATTACKER)[0] == 201
    assert not throttle.is_over(
        ratelimit.Limit(ratelimit.TEAM_UPLOADS.kind, 2, 3600.0, "uploads"), f"team {team.pk}"
    )
    assert throttle.is_over(
        ratelimit.Limit(ratelimit.TEAM_UPLOADS.kind, 1, 3600.0, "uploads"), f"team {team.pk}"
    )
    assert throttle.is_over(
        ratelimit.Limit(ratelimit.UPLOADS_FROM_ADDRESS.kind, 1, 3600.0, "uploads"), ATTACKER
    )


def test_an_upload_without_a_client_address_counts_for_its_team_only() -> None:
    from arena.server.site.versions import store_upload

    team = make_team("ants", member="ann")
    store_upload(team, bot_archive())
    one = ratelimit.Limit(ratelimit.TEAM_UPLOADS.kind, 1, 3600.0, "uploads")
    assert throttle.is_over(one, f"team {team.pk}")
    assert not RateEvent.objects.filter(kind=ratelimit.UPLOADS_FROM_ADDRESS.kind).exists()
