"""The raters' quality report (#18): each rater's figures with counts and 95% intervals, a
sparkline of their median seconds per day, their standing (paused, flagged, excluded) and
why, and the manager's actions on it. Sortable; downloadable as CSV (?download=csv).

Managers of the campaign only (campaign_managed_by: a 404 for anyone else)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotate.models import Membership, Role
from annotate.selectors import campaign_managed_by
from annotate.selectors.confusion import rater_confusions
from annotate.selectors.quality import RaterQuality, campaign_labels, rater_quality
from annotate.selectors.real import excluded_answers
from annotate.services.preferences import csv_bom_wanted
from annotate.services.quality import ACTIONS, standing_change
from annotate.services.quality_rules import reason_text
from metrics.reports.forms import QualityRulesForm
from metrics.reports.presenting import csv_response

SORTS = {
    "rater": lambda r: r.username,
    "answers": lambda r: r.answers,
    "agreement": lambda r: _share(r.agreement.share),
    "consistency": lambda r: _share(r.consistency.share),
    "gold_exact": lambda r: _share(r.gold_exact.share),
    "gold_within": lambda r: _share(r.gold_within.share),
    "sxs_gold": lambda r: _share(r.sxs_gold.share),
    "median": lambda r: _share(r.timing.median),
    "fast": lambda r: _share(r.timing.fast.share),
    "labels": lambda r: _share(r.label_distance),
}


def _share(value: float | None) -> float:
    return -1.0 if value is None else value  # no figure sorts first


def sparkline(points: list[tuple[str, float]], width: int = 100, height: int = 20) -> str:
    """The SVG polyline points of a small line chart of the values (empty below two)."""
    if len(points) < 2:
        return ""
    values = [v for _, v in points]
    top, bottom = max(values), min(values)
    span = (top - bottom) or 1.0
    step = width / (len(values) - 1)
    return " ".join(
        f"{i * step:.1f},{height - (v - bottom) / span * height:.1f}" for i, v in enumerate(values)
    )


@login_required
@require_GET
def raters(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, campaign_managed_by(request.user, slug))


def _page(request: HttpRequest, campaign, rules_form: QualityRulesForm | None = None):
    rows = rater_quality(campaign)
    if request.GET.get("download"):
        if request.GET["download"] != "csv":
            return HttpResponseBadRequest("Unknown table: download=csv.", content_type="text/plain")
        return _csv(campaign, rows, bom=csv_bom_wanted(request))
    sort = request.GET.get("sort", "rater")
    key = SORTS.get(sort.removeprefix("-"))
    if key is None:
        sort, key = "rater", SORTS["rater"]
    rows.sort(key=key, reverse=sort.startswith("-"))
    scale = campaign_labels(campaign)
    confusions = rater_confusions(campaign)
    for row in rows:
        row.confusion = list(
            zip(confusions.names, confusions.by_rater.get(row.rater_id, []), strict=False)
        )
        row.spark = sparkline(row.daily_seconds)
        row.label_text = " · ".join(
            f"{name} {share:.2f}" for (name, _), share in zip(scale, row.labels, strict=True)
        )
        row.pause_text = reason_text(row.pause_reason) if row.paused else ""
        row.review_text = reason_text(row.review_reason)
    context = {
        "campaign": campaign,
        "rows": rows,
        "sort": sort,
        "scale": scale,
        "confusion_names": confusions.names,
        "scale_used": any(share for _, share in scale),
        "excluded": excluded_answers(campaign),
        "rules_form": rules_form or QualityRulesForm(instance=campaign),
    }
    return render(request, "metrics/raters.html", context, status=400 if rules_form else 200)


@login_required
@require_POST
def rules(request: HttpRequest, slug: str) -> HttpResponse:
    """Change the campaign's thresholds of the automatic rules."""
    campaign = campaign_managed_by(request.user, slug)
    form = QualityRulesForm(request.POST, instance=campaign)
    if not form.is_valid():
        return _page(request, campaign, rules_form=form)
    form.save()
    messages.success(request, _("The rules are changed; they apply from the next evaluation."))
    return redirect("metrics:raters", slug=campaign.slug)


CSV_HEADER = [
    "rater", "answers", "agreement_k", "agreement_n", "agreement", "agreement_low",
    "agreement_high", "consistency_k", "consistency_n", "consistency", "consistency_low",
    "consistency_high", "timed", "median_seconds", "fast_k", "fast_share", "fast_low",
    "fast_high", "label_distance", "paused", "pause_reason", "review_reason", "excluded",
    "gold_k", "gold_n", "gold_exact", "gold_exact_low", "gold_exact_high", "gold_within_k",
    "gold_within", "gold_within_low", "gold_within_high", "sxs_gold_k", "sxs_gold_n",
    "sxs_gold", "sxs_gold_low", "sxs_gold_high",
]  # fmt: skip


def _gold_cells(r: RaterQuality) -> list:
    e, w, x = r.gold_exact, r.gold_within, r.sxs_gold
    return [
        *(e.k, e.n, e.share, e.low, e.high),
        *(w.k, w.share, w.low, w.high),
        *(x.k, x.n, x.share, x.low, x.high),
    ]


def _csv(campaign, rows: list[RaterQuality], *, bom: bool) -> HttpResponse:
    def line(r: RaterQuality) -> list:
        a, c, f = r.agreement, r.consistency, r.timing.fast
        return [
            r.username, r.answers, a.k, a.n, a.share, a.low, a.high, c.k, c.n, c.share, c.low,
            c.high, r.timing.timed, r.timing.median, f.k, f.share, f.low, f.high,
            r.label_distance, int(r.paused), reason_text(r.pause_reason) if r.paused else "",
            reason_text(r.review_reason), int(r.excluded),
            *_gold_cells(r),
        ]  # fmt: skip

    notes = [f"floor {campaign.fast_seconds:g} s", "95% Wilson intervals"]
    return csv_response(
        campaign=campaign,
        name="rater-quality",
        header=CSV_HEADER,
        rows=(line(r) for r in rows),
        notes=notes,
        bom=bom,
    )


@login_required
@require_POST
def rater_action(request: HttpRequest, slug: str, user_id: int, action: str) -> HttpResponse:
    """pause (with the manager's note), resume, exclude or include a rater's answers."""
    campaign = campaign_managed_by(request.user, slug)
    if action not in ACTIONS:
        raise Http404("No such action")
    if not Membership.objects.filter(campaign=campaign, user_id=user_id, role=Role.RATER).exists():
        raise Http404("No such rater")
    rater = get_user_model().objects.get(pk=user_id)
    done = standing_change(campaign, rater, action, request.user, request.POST.get("note", ""))
    name = rater.get_username()
    text = {
        "pause": _("%(name)s is paused; the items they held are back in the queue."),
        "resume": _("%(name)s can work again."),
        "exclude": _("The answers of %(name)s are left out of aggregation and reports."),
        "include": _("The answers of %(name)s count again."),
    }[action]
    if done:
        messages.success(request, text % {"name": name})
    else:
        messages.info(request, _("Nothing to change for %(name)s.") % {"name": name})
    return redirect("metrics:raters", slug=campaign.slug)
