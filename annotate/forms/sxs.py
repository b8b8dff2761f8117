"""Forms of side-by-side judging: setting up a comparison, and a rater's verdict (from a plain
HTML post or from sxs.js's JSON). They only read and check input; the writes are services."""

from __future__ import annotations

import secrets

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext_lazy

from annotate.forms.judge import (
    ACTION_CANT_JUDGE,
    ACTION_SKIP,
    ACTION_UNSKIP,
    AnswerForm,
    answer_fields_shared,
    handle_or_id,
)
from annotate.models import Campaign, Comparison, ComparisonUnit, PrimaryMeasure, Run
from annotate.selectors_sxs import CHOICES
from metrics.reports.forms import SettingField
from metrics.services.scores import MAX_K, MeasureSettings

QUERIES_ALL = "all"
QUERIES_SAMPLE = "sample"


class RunChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, run: Run) -> str:
        return _("%(run)s (system %(system)s)") % {"run": run.name, "system": run.system.name}


class SizePlanForm(forms.Form):
    """The planner's assumptions (GET): how many queries a comparison needs."""

    effect = forms.FloatField(
        min_value=0.01, max_value=1, initial=0.1, label=_("Smallest GSB gain worth detecting")
    )
    same_share = forms.FloatField(
        min_value=0, max_value=0.99, initial=0.5, label=_("Expected share of Same answers")
    )
    plan_raters = forms.IntegerField(
        min_value=1, max_value=50, initial=1, label=_("Raters per query")
    )
    correlation = forms.FloatField(
        min_value=0, max_value=1, initial=0.2, label=_("Expected correlation between raters"),
        help_text=_("How alike two raters answer on the same query (0: independent)."),
    )  # fmt: skip
    power = forms.FloatField(min_value=0.5, max_value=0.99, initial=0.8, label=_("Power"))
    plan_bar = forms.FloatField(
        min_value=-0.99, max_value=0.99, initial=0.0, label=pgettext_lazy("launch bar", "Bar")
    )
    plan_confidence = forms.FloatField(
        min_value=0.5, max_value=0.999, initial=0.95, label=_("Confidence")
    )


class PlanFields(forms.Form):
    """The plan's fields (#17), shared by the set-up form and the plan-change form: the primary
    measure with its settings, the bar, the equivalence margin, the confidence and the minimum
    number of informative queries."""

    primary = forms.ChoiceField(
        choices=PrimaryMeasure.choices, initial=PrimaryMeasure.GSB, label=_("Primary measure"),
        required=False,
        help_text=_("What decides the launch. Everything else shown is exploratory."),
    )  # fmt: skip
    graded_k = forms.IntegerField(
        min_value=1, max_value=MAX_K, required=False, label=_("k of the graded measures"),
        help_text=_("Empty: the results per side."),
    )  # fmt: skip
    # Not required: a post (or a script) that leaves them out means the defaults.
    graded_gain = SettingField("gain", initial="linear", label=_("Gain"), required=False)
    graded_discount = SettingField("discount", initial="log2", label=_("Discount"), required=False)
    graded_ideal = SettingField(
        "ideal", initial="judged", label=_("Ideal ranking from"), required=False
    )
    DEFAULTS = {"primary": PrimaryMeasure.GSB, "graded_gain": "linear",
                "graded_discount": "log2", "graded_ideal": "judged"}  # fmt: skip

    def clean(self) -> dict:
        data = super().clean()
        for name, default in self.DEFAULTS.items():
            if not data.get(name) and name not in self.errors:
                data[name] = default
        return data

    min_gsb = forms.FloatField(
        min_value=-1, max_value=0.99, initial=0.0, label=_("Minimum GSB (the bar)"),
        help_text=_("The candidate launches only when the primary measure is clearly above "
                    "this (for a graded measure: its difference, candidate minus baseline)."),
    )  # fmt: skip
    confidence = forms.FloatField(
        min_value=0.5, max_value=0.999, initial=0.95, label=_("Confidence level")
    )
    min_queries = forms.IntegerField(
        min_value=0, max_value=1_000_000, initial=30, label=_("Minimum number of queries")
    )
    equivalence_margin = forms.FloatField(
        min_value=0, max_value=0.5, initial=0.0, required=False,
        label=_("No meaningful difference within ±"),
        help_text=_("A difference this close to 0 is no meaningful difference; 0 leaves that "
                    "outcome out."),
    )  # fmt: skip

    def graded_settings_key(self) -> str:
        """MeasureSettings.key of the graded settings, or "" for the defaults at the depth."""
        d = self.cleaned_data
        chosen = (d["graded_gain"], d["graded_discount"], d["graded_ideal"])
        if d.get("graded_k") is None and chosen == ("linear", "log2", "judged"):
            return ""
        k = d.get("graded_k") or d.get("depth") or 10
        return MeasureSettings(
            k=k, gain=d["graded_gain"], discount=d["graded_discount"], ideal=d["graded_ideal"]
        ).key


