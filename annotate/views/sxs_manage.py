"""Manager pages of side-by-side comparisons: set one up, read its report, download the numbers,
and look at one query's two lists with the systems named. Managers of the campaign only (404 for
anyone else). Every figure comes from metrics.decide.gsb (which calls metrics.core.stats)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotate import safecsv
from annotate.forms.sxs import ComparisonForm, PlanChangeForm, SizePlanForm, plan_initial
from annotate.models import Comparison, Query
from annotate.selectors import campaign_managed_by
from annotate.selectors.real import excluded_answers
from annotate.selectors_sxs import (
    comparison_managed_by,
    comparison_progress,
    median_answer_seconds,
)
from annotate.services.preferences import csv_bom_wanted
from annotate.services.sxs_plan import PlanRefused, PlanUpdate, answers_in, plan_change
from annotate.services.sxs_setup import ComparisonRefused, comparison_create
from metrics.core.stats.plan_size import planned_queries
from metrics.decide.gsb import (
    comparison_report,
    decision_text,
    manager_query_view,
    page_warnings,
    report_summary_rows,
    sorted_rows,
)
from metrics.decide.launch import launch_decision
from metrics.decide.memo import launch_memo
from metrics.decide.plan import plan_change_rows, plan_rows
from metrics.decide.review import launch_review
from metrics.decide.words import plan_error_words
from metrics.reports.charts import strength_svg, verdict_bar_svg


@login_required
@require_http_methods(["GET", "POST"])
def comparisons(request: HttpRequest, slug: str) -> HttpResponse:
    """The campaign's comparisons, and the form to set up a new one."""
    campaign = campaign_managed_by(request.user, slug)
    status = 200
    if request.method == "POST":
        form = ComparisonForm(request.POST, campaign=campaign)
        if form.is_valid():
            try:
                comparison = comparison_create(campaign=campaign, **form.create_arguments())
            except ComparisonRefused as refused:
                form.add_error(None, refused.message)
            else:
                progress = comparison_progress(comparison)
                messages.success(
                    request,
                    _(
                        "Comparison “%(name)s” is set up: %(tasks)s tasks, %(identical)s of them "
                        "identical (counted as Same)."
                    )
                    % {
                        "name": comparison.name,
                        "tasks": comparison.tasks.count(),
                        "identical": progress["identical"],
                    },
                )
                return redirect("annotate:sxs_report", slug=slug, comparison_id=comparison.pk)
        status = 400
    else:
        form = ComparisonForm(campaign=campaign)
    rows = [
        {"comparison": c, "progress": comparison_progress(c)}
        for c in campaign.comparisons.select_related("baseline", "candidate").order_by("-pk")
    ]
    context = {"campaign": campaign, "form": form, "rows": rows, **_size_plan(request, campaign)}
    return render(request, "annotate/sxs_comparisons.html", context, status=status)


def _size_plan(request: HttpRequest, campaign) -> dict:
    """The planner's form and, when asked (?plan=1), its answer or why not."""
    if request.GET.get("plan") != "1":
        return {"plan_form": SizePlanForm()}
    plan_form = SizePlanForm(request.GET)
    if not plan_form.is_valid():
        return {"plan_form": plan_form}
    d = plan_form.cleaned_data
    try:
        plan = planned_queries(
            effect=d["effect"], same_share=d["same_share"], raters=d["plan_raters"],
            correlation=d["correlation"], threshold=d["plan_bar"],
            confidence=d["plan_confidence"], power=d["power"],
        )  # fmt: skip
    except ValueError as refused:
        return {"plan_form": plan_form, "plan_error": plan_error_words(refused)}
    seconds = median_answer_seconds(campaign)
    return {"plan_form": plan_form, "plan": plan, "plan_seconds": seconds,
            "plan_hours": plan.rater_hours(seconds)}  # fmt: skip


def _verdict_bar(result) -> str:
    """The stacked Good | Same | identical | Bad bar of the report and the review."""
    same_identical = result.identical_verdicts
    return verdict_bar_svg(
        good=result.good,
        same_rated=result.same - same_identical,
        same_identical=same_identical,
        bad=result.bad,
    )


