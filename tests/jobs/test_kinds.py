"""What each kind of job does, run through the queue's task in this process (the worker
process itself is exercised in test_workers.py): pooling and report recomputation as jobs,
and a cancelled recomputation keeping the snapshots as they were."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

from annotate.models import PoolItem
from jobs.kinds import run_recompute
from jobs.models import Job, State
from jobs.runner import JobCancelled, JobContext, run_job
from metrics.models import EvaluationSnapshot
from tests.annotate.judgment_data import make_run
from tests.metrics.report_helpers import make_world

pytestmark = [
    pytest.mark.django_db(databases=["default", "jobs"]),
    # No heartbeat thread beats during these short in-process runs (its connection could not
    # see this test's uncommitted rows).
    pytest.mark.usefixtures("_no_heartbeat"),
]


@pytest.fixture
def _no_heartbeat(settings):
    settings.JOBS_HEARTBEAT_SECONDS = 3600


@override_settings(JOBS_SYNC_MAX_ITEMS=3)
def test_a_big_pooling_runs_as_a_job(personas):
    c = personas.campaign
    a = make_run(c, "A", [("q1", "d1", 1, 0.9), ("q1", "d2", 2, 0.8), ("q2", "d1", 1, 0.5)])
    b = make_run(c, "B", [("q1", "d3", 1, 3.0), ("q2", "d5", 1, 1.0)])
    client = personas.client_for("manager")
    response = client.post(
        reverse("annotate:pool", args=[c.slug]), {"runs": [a.pk, b.pk], "depth": 1}
    )
    assert response["Location"] == reverse("jobs:campaign", args=[c.slug])
    assert PoolItem.objects.count() == 0  # the request queued it, nothing more
    job = Job.objects.get()
    assert (job.kind, job.state) == ("pooling", State.QUEUED)
    assert run_job.call(job.pk) == State.SUCCEEDED
    job.refresh_from_db()
    pooled = set(PoolItem.objects.values_list("query__external_id", "document__external_id"))
    assert pooled == {("q1", "d1"), ("q2", "d1"), ("q1", "d3"), ("q2", "d5")}
    assert job.state == State.SUCCEEDED and job.outcome and job.attempts == 1
    # Run again (a second delivery of the same task): the job is not queued any more.
    assert run_job.call(job.pk) == "not queued"


@override_settings(JOBS_SYNC_MAX_ITEMS=10_000)
def test_a_small_pooling_stays_in_the_request(personas):
    c = personas.campaign
    a = make_run(c, "A", [("q1", "d1", 1, 0.9)])
    client = personas.client_for("manager")
    client.post(reverse("annotate:pool", args=[c.slug]), {"runs": [a.pk], "depth": 1})
    assert PoolItem.objects.count() == 1 and Job.objects.count() == 0


def test_the_reports_recompute_as_a_job(personas):
    make_world(personas.campaign)
    client = personas.client_for("manager")
    client.post(reverse("jobs:recompute", args=[personas.campaign.slug]))
    job = Job.objects.get()
    assert run_job.call(job.pk) == State.SUCCEEDED
    job.refresh_from_db()
    assert EvaluationSnapshot.objects.filter(campaign=personas.campaign).count() >= 3
    assert job.outcome.endswith("report snapshots recomputed") and job.done == job.total > 0


def test_a_cancelled_recompute_keeps_the_previous_snapshots(personas):
    make_world(personas.campaign)
    job = Job.objects.create(
        kind="recompute", title="t", campaign_id=personas.campaign.pk, params={"force": True}
    )
    run_recompute(job, JobContext(job))
    before = list(EvaluationSnapshot.objects.order_by("pk").values_list("pk", "computed_at"))
    assert len(before) >= 3
    context = JobContext(job)
    context.cancelled.set()
    with pytest.raises(JobCancelled):
        run_recompute(job, context)
    after = EvaluationSnapshot.objects.order_by("pk").values_list("pk", "computed_at")
    assert list(after) == before


@override_settings(JOBS_SYNC_MAX_BYTES=10, JOBS_SYNC_MAX_ITEMS=1)
def test_a_big_log_and_its_derivation_run_as_jobs(personas):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from annotate.models import BehaviourLog, Document, SourceLabel
    from tests.annotate.import_support import add_queries

    campaign = personas.campaign
    add_queries(campaign, "q1", "q2")
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"d{i}") for i in range(1, 4)
    )
    log = (
        "qid,docno,position,impressions,clicks,purchases\n"
        "q1,d1,1,100,50,1\nq1,d2,2,100,5,0\nq2,d3,1,100,20,0\nq2,d1,2,100,30,2\n"
    )
    client = personas.client_for("manager")
    url = reverse("metrics:sources_add", args=[campaign.slug])
    upload = SimpleUploadedFile("week.csv", log.encode())
    response = client.post(
        url, {"action": "log", "log-file": upload, "log-name": "week", "log-match": "auto"}
    )
    assert response["Location"] == reverse("jobs:campaign", args=[campaign.slug])
    assert not BehaviourLog.objects.exists()
    assert run_job.call(Job.objects.get().pk) == State.SUCCEEDED
    week = BehaviourLog.objects.get(campaign=campaign, name="week")
    assert week.rows == 4
    client.post(url, {"action": "derive", "derive-log": week.pk, "derive-method": "clicks"})
    derive = Job.objects.get(kind="sources", state=State.QUEUED)
    assert "csrfmiddlewaretoken" not in derive.params["data"]
    assert run_job.call(derive.pk) == State.SUCCEEDED
    assert SourceLabel.objects.filter(source__name="clicks:week").count() == 4
