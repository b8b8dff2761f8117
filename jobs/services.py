"""Starting, cancelling and watching jobs. The work itself runs in a worker (jobs/runner.py)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from jobs import uploads
from jobs.models import FINISHED, Job, State, Worker
from jobs.routers import jobs_db

logger = logging.getLogger(__name__)


def start_job(
    *,
    kind: str,
    campaign_id: int,
    user,
    title: str,
    params: dict,
    upload: Iterable[bytes] | None = None,
    upload_name: str = "",
    unit: str = "lines",
    total: int = 0,
) -> Job:
    """Queue a job (with its uploaded file, if any) for the workers. Raises
    uploads.UploadTooLarge, leaving nothing behind, for a file over the limit."""
    from jobs.runner import run_job  # the task module imports the job kinds' services

    with transaction.atomic(using=jobs_db()):
        job = Job.objects.create(
            kind=kind,
            title=title[:300],
            # The starter's language: the worker writes the job's outcome and errors in it.
            params={**params, LANGUAGE_PARAM: get_language() or settings.LANGUAGE_CODE},
            campaign_id=campaign_id,
            created_by_id=getattr(user, "pk", None),
            created_by_name=getattr(user, "username", "")[:150],
            unit=unit,
            total=total,
            upload_name=upload_name[:300],
        )
        if upload is not None:
            job.upload_bytes, job.total = uploads.store(job, upload)
            job.save(update_fields=["upload_bytes", "total"])
    # Enqueued once the job and its file are committed, so no worker sees half of them.
    result = run_job.enqueue(job.pk)
    Job.objects.filter(pk=job.pk).update(task_id=str(result.id))
    return job


def start_recompute_job(*, campaign_id: int, user, force: bool = True) -> Job:
    return start_job(
        kind="recompute", campaign_id=campaign_id, user=user, unit="snapshots",
        title="recompute every report snapshot" if force else "recompute stale report snapshots",
        params={"force": force},
    )  # fmt: skip


def cancel_job(job: Job) -> Job:
    """A queued job is cancelled at once; a running one is asked to stop and does so at its
    next progress report (jobs/runner.py), rolling back what it had not committed."""
    now = timezone.now()
    if Job.objects.filter(pk=job.pk, state=State.QUEUED).update(
        state=State.CANCELLED, finished_at=now, error="cancelled before it started"
    ):
        uploads.discard(job.pk)
    else:
        Job.objects.filter(pk=job.pk, state=State.RUNNING).update(cancel_requested=True)
    job.refresh_from_db()
    return job


def reap_stale() -> int:
    """Mark failed every running job whose worker stopped writing its heartbeat (killed,
    crashed, machine gone): its open transaction died with its connection, so it wrote
    nothing. Cheap enough to run on every status read and in every worker's loop."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.JOBS_STALE_SECONDS)
    stale = list(
        Job.objects.filter(state=State.RUNNING, heartbeat_at__lt=cutoff).values_list(
            "pk", "worker", "task_id"
        )
    )
    reaped = 0
    for pk, worker, task_id in stale:
        error = (
            f"the worker {worker or '?'} stopped (no heartbeat for "
            f"{settings.JOBS_STALE_SECONDS:g} s): nothing was written"
        )
        if Job.objects.filter(pk=pk, state=State.RUNNING, heartbeat_at__lt=cutoff).update(
            state=State.FAILED, finished_at=now, error=error
        ):
            reaped += 1
            uploads.discard(pk)
            _fail_task(task_id, now)
            logger.warning("job %s: %s", pk, error)
    return reaped


def _fail_task(task_id: str, now) -> None:
    """The queue's own record of the task, left RUNNING by the dead worker."""
    if not task_id:
        return
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.filter(pk=task_id, status="RUNNING").update(
        status="FAILED", finished_at=now, exception_class_path="jobs.runner.WorkerDied"
    )


def campaign_jobs(campaign_id: int, *, limit: int = 50) -> list[Job]:
    reap_stale()
    return list(Job.objects.filter(campaign_id=campaign_id)[:limit])


def live_workers() -> list[Worker]:
    """Workers that reported within the stale bound (jobs_worker writes every heartbeat)."""
    cutoff = timezone.now() - timedelta(seconds=settings.JOBS_STALE_SECONDS)
    return list(Worker.objects.filter(seen_at__gte=cutoff).order_by("name"))


def seconds_left(job: Job) -> float | None:
    if job.state != State.RUNNING or job.rate <= 0 or job.total <= 0:
        return None
    return max(job.total - job.done, 0) / job.rate


LANGUAGE_PARAM = "ui_language"


def unit_label(unit: str) -> str:
    """What a job counts, in words ("lines" is stored; "行" may be shown)."""
    labels = {
        "lines": _("lines"),
        "steps": _("steps"),
        "items": _("items"),
        "snapshots": _("snapshots"),
    }
    return str(labels.get(unit, unit))


def status(job: Job) -> dict:
    """What the job page and the API show of a job."""
    return {
        "id": job.pk,
        "kind": job.kind,
        "title": job.title,
        "started_by": job.created_by_name,
        "state": job.state,
        "state_label": State(job.state).label if job.state in State.values else job.state,
        "finished": job.state in FINISHED,
        "unit": job.unit,
        "unit_label": unit_label(job.unit),
        "done": job.done,
        "total": job.total,
        "rate": round(job.rate, 1),
        "seconds_left": seconds_left(job),
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
        "heartbeat_at": job.heartbeat_at,
        "cancel_requested": job.cancel_requested,
        "outcome": job.outcome,
        "warnings": job.warnings,
        "error": job.error,
        "worker": job.worker,
    }
