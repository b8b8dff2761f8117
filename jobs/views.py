"""The campaign's job page: every job with its progress, updated live by polling
status.json; a cancel button per unfinished job; a button to recompute the reports."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotate.selectors import campaign_managed_by
from jobs.models import State, Worker
from jobs.selectors import job_managed_by
from jobs.services import (
    campaign_jobs,
    cancel_job,
    live_workers,
    start_recompute_job,
    status,
)


@login_required
@require_GET
def campaign_jobs_page(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    context = {
        "campaign": campaign,
        "jobs": [_row(slug, job) for job in campaign_jobs(campaign.pk)],
        "workers": live_workers(),
    }
    return render(request, "jobs/jobs.html", context)


@login_required
@require_GET
def campaign_jobs_status(request: HttpRequest, slug: str) -> JsonResponse:
    campaign = campaign_managed_by(request.user, slug)
    rows = [_row(slug, job) for job in campaign_jobs(campaign.pk)]
    workers: list[Worker] = live_workers()
    return JsonResponse({"jobs": rows, "workers": len(workers)})


def _row(slug: str, job) -> dict:
    row = status(job)
    row["cancel_url"] = reverse("jobs:cancel", kwargs={"slug": slug, "job_id": job.pk})
    return row


@login_required
@require_POST
def job_cancel(request: HttpRequest, slug: str, job_id: int) -> HttpResponse:
    campaign, job = job_managed_by(request.user, slug, job_id)
    job = cancel_job(job)
    if job.finished:
        messages.info(
            request,
            _("Job %(id)s is %(state)s.") % {"id": job.pk, "state": State(job.state).label},
        )
    else:
        messages.info(
            request,
            _("Job %(id)s was asked to stop; nothing it did will be kept.") % {"id": job.pk},
        )
    return redirect("jobs:campaign", slug=campaign.slug)


@login_required
@require_POST
def recompute(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_managed_by(request.user, slug)
    job = start_recompute_job(campaign_id=campaign.pk, user=request.user)
    messages.success(
        request,
        _("Started job %(id)s: the reports keep their snapshots until it succeeds.")
        % {"id": job.pk},
    )
    return redirect("jobs:campaign", slug=campaign.slug)
