"""Where the pages and the API hand long work to a job: the size line, and starting one from
a bound form. Below the line the request still does the work itself and answers as before.

The line: an upload over JOBS_SYNC_MAX_BYTES (1 MiB, about 25,000 run lines, well under a
second to import), or pooling / log derivation over JOBS_SYNC_MAX_ITEMS input rows (run
entries read, log rows).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest
from django.utils.datastructures import MultiValueDict
from django.utils.translation import gettext as _

from jobs.models import Job, Kind
from jobs.services import start_job


def is_large_upload(upload) -> bool:
    return upload is not None and upload.size > settings.JOBS_SYNC_MAX_BYTES


def posted(data, keys=None) -> dict[str, list[str]]:
    """The posted fields as plain lists (JSON for the job), files and the CSRF token left
    out."""
    getlist = data.getlist if hasattr(data, "getlist") else (lambda k: [data[k]])
    return {
        k: [str(v) for v in getlist(k)]
        for k in data
        if (keys is None or k in keys) and k != "csrfmiddlewaretoken"
    }


def rebind(params_data: dict[str, list[str]]) -> MultiValueDict:
    return MultiValueDict(params_data)


def _human(size: int) -> str:
    if size >= 1e5:
        return _("%(n)s MB") % {"n": f"{size / 1e6:.1f}"}
    return _("%(n)s bytes") % {"n": f"{size:,}"}


def start_upload_job(*, kind: str, campaign, user, what: str, params: dict, upload) -> Job:
    """A job for an uploaded file; its pieces go to the jobs database as they are read."""
    return start_job(
        kind=kind,
        campaign_id=campaign.pk,
        user=user,
        title=f"{what}: {upload.name} ({_human(upload.size)})",
        params=params,
        upload=upload.chunks(),
        upload_name=upload.name,
    )


def start_import_job(campaign, user, data, upload) -> Job:
    """The upload page's (and the API's) import, as a job: its fields and its file."""
    from annotate.forms.imports import ImportForm

    params = {"data": posted(data, ImportForm.base_fields)}
    return start_upload_job(
        kind=Kind.IMPORT, campaign=campaign, user=user, what=params["data"]["kind"][0],
        params=params, upload=upload,
    )  # fmt: skip


def announce(request: HttpRequest, job: Job) -> None:
    messages.success(
        request,
        _(
            "Started in the background as job %(id)s: follow it below. Nothing is written "
            "until it succeeds."
        )
        % {"id": job.pk},
    )


def start_sources_job(request: HttpRequest, campaign, action: str, form) -> Job | None:
    """A big competitor ranking or behaviour log, or a derivation from a big log, as a job;
    None when the request should do it itself."""
    params = {"action": action, "data": posted(request.POST)}
    if action in ("competitor", "log"):
        upload = form.cleaned_data["file"]
        if not is_large_upload(upload):
            return None
        what = _("competitor ranking") if action == "competitor" else _("behaviour log")
        job = start_upload_job(
            kind=Kind.SOURCES, campaign=campaign, user=request.user, what=what,
            params=params, upload=upload,
        )  # fmt: skip
    else:
        log = form.cleaned_data["log"]
        if log.rows <= settings.JOBS_SYNC_MAX_ITEMS:
            return None
        job = start_job(
            kind=Kind.SOURCES, campaign_id=campaign.pk, user=request.user,
            title=_("labels from log %(name)s (%(rows)s rows)")
            % {"name": log.name, "rows": f"{log.rows:,}"},
            params=params,
            unit="steps",
        )  # fmt: skip
    announce(request, job)
    return job


def start_pooling_job(request: HttpRequest, campaign, form) -> Job | None:
    """Pooling over runs of more than JOBS_SYNC_MAX_ITEMS entries in all, as a job."""
    from annotate.models import RunEntry

    runs = list(form.cleaned_data["runs"])
    entries = RunEntry.objects.filter(run__in=runs).count()
    if entries <= settings.JOBS_SYNC_MAX_ITEMS:
        return None
    job = start_job(
        kind=Kind.POOLING, campaign_id=campaign.pk, user=request.user,
        title=f"pooling {len(runs)} runs ({entries:,} entries) to depth "
        f"{form.cleaned_data['depth']}",
        params={"data": posted(request.POST, form.fields)}, unit="steps",
    )  # fmt: skip
    announce(request, job)
    return job
