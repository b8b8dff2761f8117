"""The manager's report pages, under /reports/ (config/urls.py)."""

from django.urls import path

from metrics.reports.views import dashboard as views
from metrics.reports.views import scores as views_scores
from metrics.reports.views import sources as views_sources

app_name = "metrics"

urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:slug>/", views.dashboard, name="dashboard"),
    path("<slug:slug>/disagreements/", views.disagreements_view, name="disagreements"),
    path(
        "<slug:slug>/disagreements/<int:item_id>/adjudicate/",
        views.adjudicate,
        name="adjudicate",
    ),
    path("<slug:slug>/systems/", views_scores.systems, name="systems"),
    path("<slug:slug>/compare/", views_scores.compare, name="compare"),
    path("<slug:slug>/queries/", views_scores.queries, name="queries"),
    path("<slug:slug>/queries/<int:query_id>/", views_scores.query_detail, name="query"),
    # Label sources without raters (issue 8): the comparison report and the uploads.
    path("<slug:slug>/sources/", views_sources.sources, name="sources"),
    path("<slug:slug>/sources/add/", views_sources.sources_add, name="sources_add"),
]
