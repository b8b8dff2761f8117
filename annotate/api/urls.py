"""Routes of the annotate API: the router's lists and the explicit views."""

from __future__ import annotations

from django.urls import path
from rest_framework.routers import BaseRouter

from annotate.api import corpus, judging, qrels, sxs


def register(router: BaseRouter) -> None:
    router.register("campaigns", corpus.CampaignViewSet, basename="campaign")
    router.register("queries", corpus.QueryViewSet, basename="query")
    router.register("documents", corpus.DocumentViewSet, basename="document")
    router.register("systems", corpus.SystemViewSet, basename="system")
    router.register("runs", corpus.RunViewSet, basename="run")
    router.register(r"runs/(?P<run_pk>\d+)/entries", corpus.RunEntryViewSet, basename="run-entry")
    router.register("pool-items", corpus.PoolItemViewSet, basename="pool-item")
    router.register("grades", judging.GradeViewSet, basename="grade")
    router.register("comparisons", sxs.ComparisonViewSet, basename="comparison")
    router.register(
        r"comparisons/(?P<comparison_pk>\d+)/tasks", sxs.TaskViewSet, basename="comparison-task"
    )
    router.register("verdicts", sxs.VerdictViewSet, basename="verdict")


urlpatterns = [
    path("campaigns/<slug:slug>/imports/", corpus.ImportView.as_view(), name="api-import"),
    path("campaigns/<slug:slug>/queue/", judging.QueueView.as_view(), name="api-queue"),
    path("campaigns/<slug:slug>/queue/skip/", judging.SkipView.as_view(), name="api-skip"),
    path("campaigns/<slug:slug>/qrels/", qrels.QrelsView.as_view(), name="api-qrels"),
    path("comparisons/<int:pk>/queue/", sxs.SxsQueueView.as_view(), name="api-sxs-queue"),
    path("comparisons/<int:pk>/gsb/", sxs.GsbView.as_view(), name="api-gsb"),
]
