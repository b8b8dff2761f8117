"""The manager's upload form: one form for every kind of file, with the options each takes."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from annotate.services.imports.common import MAX_NAME

KIND_CHOICES = [
    ("queries", "Queries: TSV (qid, text, description) or JSONL"),
    ("documents", "Documents: CSV with a header, or JSONL"),
    ("run", "Run: TREC (qid Q0 docno rank score tag)"),
    ("qrels", "Qrels: TREC (qid iter docno grade)"),
    (
        "scored",
        "Scored labels: grade, query, score per line (a ranked list and its labels)",
    ),
]


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=KIND_CHOICES, label=_("What the file holds"))
    file = forms.FileField(label=_("File (UTF-8)"))
    name = forms.CharField(required=False, max_length=MAX_NAME, label=_("Run name"))
    system = forms.CharField(required=False, max_length=MAX_NAME, label=_("System"))
    per_tag = forms.BooleanField(required=False, label=_("One run and one system per tag"))
    source = forms.CharField(required=False, max_length=MAX_NAME, label=_("Label source name"))
    any_grade = forms.BooleanField(required=False, label=_("Accept grades off the label scale"))
    replace = forms.BooleanField(
        required=False, label=_("Replace a run or label source of the same name")
    )

    def clean(self) -> dict:
        data = super().clean()
        kind = data.get("kind")
        name, system = data.get("name"), data.get("system")
        if kind == "qrels" and not data.get("source"):
            self.add_error("source", _("Name the label source the qrels go into."))
        if kind == "scored" and not name:
            self.add_error("name", _("Name the run: this format has no run tag."))
        if kind == "run" and data.get("per_tag") and (name or system):
            self.add_error(
                "per_tag",
                _("One run per tag takes its names from the tags: leave run and system empty."),
            )
        return data
