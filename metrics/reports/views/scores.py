"""Manager report pages on system scores: the systems table with intervals and curves, the
comparison of two systems, the per-query table and one query's drill-down.

Every page reads one snapshot (metrics.services.snapshots.scores_snapshot, recomputed first if the
judgments or runs changed) and states the labels and settings it used. Bad parameters answer
400 with the form's message. Managers of the campaign only (404 for anyone else).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language, gettext
from django.views.decorators.http import require_GET

from annotate.models import Aggregation, Campaign
from annotate.selectors import campaign_managed_by
from annotate.selectors.real import excluded_answers
from annotate.services.preferences import csv_bom_wanted
from metrics.decide.ndcg import COMPARE_SEED, ComparisonReport, comparison_report
from metrics.reports import charts
from metrics.reports import scores_tables as tables
from metrics.reports.forms import ScoresForm
from metrics.reports.paired import baseline_first, paired_context
from metrics.reports.presenting import age_text, basis_text, csv_response
from metrics.reports.snapshot_charts import display_name, in_this_language
from metrics.reports.views.too_large import grades_checked
from metrics.selectors.baselines import declared_pair, production_systems
from metrics.selectors.drilldown import query_drilldown
from metrics.selectors.queries import campaign_query, queries_by_external_id
from metrics.services.scores import JUDGED_WARNING
from metrics.services.scores_by_rule import ndcg_by_rule
from metrics.services.snapshots import Fresh, scores_snapshot

QUERIES_PAGE = 100
COMPARE_CACHE_SECONDS = 3600


@dataclass(frozen=True)
class _Page:
    """What every score page starts from: the campaign, its valid settings and the snapshot."""

    campaign: Campaign
    form: ScoresForm
    fresh: Fresh
    context: dict

    @property
    def summary(self) -> dict:
        return self.fresh.summary

    @property
    def per_query(self) -> dict:
        return self.fresh.snapshot.per_query

    @property
    def names(self) -> list[str]:
        return self.context["names"]

    def notes(self, *extra: str) -> list[str]:
        return [self.context["basis"], self.form.settings.describe(), *extra]


def _settings_query(request: HttpRequest) -> str:
    """The page's settings as a query string, for links to the other report pages."""
    keep = request.GET.copy()
    for key in ("download", "page", "sort", "a", "b", "measure", "rules"):
        keep.pop(key, None)
    return keep.urlencode()


def _page(request: HttpRequest, slug: str, template: str, *, light: bool) -> _Page | HttpResponse:
    """The manager's campaign, the settings validated and the snapshot read (recomputed when
    stale); or the page again with the form's errors (400)."""
    campaign = campaign_managed_by(request.user, slug)
    form = ScoresForm(request.GET, campaign=campaign)
    if not form.is_valid():
        return render(request, template, {"campaign": campaign, "form": form}, status=400)
    fresh = scores_snapshot(
        campaign=campaign,
        settings=form.settings,
        rule=form.rule,
        source=form.label_source,
        light=light,
    )
    summary = fresh.summary
    names = [display_name(s) for s in summary["systems"]]
    judged = form.settings.judged
    context = {
        "campaign": campaign,
        "form": form,
        "summary": summary,
        "settings": form.settings,
        "basis": basis_text(
            rule=summary["rule"], source=summary["source"], adjudicated=summary["adjudicated"]
        ),
        "age": age_text(fresh),
        "low_judged": [
            display_name(s)
            for s in summary["systems"]
            if s["values"][judged]["mean"] < JUDGED_WARNING
        ],
        "judged_threshold": JUDGED_WARNING,
        "settings_query": _settings_query(request),
        "names": names,
        "excluded": excluded_answers(campaign),
    }
    return _Page(campaign, form, fresh, context)


# A page's downloads: name -> (file name, the table).
Downloads = dict[str, tuple[str, Callable[[], tables.Table]]]


