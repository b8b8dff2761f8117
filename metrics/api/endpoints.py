"""The metrics endpoints under /api/v1/campaigns/<slug>/: scores per system and per query for any
measure of the engine, two-system comparisons (STATISTICS.md section 6), rater agreement and
progress. Managers of the campaign only (404 for anyone else), as on the report pages; every
answer says which labels it used and how old its numbers are. ``?format=csv`` gives the table.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from django.urls import path
from django.utils import timezone, translation
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api.schema import variant_path
from annotate.api.scoping import managed_campaign
from annotate.api.serializers import JSON, ErrorSerializer
from annotate.models import Aggregation, Comparison
from annotate.selectors.progress import rater_progress_table
from annotate.selectors_sxs import comparison_progress
from metrics.core.stats import compare_runs
from metrics.decide.ndcg import COMPARE_SEED, missing_notice, missing_queries
from metrics.selectors.progress import pool_progress
from metrics.services.scores_request import Scores, campaign_scores
from metrics.services.snapshots import agreement_snapshot

# How a requested measure is named in the answers: what trec_eval prints.
MEASURE_NAMES = (
    "Answers name each measure as trec_eval prints it: a cut-off is joined by an underscore "
    "(ndcg_cut.10 gives ndcg_cut_10; P.5,10 gives P_5 and P_10), a gain map is kept "
    "(ndcg.1=1,2=3 gives ndcg_1=1,2=3), and the names come in trec_eval's order (P before "
    "ndcg_cut), not in the order asked; `measures` lists them."
)
SCORE_PARAMETERS = [
    OpenApiParameter(
        "measure",
        str,
        many=True,
        description="Engine measures, trec_eval syntax (ndcg_cut.10, map, P.5,10, "
        f"ndcg.1=1,2=3,3=7); repeatable. Default ndcg_cut.10. {MEASURE_NAMES}",
    ),
    OpenApiParameter("gain", str, description="linear (default), exponential, or 1=1,2=3,3=7."),
    OpenApiParameter("discount", str, enum=["log2", "jarvelin"]),
    OpenApiParameter("ideal", str, enum=["judged", "retrieved"]),
    OpenApiParameter("aggregation", str, enum=Aggregation.values),
    OpenApiParameter("source", str, description="An imported label source instead of grades."),
]
REFUSED = {(400, JSON): ErrorSerializer, (404, JSON): ErrorSerializer}


class SnapshotSerializer(serializers.Serializer):
    settings = serializers.CharField()
    computed_at = serializers.DateTimeField()
    age_seconds = serializers.FloatField()
    recomputed = serializers.BooleanField(help_text="Stale (inputs changed): computed now.")
    replaced_at = serializers.DateTimeField(allow_null=True)
    seconds = serializers.FloatField(help_text="How long the computation took.")


class BasisSerializer(serializers.Serializer):
    rule = serializers.ChoiceField(
        choices=[*Aggregation.values, "source"],
        help_text="Aggregation rule of the grades; source: an imported label source.",
    )
    source = serializers.CharField(allow_null=True)
    relevance_level = serializers.FloatField()
    max_grade = serializers.FloatField()
    n_queries = serializers.IntegerField()
    unjudged_queries = serializers.IntegerField()
    adjudicated = serializers.IntegerField()


class ValueSerializer(serializers.Serializer):
    mean = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True, help_text="95% t-interval over queries.")
    high = serializers.FloatField(allow_null=True)


class SystemScoresSerializer(serializers.Serializer):
    run_id = serializers.IntegerField()
    run = serializers.CharField()
    system = serializers.CharField()
    scored = serializers.BooleanField()
    queries_with_results = serializers.IntegerField()
    values = serializers.DictField(
        child=ValueSerializer(), help_text="Per measure, keyed by its name in `measures`."
    )


class ScoresSerializer(serializers.Serializer):
    campaign = serializers.CharField()
    measures = serializers.ListField(child=serializers.CharField(), help_text=MEASURE_NAMES)
    basis = BasisSerializer()
    snapshot = SnapshotSerializer(allow_null=True, help_text="Null: computed on request.")
    computed_at = serializers.DateTimeField()
    systems = SystemScoresSerializer(many=True)


class QueryScoreSerializer(serializers.Serializer):
    query = serializers.CharField()
    run_id = serializers.IntegerField()
    run = serializers.CharField()
    system = serializers.CharField()
    values = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Per measure, keyed by its name in `measures`.",
    )


class QueryScoresSerializer(ScoresSerializer):
    systems = None
    rows = QueryScoreSerializer(many=True)


def _scores(request: Request, slug: str) -> tuple[str, Scores]:
    campaign = managed_campaign(request.user, slug)
    params = request.query_params
    scores = campaign_scores(
        campaign=campaign,
        measures=[m for m in params.getlist("measure") if m.strip()],
        gain=params.get("gain") or "linear",
        discount=params.get("discount") or "log2",
        ideal=params.get("ideal") or "judged",
        rule=params.get("aggregation") or None,
        source=params.get("source") or None,
    )
    return campaign.slug, scores


def _head(slug: str, scores: Scores) -> dict:
    return {
        "campaign": slug,
        "measures": scores.names,
        "basis": scores.basis,
        "snapshot": scores.snapshot,
        "computed_at": scores.computed_at,
    }


def _number(value: float) -> float | None:
    return value if math.isfinite(value) else None


class ScoresView(APIView):
    """Mean of each measure per system (run), with its 95% t-interval over queries."""

    csv_key = "systems"

    @extend_schema(parameters=SCORE_PARAMETERS, responses={200: ScoresSerializer, **REFUSED})
    def get(self, request: Request, slug: str) -> Response:
        slug, scores = _scores(request, slug)
        return Response({**_head(slug, scores), "systems": scores.systems})


class QueryScoresView(APIView):
    """Each measure per query and system: one row per (query, run)."""

    csv_key = "rows"

    @extend_schema(parameters=SCORE_PARAMETERS, responses={200: QueryScoresSerializer, **REFUSED})
    def get(self, request: Request, slug: str) -> Response:
        slug, scores = _scores(request, slug)
        rows = []
        for system in scores.systems:
            values = scores.per_query[system["run_id"]]
            for i, qid in enumerate(scores.qids):
                rows.append(
                    {
                        "query": qid,
                        "run_id": system["run_id"],
                        "run": system["run"],
                        "system": system["system"],
                        "values": {n: _number(values[n][i]) for n in scores.names},
                    }
                )
        return Response({**_head(slug, scores), "rows": rows})


class QueryChangeSerializer(serializers.Serializer):
    query = serializers.CharField()
    a = serializers.FloatField()
    b = serializers.FloatField()
    diff = serializers.FloatField()


class ComparedSystemSerializer(serializers.Serializer):
    run_id = serializers.IntegerField()
    run = serializers.CharField()
    system = serializers.CharField()


class MissingQueriesSerializer(serializers.Serializer):
    a = serializers.IntegerField(allow_null=True)
    b = serializers.IntegerField(allow_null=True)


class CompareSerializer(serializers.Serializer):
    notice = serializers.CharField(
        allow_null=True,
        help_text="Set when a run has no results for some queries: they count as 0, and how many.",
    )
    missing_queries = MissingQueriesSerializer(
        help_text="Campaign queries each run has no results for (counted as 0)."
    )
    campaign = serializers.CharField()
    measure = serializers.CharField(help_text="As trec_eval prints it: ndcg_cut.10 is ndcg_cut_10.")
    basis = BasisSerializer()
    snapshot = SnapshotSerializer(allow_null=True)
    computed_at = serializers.DateTimeField()
    a = ComparedSystemSerializer(help_text="The baseline.")
    b = ComparedSystemSerializer(help_text="The candidate; differences are b − a.")
    n = serializers.IntegerField()
    mean_a = serializers.FloatField()
    mean_b = serializers.FloatField()
    diff = serializers.FloatField()
    t = serializers.FloatField(allow_null=True, help_text="Paired t statistic.")
    p_t = serializers.FloatField(help_text="Two-sided paired t-test p-value.")
    ci_t_low = serializers.FloatField(allow_null=True)
    ci_t_high = serializers.FloatField(allow_null=True)
    p_randomization = serializers.FloatField()
    randomization_exact = serializers.BooleanField()
    ci_boot_low = serializers.FloatField(allow_null=True, help_text="BCa bootstrap interval.")
    ci_boot_high = serializers.FloatField(allow_null=True)
    confidence = serializers.FloatField()
    seed = serializers.IntegerField()
    n_resamples = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    ties = serializers.IntegerField()
    gained = QueryChangeSerializer(many=True)
    lost = QueryChangeSerializer(many=True)


def _pick(systems: list[dict], raw: str | None, what: str) -> dict:
    if not raw:
        raise ValueError(f"name system {what} (?{what}=run name or run id)")
    for system in systems:
        if raw in (system["run"], str(system["run_id"])):
            return system
    names = ", ".join(s["run"] for s in systems) or "none"
    raise ValueError(f"no run {raw!r} for {what} (runs: {names})")


class CompareView(APIView):
    """Two runs compared on one measure, per query (STATISTICS.md section 6): paired t-test
    with its interval, randomization test (exact up to 20 queries, else 10,000 sign flips from
    a stored seed) and BCa bootstrap interval of the mean difference."""

    csv_key = "gained"

    @extend_schema(
        parameters=[
            OpenApiParameter("a", str, required=True, description="Baseline run (name or id)."),
            OpenApiParameter("b", str, required=True, description="Candidate run (name or id)."),
            *SCORE_PARAMETERS,
        ],
        responses={200: CompareSerializer, **REFUSED},
    )
    def get(self, request: Request, slug: str) -> Response:
        slug, scores = _scores(request, slug)
        if len(scores.names) != 1:
            raise ValueError(f"compare on one measure; this asks for {', '.join(scores.names)}")
        a = _pick(scores.systems, request.query_params.get("a"), "a")
        b = _pick(scores.systems, request.query_params.get("b"), "b")
        if a["run_id"] == b["run_id"]:
            raise ValueError("choose two different runs")
        if len(scores.qids) < 2:
            raise ValueError("a comparison needs at least two queries")
        name = scores.names[0]
        x = np.asarray(scores.per_query[a["run_id"]][name], dtype=np.float64)
        y = np.asarray(scores.per_query[b["run_id"]][name], dtype=np.float64)
        result = compare_runs(x, y, query_ids=np.array(scores.qids), seed=COMPARE_SEED, top=10)
        figures = {
            k: (_number(v) if isinstance(v, float) else v)
            for k, v in dataclasses.asdict(result).items()
        }
        head = _head(slug, scores)
        head.pop("measures")
        keep = ("run_id", "run", "system")
        n_queries = scores.basis.get("n_queries")
        missing = {"a": missing_queries(n_queries, a), "b": missing_queries(n_queries, b)}
        with translation.override("en"):  # the API's words are English whatever the caller's
            notice = missing_notice(
                n_queries, [(f"A ({a['run']})", missing["a"]), (f"B ({b['run']})", missing["b"])]
            )
        return Response(
            {
                "notice": notice,
                "missing_queries": missing,
                **head,
                "measure": name,
                "a": {k: a[k] for k in keep},
                "b": {k: b[k] for k in keep},
                **figures,
            }
        )


class AgreementRaterSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    grades = serializers.IntegerField()
    majority_rate = serializers.FloatField(allow_null=True)
    majority_items = serializers.IntegerField()
    mean_deviation = serializers.FloatField(allow_null=True)
    deviation_items = serializers.IntegerField()
    leaning = serializers.ChoiceField(
        choices=["lenient", "severe", "in line", ""],
        help_text="Against the others' mean; empty when there is nothing to compare.",
    )


class AgreementSerializer(serializers.Serializer):
    campaign = serializers.CharField()
    snapshot = SnapshotSerializer()
    agreement = serializers.JSONField(
        help_text="Krippendorff's ordinal alpha, raw pairwise agreement, Fleiss' kappa (when "
        "every item has as many raters), per-rater figures and weighted Cohen's kappa per pair."
    )
    raters = AgreementRaterSerializer(many=True)


class AgreementView(APIView):
    """Agreement between the campaign's raters (STATISTICS.md section 5), from the snapshot."""

    csv_key = "raters"

    @extend_schema(responses={200: AgreementSerializer, (404, JSON): ErrorSerializer})
    def get(self, request: Request, slug: str) -> Response:
        campaign = managed_campaign(request.user, slug)
        fresh = agreement_snapshot(campaign=campaign)
        snap = fresh.snapshot
        snapshot = {
            "settings": snap.settings_key,
            "computed_at": snap.computed_at,
            "age_seconds": max(0.0, (timezone.now() - snap.computed_at).total_seconds()),
            "recomputed": fresh.recomputed,
            "replaced_at": fresh.replaced_at,
            "seconds": snap.seconds,
        }
        summary = fresh.summary
        body = {
            "campaign": campaign.slug,
            "snapshot": snapshot,
            "agreement": summary,
            "raters": summary.get("raters", []),
        }
        return Response(body)


