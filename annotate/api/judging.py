"""Graded judgments through the API: the rater's queue, grades (listed with filters, given and
changed) and skips. A rater grading from a script obeys the judging page's rules, because the
same services decide: only items the rater holds a lease on (taken from the queue), never more
raters on an item than it needs, a repeated grade stored once.

Who sees which grades: a campaign's manager all of them; a rater their own, described as the
judging page describes them (query text and document title; the external ids only to those
who manage the campaign).
"""

from __future__ import annotations

from django.db.models import Case, CharField, F, Q, QuerySet, Value, When
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api import filters
from annotate.api.errors import FormInvalid
from annotate.api.formats import IsoTime, streamed_csv, wants_csv
from annotate.api.pagination import IdCursorPagination
from annotate.api.scoping import managed_ids, rated, rated_campaign
from annotate.api.serializers import ID_REGEX, JSON, ErrorSerializer, IdField, IdOrHandleField
from annotate.forms.judge import (
    ACTION_CANT_JUDGE,
    ACTION_LABEL,
    ACTION_SKIP,
    ACTION_UNSKIP,
    JudgeForm,
)
from annotate.judging import handles
from annotate.judging.graded import GradeRefused, grade_token
from annotate.judging.screens import judge_state, judgment_record
from annotate.models import Campaign, Grade, Label
from annotate.selectors.real import excluded_answer
from annotate.selectors_judge import label_keys

GRADE_FIELDS = [
    "id",
    "campaign",
    "item",
    "query",
    "query_text",
    "document",
    "document_title",
    "rater",
    "label",
    "grade",
    "cant_judge",
    "comment",
    "seconds",
    "created_at",
    "changed_at",
]
GRADE_COLUMNS = [
    "id",
    "pool_item__campaign__slug",
    "pool_item_id",
    "query_ext",
    "pool_item__query__text",
    "document_ext",
    "pool_item__document__title",
    "rater__username",
    "label__name",
    "label__grade",
    "cant_judge",
    "comment",
    "seconds",
    "created_iso",
    "changed_iso",
]
REFUSALS = {
    (code, JSON): OpenApiResponse(ErrorSerializer, description=text)
    for code, text in (
        (400, "Bad input (no label, a label off the scale)."),
        (403, "The item is not assigned to the caller."),
        (404, "No such campaign or item for this rater."),
        (
            409,
            "The lease ran out and the item needs no more grades; or a grade conflicts with "
            "the one stored (the body's `conflict` shows it; its `replaces` token changes it).",
        ),
    )
}


def replaces_field() -> serializers.CharField:
    """The stored answer's token an answer replaces (annotate/judging/kinds.py Submission), as
    both kinds' answer inputs take it."""
    return serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=40,
        help_text=(
            "To change your stored answer: its token as the 409 conflict or the answer list "
            "gave it. Without it, a different answer to a task you answered is refused (409)."
        ),
    )


class GradeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    campaign = serializers.CharField(source="pool_item.campaign.slug")
    item = IdOrHandleField(
        source="pool_item_id",
        help_text="The pool item's id for its campaign's managers; for a rater, their opaque "
        "handle for it (a string, as in the queue): ids would give the pooling order away.",
    )
    query = serializers.CharField(
        source="query_ext", allow_null=True, help_text="External id; managers only."
    )
    query_text = serializers.CharField(source="pool_item.query.text")
    document = serializers.CharField(
        source="document_ext", allow_null=True, help_text="External id; managers only."
    )
    document_title = serializers.CharField(source="pool_item.document.title")
    rater = serializers.CharField(source="rater.username")
    label = serializers.CharField(source="label.name", allow_null=True, default=None)
    grade = serializers.FloatField(source="label.grade", allow_null=True, default=None)
    replaces = serializers.SerializerMethodField(
        help_text="This grade's token: send it as `replaces` to change the grade."
    )
    cant_judge = serializers.BooleanField()
    comment = serializers.CharField()
    seconds = serializers.FloatField(allow_null=True)
    created_at = serializers.DateTimeField()
    changed_at = serializers.DateTimeField()

    def to_representation(self, grade: Grade) -> dict:
        data = super().to_representation(grade)
        if grade.pool_item.campaign_id not in self.context.get("managed", set()):
            data["item"] = handles.handle_for(grade.rater_id, handles.GRADED, grade.pool_item_id)
        return data

    def get_replaces(self, grade: Grade) -> str:
        return grade_token(label_id=grade.label_id, cant_judge=grade.cant_judge)


