"""Manager report pages on system scores: the systems table with intervals and curves, the
comparison of two systems, the per-query table and one query's drill-down.

Every page reads one snapshot (metrics.services.scores_snapshot, recomputed first if the
judgments or runs changed) and states the labels and settings it used. Bad parameters answer
400 with the form's message. Managers of the campaign only (404 for anyone else).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from annotate.models import Campaign, Query
from annotate.selectors import campaign_managed_by
from metrics import charts
from metrics.comparison import COMPARE_SEED, comparison_report
from metrics.drilldown import query_drilldown
from metrics.forms import ScoresForm
from metrics.paired import paired_context
from metrics.presenting import age_text, basis_text, csv_response
from metrics.report_charts import display_name
from metrics.scores import JUDGED_WARNING
from metrics.services import Fresh, scores_snapshot

QUERIES_PAGE = 100
COMPARE_CACHE_SECONDS = 3600


@dataclass(frozen=True)
class _Unranked:
    """A judged document outside every top k, shaped like a ranked row for the CSV."""

    document: object
    position: None = None
    rank: None = None
    score: None = None


def _settings_query(request: HttpRequest) -> str:
    """The page's settings as a query string, for links to the other report pages."""
    keep = request.GET.copy()
    for key in ("download", "page", "sort", "a", "b", "measure"):
        keep.pop(key, None)
    return keep.urlencode()


def _prepare(request: HttpRequest, slug: str, *, light: bool):
    """(campaign, form, fresh snapshot or None when the parameters are bad)."""
    campaign = campaign_managed_by(request.user, slug)
    form = ScoresForm(request.GET, campaign=campaign)
    if not form.is_valid():
        return campaign, form, None
    fresh = scores_snapshot(
        campaign=campaign,
        settings=form.settings,
        rule=form.rule,
        source=form.label_source,
        light=light,
    )
    return campaign, form, fresh


def _context(request: HttpRequest, campaign: Campaign, form: ScoresForm, fresh: Fresh) -> dict:
    summary = fresh.summary
    systems = summary["systems"]
    judged_key = form.settings.judged
    low_judged = [
        display_name(s) for s in systems if s["values"][judged_key]["mean"] < JUDGED_WARNING
    ]
    return {
        "campaign": campaign,
        "form": form,
        "summary": summary,
        "settings": form.settings,
        "basis": basis_text(
            rule=summary["rule"], source=summary["source"], adjudicated=summary["adjudicated"]
        ),
        "age": age_text(fresh),
        "low_judged": low_judged,
        "judged_threshold": JUDGED_WARNING,
        "settings_query": _settings_query(request),
        "names": [display_name(s) for s in systems],
    }


def _invalid(request: HttpRequest, campaign: Campaign, form: ScoresForm, template: str):
    return render(request, template, {"campaign": campaign, "form": form}, status=400)


