"""Routes of the annotate API: the router's lists and the explicit views."""

from __future__ import annotations

from django.urls import path, register_converter
from rest_framework.routers import BaseRouter

from annotate.api import corpus, gold, gsb, judging, qrels, quality, quiz, sxs
from annotate.api.schema import variant_path
from annotate.api.serializers import ID_REGEX
from annotate.services.quality import ACTIONS


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
    path(
        "campaigns/<slug:slug>/raters/quality/",
        quality.RaterQualityView.as_view(),
        name="api-rater-quality",
    ),
    *(
        path(
            f"campaigns/<slug:slug>/raters/<id:user_id>/{action}/",
            quality.RaterStandingView.as_view(),
            {"action": action},
            name=f"api-rater-{action}",
        )
        for action in ACTIONS
    ),
    path("comparisons/<id:pk>/queue/", sxs.SxsQueueView.as_view(), name="api-sxs-queue"),
    path("comparisons/<id:pk>/queue/skip/", sxs.SxsSkipView.as_view(), name="api-sxs-skip"),
    path("comparisons/<id:pk>/gsb/", gsb.GsbView.as_view(), name="api-gsb"),
    path("campaigns/<slug:slug>/gold/", gold.CampaignGoldView.as_view(), name="api-gold"),
    path(
        "campaigns/<slug:slug>/gold/accuracy/",
        gold.CampaignGoldAccuracyView.as_view(),
        name="api-gold-accuracy",
    ),
    path(
        "campaigns/<slug:slug>/gold/<id:item>/",
        gold.CampaignGoldItemView.as_view(),
        name="api-gold-item",
    ),
    path("campaigns/<slug:slug>/quiz/", quiz.CampaignQuizView.as_view(), name="api-quiz"),
    path(
        "campaigns/<slug:slug>/quiz/grants/",
        quiz.CampaignQuizGrantView.as_view(),
        name="api-quiz-grant",
    ),
    path("comparisons/<id:pk>/quiz/", quiz.ComparisonQuizView.as_view(), name="api-sxs-quiz"),
    path(
        "comparisons/<id:pk>/quiz/grants/",
        quiz.ComparisonQuizGrantView.as_view(),
        name="api-sxs-quiz-grant",
    ),
    path("comparisons/<id:pk>/gold/", gold.ComparisonGoldView.as_view(), name="api-sxs-gold"),
    path(
        "comparisons/<id:pk>/gold/accuracy/",
        gold.ComparisonGoldAccuracyView.as_view(),
        name="api-sxs-gold-accuracy",
    ),
    path(
        "comparisons/<id:pk>/gold/<id:task>/",
        gold.ComparisonGoldTaskView.as_view(),
        name="api-sxs-gold-task",
    ),
    # The same answers in one format each, for clients generated from the schema (which parse
    # a body by the one media type an operation declares): annotate.api.schema.
    variant_path("campaigns/<slug:slug>/qrels.json", qrels.QrelsView, "json", "api-qrels-json"),
    variant_path("campaigns/<slug:slug>/qrels.csv", qrels.QrelsView, "csv", "api-qrels-csv"),
    variant_path("comparisons/<id:pk>/gsb.csv", gsb.GsbView, "csv", "api-gsb-csv"),
    *[
        variant_path(route, view, "csv", name, {"get": "list"})
        for route, view, name in (
            ("grades.csv", judging.GradeViewSet, "api-grades-csv"),
            ("pool-items.csv", corpus.PoolItemViewSet, "api-pool-items-csv"),
            ("runs/<id:run_pk>/entries.csv", corpus.RunEntryViewSet, "api-run-entries-csv"),
            ("comparisons/<id:comparison_pk>/tasks.csv", sxs.TaskViewSet, "api-tasks-csv"),
        )
    ],
]