class GradeInputSerializer(serializers.Serializer):
    campaign = serializers.SlugField()
    item = serializers.CharField(
        max_length=32,
        help_text="The item's handle, from the queue. (Deprecated: a numeric pool item id, "
        "taken only for items held when handles replaced ids.)",
    )
    label = serializers.CharField(
        required=False, help_text="Label name (e.g. Good); or give label_id, or cant_judge."
    )
    label_id = IdField(required=False)
    cant_judge = serializers.BooleanField(default=False)
    comment = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    seconds = serializers.FloatField(required=False, min_value=0, max_value=86400)
    replaces = replaces_field()


class GradeResultSerializer(serializers.Serializer):
    result = serializers.ChoiceField(choices=["created", "changed", "unchanged"])
    grade = GradeSerializer()


def visible_grades(user) -> QuerySet[Grade]:
    """Grades of the campaigns the user manages, and the user's own in those they rate, with
    the external ids blanked on the rows of campaigns they do not manage. A manager's list is
    real work: answers to gold and excluded raters' are left out (the gold answers' export
    has the former, the rater quality page the latter's figures); a rater sees
    their own, gold or not, as nothing may tell them a honeypot from real work."""
    mine = managed_ids(user)
    shown = When(pool_item__campaign_id__in=mine, then=F("pool_item__query__external_id"))
    shown_doc = When(pool_item__campaign_id__in=mine, then=F("pool_item__document__external_id"))
    return (
        Grade.objects.filter(
            (
                Q(pool_item__campaign_id__in=mine, gold=False)
                & ~excluded_answer("pool_item__campaign_id")
            )
            | Q(rater=user, pool_item__campaign__in=rated(user))
        )
        .annotate(
            query_ext=Case(shown, default=Value(None), output_field=CharField()),
            document_ext=Case(shown_doc, default=Value(None), output_field=CharField()),
        )
        .order_by("id")
    )


class GradeViewSet(viewsets.ReadOnlyModelViewSet):
    """Grades, filtered by campaign, rater, query, document, label and time; cursor-paginated
    in id order; ``?format=csv`` streams every matching grade. POST gives or changes the
    caller's grade (201 when new, 200 when changed or repeated)."""

    serializer_class = GradeSerializer
    filterset_class = filters.GradeFilter
    lookup_value_regex = ID_REGEX
    pagination_class = IdCursorPagination

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "managed": managed_ids(self.request.user)}

    def get_queryset(self) -> QuerySet[Grade]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator
            return Grade.objects.none()
        return visible_grades(self.request.user).select_related(
            "pool_item__campaign", "pool_item__query", "pool_item__document", "rater", "label"
        )

    def list(self, request: Request, *args, **kwargs) -> Response:
        if wants_csv(request):
            rows = (
                self.filter_queryset(visible_grades(request.user))
                .annotate(created_iso=IsoTime("created_at"), changed_iso=IsoTime("changed_at"))
                .values_list(*GRADE_COLUMNS)
                .iterator(chunk_size=5000)
            )
            return streamed_csv(GRADE_FIELDS, rows, filename="grades.csv")
        return super().list(request, *args, **kwargs)

    @extend_schema(
        request=GradeInputSerializer,
        responses={201: GradeResultSerializer, 200: GradeResultSerializer, **REFUSALS},
    )
    def create(self, request: Request) -> Response:
        data = _valid(GradeInputSerializer, request)
        campaign = rated_campaign(request.user, data["campaign"])
        action = ACTION_CANT_JUDGE if data["cant_judge"] else ACTION_LABEL
        fields = {"item": data["item"], "action": action, "comment": data.get("comment", "")}
        if action == ACTION_LABEL:
            fields["label"] = _label_id(campaign, data)
        if data.get("seconds") is not None:
            fields["seconds"] = data["seconds"]
        fields["replaces"] = data.get("replaces", "")
        form_data = valid_form(JudgeForm, fields)
        outcome = judgment_record(rater=request.user, campaign=campaign, data=form_data)
        grade = self.get_queryset().get(pk=outcome.answer.pk)
        shown = GradeSerializer(grade, context=self.get_serializer_context()).data
        body = {"result": outcome.result, "grade": shown}
        return Response(body, status=status.HTTP_201_CREATED if outcome.created else 200)


