"""Side-by-side comparisons through the API: the comparisons and their tasks (managers), the
rater's blind queue and verdicts (the same services as the side-by-side page: a lease per task,
the candidate's side decided when it is leased, never more verdicts than a task needs), and the
GSB result with its interval, sign test and decision (managers).

A rater sees a comparison by its number only ("Side-by-side 2"), never its name, runs or
systems; their verdicts are shown as the side they preferred (left/same/right), never as
Good/Bad, which would give the sides away.
"""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api import filters
from annotate.api.formats import streamed_csv, wants_csv
from annotate.api.judging import REFUSALS, _valid, replaces_field, valid_form
from annotate.api.pagination import IdCursorPagination
from annotate.api.scoping import managed, managed_campaign, managed_ids, rated
from annotate.api.serializers import ID_REGEX, JSON, ErrorSerializer, IdField, IdOrHandleField
from annotate.forms.judge import ACTION_SKIP, ACTION_UNSKIP
from annotate.forms.sxs import VerdictForm
from annotate.judging import handles
from annotate.judging.screens import sxs_record, sxs_state
from annotate.judging.sxs import verdict_token
from annotate.models import Comparison, Run, SxsTask, Verdict
from annotate.models.sxs import ComparisonUnit, PrimaryMeasure, Side, VerdictValue
from annotate.selectors.real import excluded_answer
from annotate.selectors_sxs import chosen_side, rater_label
from annotate.services.sxs_setup import ComparisonRefused, comparison_create
from metrics.services.scores import MeasureSettings

CHOSEN = ["left", "same", "right", "cant_judge"]
MANAGER_ONLY = [
    "name",
    "baseline",
    "candidate",
    "baseline_system",
    "candidate_system",
    "unit",
    "depth",
    "raters_per_task",
    "min_gsb",
    "confidence",
    "min_queries",
    "equivalence_margin",
    "plan_fixed",
    "primary",
    "graded_settings",
    "seed",
    "tasks",
]


class ComparisonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    campaign = serializers.CharField(source="campaign.slug")
    label = serializers.SerializerMethodField(help_text="How raters see it: Side-by-side N.")
    name = serializers.CharField(allow_null=True, help_text="Managers only (null for raters).")
    baseline = serializers.CharField(source="baseline.name", allow_null=True)
    candidate = serializers.CharField(source="candidate.name", allow_null=True)
    baseline_system = serializers.CharField(source="baseline.system.name", allow_null=True)
    candidate_system = serializers.CharField(source="candidate.system.name", allow_null=True)
    unit = serializers.ChoiceField(choices=ComparisonUnit.choices, allow_null=True)
    depth = serializers.IntegerField(allow_null=True)
    raters_per_task = serializers.IntegerField(allow_null=True)
    min_gsb = serializers.FloatField(allow_null=True)
    confidence = serializers.FloatField(allow_null=True)
    min_queries = serializers.IntegerField(allow_null=True)
    equivalence_margin = serializers.FloatField(
        allow_null=True, help_text="GSB within ± this is no meaningful difference (0: none)."
    )
    plan_fixed = serializers.BooleanField(
        allow_null=True, help_text="False: made before plans existed (the fixed rule decides)."
    )
    primary = serializers.ChoiceField(
        choices=PrimaryMeasure.choices, allow_null=True, help_text="The plan's primary measure."
    )
    graded_settings = serializers.CharField(
        allow_null=True,
        help_text="k, gain, discount and ideal of the graded measures "
        "(k=10;gain=linear;discount=log2;ideal=judged); empty: the defaults at k = depth.",
    )
    seed = serializers.IntegerField(allow_null=True)
    tasks = serializers.IntegerField(source="n_tasks", allow_null=True)
    created_at = serializers.DateTimeField()

    def get_label(self, comparison: Comparison) -> str:
        return rater_label(comparison)

    def to_representation(self, comparison: Comparison) -> dict:
        data = super().to_representation(comparison)
        if comparison.campaign_id not in self.context.get("managed", set()):
            data.update(dict.fromkeys(MANAGER_ONLY))
        return data


