"""Label sources: the report that sets every source against every other
(metrics.services.label_sources), its CSV downloads, and the manager's forms to add sources
without raters (a competitor's ranking, a behaviour log, labels derived from a log). Managers of
the campaign only: anyone else gets 404, an anonymous visitor the login page. Bad parameters
answer 400 with a message.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

import numpy as np
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods

from annotate.models import Campaign
from annotate.selectors import campaign_managed_by
from annotate.services.imports import ImportFailed
from annotate.services.labels.add import ADD_ACTIONS, label_source_add
from annotate.services.preferences import csv_bom_wanted
from jobs.web import start_sources_job
from metrics.reports import charts
from metrics.reports.forms_sources import CompetitorForm, DeriveForm, LogForm, SourcesSettingsForm
from metrics.reports.presenting import csv_response, rule_name
from metrics.reports.source_words import describe, display_names, kind_label
from metrics.reports.views.too_large import grades_checked
from metrics.services.label_sources import RATERS, SourcesReport, SourceSummary, sources_report
from metrics.services.label_sources_raters import flips

DOWNLOADS = ("scores", "agreement", "confusion", "orders", "raters")


@login_required
@require_GET
@grades_checked
def sources(request: HttpRequest, slug: str) -> HttpResponse:
    """?k= (cut-off), ?aggregation= (the raters' rule), ?download=scores|agreement|...."""
    campaign = campaign_managed_by(request.user, slug)
    form = SourcesSettingsForm(request.GET)
    download = request.GET.get("download")
    if not form.is_valid() or (download and download not in DOWNLOADS):
        if download and download not in DOWNLOADS:
            form.add_error(
                None,
                gettext("download must be one of %(names)s") % {"names": ", ".join(DOWNLOADS)},
            )
        context = {"campaign": campaign, "form": form}
        return render(request, "metrics/sources.html", context, status=400)
    report = sources_report(campaign=campaign, rule=form.rule, k=form.k_value)
    notes = [
        f"raters' grades aggregated by {report.rule}",
        f"k = {report.k}, relevant from grade {report.relevance_level:g}",
        "agreement on grades rounded half up",
    ]
    if download:
        header, rows = TABLES[download](report)
        return csv_response(
            campaign=campaign, name=f"label-sources-{download}", header=header, rows=rows,
            notes=notes, bom=csv_bom_wanted(request),
        )  # fmt: skip
    context = {
        "campaign": campaign,
        "form": form,
        "report": report,
        "rule_name": rule_name(report.rule),
        "sources": [
            {
                "summary": s,
                "name": display_names(report)[s.key],
                "kind": kind_label(s.kind),
                "how": describe(s),
                "export_query": _export_query(s, report),
            }
            for s in report.sources
        ],
        "score_rows": _score_rows(report),
        "agreements": _named(report, report.agreements),
        "orders": _named(report, report.orders),
        "chart_svg": _chart(report) if report.runs else "",
        "models": _model_rows(report),
        "human": _human(report),
        "settings_query": _settings_query(request),
    }
    return render(request, "metrics/sources.html", context)


def _model_rows(report: SourcesReport) -> list[dict]:
    """Each model source against the raters, with the pairs of runs it orders the other way."""
    if report.raters is None:
        return []
    return [
        {
            "x": m,
            "kappa": _figure(m.mean.kappa),
            "alpha": _figure(m.mean.alpha),
            "flips": flips(runs=report.runs, a=RATERS, b=m.source, ndcg=report.ndcg),
        }
        for m in report.raters.models
    ]


def _human(report: SourcesReport) -> dict:
    if report.raters is None:
        return {}
    h = report.raters.human
    return {"kappa": _figure(h.kappa), "alpha": _figure(h.alpha), "pairs": h.pairs}


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def _settings_query(request: HttpRequest) -> str:
    keep = request.GET.copy()
    keep.pop("download", None)
    return keep.urlencode()


def _export_query(source: SourceSummary, report: SourcesReport) -> str:
    if source.key == RATERS:
        return urlencode({"aggregation": report.rule, "real": 1})
    return urlencode({"source": source.key, "real": 1})


def _named(report: SourcesReport, items: list) -> list[dict]:
    """Pairs of sources with their display names (the raters' aggregate names its rule)."""
    names = display_names(report)
    return [{"x": item, "a": names[item.a], "b": names[item.b]} for item in items]


def _score_rows(report: SourcesReport) -> list[dict]:
    """One row per (run, source), runs in the report's order, sources in theirs."""
    rows = []
    for run in report.runs:
        for i, source in enumerate(report.sources):
            rows.append(
                {
                    "run": run,
                    "name": run_name(run),
                    "first": i == 0,
                    "span": len(report.sources),
                    "source": source,
                    "source_name": display_names(report)[source.key],
                    "values": [run.values[source.key][key] for key, _ in report.measures],
                }
            )
    return rows


def _chart(report: SourcesReport) -> str:
    ndcg, label = report.measures[0]
    means = np.array([[run.values[s.key][ndcg] for run in report.runs] for s in report.sources])
    return charts.bars_with_intervals(
        title=gettext("%(measure)s of every run under each label source") % {"measure": label},
        groups=[run_name(run) for run in report.runs],
        series=[display_names(report)[s.key] for s in report.sources],
        means=means,
        lows=np.full(means.shape, np.nan),
        highs=np.full(means.shape, np.nan),
    )


def run_name(run) -> str:
    return run.system if run.run == run.system else f"{run.system} ({run.run})"


def _scores_table(report: SourcesReport):
    header = ["system", "run", "source", *(label for _, label in report.measures)]
    rows = [
        [run.system, run.run, source.key, *(run.values[source.key][k] for k, _ in report.measures)]
        for run in report.runs
        for source in report.sources
    ]
    return header, rows


def _agreement_table(report: SourcesReport):
    header = ["source a", "source b", "pairs a", "pairs b", "pairs both", "exact agreement",
              "weighted kappa (linear)", "krippendorff alpha (ordinal)", "note"]  # fmt: skip
    rows = [
        [a.a, a.b, a.a_pairs, a.b_pairs, a.both, a.exact, a.kappa, a.alpha, a.note]
        for a in report.agreements
    ]
    return header, rows


def _confusion_table(report: SourcesReport):
    header = ["source a", "source b", "grade a", "grade b", "pairs"]
    rows = [
        [a.a, a.b, ga, gb, count]
        for a in report.agreements
        for ga, row in a.confusion_rows
        for gb, count in zip(a.categories, row, strict=True)
    ]
    return header, rows


def _orders_table(report: SourcesReport):
    ndcg = report.measures[0][1]
    header = ["source a", "source b", "runs", f"kendall tau-b ({ndcg})", "p value",
              "pairs of runs swapped", "pairs of runs"]  # fmt: skip
    rows = [[o.a, o.b, o.runs, o.tau, o.p_value, o.swapped, o.pairs] for o in report.orders]
    return header, rows


def _raters_table(report: SourcesReport):
    """Each model source against each rater, then the raters against each other."""
    header = ["source a", "source b", "pairs both", "exact agreement", "weighted kappa (linear)",
              "krippendorff alpha (ordinal)", "note"]  # fmt: skip
    if report.raters is None:
        return header, []
    pairs = [a for m in report.raters.models for a in m.per_rater]
    pairs += report.raters.between_raters
    rows = [[a.a, a.b, a.both, a.exact, a.kappa, a.alpha, a.note] for a in pairs]
    return header, rows


TABLES: dict[str, Callable[[SourcesReport], tuple[list[str], list[list]]]] = {
    "scores": _scores_table,
    "agreement": _agreement_table,
    "confusion": _confusion_table,
    "orders": _orders_table,
    "raters": _raters_table,
}


# --- adding sources ---------------------------------------------------------------------


FORMS = {"competitor": CompetitorForm, "log": LogForm, "derive": DeriveForm}


def form_for(campaign: Campaign, action: str, data=None, files=None):
    """One of the page's three forms (the worker binds it again for a job, jobs/kinds.py)."""
    form_class = FORMS[action]
    kwargs = {"prefix": action} if action == "log" else {"campaign": campaign, "prefix": action}
    return form_class(data, files, **kwargs)


def _forms(campaign: Campaign, data=None, files=None, *, bound: str = "") -> dict:
    """The page's three forms; only the one named ``bound`` gets the posted data."""

    def pick(name):
        return (data, files) if name == bound else (None, None)

    return {f"{name}_form": form_for(campaign, name, *pick(name)) for name in FORMS}


@login_required
@require_http_methods(["GET", "POST"])
def sources_add(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the forms. POST with action=competitor|log|derive: run that one, then back to the
    report (or the page again with the form's errors, status 400)."""
    campaign = campaign_managed_by(request.user, slug)
    if request.method == "GET":
        return _add_page(request, campaign, _forms(campaign))
    action = request.POST.get("action", "")
    if action not in ADD_ACTIONS:
        messages.error(request, gettext("Unknown action: choose one of the forms."))
        return _add_page(request, campaign, _forms(campaign), status=400)
    forms = _forms(campaign, request.POST, request.FILES, bound=action)
    form = forms[f"{action}_form"]
    if form.is_valid():
        try:
            if start_sources_job(request, campaign, action, form) is not None:
                return redirect("jobs:campaign", slug=campaign.slug)
            summary = label_source_add(campaign=campaign, action=action, data=form.cleaned_data)
        except (ImportFailed, ValueError) as exc:
            form.add_error(None, gettext("Nothing was stored: %(why)s") % {"why": exc})
        else:
            messages.success(request, str(summary))
            for warning in summary.warnings:
                messages.warning(request, warning)
            return redirect("metrics:sources", slug=campaign.slug)
    return _add_page(request, campaign, forms, status=400)


def _add_page(request, campaign: Campaign, forms: dict, status: int = 200) -> HttpResponse:
    logs = campaign.behaviour_logs.order_by("name")
    context = {"campaign": campaign, "logs": logs, **forms}
    return render(request, "metrics/sources_add.html", context, status=status)