def valid_form(form_class: type, fields: dict) -> dict:
    """The judging page's own checks on an API call's answer (FormInvalid, a 400, if not)."""
    form = form_class(fields)
    if not form.is_valid():
        raise FormInvalid(form)
    return form.cleaned_data


def _valid(serializer_class, request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _label_id(campaign: Campaign, data: dict) -> int:
    if data.get("label_id") is not None:
        return data["label_id"]
    name = (data.get("label") or "").strip()
    if not name:
        raise GradeRefused("Choose a label (label or label_id), or set cant_judge.")
    label = campaign.labels.filter(name__iexact=name).first()
    if label is None:
        names = ", ".join(Label.objects.filter(campaign=campaign).values_list("name", flat=True))
        raise GradeRefused(f"No label {name!r} on this campaign's scale ({names}).")
    return label.pk


class LabelKeySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    key = serializers.CharField()
    number = serializers.IntegerField()
    grade = serializers.FloatField()


class QueueItemSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The rater's opaque handle for the item to grade.")
    query = serializers.CharField()
    description = serializers.CharField()
    title = serializers.CharField()
    url = serializers.CharField()
    snippet = serializers.CharField()


class QueueSerializer(serializers.Serializer):
    items = QueueItemSerializer(many=True)
    labels = LabelKeySerializer(many=True)
    progress = serializers.DictField(child=serializers.IntegerField())
    campaign = serializers.DictField(child=serializers.IntegerField())


class QueueView(APIView):
    """The rater's current items, leasing the next query's when they hold none (as the judging
    page does). Only items listed here may be graded; the lease lasts the campaign's lease
    time and is renewed by working. Each item's `id` is the rater's opaque handle for it (a
    string; an integer before handles), to send back as `item`."""

    csv_key = "items"

    @extend_schema(responses={200: QueueSerializer, (404, JSON): ErrorSerializer})
    def get(self, request: Request, slug: str) -> Response:
        campaign = rated_campaign(request.user, slug)
        _, state = judge_state(rater=request.user, campaign=campaign, progress=True)
        labels = [label.__dict__ for label in label_keys(campaign)]
        return Response({**state, "labels": labels})


class SkipInputSerializer(serializers.Serializer):
    item = serializers.CharField(max_length=32, help_text="The item's handle, from the queue.")
    undo = serializers.BooleanField(
        default=False, help_text="Undo your skip; the item is yours again if it needs grades."
    )


class SkipResultSerializer(serializers.Serializer):
    item = serializers.CharField(help_text="The item as sent: its handle.")
    result = serializers.ChoiceField(choices=["skipped", "unskipped", "unchanged"])


class SkipView(APIView):
    """Skip an item the rater holds: it is not offered to them again; with undo, take the skip
    back (the item returns to the rater's queue while it still needs grades)."""

    @extend_schema(
        request=SkipInputSerializer,
        responses={200: SkipResultSerializer, **REFUSALS},
    )
    def post(self, request: Request, slug: str) -> Response:
        campaign = rated_campaign(request.user, slug)
        data = _valid(SkipInputSerializer, request)
        action = ACTION_UNSKIP if data["undo"] else ACTION_SKIP
        fields = {"item": data["item"], "action": action}
        form = valid_form(JudgeForm, fields)
        outcome = judgment_record(rater=request.user, campaign=campaign, data=form)
        return Response({"item": data["item"], "result": outcome.result})
