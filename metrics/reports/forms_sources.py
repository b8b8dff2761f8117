"""Forms of the label-sources pages: the report's settings, and the manager's uploads (a
competitor's ranking, a behaviour log) and derivations (clicks, purchases)."""

from __future__ import annotations

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotate.models import Aggregation, BehaviourLog, Campaign
from annotate.services.labels.bands import bands_text, default_bands, parse_bands
from annotate.services.labels.clicks import DEFAULT_MIN_EXPECTED_CLICKS, parse_thresholds
from metrics.services.label_sources import DEFAULT_K, MAX_K


def _min_clicks_help() -> str:
    return gettext(
        "Clicks: fewer expected clicks than this is too little data, no label (default %(n)s)."
    ) % {"n": f"{DEFAULT_MIN_EXPECTED_CLICKS:g}"}


MATCH_CHOICES = [
    ("auto", _("by URL when the value has a scheme, else by document id")),
    ("id", _("by document id")),
    ("url", _("by normalised URL")),
]


class SourcesSettingsForm(forms.Form):
    k = forms.IntegerField(min_value=1, max_value=MAX_K, required=False, label=_("Cut-off k"))
    aggregation = forms.ChoiceField(
        choices=[("", _("the campaign's rule")), *Aggregation.choices],
        required=False,
        label=_("Raters' aggregation"),
    )

    @property
    def k_value(self) -> int:
        return self.cleaned_data.get("k") or DEFAULT_K

    @property
    def rule(self) -> str | None:
        return self.cleaned_data.get("aggregation") or None


class CompetitorForm(forms.Form):
    file = forms.FileField(help_text=_("TREC run, or CSV qid,docno,rank (a header is optional)."))
    name = forms.CharField(max_length=180, help_text=_("Stored as competitor:NAME."))
    bands = forms.CharField(
        required=False,
        max_length=500,
        help_text=_("Positions to grades, e.g. 1-3:Good, 4-10:Fair, 11-20:Bad."),
    )
    match = forms.ChoiceField(choices=MATCH_CHOICES, initial="auto", label=_("Match documents"))
    replace = forms.BooleanField(required=False, label=_("Replace a source of that name"))

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.fields["bands"].widget.attrs["placeholder"] = bands_text(default_bands(campaign))

    def clean_bands(self):
        text = self.cleaned_data["bands"].strip()
        if not text:
            return default_bands(self.campaign)
        try:
            return parse_bands(text, campaign=self.campaign)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


class LogForm(forms.Form):
    file = forms.FileField(
        help_text=_(
            "CSV with a header, or JSONL: qid, docno (or url), position, impressions, "
            "clicks, optionally purchases and dwell. Logs of millions of rows: use the "
            "import_logs command."
        )
    )
    name = forms.CharField(max_length=200, help_text=_("The log's name in the campaign."))
    match = forms.ChoiceField(choices=MATCH_CHOICES, initial="auto", label=_("Match documents"))
    replace = forms.BooleanField(required=False, label=_("Replace a log of that name"))


class DeriveForm(forms.Form):
    log = forms.ModelChoiceField(queryset=BehaviourLog.objects.none())
    method = forms.ChoiceField(
        choices=[
            ("clicks", _("clicks over expected clicks (graded, position-based click model)")),
            ("purchases", _("purchases (bought: top grade, not bought: 0)")),
        ]
    )
    name = forms.CharField(
        max_length=180, required=False, help_text=_("Stored as METHOD:NAME (default: the log's).")
    )
    min_expected_clicks = forms.FloatField(
        min_value=0,
        required=False,
        help_text=lazy(_min_clicks_help, str)(),
    )
    min_impressions = forms.IntegerField(
        min_value=1,
        required=False,
        help_text=_("Purchases: no label below this many impressions (default 1)."),
    )
    thresholds = forms.CharField(
        required=False,
        max_length=200,
        help_text=_("Clicks: ratio thresholds, highest first (default 1.5, then halving)."),
    )
    replace = forms.BooleanField(required=False, label=_("Replace a source of that name"))

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["log"].queryset = BehaviourLog.objects.filter(campaign=campaign)

    def clean_thresholds(self):
        text = self.cleaned_data["thresholds"].strip()
        if not text:
            return None
        try:
            return parse_thresholds(text)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
