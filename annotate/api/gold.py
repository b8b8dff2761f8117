"""Gold through the API, for a campaign's managers: the gold items of a campaign and the gold
tasks of a comparison (list, mark, unmark), and each rater's accuracy on them
(annotate/selectors/gold.py). Raters and outsiders get 404, as for any managed thing."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api.corpus import REFUSED
from annotate.api.scoping import managed_campaign
from annotate.api.sxs import managed_comparison
from annotate.models import GoldItem, GoldPurpose, GoldTask, VerdictValue
from annotate.models.gold import MAX_EXPLANATION
from annotate.selectors.gold import (
    GoldAccuracy,
    gold_items,
    gold_tasks,
    graded_gold_accuracy,
    sxs_gold_accuracy,
)
from annotate.services.gold import (
    GoldRefused,
    gold_item_clear,
    gold_item_set,
    gold_task_clear,
    gold_task_set,
    labels_in_range,
)
from metrics.core.stats.rater_quality import Proportion


class UnmarkedSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The pool item or task, real work again.")
    gold = serializers.BooleanField()


GONE = {200: UnmarkedSerializer, **REFUSED}


class GoldItemSerializer(serializers.Serializer):
    item = serializers.IntegerField(source="pool_item_id", help_text="The pool item's id.")
    query = serializers.CharField(source="pool_item.query.external_id", read_only=True)
    document = serializers.CharField(source="pool_item.document.external_id", read_only=True)
    label = serializers.IntegerField(
        source="label_id", help_text="The accepted answer: the pair's label in aggregation."
    )
    accepted = serializers.SerializerMethodField(help_text="Every label counted right.")
    explanation = serializers.CharField(allow_blank=True)
    purpose = serializers.ChoiceField(choices=GoldPurpose.choices)

    def get_accepted(self, gold: GoldItem) -> list[int]:
        return sorted(label.pk for label in gold.accepted.all())


class GoldItemInputSerializer(serializers.Serializer):
    item = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    label = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    accepted = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        required=False,
        max_length=100,
        help_text="More labels counted right (ids of the campaign's labels).",
    )
    low = serializers.FloatField(required=False, help_text="A range of accepted grades: from")
    high = serializers.FloatField(required=False, help_text="... to (both ends included).")
    explanation = serializers.CharField(
        required=False, allow_blank=True, max_length=MAX_EXPLANATION
    )
    purpose = serializers.ChoiceField(choices=GoldPurpose.choices, default=GoldPurpose.HONEYPOT)


class GoldTaskSerializer(serializers.Serializer):
    task = serializers.IntegerField(source="task_id")
    query = serializers.CharField(source="task.query.external_id", read_only=True)
    position = serializers.IntegerField(source="task.position", allow_null=True, read_only=True)
    value = serializers.ChoiceField(
        choices=VerdictValue.choices, help_text="The accepted verdict, for the candidate."
    )
    explanation = serializers.CharField(allow_blank=True)
    purpose = serializers.ChoiceField(choices=GoldPurpose.choices)


class GoldTaskInputSerializer(serializers.Serializer):
    task = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    value = serializers.ChoiceField(choices=VerdictValue.choices)
    explanation = serializers.CharField(
        required=False, allow_blank=True, max_length=MAX_EXPLANATION
    )
    purpose = serializers.ChoiceField(choices=GoldPurpose.choices, default=GoldPurpose.HONEYPOT)


class ShareSerializer(serializers.Serializer):
    k = serializers.IntegerField(help_text="Right answers.")
    n = serializers.IntegerField(help_text="Answers.")
    rate = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(help_text="Wilson's 95% interval, low end.")
    high = serializers.FloatField(help_text="Wilson's 95% interval, high end.")


class GoldAccuracySerializer(serializers.Serializer):
    rater = serializers.CharField(source="username")
    answers = serializers.IntegerField(help_text="Answers to gold, can't-judge left out.")
    exact = ShareSerializer()
    within_one = ShareSerializer(
        allow_null=True, help_text="Within one grade of an accepted label (graded only)."
    )


def _share(value: Proportion | None) -> dict | None:
    if value is None:
        return None
    return {"k": value.k, "n": value.n, "rate": value.share, "low": value.low, "high": value.high}


def _accuracy(rows: list[GoldAccuracy]) -> list[dict]:
    return [
        {
            "rater": row.username,
            "answers": row.answers,
            "exact": _share(row.exact),
            "within_one": _share(row.within_one),
        }
        for row in rows
    ]


def _checked(serializer_class: type[serializers.Serializer], data: object) -> dict:
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        errors = {k: [str(e) for e in v] for k, v in serializer.errors.items()}
        raise GoldRefused("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
    return dict(serializer.validated_data)


class CampaignGoldView(APIView):
    """The campaign's gold items (GET), or mark one (POST; marking again replaces it)."""

    @extend_schema(responses={200: GoldItemSerializer(many=True), **REFUSED})
    def get(self, request: Request, slug: str) -> Response:
        campaign = managed_campaign(request.user, slug)
        return Response(GoldItemSerializer(gold_items(campaign=campaign), many=True).data)

    @extend_schema(request=GoldItemInputSerializer, responses={201: GoldItemSerializer, **REFUSED})
    def post(self, request: Request, slug: str) -> Response:
        campaign = managed_campaign(request.user, slug)
        data = _checked(GoldItemInputSerializer, request.data)
        accepted = list(data.get("accepted", []))
        if "low" in data or "high" in data:
            if "low" not in data or "high" not in data:
                raise GoldRefused("give both ends of the range: low and high")
            in_range = labels_in_range(campaign=campaign, low=data["low"], high=data["high"])
            accepted += [label.pk for label in in_range]
        gold = gold_item_set(
            campaign=campaign,
            manager=request.user,
            item_id=data["item"],
            label_id=data["label"],
            accepted=accepted,
            explanation=data.get("explanation", ""),
            purpose=data["purpose"],
        )
        gold = gold_items(campaign=campaign).get(pk=gold.pk)
        return Response(GoldItemSerializer(gold).data, status=status.HTTP_201_CREATED)


