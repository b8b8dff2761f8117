"""The manager's report pages, under /reports/ (config/urls.py)."""

from django.urls import path

from metrics.reports.views import dashboard, raters, scores, sources

app_name = "metrics"

urlpatterns = [
    path("", dashboard.index, name="index"),
    path("<slug:slug>/", dashboard.dashboard, name="dashboard"),
    path("<slug:slug>/disagreements/", dashboard.disagreements_view, name="disagreements"),
    path(
        "<slug:slug>/disagreements/<int:item_id>/adjudicate/",
        dashboard.adjudicate,
        name="adjudicate",
    ),
    path("<slug:slug>/raters/", raters.raters, name="raters"),
    path("<slug:slug>/raters/rules/", raters.rules, name="raters_rules"),
    path(
        "<slug:slug>/raters/<int:user_id>/<str:action>/",
        raters.rater_action,
        name="rater_action",
    ),
    path("<slug:slug>/systems/", scores.systems, name="systems"),
    path("<slug:slug>/compare/", scores.compare, name="compare"),
    path("<slug:slug>/queries/", scores.queries, name="queries"),
    path("<slug:slug>/queries/<int:query_id>/", scores.query_detail, name="query"),
    # Label sources without raters (issue 8): the comparison report and the uploads.
    path("<slug:slug>/sources/", sources.sources, name="sources"),
    path("<slug:slug>/sources/add/", sources.sources_add, name="sources_add"),
]
