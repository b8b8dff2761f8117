"""The manager's pooling action on the campaign page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotate.forms.pooling import PoolForm
from annotate.selectors import campaign_managed_by
from annotate.services.pooling import pool_from_runs
from jobs.web import start_pooling_job


@login_required
@require_POST
def pool(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    form = PoolForm(request.POST, campaign=campaign)
    if form.is_valid():
        job = start_pooling_job(request, campaign, form)
        if job is not None:
            return redirect("jobs:campaign", slug=campaign.slug)
        result = pool_from_runs(
            campaign=campaign,
            runs=list(form.cleaned_data["runs"]),
            depth=form.cleaned_data["depth"],
            raters_needed=form.cleaned_data["raters_needed"],
        )
        messages.success(request, result.summary(), extra_tags="section-pooling")
        for warning in result.warnings():
            messages.warning(request, warning, extra_tags="section-pooling")
    else:
        for field, errors in form.errors.items():
            label = form.fields[field].label or field.replace("_", " ").capitalize()
            for error in errors:
                messages.error(
                    request,
                    _("Pooling: %(field)s: %(error)s") % {"field": label, "error": error},
                    extra_tags="section-pooling",
                )
    return redirect(f"{campaign.get_absolute_url()}#pooling")
