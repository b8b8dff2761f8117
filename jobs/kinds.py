"""What each kind of job does in the worker.

A job started from a form stores the form's posted fields (and its file, jobs/uploads.py);
the worker binds the same form again and runs the same service the page runs for a small
request, so both paths share every check and every message. Each service keeps its own one
transaction: a job that fails, is cancelled (JobCancelled at a progress report) or whose
worker is killed writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.translation import gettext as _

from annotate.models import Campaign
from jobs.models import Job, Kind
from jobs.runner import JobContext, Outcome
from jobs.uploads import open_upload
from jobs.web import rebind


class FormRefused(ValueError):
    """The form no longer validates in the worker (say, a run deleted meanwhile)."""

    def __init__(self, form) -> None:
        errors = "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items())
        super().__init__(_("the request is no longer valid: %(errors)s") % {"errors": errors})


def _files(job: Job, field: str) -> dict:
    if not job.upload_name:
        return {}
    upload = UploadedFile(open_upload(job), name=job.upload_name, size=job.upload_bytes)
    return {field: upload}


def _bound(form, job: Job):
    if not form.is_valid():
        raise FormRefused(form)
    return form.cleaned_data


def _summary_outcome(summary) -> Outcome:
    return Outcome(str(summary), [str(w) for w in summary.warnings])


def run_import(job: Job, ctx: JobContext) -> Outcome:
    from annotate.forms.imports import ImportForm
    from annotate.services.imports import import_file

    campaign = Campaign.objects.get(pk=job.campaign_id)
    options = dict(_bound(ImportForm(rebind(job.params["data"]), _files(job, "file")), job))
    upload = options.pop("file")
    summary = import_file(
        campaign=campaign, file=upload, filename=upload.name, progress=ctx.progress, **options
    )
    return _summary_outcome(summary)


def run_sources(job: Job, ctx: JobContext) -> Outcome:
    """A competitor's ranking, a behaviour log, or labels derived from a log (the label
    sources page's three forms)."""
    from annotate.services.labels.add import label_source_add
    from metrics.reports.views.sources import form_for

    campaign = Campaign.objects.get(pk=job.campaign_id)
    action = job.params["action"]
    form = form_for(campaign, action, rebind(job.params["data"]), _files(job, f"{action}-file"))
    summary = label_source_add(
        campaign=campaign, action=action, data=_bound(form, job), progress=ctx.progress
    )
    return _summary_outcome(summary)


def run_pooling(job: Job, ctx: JobContext) -> Outcome:
    from annotate.forms.pooling import PoolForm
    from annotate.services.pooling import pool_from_runs

    campaign = Campaign.objects.get(pk=job.campaign_id)
    data = _bound(PoolForm(rebind(job.params["data"]), campaign=campaign), job)
    with transaction.atomic():
        result = pool_from_runs(
            campaign=campaign,
            runs=list(data["runs"]),
            depth=data["depth"],
            raters_needed=data["raters_needed"],
        )
        ctx.progress(1, 1)  # a cancel before this point rolls the pooling back
    return Outcome(result.summary(), list(result.warnings()))


def run_recompute(job: Job, ctx: JobContext) -> Outcome:
    """Every report snapshot of the campaign, in one transaction: cancelled, the previous
    snapshots stay as they were."""
    from metrics.services.snapshots import snapshots_recompute

    campaign = Campaign.objects.get(pk=job.campaign_id)
    with transaction.atomic():
        done = snapshots_recompute(campaign=campaign, force=bool(job.params.get("force")))
        ctx.progress(len(done), len(done))
    recomputed = sum(1 for _, fresh in done if fresh.recomputed)
    return Outcome(f"{recomputed} of {len(done)} report snapshots recomputed")


def run_model_judge(job: Job, ctx: JobContext) -> Outcome:
    """A model judge labels its items (llmjudge.run): the replies are committed as they come,
    the label source at the end."""
    from llmjudge.jobs import run_judge_job

    return run_judge_job(job, ctx)


KINDS: dict[str, Callable[[Job, JobContext], Outcome]] = {
    Kind.IMPORT: run_import,
    Kind.SOURCES: run_sources,
    Kind.POOLING: run_pooling,
    Kind.RECOMPUTE: run_recompute,
    Kind.MODEL: run_model_judge,
}
