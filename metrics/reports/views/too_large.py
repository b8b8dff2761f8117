"""Score pages over grades stored before grades were bounded (inputs.limit("grade_abs")): the
measures refuse them (metrics.core.kernels.GradesTooLarge), and the page says which grade and
where to find it instead of failing with a 500."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotate import inputs
from annotate.models import Campaign, Label, SourceLabel
from annotate.selectors import campaign_managed_by
from metrics.core.kernels import GradesTooLarge


def grades_checked(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The view, or a 409 page naming the grade too large to score (the request is fine; the
    campaign's stored grades are not, until a manager changes them)."""

    @functools.wraps(view)
    def checked(request: HttpRequest, slug: str, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, slug, *args, **kwargs)
        except GradesTooLarge as refused:
            campaign = campaign_managed_by(request.user, slug)
            context = {
                "campaign": campaign,
                "grade": f"{_largest_stored(campaign, refused.grade):g}",
                "bound": f"{inputs.limit('grade_abs'):,}",
            }
            return render(request, "metrics/grades_too_large.html", context, status=409)

    return checked


def _largest_stored(campaign: Campaign, fallback: float) -> float:
    """The stored grade to name: the kernel's may be an aggregate (two raters' 1e308 have an
    infinite mean), which no manager could find."""
    bound = inputs.limit("grade_abs")
    beyond = Q(grade__gt=bound) | Q(grade__lt=-bound)
    grades = [
        *Label.objects.filter(beyond, campaign=campaign).values_list("grade", flat=True),
        *SourceLabel.objects.filter(beyond, source__campaign=campaign).values_list(
            "grade", flat=True
        ),
    ]
    return max(grades, key=abs, default=fallback)