@login_required
@require_GET
def systems(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, form, fresh = _prepare(request, slug, light=False)
    if fresh is None:
        return _invalid(request, campaign, form, "metrics/systems.html")
    context = _context(request, campaign, form, fresh)
    summary = context["summary"]
    measures = summary["measures"]
    keys = [m["key"] for m in measures]
    names = context["names"]
    notes = [
        context["basis"],
        form.settings.describe(),
        f"relevant from grade {summary['relevance_level']:g}",
    ]
    download = request.GET.get("download")
    if download == "systems":
        header = ["system", "run"]
        for m in measures:
            header += [m["label"], f"{m['label']} low", f"{m['label']} high"]
        rows = []
        for s in summary["systems"]:
            row = [s["system"], s["run"]]
            for key in keys:
                v = s["values"][key]
                row += [v["mean"], v["low"], v["high"]]
            rows.append(row)
        return csv_response(
            campaign=campaign, name="systems", header=header, rows=rows, notes=notes
        )
    if download == "curves":
        ks = range(1, form.settings.k + 1)
        rows = [(k, *(s["curve"][k - 1] for s in summary["systems"])) for k in ks]
        return csv_response(
            campaign=campaign, name="ndcg-curves", header=["k", *names], rows=rows, notes=notes
        )
    if download:
        return _invalid_download(campaign, form, "systems, curves")
    context["curves_svg"] = fresh.snapshot.charts.get("curves")
    context.update(
        paired_context(
            campaign, summary, fresh.snapshot.per_query, request.GET.get("baseline"), keys
        )
    )
    context["rows"] = [
        {"name": name, "system": s, "cells": [s["values"][key] for key in keys]}
        for name, s in zip(names, summary["systems"], strict=True)
    ]
    context["curve_rows"] = [
        (k, [s["curve"][k - 1] for s in summary["systems"]]) for k in range(1, form.settings.k + 1)
    ]
    return render(request, "metrics/systems.html", context)


def _invalid_download(campaign: Campaign, form: ScoresForm, known: str) -> HttpResponse:
    return HttpResponse(
        f"Unknown table: download one of {known}.",
        status=400,
        content_type="text/plain; charset=utf-8",
    )


@login_required
@require_GET
def compare(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, form, fresh = _prepare(request, slug, light=False)
    if fresh is None:
        return _invalid(request, campaign, form, "metrics/compare.html")
    context = _context(request, campaign, form, fresh)
    report, error = _comparison(request, fresh, context["summary"])
    if error:
        context["error"] = error
        return render(request, "metrics/compare.html", context, status=400)
    report, histogram_svg = report
    context["report"] = report
    tables = {
        "differences": (
            ["query_id", f"A {report.a_name}", f"B {report.b_name}", "B - A"],
            report.differences,
        ),
        "tests": (
            ["test", "measure", "B - A", "statistic", "p", "p_holm", "low", "high"],
            report.test_rows(),
        ),
        "histogram": (["B - A from", "to", "queries"], report.bins),
    }
    download = request.GET.get("download")
    if download in tables:
        header, rows = tables[download]
        return csv_response(
            campaign=campaign,
            name=f"compare-{report.a_name}-{report.b_name}-{report.measure_label}-{download}",
            header=header,
            rows=rows,
            notes=[context["basis"], form.settings.describe(), f"seed {COMPARE_SEED}"],
        )
    if download:
        return _invalid_download(campaign, form, ", ".join(tables))
    links = dict(
        Query.objects.filter(campaign=campaign, external_id__in=report.listed_queries)
        .order_by()
        .values_list("external_id", "pk")
    )
    context["links"] = links
    context["gained"] = [(c, links.get(c.query)) for c in report.result.gained]
    context["lost"] = [(c, links.get(c.query)) for c in report.result.lost]
    context["seed"] = COMPARE_SEED
    context["histogram_svg"] = histogram_svg
    return render(request, "metrics/compare.html", context)


def _comparison(request: HttpRequest, fresh: Fresh, summary: dict):
    """comparison_report, remembered per snapshot version: its bootstrap and randomization
    test take seconds at 10,000 queries, and a manager flips between the same few pairs."""
    snap = fresh.snapshot
    a, b, measure = (request.GET.get(k) for k in ("a", "b", "measure"))
    key = "metrics:compare:" + ":".join(
        str(x) for x in (snap.pk, snap.computed_at.timestamp(), a, b, measure)
    )
    cached = cache.get(key)
    if cached is None:
        report, error = comparison_report(
            summary=summary, per_query=snap.per_query, a=a, b=b, measure=measure
        )
        drawn = None
        if report is not None:
            label = report.measure_label
            drawn = charts.histogram(
                title=f"Per-query {label} differences, {report.b_name} − {report.a_name}",
                edges=report.edges,
                counts=report.counts,
                xlabel=f"{label} of B − {label} of A",
                mean=report.result.diff,
            )
        cached = ((report, drawn) if report is not None else None, error)
        cache.set(key, cached, COMPARE_CACHE_SECONDS)
    return cached


@login_required
@require_GET
def queries(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, form, fresh = _prepare(request, slug, light=False)
    if fresh is None:
        return _invalid(request, campaign, form, "metrics/queries.html")
    context = _context(request, campaign, form, fresh)
    summary, per_query = context["summary"], fresh.snapshot.per_query
    systems_ = summary["systems"]
    qids = per_query.get("qids", [])
    ndcg, judged = form.settings.ndcg, form.settings.judged
    columns = {
        key: np.array([per_query["runs"][str(s["run_id"])][key] for s in systems_])
        for key in (m["key"] for m in summary["measures"])
    }
    if request.GET.get("download") == "queries":
        header = ["query_id"]
        for name in context["names"]:
            header += [f"{name} {m['label']}" for m in summary["measures"]]
        rows = []
        for i, qid in enumerate(qids):
            row = [qid]
            for j in range(len(systems_)):
                row += [float(columns[m["key"]][j, i]) for m in summary["measures"]]
            rows.append(row)
        return csv_response(
            campaign=campaign,
            name="queries",
            header=header,
            rows=rows,
            notes=[context["basis"], form.settings.describe()],
        )
    if request.GET.get("download"):
        return _invalid_download(campaign, form, "queries")
    order = np.arange(len(qids))
    sort = request.GET.get("sort", "query")
    if sort == "spread" and systems_:
        spread = columns[ndcg].max(axis=0) - columns[ndcg].min(axis=0)
        order = np.lexsort((order, -spread))
    elif sort == "judged" and systems_:
        order = np.lexsort((order, columns[judged].min(axis=0)))
    else:
        sort = "query"
    page = Paginator(order, QUERIES_PAGE).get_page(request.GET.get("page"))
    shown = [qids[i] for i in page.object_list]
    info = {
        ext: (pk, text)
        for pk, ext, text in Query.objects.filter(campaign=campaign, external_id__in=shown)
        .order_by()
        .values_list("pk", "external_id", "text")
    }
    context["rows"] = [
        {
            "qid": qids[i],
            "pk": info.get(qids[i], (None, ""))[0],
            "text": info.get(qids[i], (None, ""))[1],
            "cells": [(columns[ndcg][j, i], columns[judged][j, i]) for j in range(len(systems_))],
        }
        for i in page.object_list
    ]
    context.update(page=page, sort=sort)
    return render(request, "metrics/queries.html", context)


@login_required
@require_GET
def query_detail(request: HttpRequest, slug: str, query_id: int) -> HttpResponse:
    campaign, form, fresh = _prepare(request, slug, light=False)
    if fresh is None:
        return _invalid(request, campaign, form, "metrics/query.html")
    query = get_object_or_404(Query, campaign=campaign, pk=query_id)
    context = _context(request, campaign, form, fresh)
    summary, per_query = context["summary"], fresh.snapshot.per_query
    qids = per_query.get("qids", [])
    index = qids.index(query.external_id) if query.external_id in qids else None
    runs = [(s["run_id"], s["run"], s["system"]) for s in summary["systems"]]
    drill = query_drilldown(
        campaign=campaign,
        query=query,
        k=form.settings.k,
        rule=summary["rule"],
        source=form.label_source,
        runs=runs,
    )
    measures = summary["measures"]
    if request.GET.get("download") == "scores":
        rows = [
            (name, *(per_query["runs"][str(s["run_id"])][m["key"]][index] for m in measures))
            for name, s in zip(context["names"], summary["systems"], strict=True)
        ]
        return csv_response(
            campaign=campaign,
            name=f"query-{query.external_id}-scores",
            header=["system", *(m["label"] for m in measures)],
            rows=rows if index is not None else [],
            notes=[context["basis"], form.settings.describe()],
        )
    if request.GET.get("download") == "lists":
        rows = []
        # The judged documents no system put in its top k close the list (they shape IDCG).
        listed = [(name, sl.rows) for name, sl in zip(context["names"], drill.lists, strict=True)]
        listed.append(("(judged, in no top k)", [_Unranked(d) for d in drill.unretrieved]))
        for name, ranked in listed:
            for r in ranked:
                d = r.document
                grades = "; ".join(f"{g.rater}: {g.label or 'cannot judge'}" for g in d.grades)
                rows.append(
                    (
                        name,
                        r.position,
                        r.rank,
                        r.score,
                        d.external_id,
                        d.title,
                        grades,
                        d.label,
                        d.adjudicated or "",
                    )
                )
        return csv_response(
            campaign=campaign,
            name=f"query-{query.external_id}-top{form.settings.k}",
            header=[
                "system",
                "position",
                "rank_in_file",
                "score",
                "doc_id",
                "title",
                "grades",
                "label_used",
                "adjudicated",
            ],
            rows=rows,
            notes=[context["basis"], form.settings.describe()],
        )
    if request.GET.get("download"):
        return _invalid_download(campaign, form, "lists, scores")
    lists = []
    for name, s, sl in zip(context["names"], summary["systems"], drill.lists, strict=True):
        values = per_query["runs"][str(s["run_id"])]
        cells = [values[m["key"]][index] if index is not None else None for m in measures]
        judged = values[form.settings.judged][index] if index is not None else None
        lists.append({"name": name, "list": sl, "cells": cells, "judged": judged})
    context.update(query=query, drill=drill, lists=lists, measures=measures)
    context["query_low_judged"] = [
        x["name"] for x in lists if x["judged"] is not None and x["judged"] < JUDGED_WARNING
    ]
    return render(request, "metrics/query.html", context)