def _download(request: HttpRequest, page: _Page, downloads: Downloads, notes: list[str]):
    """The CSV the request asks for (?download=<name>), a 400 for an unknown name, or None
    when it asks for the page."""
    wanted = request.GET.get("download")
    if not wanted:
        return None
    if wanted not in downloads:
        return HttpResponse(
            f"Unknown table: download one of {', '.join(downloads)}.",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    name, table = downloads[wanted]
    header, rows = table()
    return csv_response(
        campaign=page.campaign, name=name, header=header, rows=rows, notes=notes,
        bom=csv_bom_wanted(request),
    )  # fmt: skip


@login_required
@require_GET
@grades_checked
def systems(request: HttpRequest, slug: str) -> HttpResponse:
    page = _page(request, slug, "metrics/systems.html", light=False)
    if isinstance(page, HttpResponse):
        return page
    summary, settings = page.summary, page.form.settings
    downloads: Downloads = {
        "systems": ("systems", lambda: tables.systems_table(summary)),
        "curves": ("ndcg-curves", lambda: tables.curves_table(summary, settings, page.names)),
    }
    notes = page.notes(f"relevant from grade {summary['relevance_level']:g}")
    if (csv := _download(request, page, downloads, notes)) is not None:
        return csv
    drawn = in_this_language(page.fresh.snapshot.charts)
    keys = [m["key"] for m in summary["measures"]]
    paired = paired_context(
        page.campaign, summary, page.fresh.snapshot.per_query, request.GET.get("baseline"), keys
    )
    context = {
        **page.context,
        "curves_svg": drawn.get("curves"),
        **paired,
        "rows": baseline_first(
            [
                {"name": name, "system": s, "index": i, "cells": [s["values"][k] for k in keys]}
                for i, (name, s) in enumerate(zip(page.names, summary["systems"], strict=True))
            ],
            paired["baseline"],
        ),
        "curve_rows": tables.curve_rows(summary, settings),
        **_by_rule(request, page, settings),
    }
    return render(request, "metrics/systems.html", context)


def _by_rule(request: HttpRequest, page: _Page, settings) -> dict:
    """NDCG under each aggregation rule side by side, when asked for (?rules=all): it
    computes (or reads) one snapshot per rule."""
    if request.GET.get("rules") != "all" or page.summary["source"]:
        return {}
    table = ndcg_by_rule(campaign=page.campaign, settings=settings)
    labels = dict(Aggregation.choices)
    rows = [
        {
            "run_id": row.run_id,
            "name": display_name(row.system),
            "cells": list(zip(row.values, row.ranks, strict=True)),
        }
        for row in table.rows
    ]
    return {
        "by_rule": {"rows": rows, "ranking_changes": table.ranking_changes},
        "by_rule_labels": [labels[rule] for rule in table.rules],
    }


@login_required
@require_GET
@grades_checked
def compare(request: HttpRequest, slug: str) -> HttpResponse:
    page = _page(request, slug, "metrics/compare.html", light=False)
    if isinstance(page, HttpResponse):
        return page
    compared, error = _comparison(request, page.fresh, page.campaign)
    if error:
        return render(request, "metrics/compare.html", {**page.context, "error": error}, status=400)
    report, histogram_svg = compared
    prefix = f"compare-{report.a_name}-{report.b_name}-{report.measure_label}"
    downloads: Downloads = {
        name: (f"{prefix}-{name}", lambda table=table: table)
        for name, table in tables.comparison_tables(report).items()
    }
    if (csv := _download(request, page, downloads, page.notes(f"seed {COMPARE_SEED}"))) is not None:
        return csv
    found = queries_by_external_id(campaign=page.campaign, external_ids=report.listed_queries)
    links = {ext: pk for ext, (pk, _) in found.items()}
    context = {
        **page.context,
        "report": report,
        "links": links,
        "gained": [(c, links.get(c.query)) for c in report.result.gained],
        "lost": [(c, links.get(c.query)) for c in report.result.lost],
        "seed": COMPARE_SEED,
        "histogram_svg": histogram_svg,
    }
    return render(request, "metrics/compare.html", context)


def _comparison(
    request: HttpRequest, fresh: Fresh, campaign: Campaign
) -> tuple[tuple[ComparisonReport, str | None] | None, str | None]:
    """comparison_report and its histogram, remembered per snapshot version: its bootstrap and
    randomization test take seconds at 10,000 queries, and a manager flips between the same
    few pairs."""
    snap = fresh.snapshot
    a, b, measure = (request.GET.get(k) for k in ("a", "b", "measure"))
    production, declared = production_systems(campaign), declared_pair(campaign)
    asked = (a, b, measure, sorted(production), declared, get_language())
    key = "metrics:compare:" + ":".join(
        str(x) for x in (snap.pk, snap.computed_at.timestamp(), *asked)
    )
    cached = cache.get(key)
    if cached is None:
        report, error = comparison_report(
            summary=fresh.summary,
            per_query=snap.per_query,
            a=a,
            b=b,
            measure=measure,
            production=production,
            declared=declared,
        )
        drawn = None
        if report is not None:
            label = report.measure_label
            drawn = charts.histogram(
                title=gettext("Per-query %(measure)s differences, %(b)s − %(a)s")
                % {"measure": label, "b": report.b_name, "a": report.a_name},
                edges=report.edges,
                counts=report.counts,
                xlabel=gettext("%(measure)s of B − %(measure)s of A") % {"measure": label},
                mean=report.result.diff,
            )
        cached = ((report, drawn) if report is not None else None, error)
        cache.set(key, cached, COMPARE_CACHE_SECONDS)
    return cached


@login_required
@require_GET
@grades_checked
def queries(request: HttpRequest, slug: str) -> HttpResponse:
    page = _page(request, slug, "metrics/queries.html", light=False)
    if isinstance(page, HttpResponse):
        return page
    summary, per_query, settings = page.summary, page.per_query, page.form.settings
    downloads: Downloads = {
        "queries": ("queries", lambda: tables.queries_table(summary, per_query, page.names)),
    }
    if (csv := _download(request, page, downloads, page.notes())) is not None:
        return csv
    qids = per_query.get("qids", [])
    columns = tables.measure_columns(summary, per_query)
    order, sort = tables.query_order(columns, settings, len(qids), request.GET.get("sort", ""))
    shown = Paginator(order, QUERIES_PAGE).get_page(request.GET.get("page"))
    found = queries_by_external_id(
        campaign=page.campaign, external_ids=[qids[i] for i in shown.object_list]
    )
    ndcg, judged = columns[settings.ndcg], columns[settings.judged]
    rows = [
        {
            "qid": qids[i],
            "pk": found.get(qids[i], (None, ""))[0],
            "text": found.get(qids[i], (None, ""))[1],
            "cells": [(ndcg[j, i], judged[j, i]) for j in range(len(summary["systems"]))],
        }
        for i in shown.object_list
    ]
    return render(
        request, "metrics/queries.html", {**page.context, "rows": rows, "page": shown, "sort": sort}
    )


@login_required
@require_GET
@grades_checked
def query_detail(request: HttpRequest, slug: str, query_id: int) -> HttpResponse:
    page = _page(request, slug, "metrics/query.html", light=False)
    if isinstance(page, HttpResponse):
        return page
    query = campaign_query(campaign=page.campaign, query_id=query_id)
    summary, per_query, settings = page.summary, page.per_query, page.form.settings
    qids = per_query.get("qids", [])
    index = qids.index(query.external_id) if query.external_id in qids else None
    drill = query_drilldown(
        campaign=page.campaign,
        query=query,
        k=settings.k,
        rule=summary["rule"],
        source=page.form.label_source,
        runs=[(s["run_id"], s["run"], s["system"]) for s in summary["systems"]],
    )
    downloads: Downloads = {
        "lists": (
            f"query-{query.external_id}-top{settings.k}",
            lambda: tables.query_lists_table(drill, page.names),
        ),
        "scores": (
            f"query-{query.external_id}-scores",
            lambda: tables.query_scores_table(summary, per_query, page.names, index),
        ),
    }
    if (csv := _download(request, page, downloads, page.notes())) is not None:
        return csv
    measures = summary["measures"]
    lists = []
    for name, s, sl in zip(page.names, summary["systems"], drill.lists, strict=True):
        values = per_query["runs"][str(s["run_id"])]
        cells = [values[m["key"]][index] if index is not None else None for m in measures]
        judged = values[settings.judged][index] if index is not None else None
        lists.append({"name": name, "list": sl, "cells": cells, "judged": judged})
    low = [x["name"] for x in lists if x["judged"] is not None and x["judged"] < JUDGED_WARNING]
    context = {
        **page.context,
        "query": query,
        "drill": drill,
        "lists": lists,
        "measures": measures,
        "query_low_judged": low,
    }
    return render(request, "metrics/query.html", context)
