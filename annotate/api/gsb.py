"""The GSB result of a comparison for its managers (STATISTICS.md): counts, GSB, Tango's interval
with the design effect of several raters per query, the sign test over queries and the decision,
every field typed so a generated client reads them as attributes, the decision as an enum."""

from __future__ import annotations

from django.utils import translation
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api.sxs import ComparisonSerializer, managed_comparison
from metrics.core.stats.gsb import Decision
from metrics.decide.gsb import comparison_report, decision_text
from metrics.decide.launch import LaunchState, launch_decision
from metrics.decide.plan import plan_change_rows, primary_key
from metrics.decide.review import launch_review

DECISIONS = [d.value for d in Decision]


def _number(**kwargs) -> serializers.FloatField:
    # Statistics of too little data are null (NaN in the engine), never NaN in JSON.
    return serializers.FloatField(allow_null=True, **kwargs)


class PositionBiasSerializer(serializers.Serializer):
    left = serializers.IntegerField(help_text="Non-Same verdicts for the left side.")
    right = serializers.IntegerField()
    share_left = _number()
    ci_low = _number(help_text="Clopper-Pearson interval of share_left.")
    ci_high = _number()
    p_value = _number(help_text="Two-sided binomial test of share_left = 1/2.")
    warn = serializers.BooleanField(help_text="p_value < 0.05.")


class ShuffleCheckSerializer(serializers.Serializer):
    candidate_left = serializers.IntegerField(help_text="Tasks that showed the candidate left.")
    tasks = serializers.IntegerField()
    share_left = _number()
    p_value = _number()
    error = serializers.BooleanField(help_text="The sides were not shuffled fairly.")


class GsbResultSerializer(serializers.Serializer):
    """metrics.core.stats.gsb.GsbResult."""

    good = serializers.IntegerField()
    same = serializers.IntegerField()
    bad = serializers.IntegerField()
    n_verdicts = serializers.IntegerField()
    n_queries = serializers.IntegerField()
    gsb = _number(help_text="(good - bad) / (good + same + bad).")
    se = _number(help_text="Clustered standard error (design effect included).")
    deff = _number(help_text="Design effect of several verdicts per query.")
    ci_low = _number(help_text="Tango's interval with the design effect.")
    ci_high = _number()
    sign_k = serializers.IntegerField(help_text="Queries the candidate won (sign test).")
    sign_n = serializers.IntegerField(help_text="Queries not tied.")
    sign_p = _number(help_text="Two-sided exact sign test over queries.")
    decision = serializers.ChoiceField(choices=DECISIONS)
    conclusive = serializers.BooleanField()
    more_queries = serializers.IntegerField(allow_null=True)
    more_queries_low = serializers.IntegerField(allow_null=True)
    more_queries_high = serializers.IntegerField(allow_null=True)
    more_queries_limited_by = serializers.CharField(allow_null=True)
    more_queries_text = serializers.CharField(allow_null=True)
    reason = serializers.CharField()
    confidence = serializers.FloatField()
    threshold = serializers.FloatField(help_text="The comparison's min_gsb.")
    min_queries = serializers.IntegerField()
    n_informative = serializers.IntegerField(help_text="Queries whose two lists differ.")
    n_raters = serializers.IntegerField(allow_null=True)
    rater_clustered = serializers.BooleanField()
    interval_df = serializers.IntegerField(allow_null=True)
    identical_queries = serializers.IntegerField()
    identical_verdicts = serializers.IntegerField()
    position_bias = PositionBiasSerializer(allow_null=True)
    shuffle = ShuffleCheckSerializer(allow_null=True)
    strength_distribution = serializers.DictField(
        child=serializers.IntegerField(), allow_null=True, help_text="Verdicts per strength 1-3."
    )
    strength_missing = serializers.IntegerField()
    alpha = _number(help_text="Krippendorff's ordinal alpha between raters.")
    raw_agreement = _number()
    bootstrap_low = _number()
    bootstrap_high = _number()
    bootstrap_seed = serializers.IntegerField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField())
    errors = serializers.ListField(child=serializers.CharField())


class GsbProgressSerializer(serializers.Serializer):
    counted = serializers.IntegerField(help_text="Verdicts given, up to those needed.")
    needed = serializers.IntegerField()
    identical = serializers.IntegerField(help_text="Tasks with identical lists (need none).")


class GsbQuerySerializer(serializers.Serializer):
    query = serializers.CharField()
    text = serializers.CharField()
    tasks = serializers.IntegerField()
    good = serializers.IntegerField()
    same = serializers.IntegerField()
    bad = serializers.IntegerField()
    identical_same = serializers.IntegerField()
    majority = serializers.ChoiceField(
        choices=["candidate", "baseline", "tie", "no verdicts yet"],
        help_text="The sign of good - bad on this query.",
    )


class IntervalSerializer(serializers.Serializer):
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)


