"""The site's URLs."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.staticfiles.views import serve as serve_static
from django.urls import URLPattern, URLResolver, include, path, re_path

from arena.server.ladder import overview_page
from arena.server.site.views import accounts, api, history, pages, protocol

urlpatterns: list[URLPattern | URLResolver] = [
    path("", pages.leaderboard, name="leaderboard"),
    path("overview/", overview_page.overview, name="overview"),
    path("protocol/", protocol.protocol_page, name="protocol"),
    path("protocol/PROTOCOL.md", pages.protocol, name="protocol-text"),
    path("starters/<str:name>.tar.gz", pages.starter, name="starter"),
    path("signup/", accounts.sign_up, name="signup"),
    path("login/", accounts.log_in, name="login"),
    path("logout/", accounts.log_out, name="logout"),
    path("team/", pages.my_team, name="my-team"),
    path("team/new/", accounts.new_team, name="team-new"),
    path("team/join/", accounts.join_team, name="team-join"),
    path("team/code/", accounts.rotate_join_code, name="team-rotate-code"),
    path(
        "team/members/<int:membership_id>/remove/",
        accounts.remove_member,
        name="team-remove-member",
    ),
    path("password/", accounts.change_password, name="password-change"),
    path("password/changed/", accounts.password_changed, name="password-changed"),
    path("reset/<uidb64>/<token>/", accounts.reset_password, name="password-reset"),
    path("reset/done/", accounts.password_reset_done, name="password-reset-done"),
    path("teams/<int:team_id>/", pages.team_page, name="team"),
    path("teams/<int:team_id>/matches/", history.team_matches, name="team-matches"),
    path("tokens/", accounts.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", accounts.revoke_token, name="token-revoke"),
    path("upload/", pages.upload, name="upload"),
    path("versions/<int:version_id>/", pages.version_page, name="version"),
    path("versions/<int:version_id>/matches/", history.version_matches, name="version-matches"),
    path("versions/<int:version_id>/activate/", pages.make_active, name="version-activate"),
    path("matches/<int:match_id>/", pages.match_page, name="match"),
    path("matches/<int:match_id>/hands/", pages.match_hands, name="match-hands"),
    path("api/v1/versions/", api.versions, name="api-versions"),
    path("api/v1/versions/<int:version_id>/", api.version, name="api-version"),
    path("api/v1/versions/<int:version_id>/activate/", api.activate, name="api-version-activate"),
    path("api/v1/limits/", api.limits, name="api-limits"),
    path(
        "api/v1/versions/<int:version_id>/matches/",
        history.api_version_matches,
        name="api-version-matches",
    ),
    path(
        "api/v1/versions/<int:version_id>/hands.<str:fmt>",
        history.version_hands,
        name="api-version-hands",
    ),
    path("api/v1/leaderboard/", api.leaderboard, name="api-leaderboard"),
    path("api/v1/matches/<int:match_id>/", api.match, name="api-match"),
    path("api/v1/matches/<int:match_id>/hands.<str:fmt>", api.hands, name="api-hands"),
    path("api/v1/teams/", api.teams, name="api-teams"),
    path("api/v1/teams/<int:team_id>/", api.team, name="api-team"),
    path("api/v1/teams/<int:team_id>/matches/", history.api_team_matches, name="api-team-matches"),
    path("favicon.ico", pages.no_icon),
    path("", include("arena.server.ladder.urls")),
    # The admin's log-in is the site's, so that its rate limit holds there too.
    path("admin/login/", accounts.log_in),
    path("admin/", admin.site.urls),
    # The application serves its own static files (the site's style sheet, the admin's).
    re_path(r"^static/(?P<path>.*)$", serve_static, {"insecure": True}),
]