class RaterProgressSerializer(serializers.Serializer):
    username = serializers.CharField()
    grades = serializers.IntegerField()
    cant_judge = serializers.IntegerField()
    skips = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True)
    last_activity = serializers.DateTimeField(allow_null=True)
    holding = serializers.IntegerField()


class PoolProgressSerializer(serializers.Serializer):
    items = serializers.IntegerField()
    complete = serializers.IntegerField(help_text="Items with every counted grade they need.")
    partial = serializers.IntegerField()
    untouched = serializers.IntegerField()
    leased = serializers.IntegerField(help_text="Items held by a rater right now.")
    grades_given = serializers.IntegerField()
    grades_needed = serializers.IntegerField()
    cant_judge = serializers.IntegerField()
    still_needing = serializers.IntegerField()
    share_complete = serializers.FloatField()
    share_grades = serializers.FloatField()


class ComparisonProgressSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    counted = serializers.IntegerField(help_text="Verdicts given, up to those needed.")
    needed = serializers.IntegerField()
    identical = serializers.IntegerField(help_text="Tasks with identical lists (need none).")


class ProgressSerializer(serializers.Serializer):
    campaign = serializers.CharField()
    pool = PoolProgressSerializer()
    raters = RaterProgressSerializer(many=True)
    comparisons = ComparisonProgressSerializer(many=True)