class CampaignGoldItemView(APIView):
    """Unmark a gold item: it is real work again."""

    @extend_schema(responses=GONE)
    def delete(self, request: Request, slug: str, item: int) -> Response:
        campaign = managed_campaign(request.user, slug)
        if not gold_item_clear(campaign=campaign, item_id=item):
            raise GoldRefused("that item is not gold")
        return Response({"id": item, "gold": False})


class CampaignGoldAccuracyView(APIView):
    """Each rater's accuracy on the campaign's gold items: exact and within one grade, with
    Wilson's 95% intervals."""

    @extend_schema(responses={200: GoldAccuracySerializer(many=True), **REFUSED})
    def get(self, request: Request, slug: str) -> Response:
        campaign = managed_campaign(request.user, slug)
        return Response(_accuracy(graded_gold_accuracy(campaign=campaign)))


class ComparisonGoldView(APIView):
    """The comparison's gold tasks (GET), or mark one (POST)."""

    @extend_schema(responses={200: GoldTaskSerializer(many=True), **REFUSED})
    def get(self, request: Request, pk: int) -> Response:
        comparison = managed_comparison(request, pk)
        return Response(GoldTaskSerializer(gold_tasks(comparison=comparison), many=True).data)

    @extend_schema(request=GoldTaskInputSerializer, responses={201: GoldTaskSerializer, **REFUSED})
    def post(self, request: Request, pk: int) -> Response:
        comparison = managed_comparison(request, pk)
        data = _checked(GoldTaskInputSerializer, request.data)
        gold = gold_task_set(
            comparison=comparison,
            manager=request.user,
            task_id=data["task"],
            value=data["value"],
            explanation=data.get("explanation", ""),
            purpose=data["purpose"],
        )
        gold = GoldTask.objects.select_related("task__query").get(pk=gold.pk)
        return Response(GoldTaskSerializer(gold).data, status=status.HTTP_201_CREATED)


class ComparisonGoldTaskView(APIView):
    """Unmark a gold task."""

    @extend_schema(responses=GONE)
    def delete(self, request: Request, pk: int, task: int) -> Response:
        comparison = managed_comparison(request, pk)
        if not gold_task_clear(comparison=comparison, task_id=task):
            raise GoldRefused("that task is not gold")
        return Response({"id": task, "gold": False})


class ComparisonGoldAccuracyView(APIView):
    """Each rater's accuracy on the comparison's gold tasks, with Wilson's 95% interval."""

    @extend_schema(responses={200: GoldAccuracySerializer(many=True), **REFUSED})
    def get(self, request: Request, pk: int) -> Response:
        comparison = managed_comparison(request, pk)
        return Response(_accuracy(sxs_gold_accuracy(comparison=comparison)))
