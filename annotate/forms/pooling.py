"""The manager's pooling form on the campaign page."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from annotate.models import Campaign, Run

MAX_DEPTH = 10_000


class PoolForm(forms.Form):
    runs = forms.ModelMultipleChoiceField(
        queryset=Run.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": _("Choose at least one run.")},
    )
    depth = forms.IntegerField(min_value=1, max_value=MAX_DEPTH, initial=10)
    raters_needed = forms.IntegerField(
        min_value=1,
        max_value=50,
        required=False,
        help_text=_("Raters each new item needs; empty for the campaign's overlap."),
    )

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Only this campaign's runs: a run id of another campaign is an invalid choice.
        self.fields["runs"].queryset = campaign.runs.order_by("name")