@login_required
@require_http_methods(["GET"])
def report(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    comparison = comparison_managed_by(request.user, slug, comparison_id)
    data = comparison_report(comparison)
    rows, sort = sorted_rows(data.rows, request.GET.get("sort", "query"))
    result = data.result
    context = {
        "campaign": comparison.campaign,
        "comparison": comparison,
        "report": data,
        "result": result,
        "rows": rows,
        "sort": sort,
        "decision": decision_text(result) if result else None,
        "warnings": page_warnings(result) if result else [],
        "launch": launch_decision(comparison, data),
        "confidence_pct": f"{comparison.confidence * 100:g}",
        "excluded": excluded_answers(comparison.campaign),
    }
    if result:
        context["bar_svg"] = _verdict_bar(result)
        if result.strength_distribution:
            context["strength_svg"] = strength_svg(result.strength_distribution)
            context["strength_rows"] = sorted(result.strength_distribution.items())
    return render(request, "annotate/sxs_report.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def plan(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    """The comparison's plan and its changes; POST changes it (recorded: who, when, why)."""
    comparison = comparison_managed_by(request.user, slug, comparison_id)
    status = 200
    if request.method == "POST":
        form = PlanChangeForm(request.POST)
        if form.is_valid():
            d = form.cleaned_data
            update = PlanUpdate(
                primary=d["primary"], graded_settings=form.graded_settings_key(),
                min_gsb=d["min_gsb"], equivalence_margin=d["equivalence_margin"] or 0.0,
                confidence=d["confidence"], min_queries=d["min_queries"],
            )  # fmt: skip
            try:
                change = plan_change(
                    comparison=comparison, user=request.user, update=update, reason=d["reason"]
                )
            except PlanRefused as refused:
                form.add_error("reason", refused.message)
            else:
                messages.success(
                    request, _("The plan is changed.") if change else _("Nothing changed.")
                )
                return redirect("annotate:sxs_plan", slug=slug, comparison_id=comparison.pk)
        status = 400
    else:
        form = PlanChangeForm(initial=plan_initial(comparison))
    context = {
        "campaign": comparison.campaign,
        "comparison": comparison,
        "form": form,
        "changes": plan_change_rows(comparison),
        "answers_in": answers_in(comparison),
    }
    return render(request, "annotate/sxs_plan.html", context, status=status)


@login_required
@require_http_methods(["GET"])
def review(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    """The launch review: GSB beside the graded comparison of the same runs and queries."""
    comparison = comparison_managed_by(request.user, slug, comparison_id)
    data = comparison_report(comparison)
    review = launch_review(comparison, data)
    planned = review.launch.planned if review.launch else len(data.rows)
    context = {
        "campaign": comparison.campaign,
        "comparison": comparison,
        "result": data.result,
        "review": review,
        "excluded": excluded_answers(comparison.campaign),
        "plan_rows": plan_rows(comparison, planned),
        "changes": plan_change_rows(comparison),
        "bar_svg": _verdict_bar(data.result) if data.result else "",
    }
    return render(request, "annotate/sxs_review.html", context)


@login_required
@require_http_methods(["GET"])
def memo(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    """The launch memo as a Markdown download."""
    comparison = comparison_managed_by(request.user, slug, comparison_id)
    data = comparison_report(comparison)
    text = launch_memo(comparison, data, launch_review(comparison, data))
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_stem(comparison)}-memo.md"'
    return response


def _csv_response(filename: str, rows, *, bom: bool = False) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    if bom:
        response.write(safecsv.BOM)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = safecsv.writer(response)
    for row in rows:
        writer.writerow(row)
    return response


def _stem(comparison: Comparison) -> str:
    return f"{comparison.campaign.slug}-{slugify(comparison.name) or comparison.pk}"


@login_required
@require_http_methods(["GET"])
def report_csv(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    """The report's figures as `measure,value` lines."""
    comparison = comparison_managed_by(request.user, slug, comparison_id)
    data = comparison_report(comparison)
    rows = [("measure", "value"), *report_summary_rows(data)]
    return _csv_response(f"{_stem(comparison)}-gsb.csv", rows, bom=csv_bom_wanted(request))


@login_required
@require_http_methods(["GET"])
def queries_csv(request: HttpRequest, slug: str, comparison_id: int) -> HttpResponse:
    """The per-query table: counts, y = G − B, the majority and the reasons."""
    comparison = comparison_managed_by(request.user, slug, comparison_id)
    rows, _order = sorted_rows(comparison_report(comparison).rows, "query")
    header = ("query", "text", "tasks", "verdicts", "good", "same", "bad", "identical_same", "y")
    lines = [(*header, "majority", "reasons")]
    for r in rows:
        reasons = " | ".join(f"{x.rater} ({x.value_word}): {x.reason}" for x in r.reasons)
        lines.append(
            (r.external_id, r.text, r.tasks, r.verdicts, r.good, r.same, r.bad,
             r.identical_same, r.y, r.majority, reasons)
        )  # fmt: skip
    return _csv_response(f"{_stem(comparison)}-queries.csv", lines, bom=csv_bom_wanted(request))


@login_required
@require_http_methods(["GET"])
def query_lists(request: HttpRequest, slug: str, comparison_id: int, query_id: int) -> HttpResponse:
    """Both lists of one query as the manager may see them: A and B named, with ranks, scores
    and every verdict given on the query."""
    comparison = comparison_managed_by(request.user, slug, comparison_id)
    query = Query.objects.filter(campaign=comparison.campaign, pk=query_id).first()
    if query is None or not comparison.tasks.filter(query=query).exists():
        raise Http404("No such query in this comparison")
    context = {
        "campaign": comparison.campaign,
        "comparison": comparison,
        "query": query,
        **manager_query_view(comparison, query),
    }
    return render(request, "annotate/sxs_query.html", context)
