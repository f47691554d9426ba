"""The ladder's URLs (included by the site's ``arena.server.urls``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from arena.server.ladder import actions, version_views, views

urlpatterns: list[URLPattern] = [
    path("ladder/", views.ladder_page, name="ladder"),
    path("ladder/versions/<int:version_id>/", version_views.version_page, name="ladder-version"),
    path("ladder/versions/<int:version_id>/promotion/", actions.request_promotion,
         name="ladder-promotion"),
    path("ladder/versions/<int:version_id>/test-games/", actions.request_test_games,
         name="ladder-test-games"),
    path("ladder/versions/<int:version_id>/settings/", actions.team_settings,
         name="ladder-settings"),
    path("ladder/finals/", views.finals_page, name="ladder-finals"),
    path("ladder/finals/report/", views.finals_report, name="ladder-finals-report"),
    path("api/v1/ladder/", views.api_ladder, name="api-ladder"),
    path("api/v1/ladder/versions/<int:version_id>/", version_views.api_version,
         name="api-ladder-version"),
]  # fmt: skip
