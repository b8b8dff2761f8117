"""Routes of the annotate API: the router's lists and the explicit views."""

from __future__ import annotations

from django.urls import path, register_converter
from rest_framework.routers import BaseRouter

from annotate.api import corpus, judging, qrels, sxs
from annotate.api.serializers import ID_REGEX


class IdConverter:
    """A primary key in a path: at most 18 digits, so a huge number is a 404, not an overflow
    in the database."""

    regex = ID_REGEX

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")


def register(router: BaseRouter) -> None:
    router.register("campaigns", corpus.CampaignViewSet, basename="campaign")
    router.register("queries", corpus.QueryViewSet, basename="query")
    router.register("documents", corpus.DocumentViewSet, basename="document")
    router.register("systems", corpus.SystemViewSet, basename="system")
    router.register("runs", corpus.RunViewSet, basename="run")
    router.register(
        rf"runs/(?P<run_pk>{ID_REGEX})/entries", corpus.RunEntryViewSet, basename="run-entry"
    )
    router.register("pool-items", corpus.PoolItemViewSet, basename="pool-item")
    router.register("grades", judging.GradeViewSet, basename="grade")
    router.register("comparisons", sxs.ComparisonViewSet, basename="comparison")
    router.register(
        rf"comparisons/(?P<comparison_pk>{ID_REGEX})/tasks",
        sxs.TaskViewSet,
        basename="comparison-task",
    )
    router.register("verdicts", sxs.VerdictViewSet, basename="verdict")


urlpatterns = [
    path("campaigns/<slug:slug>/imports/", corpus.ImportView.as_view(), name="api-import"),
    path("campaigns/<slug:slug>/queue/", judging.QueueView.as_view(), name="api-queue"),
    path("campaigns/<slug:slug>/queue/skip/", judging.SkipView.as_view(), name="api-skip"),
    path("campaigns/<slug:slug>/qrels/", qrels.QrelsView.as_view(), name="api-qrels"),
    path("comparisons/<id:pk>/queue/", sxs.SxsQueueView.as_view(), name="api-sxs-queue"),
    path("comparisons/<id:pk>/queue/skip/", sxs.SxsSkipView.as_view(), name="api-sxs-skip"),
    path("comparisons/<id:pk>/gsb/", sxs.GsbView.as_view(), name="api-gsb"),
]