class LaunchSerializer(serializers.Serializer):
    """The decision safe to read while answers arrive (metrics.decide.launch)."""

    state = serializers.ChoiceField(choices=[s.value for s in LaunchState])
    provisional = serializers.BooleanField()
    path = serializers.ChoiceField(
        choices=["sequence", "fixed", ""],
        help_text="sequence (declared early), fixed (at the planned size), empty while collecting.",
    )
    headline = serializers.CharField()
    sentence = serializers.CharField(help_text="What a product manager reads.")
    planned_queries = serializers.IntegerField()
    completed_queries = serializers.IntegerField()
    completed_informative_queries = serializers.IntegerField()
    min_queries = serializers.IntegerField()
    threshold = serializers.FloatField()
    equivalence_margin = serializers.FloatField()
    confidence = serializers.FloatField()
    gsb = serializers.FloatField(allow_null=True)
    query_weighted_gsb = serializers.FloatField(allow_null=True)
    fixed_interval = IntervalSerializer()
    sequence_interval = IntervalSerializer(help_text="Always valid, however often it is read.")
    no_plan = serializers.BooleanField(help_text="Made before plans: the fixed rule decides.")
    plan_note = serializers.CharField(
        allow_blank=True, help_text="No plan, or the plan changed after answers came in."
    )


class PlanChangeSerializer(serializers.Serializer):
    changed_by = serializers.CharField(source="who")
    changed_at = serializers.DateTimeField(source="when")
    answers_in = serializers.IntegerField(help_text="Answers in when the plan changed.")
    changes = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(), min_length=3, max_length=3),
        help_text="[field, old, new] as a manager reads them.",
    )
    reason = serializers.CharField(allow_blank=True)


class GradedDecisionSerializer(serializers.Serializer):
    """The decision on a graded primary measure (metrics.decide.graded_launch)."""

    state = serializers.ChoiceField(choices=[s.value for s in LaunchState])
    path = serializers.ChoiceField(choices=["sequence", "fixed", ""])
    headline = serializers.CharField()
    sentence = serializers.CharField()
    measure = serializers.CharField()
    difference = serializers.FloatField(help_text="Mean candidate − baseline per query.")
    fixed_interval = IntervalSerializer()
    sequence_interval = IntervalSerializer()
    completed_queries = serializers.IntegerField()
    planned_queries = serializers.IntegerField()


class GsbSerializer(serializers.Serializer):
    comparison = ComparisonSerializer()
    progress = GsbProgressSerializer()
    decision = serializers.ChoiceField(
        choices=DECISIONS, allow_null=True, help_text="Null before the first verdict."
    )
    headline = serializers.CharField(allow_null=True)
    detail = serializers.CharField(allow_null=True)
    result = GsbResultSerializer(allow_null=True, help_text="Null before the first verdict.")
    launch = LaunchSerializer(allow_null=True, help_text="Null before the first verdict.")
    plan_changes = PlanChangeSerializer(many=True)
    primary_decision = GradedDecisionSerializer(
        allow_null=True,
        help_text="The decision on the plan's graded primary measure; null when GSB is primary "
        "(then `launch` is the decision).",
    )
    queries = GsbQuerySerializer(many=True)


class GsbView(APIView):
    """The GSB result of a comparison (STATISTICS.md): counts, GSB, Tango's interval with the
    design effect of several raters per query, the sign test over queries and the decision.
    gsb.csv gives the per-query table."""

    csv_key = "queries"

    @extend_schema(responses={200: GsbSerializer})
    def get(self, request: Request, pk: int) -> Response:
        # The API's words are a contract scripts read: English whatever the caller's language
        # (the pages word the same decision in the reader's).
        with translation.override("en"):
            return Response(self._body(request, pk))

    def _body(self, request: Request, pk: int) -> dict:
        comparison = managed_comparison(request, pk)
        comparison.n_tasks = comparison.tasks.filter(mirror_of__isnull=True).count()
        report = comparison_report(comparison)
        words = decision_text(report.result) if report.result is not None else None
        launch, primary = _launch_and_primary(comparison, report)
        context = {"managed": {comparison.campaign_id}}
        body = {
            "comparison": ComparisonSerializer(comparison, context=context).data,
            "progress": report.progress,
            "decision": report.result.decision.value if report.result else None,
            "headline": words.headline if words else None,
            "detail": words.detail if words else None,
            "result": report.result.to_dict() if report.result else None,
            "launch": launch.to_dict() if launch else None,
            "plan_changes": PlanChangeSerializer(plan_change_rows(comparison), many=True).data,
            "primary_decision": primary.to_dict() if primary else None,
            "queries": [
                {
                    "query": row.external_id,
                    "text": row.text,
                    "tasks": row.tasks,
                    "good": row.good,
                    "same": row.same,
                    "bad": row.bad,
                    "identical_same": row.identical_same,
                    "majority": row.majority,
                }
                for row in report.rows
            ],
        }
        return body


def _launch_and_primary(comparison, report) -> tuple:
    """The GSB launch decision and, when the plan makes a graded measure primary, its decision:
    the review computes both, so it runs once, and only when the plan needs it."""
    if primary_key(comparison) is None:
        return launch_decision(comparison, report), None
    review = launch_review(comparison, report)
    return review.launch, review.primary_graded
