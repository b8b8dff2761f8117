"""A model judge's run as a background job, run through the queue's task in this process
(tests/jobs/test_workers.py drives real worker processes; the browser test does for a judge)."""

from __future__ import annotations

import pytest

from jobs.models import Job, State
from jobs.runner import run_job
from llmjudge.jobs import start_judge_job
from llmjudge.models import JudgeRun
from tests.llmjudge.helpers import make_items, make_judge

pytestmark = [pytest.mark.django_db(databases=["default", "jobs"]),
              pytest.mark.usefixtures("_no_heartbeat")]  # fmt: skip


@pytest.fixture
def _no_heartbeat(settings):
    settings.JOBS_HEARTBEAT_SECONDS = 3600


def test_the_job_labels_and_reports_what_it_cost(personas, server):
    c = personas.campaign
    make_items(c, {("q1", "d1"): "ANSWER=3", ("q1", "d2"): "MODE=malformed"})
    judge = make_judge(c, server.base_url)
    job, record = start_judge_job(judge=judge, user=personas.manager)
    assert (job.kind, job.state, job.unit) == ("model", State.QUEUED, "answers")
    assert run_job.call(job.pk) == State.SUCCEEDED
    job.refresh_from_db()
    record.refresh_from_db()
    assert job.outcome.startswith("1 of 2 items labelled as model:fake: 3 requests sent, 0 ")
    assert "1 answers unreadable" in job.outcome and (job.done, job.total) == (2, 2)
    assert record.job_id == job.pk and record.requests == 3 and record.tokens > 0


def test_a_refusing_endpoint_fails_the_job_with_its_reason(personas, server, monkeypatch):
    c = personas.campaign
    make_items(c, {("q1", "d1"): "ANSWER=3"})
    monkeypatch.setenv("LLMJUDGE_KEY_TEST", "wrong")
    job, _ = start_judge_job(judge=make_judge(c, server.base_url), user=personas.manager)
    assert run_job.call(job.pk) == State.FAILED
    job = Job.objects.get(pk=job.pk)
    assert job.error.startswith("the endpoint refused: HTTP 401")
    assert JudgeRun.objects.get().requests == 1
