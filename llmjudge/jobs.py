"""Starting a model judge's run as a background job, and running it in the worker."""

from __future__ import annotations

from jobs.models import Job, Kind, State
from jobs.runner import JobCancelled, JobContext, Outcome
from jobs.services import start_job
from llmjudge.models import JudgeRun, ModelJudge
from llmjudge.run import judge_run


def running_job(judge: ModelJudge) -> Job | None:
    """The judge's run that is queued or running, if any."""
    unfinished = Job.objects.filter(
        kind=Kind.MODEL, campaign_id=judge.campaign_id, state__in=(State.QUEUED, State.RUNNING)
    )
    return next((job for job in unfinished if job.params.get("judge") == judge.pk), None)


def start_judge_job(*, judge: ModelJudge, user) -> tuple[Job, JudgeRun]:
    """Queue a run. ValueError while another run of the judge is queued or running (two runs
    would ask the same questions twice and race to store the answers)."""
    busy = running_job(judge)
    if busy is not None:
        raise ValueError(f"a run of {judge.source_name} is already {busy.state} (job {busy.pk})")
    run = JudgeRun.objects.create(judge=judge)
    job = start_job(
        kind=Kind.MODEL, campaign_id=judge.campaign_id, user=user, unit="answers",
        title=f"labels from {judge.model} as {judge.source_name}",
        params={"judge": judge.pk, "run": run.pk},
    )  # fmt: skip
    JudgeRun.objects.filter(pk=run.pk).update(job_id=job.pk)
    run.job_id = job.pk
    return job, run


def run_judge_job(job: Job, ctx: JobContext) -> Outcome:
    judge = ModelJudge.objects.select_related("campaign").get(
        pk=job.params["judge"], campaign_id=job.campaign_id
    )
    run = JudgeRun.objects.get(pk=job.params["run"], judge=judge)
    try:
        outcome = judge_run(
            judge=judge,
            run=run,
            progress=ctx.progress,
            note=lambda text: setattr(ctx, "note", text),
        )
    except JobCancelled:
        raise JobCancelled(
            "cancelled: every answer received so far is kept in the cache (a rerun does not "
            f"ask again); the label source {judge.source_name} is unchanged"
        ) from None
    return Outcome(outcome.summary(), outcome.warnings)
