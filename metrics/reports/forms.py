"""The reports' query parameters, validated: a bad value is a form error (the page answers 400
and says which), never an exception."""

from __future__ import annotations

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from annotate.models import Aggregation, Campaign, Label, LabelSource
from metrics.services.scores import (
    DEFAULT_K,
    MAX_K,
    SETTING_CHOICES,
    MeasureSettings,
    check_setting,
)

# How the page names each value of the scores service's settings (the values are its own).
SETTING_LABELS = {
    "linear": _("linear (g)"),
    "exponential": _("exponential (2^g − 1)"),
    "log2": "1 / log2(i + 1)",
    "jarvelin": "Järvelin–Kekäläinen",
    "judged": _("every judged document"),
    "retrieved": _("the retrieved list only"),
}


class SettingField(forms.ChoiceField):
    """A select of one measure setting (gain, discount or ideal): its options are the scores
    service's, and a value is valid when the service's ``check_setting`` accepts it (the
    same check the API makes), so the page and the API cannot disagree on what is allowed."""

    def __init__(self, setting: str, **kwargs) -> None:
        choices = [(value, SETTING_LABELS[value]) for value in SETTING_CHOICES[setting]]
        super().__init__(choices=choices, **kwargs)
        self.setting = setting

    def valid_value(self, value: str) -> bool:
        try:
            check_setting(self.setting, value)
        except ValueError:
            return False
        return True


def _with_defaults(data: QueryDict, defaults: dict) -> dict:
    """GET parameters over the defaults: a page opened without parameters is valid."""
    merged = dict(defaults)
    for key in data:
        merged[key] = data.get(key)
    return merged


class BasisForm(forms.Form):
    """Which labels: the raters' grades by a rule, or an imported label source."""

    aggregation = forms.ChoiceField(choices=Aggregation.choices, label=_("Aggregate grades by"))
    source = forms.ModelChoiceField(
        queryset=LabelSource.objects.none(),
        to_field_name="name",
        required=False,
        empty_label=_("the raters' grades"),
        label=_("Labels"),
    )

    def __init__(self, data: QueryDict, *, campaign: Campaign) -> None:
        defaults = {"aggregation": campaign.aggregation, "source": ""}
        super().__init__(_with_defaults(data, {**defaults, **self.extra_defaults()}))
        self.campaign = campaign
        self.fields["source"].queryset = campaign.label_sources.order_by("name")
        self.fields["source"].error_messages["invalid_choice"] = _(
            "No such label source in this campaign."
        )
        self.fields["aggregation"].error_messages["invalid_choice"] = _(
            "Unknown aggregation rule %(value)s: use mean, median or majority."
        )

    def extra_defaults(self) -> dict:
        return {}

    @property
    def rule(self) -> str:
        return self.cleaned_data["aggregation"]

    @property
    def label_source(self) -> LabelSource | None:
        return self.cleaned_data.get("source")


class ScoresForm(BasisForm):
    """The labels and the measure settings of the system scores."""

    k = forms.IntegerField(min_value=1, max_value=MAX_K, label="k")
    gain = SettingField("gain", label=_("Gain"))
    discount = SettingField("discount", label=_("Discount"))
    ideal = SettingField("ideal", label=_("Ideal ranking from"))

    def extra_defaults(self) -> dict:
        return {"k": DEFAULT_K, "gain": "linear", "discount": "log2", "ideal": "judged"}

    @property
    def settings(self) -> MeasureSettings:
        data = self.cleaned_data
        return MeasureSettings(
            k=data["k"], gain=data["gain"], discount=data["discount"], ideal=data["ideal"]
        )


class AdjudicationForm(forms.Form):
    label = forms.ModelChoiceField(queryset=Label.objects.none(), empty_label=None)
    note = forms.CharField(required=False, max_length=2000, widget=forms.TextInput)

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["label"].queryset = campaign.labels.order_by("position")


class QualityRulesForm(forms.ModelForm):
    """The campaign's thresholds of the automatic rules on raters' quality (#18)."""

    class Meta:
        model = Campaign
        fields = [
            "min_consistency",
            "min_pairs",
            "max_fast_share",
            "fast_seconds",
            "min_gold_answers",
            "min_gold_within",
            "min_gold_exact",
            "min_sxs_gold",
        ]
