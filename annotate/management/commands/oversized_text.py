"""List the stored text above the current input limits (settings.INPUT_LIMITS): rows imported
before a limit existed, or while it was higher. They stay as they are; raters see them clamped.
Also the grades beyond ±grade_abs (a label of a scale, a label source's label): the score pages
refuse to score them and point here.

    python manage.py oversized_text [--campaign SLUG]

One line per value: campaign, kind, id, field, length and limit. Exit status 0 either way.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Q
from django.db.models.functions import Length

from annotate import inputs
from annotate.models import Document, Label, LabelSource, Query, Run, SourceLabel, System

# (model, field, limit name, how a row is named)
CHECKS = [
    (Query, "text", "query_text", "external_id"),
    (Query, "description", "intent", "external_id"),
    (Document, "title", "title", "external_id"),
    (Document, "url", "url", "external_id"),
    (Document, "snippet", "snippet", "external_id"),
    (System, "name", "name", "name"),
    (Run, "name", "name", "name"),
    (LabelSource, "name", "name", "name"),
]


class Command(BaseCommand):
    help = "List stored text longer than the input limits (INPUT_LIMITS)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", metavar="SLUG", help="only this campaign")

    def handle(self, *args, **options) -> None:
        found = 0
        for model, field, limit_name, key in CHECKS:
            maximum = inputs.limit(limit_name)
            rows = model.objects.annotate(_n=Length(field)).filter(_n__gt=maximum)
            if options["campaign"]:
                rows = rows.filter(Q(campaign__slug=options["campaign"]))
            for slug, ident, length in rows.values_list("campaign__slug", key, "_n").iterator():
                found += 1
                self.stdout.write(
                    f"{slug}\t{model._meta.model_name}\t{ident[:80]}\t{field}\t"
                    f"{length} characters\tlimit {maximum}"
                )
        found += self._extra(options["campaign"])
        found += self._grades(options["campaign"])
        self.stderr.write(f"{found} value(s) above the limits.")

    def _extra(self, campaign: str | None) -> int:
        """Documents with more extra fields than the limit (their size is checked in Python:
        the JSON's length is not portable SQL)."""
        max_keys, max_bytes = inputs.limit("extra_keys"), inputs.limit("extra_bytes")
        docs = Document.objects.exclude(extra={})
        if campaign:
            docs = docs.filter(campaign__slug=campaign)
        found = 0
        for slug, ident, extra in docs.values_list("campaign__slug", "external_id", "extra"):
            size = len(json.dumps(extra, ensure_ascii=False).encode())
            if len(extra) > max_keys or size > max_bytes:
                found += 1
                self.stdout.write(
                    f"{slug}\tdocument\t{ident[:80]}\textra\t{len(extra)} keys, {size} bytes\t"
                    f"limit {max_keys} keys, {max_bytes} bytes"
                )
        return found

    def _grades(self, campaign: str | None) -> int:
        bound = inputs.limit("grade_abs")
        beyond = Q(grade__gt=bound) | Q(grade__lt=-bound)
        labels = Label.objects.filter(beyond)
        sourced = SourceLabel.objects.filter(beyond)
        if campaign:
            labels = labels.filter(campaign__slug=campaign)
            sourced = sourced.filter(source__campaign__slug=campaign)
        rows = [
            (slug, "label", name, grade)
            for slug, name, grade in labels.values_list("campaign__slug", "name", "grade")
        ]
        rows += [
            (slug, "source label", f"{source[:80]}: {query[:80]}/{document[:80]}", grade)
            for slug, source, query, document, grade in sourced.values_list(
                "source__campaign__slug",
                "source__name",
                "query__external_id",
                "document__external_id",
                "grade",
            ).iterator()
        ]
        for slug, kind, name, grade in rows:
            self.stdout.write(f"{slug}\t{kind}\t{name}\tgrade\t{grade:g}\tlimit ±{bound:,}")
        return len(rows)
