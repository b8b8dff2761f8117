"""Forms of side-by-side judging: setting up a comparison, and a rater's verdict (from a plain
HTML post or from sxs.js's JSON). They only read and check input; the writes are services."""

from __future__ import annotations

import secrets

from django import forms
from django.utils.translation import gettext_lazy as _

from annotate.forms.judge import (
    ACTION_CANT_JUDGE,
    ACTION_SKIP,
    ACTION_UNSKIP,
    AnswerForm,
    answer_fields_shared,
    handle_or_id,
)
from annotate.models import Campaign, ComparisonUnit, Run
from annotate.selectors_sxs import CHOICES

QUERIES_ALL = "all"
QUERIES_SAMPLE = "sample"


class RunChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, run: Run) -> str:
        return f"{run.name} (system {run.system.name})"


class SizePlanForm(forms.Form):
    """The planner's assumptions (GET): how many queries a comparison needs."""

    effect = forms.FloatField(
        min_value=0.01, max_value=1, initial=0.1, label="Smallest GSB gain worth detecting"
    )
    same_share = forms.FloatField(
        min_value=0, max_value=0.99, initial=0.5, label="Expected share of Same answers"
    )
    plan_raters = forms.IntegerField(min_value=1, max_value=50, initial=1, label="Raters per query")
    correlation = forms.FloatField(
        min_value=0, max_value=1, initial=0.2, label="Expected correlation between raters",
        help_text="How alike two raters answer on the same query (0: independent).",
    )  # fmt: skip
    power = forms.FloatField(min_value=0.5, max_value=0.99, initial=0.8, label="Power")
    plan_bar = forms.FloatField(min_value=-0.99, max_value=0.99, initial=0.0, label="Bar")
    plan_confidence = forms.FloatField(
        min_value=0.5, max_value=0.999, initial=0.95, label="Confidence"
    )


class ComparisonForm(forms.Form):
    name = forms.CharField(max_length=200, help_text=_("For managers only; raters never see it."))
    baseline = RunChoiceField(
        queryset=Run.objects.none(), label=_("Baseline run (A, in production)")
    )
    candidate = RunChoiceField(queryset=Run.objects.none(), label=_("Candidate run (B)"))
    unit = forms.ChoiceField(
        choices=ComparisonUnit.choices,
        initial=ComparisonUnit.LIST,
        help_text=_("Per position follows seed 002's ⟨query, doc⟩ table: one task per rank."),
    )
    queries = forms.ChoiceField(
        choices=[(QUERIES_ALL, _("All queries")), (QUERIES_SAMPLE, _("A random sample"))],
        initial=QUERIES_ALL,
        widget=forms.RadioSelect,
        label=_("Queries"),
    )
    sample_size = forms.IntegerField(
        min_value=1,
        required=False,
        label=_("Sample size"),
        help_text=_("Only for a random sample."),
    )
    depth = forms.IntegerField(min_value=1, max_value=100, initial=10, label=_("Results per side"))
    raters_per_task = forms.IntegerField(
        min_value=1, max_value=50, initial=1, label=_("Raters per task")
    )
    min_gsb = forms.FloatField(
        min_value=-1, max_value=0.99, initial=0.0, label=_("Minimum GSB (the bar)"),
        help_text=_("The candidate launches only when GSB is clearly above this."),
    )  # fmt: skip
    confidence = forms.FloatField(
        min_value=0.5, max_value=0.999, initial=0.95, label=_("Confidence level")
    )
    min_queries = forms.IntegerField(
        min_value=0, max_value=1_000_000, initial=30, label=_("Minimum number of queries")
    )
    equivalence_margin = forms.FloatField(
        min_value=0, max_value=0.5, initial=0.0, required=False,
        label="No meaningful difference within ±",
        help_text="A GSB this close to 0 is no meaningful difference; 0 leaves that outcome out.",
    )  # fmt: skip
    seed = forms.IntegerField(
        min_value=0, max_value=2**62, label=_("Seed"),
        help_text=_("Draws the sample and the bootstrap; the same seed gives the same sample."),
    )  # fmt: skip

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        runs = Run.objects.filter(campaign=campaign).select_related("system").order_by("name")
        self.fields["baseline"].queryset = runs
        self.fields["candidate"].queryset = runs
        if not self.is_bound:
            self.initial.setdefault("seed", secrets.randbelow(2**31))
            # Preset the right way round: production is the baseline, the newest other run
            # the candidate (never the candidate as the baseline).
            production = runs.filter(system__is_production=True).first()
            if production is not None:
                self.initial.setdefault("baseline", production.pk)
                newest = runs.exclude(system__is_production=True).order_by("-created_at", "-pk")
                if (candidate := newest.first()) is not None:
                    self.initial.setdefault("candidate", candidate.pk)
        self.fields["sample_size"].widget.attrs["max"] = campaign.queries.count()

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if self.campaign.comparisons.filter(name=name).exists():
            raise forms.ValidationError(f"This campaign already has a comparison named “{name}”.")
        return name

    def clean(self) -> dict:
        data = super().clean()
        baseline, candidate = data.get("baseline"), data.get("candidate")
        if baseline and candidate and baseline == candidate:
            self.add_error(
                "candidate", "Choose two different runs: the baseline and the candidate."
            )
        if data.get("queries") == QUERIES_SAMPLE:
            size = data.get("sample_size")
            available = self.campaign.queries.count()
            if size is None and "sample_size" not in self.errors:
                self.add_error("sample_size", "How many queries should the sample have?")
            elif size is not None and size > available:
                self.add_error(
                    "sample_size", f"The campaign has only {available} queries to sample from."
                )
        else:
            data["sample_size"] = None
        return data


ACTION_VERDICT = "verdict"
CHOOSE = "Choose Left better, About the same or Right better."


class VerdictForm(AnswerForm):
    """A verdict (chosen: left, same, right), a can't-judge (chosen or action "cant_judge"), a
    skip, or a skip undone (action "skip", "unskip")."""

    # The rater's handle for the task (judging/handles.py), or a numeric id sent before them.
    task = forms.CharField(
        max_length=32,
        validators=[handle_or_id],
        error_messages={"required": "Which task?"},
    )
    action = forms.ChoiceField(
        choices=[(a, a) for a in (ACTION_VERDICT, ACTION_SKIP, ACTION_CANT_JUDGE, ACTION_UNSKIP)],
        required=False,
    )
    chosen = forms.ChoiceField(
        choices=[(c, c) for c in (*CHOICES, ACTION_CANT_JUDGE)],
        required=False,
        error_messages={"invalid_choice": CHOOSE},
    )
    strength = forms.TypedChoiceField(
        choices=[("", "none"), ("1", "slightly"), ("2", "clearly"), ("3", "much")],
        coerce=int,
        empty_value=None,
        required=False,
        error_messages={"invalid_choice": "The strength must be 1, 2 or 3."},
    )
    reason = forms.CharField(max_length=2000, required=False)

    def clean(self) -> dict:
        data = super().clean()
        action = data.get("action") or ACTION_VERDICT
        if action == ACTION_CANT_JUDGE:
            data["chosen"] = ACTION_CANT_JUDGE
        elif data.get("chosen") == ACTION_CANT_JUDGE:
            action = ACTION_CANT_JUDGE
        if action == ACTION_VERDICT and not data.get("chosen") and "chosen" not in self.errors:
            self.add_error("chosen", CHOOSE)
        data["action"] = action
        return data


answer_fields_shared(VerdictForm)