def plan_initial(comparison: Comparison) -> dict:
    """The plan-change form's initial values: the comparison's plan as it stands."""
    initial = {
        "primary": comparison.primary,
        "min_gsb": comparison.min_gsb,
        "confidence": comparison.confidence,
        "min_queries": comparison.min_queries,
        "equivalence_margin": comparison.equivalence_margin,
    }
    if comparison.graded_settings:
        s = MeasureSettings.from_key(comparison.graded_settings)
        initial |= {"graded_k": s.k, "graded_gain": s.gain, "graded_discount": s.discount,
                    "graded_ideal": s.ideal}  # fmt: skip
    return initial


class PlanChangeForm(PlanFields):
    reason = forms.CharField(
        max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 2}),
        label=_("Why the plan changes"),
        help_text=_("Required once answers are in; kept with the change and shown in the memo."),
    )  # fmt: skip


class ComparisonForm(PlanFields):
    name = forms.CharField(
        max_length=200, label=_("Name"), help_text=_("For managers only; raters never see it.")
    )
    baseline = RunChoiceField(
        queryset=Run.objects.none(), label=_("Baseline run (A, in production)")
    )
    candidate = RunChoiceField(queryset=Run.objects.none(), label=_("Candidate run (B)"))
    unit = forms.ChoiceField(
        choices=ComparisonUnit.choices,
        initial=ComparisonUnit.LIST,
        label=_("Unit"),
        help_text=_("Per position: one task for each rank, the two documents at that rank."),
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
    mirror_share = forms.FloatField(
        min_value=0, max_value=0.5, initial=0.05, required=False,
        label=_("Share of mirrored duplicates"),
        help_text=_("This share of a rater's answered tasks comes back to them later with the "
                    "sides swapped, to measure their consistency (0: none)."),
    )  # fmt: skip
    seed = forms.IntegerField(
        min_value=0, max_value=2**62, label=_("Seed"),
        help_text=_("Draws the sample and the bootstrap; the same seed gives the same sample."),
    )  # fmt: skip

    field_order = ["name", "baseline", "candidate", "unit", "queries", "sample_size", "depth",
                   "raters_per_task", *PlanFields.base_fields, "mirror_share", "seed"]  # fmt: skip

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

    def create_arguments(self) -> dict:
        """The valid form as comparison_create's keyword arguments."""
        d = self.cleaned_data
        names = ("name", "baseline", "candidate", "unit", "depth", "raters_per_task", "min_gsb",
                 "confidence", "min_queries", "seed", "sample_size", "primary")  # fmt: skip
        return {
            **{n: d[n] for n in names},
            "equivalence_margin": d["equivalence_margin"] or 0.0,
            "graded_settings": self.graded_settings_key(),
            "mirror_share": 0.05 if d.get("mirror_share") is None else d["mirror_share"],
        }

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if self.campaign.comparisons.filter(name=name).exists():
            raise forms.ValidationError(
                _("This campaign already has a comparison named “%(name)s”.") % {"name": name}
            )
        return name

    def clean(self) -> dict:
        data = super().clean()
        baseline, candidate = data.get("baseline"), data.get("candidate")
        if baseline and candidate and baseline == candidate:
            self.add_error(
                "candidate", _("Choose two different runs: the baseline and the candidate.")
            )
        if data.get("queries") == QUERIES_SAMPLE:
            size = data.get("sample_size")
            available = self.campaign.queries.count()
            if size is None and "sample_size" not in self.errors:
                self.add_error("sample_size", _("How many queries should the sample have?"))
            elif size is not None and size > available:
                self.add_error(
                    "sample_size",
                    ngettext(
                        "The campaign has only %(n)s query to sample from.",
                        "The campaign has only %(n)s queries to sample from.",
                        available,
                    )
                    % {"n": available},
                )
        else:
            data["sample_size"] = None
        return data


ACTION_VERDICT = "verdict"
CHOOSE = _("Choose Left better, About the same or Right better.")


class VerdictForm(AnswerForm):
    """A verdict (chosen: left, same, right), a can't-judge (chosen or action "cant_judge"), a
    skip, or a skip undone (action "skip", "unskip")."""

    # The rater's handle for the task (judging/handles.py), or a numeric id sent before them.
    task = forms.CharField(
        max_length=32,
        validators=[handle_or_id],
        error_messages={"required": _("Which task?")},
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
        choices=[
            ("", pgettext_lazy("strength", "none")),
            ("1", pgettext_lazy("strength", "slightly")),
            ("2", pgettext_lazy("strength", "clearly")),
            ("3", pgettext_lazy("strength", "much")),
        ],
        coerce=int,
        empty_value=None,
        required=False,
        error_messages={"invalid_choice": _("The strength must be 1, 2 or 3.")},
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