class ComparisonInputSerializer(serializers.Serializer):
    campaign = serializers.SlugField()
    name = serializers.CharField(max_length=200)
    baseline = serializers.CharField(help_text="Run name of the baseline (A).")
    candidate = serializers.CharField(help_text="Run name of the candidate (B).")
    unit = serializers.ChoiceField(choices=ComparisonUnit.choices, default="list")
    depth = serializers.IntegerField(default=10, min_value=1, max_value=100)
    raters_per_task = serializers.IntegerField(default=1, min_value=1, max_value=50)
    min_gsb = serializers.FloatField(default=0.0, min_value=-1, max_value=1)
    confidence = serializers.FloatField(default=0.95, min_value=0.5, max_value=0.999)
    min_queries = serializers.IntegerField(default=30, min_value=0, max_value=1_000_000)
    equivalence_margin = serializers.FloatField(default=0.0, min_value=0, max_value=0.5)
    primary = serializers.ChoiceField(choices=PrimaryMeasure.choices, default=PrimaryMeasure.GSB)
    graded_settings = serializers.CharField(
        default="", allow_blank=True, max_length=100,
        help_text="k=5;gain=exponential;discount=log2;ideal=judged, or empty for the defaults.",
    )  # fmt: skip
    seed = serializers.IntegerField(default=0, min_value=0, max_value=2**62)

    def validate_graded_settings(self, value: str) -> str:
        if not value:
            return value
        try:
            return MeasureSettings.from_key(value).key
        except (KeyError, ValueError) as error:
            raise serializers.ValidationError(
                f"Not valid settings ({error}): write k=10;gain=linear;discount=log2;ideal=judged."
            ) from error

    sample_size = serializers.IntegerField(required=False, min_value=1, max_value=10_000_000)


class ComparisonViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Comparisons of the campaigns the caller manages (in full) or rates (by number only).
    POST sets one up (managers)."""

    serializer_class = ComparisonSerializer
    filterset_class = filters.ComparisonFilter
    lookup_value_regex = ID_REGEX

    def get_queryset(self) -> QuerySet[Comparison]:
        user = self.request.user
        return (
            Comparison.objects.filter(Q(campaign__in=managed(user)) | Q(campaign__in=rated(user)))
            .select_related("campaign", "baseline__system", "candidate__system")
            .annotate(n_tasks=Count("tasks"))
            .order_by("id")
        )

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "managed": managed_ids(self.request.user)}

    @extend_schema(
        request=ComparisonInputSerializer,
        responses={
            201: ComparisonSerializer,
            (400, JSON): ErrorSerializer,
            (404, JSON): ErrorSerializer,
        },
    )
    def create(self, request: Request, *args, **kwargs) -> Response:
        data = dict(_valid(ComparisonInputSerializer, request))
        campaign = managed_campaign(request.user, data.pop("campaign"))
        runs = {r.name: r for r in Run.objects.filter(campaign=campaign)}
        for side in ("baseline", "candidate"):
            if data[side] not in runs:
                raise ComparisonRefused(f"No run named {data[side]!r} in this campaign.")
            data[side] = runs[data[side]]
        comparison = comparison_create(campaign=campaign, **data)
        comparison = self.get_queryset().get(pk=comparison.pk)
        body = ComparisonSerializer(comparison, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED)


def managed_comparison(request: Request, pk: int) -> Comparison:
    return get_object_or_404(
        Comparison.objects.filter(campaign__in=managed(request.user)).select_related(
            "campaign", "baseline__system", "candidate__system"
        ),
        pk=pk,
    )


def rated_comparison(request: Request, pk: int) -> Comparison:
    return get_object_or_404(
        Comparison.objects.filter(campaign__in=rated(request.user)).select_related("campaign"),
        pk=pk,
    )


class TaskSerializer(serializers.ModelSerializer):
    query = serializers.CharField(source="query.external_id")
    verdicts = serializers.IntegerField(source="n_verdicts")

    class Meta:
        model = SxsTask
        fields = ["id", "query", "position", "identical", "verdicts"]


class TaskViewSet(viewsets.ReadOnlyModelViewSet):
    """A comparison's tasks (managers), cursor-paginated; ``?format=csv`` streams them."""

    serializer_class = TaskSerializer
    filterset_class = filters.TaskFilter
    lookup_value_regex = ID_REGEX
    pagination_class = IdCursorPagination

    def get_queryset(self) -> QuerySet[SxsTask]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator
            return SxsTask.objects.none()
        comparison = managed_comparison(self.request, self.kwargs["comparison_pk"])
        return (
            SxsTask.objects.filter(comparison=comparison, mirror_of__isnull=True)
            .select_related("query")
            .annotate(n_verdicts=Count("verdicts"))
            .order_by("id")
        )

    def list(self, request: Request, *args, **kwargs) -> Response:
        if wants_csv(request):
            rows = (
                self.filter_queryset(self.get_queryset())
                .values_list("id", "query__external_id", "position", "identical", "n_verdicts")
                .iterator(chunk_size=5000)
            )
            return streamed_csv(TaskSerializer.Meta.fields, rows, filename="tasks.csv")
        return super().list(request, *args, **kwargs)


