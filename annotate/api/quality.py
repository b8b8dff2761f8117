"""Raters' quality through the API (#18), for a campaign's managers only: each rater's
figures with counts and 95% Wilson intervals, their standing and why; and the manager's
actions: pause (with a note), resume, exclude or include a rater's answers."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api.scoping import managed_campaign
from annotate.models import Membership, Role
from annotate.selectors.quality import RaterQuality, rater_quality
from annotate.selectors.real import excluded_answers
from annotate.services.quality import standing_change
from annotate.services.quality_rules import reason_text
from metrics.core.stats.rater_quality import Proportion


class ProportionSerializer(serializers.Serializer):
    k = serializers.IntegerField()
    n = serializers.IntegerField()
    share = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True, help_text="95% Wilson interval.")
    high = serializers.FloatField(allow_null=True)


class RaterQualitySerializer(serializers.Serializer):
    rater = serializers.CharField()
    rater_id = serializers.IntegerField()
    answers = serializers.IntegerField()
    agreement = ProportionSerializer(help_text="Pairs agreeing with other raters' answers.")
    consistency = ProportionSerializer(help_text="Mirrored side-by-side pairs that agree.")
    gold_exact = ProportionSerializer(help_text="Answers to graded gold that are accepted.")
    gold_within = ProportionSerializer(
        help_text="Answers to graded gold within one grade of an accepted label."
    )
    sxs_gold = ProportionSerializer(help_text="Verdicts on side-by-side gold that are right.")
    timed = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True)
    fast = ProportionSerializer(help_text="Timed answers under the campaign's floor.")
    label_distance = serializers.FloatField(allow_null=True)
    paused = serializers.BooleanField()
    pause_reason = serializers.CharField()
    review_reason = serializers.CharField()
    excluded = serializers.BooleanField()


class QualitySerializer(serializers.Serializer):
    campaign = serializers.CharField()
    fast_seconds = serializers.FloatField()
    excluded_answers = serializers.IntegerField()
    raters = RaterQualitySerializer(many=True)


class StandingSerializer(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class StandingResultSerializer(serializers.Serializer):
    rater = serializers.CharField()
    action = serializers.CharField()
    changed = serializers.BooleanField()
    paused = serializers.BooleanField()
    excluded = serializers.BooleanField()


def _share(p: Proportion) -> dict:
    return p.as_dict()


def _row(r: RaterQuality) -> dict:
    return {
        "rater": r.username,
        "rater_id": r.rater_id,
        "answers": r.answers,
        "agreement": _share(r.agreement),
        "consistency": _share(r.consistency),
        "gold_exact": _share(r.gold_exact),
        "gold_within": _share(r.gold_within),
        "sxs_gold": _share(r.sxs_gold),
        "timed": r.timing.timed,
        "median_seconds": r.timing.median,
        "fast": _share(r.timing.fast),
        "label_distance": r.label_distance,
        "paused": r.paused,
        "pause_reason": reason_text(r.pause_reason) if r.paused else "",
        "review_reason": reason_text(r.review_reason),
        "excluded": r.excluded,
    }


class RaterQualityView(APIView):
    @extend_schema(responses={200: QualitySerializer}, summary="Per-rater quality figures")
    def get(self, request: Request, slug: str) -> Response:
        campaign = managed_campaign(request.user, slug)
        return Response(
            {
                "campaign": campaign.slug,
                "fast_seconds": campaign.fast_seconds,
                "excluded_answers": excluded_answers(campaign).total,
                "raters": [_row(r) for r in rater_quality(campaign)],
            }
        )


class RaterStandingView(APIView):
    @extend_schema(
        request=StandingSerializer,
        responses={200: StandingResultSerializer},
        summary="Pause (with a note), resume, exclude or include a rater's answers",
    )
    def post(self, request: Request, slug: str, user_id: int, action: str) -> Response:
        campaign = managed_campaign(request.user, slug)
        membership = Membership.objects.filter(
            campaign=campaign, user_id=user_id, role=Role.RATER
        ).first()
        if membership is None:
            raise Http404("No such rater")
        body = StandingSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        rater = get_user_model().objects.get(pk=user_id)
        changed = standing_change(
            campaign, rater, action, request.user, body.validated_data.get("note", "")
        )
        membership.refresh_from_db()
        return Response(
            {
                "rater": rater.get_username(),
                "action": action,
                "changed": changed,
                "paused": membership.paused_at is not None,
                "excluded": membership.answers_excluded,
            }
        )