class ProgressView(APIView):
    """How far the judging is: the pool, each rater, each side-by-side comparison (live)."""

    csv_key = "raters"

    @extend_schema(responses={200: ProgressSerializer, (404, JSON): ErrorSerializer})
    def get(self, request: Request, slug: str) -> Response:
        campaign = managed_campaign(request.user, slug)
        pool = pool_progress(campaign=campaign)
        raters = [
            {k: v for k, v in dataclasses.asdict(row).items() if k != "user_id"}
            for row in rater_progress_table(campaign=campaign)
        ]
        comparisons = [
            {"id": c.pk, "name": c.name, **comparison_progress(c)}
            for c in Comparison.objects.filter(campaign=campaign).order_by("pk")
        ]
        body = {
            "campaign": campaign.slug,
            "pool": {
                **dataclasses.asdict(pool),
                "still_needing": pool.still_needing,
                "share_complete": pool.share_complete,
                "share_grades": pool.share_grades,
            },
            "raters": raters,
            "comparisons": comparisons,
        }
        return Response(body)


urlpatterns = [
    path("campaigns/<slug:slug>/scores/", ScoresView.as_view(), name="api-scores"),
    path(
        "campaigns/<slug:slug>/scores/queries/",
        QueryScoresView.as_view(),
        name="api-scores-queries",
    ),
    path("campaigns/<slug:slug>/scores/compare/", CompareView.as_view(), name="api-compare"),
    variant_path("campaigns/<slug:slug>/scores.csv", ScoresView, "csv", "api-scores-csv"),
    variant_path(
        "campaigns/<slug:slug>/scores/queries.csv", QueryScoresView, "csv", "api-scores-queries-csv"
    ),
    variant_path("campaigns/<slug:slug>/scores/compare.csv", CompareView, "csv", "api-compare-csv"),
    path("campaigns/<slug:slug>/agreement/", AgreementView.as_view(), name="api-agreement"),
    path("campaigns/<slug:slug>/progress/", ProgressView.as_view(), name="api-progress"),
]