class ShownSerializer(serializers.Serializer):
    title = serializers.CharField()
    url = serializers.CharField()
    snippet = serializers.CharField()
    pair = serializers.IntegerField()
    twin = serializers.IntegerField()


class SxsTaskShownSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The rater's opaque handle for the task.")
    query = serializers.CharField()
    description = serializers.CharField()
    left = ShownSerializer(many=True)
    right = ShownSerializer(many=True)


class SxsQueueSerializer(serializers.Serializer):
    tasks = SxsTaskShownSerializer(many=True)
    progress = serializers.DictField(child=serializers.IntegerField())
    overall = serializers.DictField(child=serializers.IntegerField())


class SxsQueueView(APIView):
    """The rater's held tasks, blind (left and right lists only, no position, in a per-rater
    order), leasing the next query's tasks when they hold none, as the side-by-side page does.
    Each task's `id` is the rater's opaque handle for it, to send back as `task`."""

    csv_key = "tasks"

    @extend_schema(responses={200: SxsQueueSerializer, (404, JSON): ErrorSerializer})
    def get(self, request: Request, pk: int) -> Response:
        comparison = rated_comparison(request, pk)
        _, state = sxs_state(rater=request.user, comparison=comparison)
        return Response(state)


class SxsSkipResultSerializer(serializers.Serializer):
    task = serializers.CharField(help_text="The task as sent: its handle.")
    result = serializers.ChoiceField(choices=["skipped", "unskipped", "unchanged"])


class SxsSkipInputSerializer(serializers.Serializer):
    task = serializers.CharField(max_length=32, help_text="The task's handle, from the queue.")
    undo = serializers.BooleanField(
        default=False, help_text="Undo your skip; the task is yours again if it needs answers."
    )


class SxsSkipView(APIView):
    """Skip a task the rater holds: it is not offered to them again; with undo, take the skip
    back (the task returns to the rater's queue while it still needs answers)."""

    @extend_schema(
        request=SxsSkipInputSerializer,
        responses={200: SxsSkipResultSerializer, **REFUSALS},
    )
    def post(self, request: Request, pk: int) -> Response:
        comparison = rated_comparison(request, pk)
        data = _valid(SxsSkipInputSerializer, request)
        action = ACTION_UNSKIP if data["undo"] else ACTION_SKIP
        form = valid_form(VerdictForm, {"task": data["task"], "action": action})
        outcome = sxs_record(rater=request.user, comparison=comparison, data=form)
        return Response({"task": data["task"], "result": outcome.result})


class VerdictSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    comparison = serializers.IntegerField(source="task.comparison_id")
    task = IdOrHandleField(
        source="task_id",
        help_text="The task's id for managers; for a rater, their opaque handle (a string).",
    )
    query = serializers.CharField(source="task.query.text")
    position = serializers.IntegerField(
        source="task.position", allow_null=True, help_text="Managers only (null for raters)."
    )
    rater = serializers.CharField(source="rater.username")
    chosen = serializers.SerializerMethodField(
        help_text="left, same or right, as shown; cant_judge."
    )
    cant_judge = serializers.BooleanField()
    value = serializers.ChoiceField(
        choices=VerdictValue.choices,
        allow_null=True,
        allow_blank=True,
        help_text="G/S/B for the candidate (empty: can't judge); managers only.",
    )
    candidate_side = serializers.ChoiceField(
        choices=Side.choices, allow_null=True, allow_blank=True, help_text="L/R; managers only."
    )
    strength = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField()
    seconds = serializers.FloatField(allow_null=True)
    created_at = serializers.DateTimeField()
    changed_at = serializers.DateTimeField()

    replaces = serializers.SerializerMethodField(
        help_text="This verdict's token: send it as `replaces` to change the verdict."
    )

    @extend_schema_field(serializers.ChoiceField(choices=CHOSEN))
    def get_chosen(self, verdict: Verdict) -> str:
        return chosen_side(verdict.value, verdict.candidate_side)

    def get_replaces(self, verdict: Verdict) -> str:
        return verdict_token(chosen=self.get_chosen(verdict), strength=verdict.strength)

    def to_representation(self, verdict: Verdict) -> dict:
        data = super().to_representation(verdict)
        if verdict.task.comparison.campaign_id not in self.context.get("managed", set()):
            data["value"] = data["candidate_side"] = data["position"] = None
            data["task"] = handles.handle_for(verdict.rater_id, handles.SXS, verdict.task_id)
        return data


class VerdictInputSerializer(serializers.Serializer):
    comparison = IdField()
    task = serializers.CharField(
        max_length=32,
        help_text="The task's handle, from the queue. (Deprecated: a numeric task id, taken "
        "only for tasks held when handles replaced ids.)",
    )
    chosen = serializers.ChoiceField(
        choices=CHOSEN,
        help_text="The side preferred as shown, or cant_judge (counts toward nothing).",
    )
    strength = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=3)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    seconds = serializers.FloatField(required=False, min_value=0, max_value=86400)
    replaces = replaces_field()


class VerdictResultSerializer(serializers.Serializer):
    result = serializers.ChoiceField(choices=["created", "changed", "unchanged"])
    verdict = VerdictSerializer()


class VerdictViewSet(viewsets.ReadOnlyModelViewSet):
    """Verdicts: all of the managed campaigns', the caller's own in the campaigns they rate.
    POST gives or changes the caller's verdict on a task they hold."""

    serializer_class = VerdictSerializer
    filterset_class = filters.VerdictFilter
    lookup_value_regex = ID_REGEX
    pagination_class = IdCursorPagination

    def get_queryset(self) -> QuerySet[Verdict]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator
            return Verdict.objects.none()
        user = self.request.user
        return (
            # Verdicts on gold are real work to no manager (the gold answers' endpoint and
            # export have them); a rater sees their own, as on any task.
            Verdict.objects.filter(
                # Mirrored duplicates are no real work (#18); a rater still sees their own.
                # Nor are an excluded rater's answers.
                (
                    Q(
                        task__comparison__campaign__in=managed(user),
                        gold=False,
                        task__mirror_of__isnull=True,
                    )
                    & ~excluded_answer("task__comparison__campaign_id")
                )
                | Q(rater=user, task__comparison__campaign__in=rated(user))
            )
            .select_related("task__comparison", "task__query", "rater")
            .order_by("id")
        )

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "managed": managed_ids(self.request.user)}

    @extend_schema(
        request=VerdictInputSerializer,
        responses={201: VerdictResultSerializer, 200: VerdictResultSerializer, **REFUSALS},
    )
    def create(self, request: Request, *args, **kwargs) -> Response:
        data = _valid(VerdictInputSerializer, request)
        comparison = rated_comparison(request, data["comparison"])
        keys = ("task", "chosen", "reason", "seconds", "replaces")
        fields = {key: data[key] for key in keys if key in data}
        if data.get("strength") is not None:
            fields["strength"] = data["strength"]
        form_data = valid_form(VerdictForm, fields)
        outcome = sxs_record(rater=request.user, comparison=comparison, data=form_data)
        verdict = self.get_queryset().get(pk=outcome.answer.pk)
        body = {
            "result": outcome.result,
            "verdict": VerdictSerializer(verdict, context=self.get_serializer_context()).data,
        }
        return Response(body, status=status.HTTP_201_CREATED if outcome.created else 200)
