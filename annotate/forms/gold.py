"""Forms of the manager's gold page. They only read and check input; the writes are services
(annotate/services/gold.py)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from annotate.models import Campaign, GoldPurpose, VerdictValue
from annotate.models.gold import MAX_EXPLANATION


def _purpose() -> forms.ChoiceField:
    return forms.ChoiceField(
        label=_("Purpose"), choices=GoldPurpose.choices, initial=GoldPurpose.HONEYPOT
    )


def _explanation() -> forms.CharField:
    return forms.CharField(
        label=_("Explanation"),
        required=False,
        max_length=MAX_EXPLANATION,
        widget=forms.TextInput(attrs={"placeholder": _("Why this is the answer")}),
    )


class GoldItemForm(forms.Form):
    """A pool pair named by its query's and document's external ids, and its accepted labels."""

    query = forms.CharField(label=_("Query id"), max_length=200)
    document = forms.CharField(label=_("Document id"), max_length=200)
    label = forms.ModelChoiceField(label=_("Accepted label"), queryset=None)
    also = forms.ModelMultipleChoiceField(
        label=_("Also accepted"),
        queryset=None,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    explanation = _explanation()
    purpose = _purpose()

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        labels = campaign.labels.order_by("grade")
        self.fields["label"].queryset = labels
        self.fields["also"].queryset = labels


class GoldTaskForm(forms.Form):
    """A side-by-side task named by its comparison, query id and (per position) its rank."""

    comparison = forms.ModelChoiceField(label=_("Comparison"), queryset=None)
    query = forms.CharField(label=_("Query id"), max_length=200)
    position = forms.IntegerField(label=_("Position"), required=False, min_value=1, max_value=100)
    value = forms.ChoiceField(label=_("Accepted verdict"), choices=VerdictValue.choices)
    explanation = _explanation()
    purpose = _purpose()

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["comparison"].queryset = campaign.comparisons.order_by("name")


class GoldImportForm(forms.Form):
    file = forms.FileField(
        label=_("File"), help_text=_("TREC qrels, or CSV: query, document, label, explanation")
    )
    purpose = _purpose()


class GoldTaskImportForm(forms.Form):
    """A CSV of one comparison's gold tasks (annotate/services/imports/gold_sxs.py)."""

    comparison = forms.ModelChoiceField(label=_("Comparison"), queryset=None)
    file = forms.FileField(
        label=_("File"),
        help_text=_(
            "CSV: query, verdict (better, same or worse), explanation; position for a "
            "per-position comparison"
        ),
    )
    purpose = _purpose()

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["comparison"].queryset = campaign.comparisons.order_by("name")


class PurposeForm(forms.Form):
    purpose = _purpose()


class HoneypotShareForm(forms.Form):
    share = forms.FloatField(
        label=_("Share of honeypots"),
        min_value=0,
        max_value=1,
        help_text=_("0 to 1: the share of each rater's queries that are hidden gold."),
    )
