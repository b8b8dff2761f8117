"""List the stored text above the current input limits (settings.INPUT_LIMITS): rows imported
before a limit existed, or while it was higher. They stay as they are; raters see them clamped.

    python manage.py oversized_text [--campaign SLUG]

One line per value: campaign, kind, id, field, length and limit. Exit status 0 either way.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Q
from django.db.models.functions import Length

from annotate import inputs
from annotate.models import Document, LabelSource, Query, Run, System

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
