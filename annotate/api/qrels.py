"""The campaign's qrels for scripts: TREC text (the default), JSON or CSV, streamed.

The rule that made the labels is stated in every answer: the ``X-Aggregation`` header (and
``X-Aggregation-Note``, ``X-Grades``, ``X-Label-Source``), and in JSON the ``aggregation``
field. ``?aggregation=`` overrides the campaign's rule; ``?source=`` gives an imported label
source instead; grades are whole (rounded half up, as trec_eval expects) unless ``?real=1``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import quote

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from annotate.api.formats import CSVRenderer, TrecRenderer, joined, streamed
from annotate.api.scoping import managed_campaign
from annotate.api.serializers import ErrorSerializer
from annotate.models import Aggregation, Campaign, LabelSource
from annotate.services.aggregation import QrelsStream, qrels_stream, source_qrels_stream
from annotate.services.exports import csv_lines, format_grade, qrels_lines

_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"", "0", "false", "no", "off"}
RULES = [*Aggregation.values, "source"]
WHOLE, REAL = "whole grades, rounded half up", "real grades"


class QrelsLineSerializer(serializers.Serializer):
    query = serializers.CharField()
    document = serializers.CharField()
    grade = serializers.FloatField()
    raters = serializers.IntegerField(help_text="Counted grades behind the label.")
    adjudicated = serializers.BooleanField(help_text="A manager's ruling decided it.")


class QrelsSerializer(serializers.Serializer):
    campaign = serializers.CharField()
    aggregation = serializers.ChoiceField(
        choices=RULES, help_text="The rule that made the labels; source: an imported source."
    )
    source = serializers.CharField(allow_null=True)
    note = serializers.CharField()
    grades = serializers.ChoiceField(
        choices=[WHOLE, REAL], help_text="Whole grades rounded half up, or real grades (?real=1)."
    )
    count = serializers.IntegerField()
    qrels = QrelsLineSerializer(many=True)


def qrels_table(*, campaign: Campaign, rule: str | None, source: str | None) -> QrelsStream:
    """The qrels as annotate.services.exports.export_qrels makes them (same errors)."""
    if rule and source:
        raise ValueError("ask for an aggregation rule or a label source, not both")
    if source:
        try:
            label_source = campaign.label_sources.get(name=source)
        except LabelSource.DoesNotExist:
            known = ", ".join(campaign.label_sources.values_list("name", flat=True)) or "none"
            raise ValueError(f"no label source {source!r} (sources: {known})") from None
        return source_qrels_stream(source=label_source)
    return qrels_stream(campaign=campaign, rule=rule)


def _json_chunks(campaign: Campaign, table: QrelsStream, *, real: bool, rounding: str):
    head = {
        "campaign": campaign.slug,
        "aggregation": table.rule,
        "source": table.source,
        "note": table.note,
        "grades": rounding,
        "count": len(table),
    }
    opening = json.dumps(head, ensure_ascii=False)[:-1] + ', "qrels": ['

    def lines() -> Iterator[str]:
        yield opening
        for i, (qid, docno, grade, n, adjudicated) in enumerate(table.lines()):
            value = float(format_grade(grade, real=real))
            record = {
                "query": qid,
                "document": docno,
                "grade": value,
                "raters": n,
                "adjudicated": adjudicated,
            }
            yield ("" if i == 0 else ",") + json.dumps(record, ensure_ascii=False)
        yield "]}"

    return joined(lines())


def _csv_rows(table: QrelsStream, *, real: bool) -> Iterator[tuple]:
    for qid, docno, grade, n, adjudicated in table.lines():
        yield (qid, docno, format_grade(grade, real=real), n, adjudicated)


class QrelsView(APIView):
    renderer_classes = [TrecRenderer, JSONRenderer, CSVRenderer]
    # TREC text unless asked otherwise; qrels.json and qrels.csv are the other two formats
    # (annotate.api.schema).
    schema_format = "trec"

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "aggregation",
                str,
                enum=Aggregation.values,
                description="Overrides the campaign's rule.",
            ),
            OpenApiParameter("source", str, description="An imported label source's name."),
            OpenApiParameter("real", bool, description="Keep real-valued grades."),
        ],
        responses={200: QrelsSerializer, 400: ErrorSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, slug: str):
        """The campaign's qrels (managers)."""
        campaign = managed_campaign(request.user, slug)
        real = request.query_params.get("real", "").lower()
        if real not in _TRUE | _FALSE:
            raise ValueError("real must be 1 or 0")
        real_grades = real in _TRUE
        table = qrels_table(
            campaign=campaign,
            rule=request.query_params.get("aggregation") or None,
            source=request.query_params.get("source") or None,
        )
        rounding = REAL if real_grades else WHOLE
        headers = {
            "X-Aggregation": table.rule,
            "X-Aggregation-Note": table.note,
            "X-Grades": rounding,
        }
        if table.source is not None:
            headers["X-Label-Source"] = quote(table.source)
        stem = f"{campaign.slug}-qrels-{table.rule}"
        fmt = request.accepted_renderer.format
        if fmt == "json":
            chunks = _json_chunks(campaign, table, real=real_grades, rounding=rounding)
            return streamed(
                chunks, content_type="application/json", filename=f"{stem}.json", headers=headers
            )
        if fmt == "csv":
            fields = ["query", "document", "grade", "raters", "adjudicated"]
            chunks = joined(csv_lines(fields, _csv_rows(table, real=real_grades)))
            return streamed(
                chunks,
                content_type="text/csv; charset=utf-8",
                filename=f"{stem}.csv",
                headers=headers,
            )
        return streamed(
            joined(qrels_lines(table, real=real_grades)),
            content_type="text/plain; charset=utf-8",
            filename=f"{stem}.txt",
            headers=headers,
        )
