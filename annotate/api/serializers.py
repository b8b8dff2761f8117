"""Serializers of the campaign's data. Read-only: writes go through the services, and the
serializers of a write only describe and check its input (annotate.api.inputs)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotate.models import (
    Aggregation,
    Campaign,
    Document,
    Label,
    PoolItem,
    Query,
    Role,
    Run,
    RunEntry,
    System,
)

# Largest primary key: bigger numbers are refused as input (400), never sent to the database.
MAX_ID = 2**63 - 1
ID_REGEX = "[0-9]{1,18}"  # ids in paths: longer ones are a 404


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}]})
class IdOrHandleField(serializers.IntegerField):
    """A task's id for its campaign's managers; for a rater, their opaque handle (a string),
    filled in by the serializer's to_representation (annotate/judging/handles.py)."""


class IdField(serializers.IntegerField):
    def __init__(self, **kwargs) -> None:
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)


class LabelSerializer(serializers.ModelSerializer):
    class Meta:
        model = Label
        fields = ["id", "name", "grade", "key", "position"]


class CampaignSerializer(serializers.ModelSerializer):
    labels = LabelSerializer(many=True, read_only=True)
    role = serializers.SerializerMethodField(help_text="The caller's role here.")

    class Meta:
        model = Campaign
        fields = [
            "slug",
            "name",
            "description",
            "aggregation",
            "relevant_from",
            "overlap",
            "lease_minutes",
            "created_at",
            "role",
            "labels",
        ]

    @extend_schema_field(serializers.ChoiceField(choices=Role.choices, allow_null=True))
    def get_role(self, campaign: Campaign) -> str | None:
        roles = self.context.get("roles", {})
        return roles.get(campaign.pk)


class CampaignCreateSerializer(serializers.Serializer):
    """Input of campaign creation; checked by the web page's form, so the rules are one."""

    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(max_length=80, required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    guidelines = serializers.CharField(required=False, allow_blank=True)
    overlap = serializers.IntegerField(required=False, min_value=1, max_value=50)
    lease_minutes = serializers.IntegerField(required=False, min_value=1, max_value=1440)
    aggregation = serializers.ChoiceField(choices=Aggregation.choices, required=False)
    relevant_from = serializers.FloatField(required=False)


class CampaignSlugField(serializers.SlugRelatedField):
    def __init__(self, **kwargs) -> None:
        super().__init__(slug_field="slug", read_only=True, **kwargs)


class QuerySerializer(serializers.ModelSerializer):
    campaign = CampaignSlugField()

    class Meta:
        model = Query
        fields = ["id", "campaign", "external_id", "text", "description"]


class DocumentSerializer(serializers.ModelSerializer):
    campaign = CampaignSlugField()

    class Meta:
        model = Document
        fields = [
            "id",
            "campaign",
            "external_id",
            "title",
            "url",
            "snippet",
            "extra",
            "is_placeholder",
        ]


class SystemSerializer(serializers.ModelSerializer):
    campaign = CampaignSlugField()
    runs = serializers.SlugRelatedField(many=True, read_only=True, slug_field="name")

    class Meta:
        model = System
        fields = ["id", "campaign", "name", "description", "runs"]


class RunSerializer(serializers.ModelSerializer):
    campaign = CampaignSlugField()
    system = serializers.SlugRelatedField(slug_field="name", read_only=True)
    entries = serializers.IntegerField(source="n_entries", read_only=True)
    queries = serializers.IntegerField(source="n_queries", read_only=True)

    class Meta:
        model = Run
        fields = [
            "id",
            "campaign",
            "system",
            "name",
            "source_file",
            "created_at",
            "entries",
            "queries",
        ]


class RunEntrySerializer(serializers.ModelSerializer):
    query = serializers.CharField(source="query.external_id", read_only=True)
    document = serializers.CharField(source="document.external_id", read_only=True)

    class Meta:
        model = RunEntry
        fields = ["id", "query", "document", "rank", "score"]


class PoolItemSerializer(serializers.ModelSerializer):
    campaign = CampaignSlugField()
    query = serializers.CharField(source="query.external_id", read_only=True)
    document = serializers.CharField(source="document.external_id", read_only=True)
    needed = serializers.IntegerField(source="n_needed", read_only=True)
    grades = serializers.IntegerField(
        source="n_grades", read_only=True, help_text="Counted grades (can't-judge left out)."
    )

    class Meta:
        model = PoolItem
        fields = [
            "id",
            "campaign",
            "query",
            "document",
            "origin",
            "raters_needed",
            "needed",
            "grades",
            "created_at",
        ]


class ImportSummarySerializer(serializers.Serializer):
    kind = serializers.CharField()
    file = serializers.CharField(source="path")
    lines = serializers.IntegerField()
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    skipped = serializers.IntegerField()
    placeholders = serializers.IntegerField()
    placeholders_filled = serializers.IntegerField()
    queries_created = serializers.IntegerField()
    runs = serializers.ListField(child=serializers.CharField())
    systems_created = serializers.ListField(child=serializers.CharField())
    source = serializers.CharField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField())
    summary = serializers.CharField(source="__str__")


class ImportInputSerializer(serializers.Serializer):
    """Multipart input of an upload; checked by the upload page's form (ImportForm)."""

    kind = serializers.ChoiceField(choices=["queries", "documents", "run", "qrels", "scored"])
    file = serializers.FileField()
    name = serializers.CharField(required=False, help_text="Run name (run, scored).")
    system = serializers.CharField(required=False)
    per_tag = serializers.BooleanField(required=False)
    source = serializers.CharField(required=False, help_text="Label source (qrels, scored).")
    any_grade = serializers.BooleanField(required=False)
    replace = serializers.BooleanField(required=False)


class RunUploadSerializer(serializers.Serializer):
    campaign = serializers.SlugField()
    file = serializers.FileField(help_text="TREC run: qid Q0 docno rank score tag.")
    name = serializers.CharField(required=False, help_text="Default: the tag of the file.")
    system = serializers.CharField(required=False, help_text="Default: the tag.")
    per_tag = serializers.BooleanField(required=False)
    replace = serializers.BooleanField(required=False)


# Refusals are JSON whatever format was asked for (annotate.api.errors): schemas say so.
JSON = "application/json"


class ConflictSerializer(serializers.Serializer):
    stored = serializers.DictField(
        allow_null=True,
        help_text="The caller's stored answer on the task, in the judging page's terms "
        "({skipped: true} for a skip); null if none.",
    )
    replaces = serializers.CharField(
        allow_null=True, help_text="Send it as `replaces` to change the stored answer."
    )


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What is wrong, in one sentence.")
    errors = serializers.DictField(
        required=False,
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Per field, for input that failed its checks.",
    )
    file = serializers.CharField(required=False, help_text="Uploads: the file refused.")
    line = serializers.IntegerField(
        required=False, allow_null=True, help_text="Uploads: its line to blame (null: no one line)."
    )
    reason = serializers.CharField(required=False, help_text="Uploads: what is wrong there.")
    conflict = ConflictSerializer(
        required=False, help_text="A 409 on an answer: what the caller has stored instead."
    )
