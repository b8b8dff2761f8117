"""The job page, its status feed, cancelling and the API's job endpoints, in-process: who may
see and cancel what, and what a large upload answers. (Real workers: test_workers.py.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from jobs import uploads
from jobs.models import Job, State, UploadChunk
from jobs.services import cancel_job, reap_stale, start_job

pytestmark = pytest.mark.django_db(databases=["default", "jobs"])

OTHERS = ["outsider", "rater", "other_manager", "other_rater"]


def make_job(personas, **fields) -> Job:
    return Job.objects.create(
        kind="import", title="run: big.txt", campaign_id=personas.campaign.pk,
        created_by_id=personas.manager.pk, created_by_name="manager", **fields,
    )  # fmt: skip


@override_settings(JOBS_STALE_SECONDS=3600)  # however slow the first request on a busy machine
def test_the_manager_sees_the_jobs_page_and_its_status(personas):
    job = make_job(personas, state=State.RUNNING, done=5, total=10, heartbeat_at=timezone.now())
    client = personas.client_for("manager")
    page = client.get(reverse("jobs:campaign", args=["campaign-a"]))
    assert page.status_code == 200
    assert b"run: big.txt" in page.content and b"<progress" in page.content
    feed = client.get(reverse("jobs:status", args=["campaign-a"])).json()
    assert [(j["id"], j["state"], j["done"], j["total"]) for j in feed["jobs"]] == [
        (job.pk, "running", 5, 10)
    ]


@pytest.mark.parametrize("who", OTHERS)
def test_others_cannot_see_or_cancel_the_campaigns_jobs(personas, who):
    job = make_job(personas, state=State.RUNNING, heartbeat_at=timezone.now())
    client = personas.client_for(who)
    assert client.get(reverse("jobs:campaign", args=["campaign-a"])).status_code == 404
    assert client.get(reverse("jobs:status", args=["campaign-a"])).status_code == 404
    cancel = reverse("jobs:cancel", args=["campaign-a", job.pk])
    assert client.post(cancel).status_code == 404
    assert client.get(f"/api/v1/jobs/{job.pk}/").status_code == 404
    assert client.post(f"/api/v1/jobs/{job.pk}/cancel/").status_code == 404
    job.refresh_from_db()
    assert job.cancel_requested is False


def test_another_campaigns_url_does_not_reach_the_job(personas):
    """The other campaign's manager, through their own campaign's cancel URL."""
    job = make_job(personas, state=State.QUEUED)
    client = personas.client_for("other_manager")
    assert client.post(reverse("jobs:cancel", args=["campaign-b", job.pk])).status_code == 404
    job.refresh_from_db()
    assert job.state == State.QUEUED


def test_anonymous_is_sent_to_log_in(personas):
    response = personas.client_for("anonymous").get(reverse("jobs:campaign", args=["campaign-a"]))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_cancelling_a_queued_job_ends_it_and_drops_its_file(personas):
    job = start_job(
        kind="import", campaign_id=personas.campaign.pk, user=personas.manager, title="t",
        params={}, upload=[b"a\nb\n"], upload_name="x.txt",
    )  # fmt: skip
    assert UploadChunk.objects.filter(job=job).count() == 1
    job = cancel_job(job)
    assert job.state == State.CANCELLED and job.finished_at is not None
    assert UploadChunk.objects.filter(job=job).count() == 0


def test_cancelling_a_running_job_asks_it_to_stop(personas):
    job = cancel_job(make_job(personas, state=State.RUNNING, heartbeat_at=timezone.now()))
    assert job.state == State.RUNNING and job.cancel_requested is True


@override_settings(JOBS_STALE_SECONDS=30)
def test_a_job_without_a_heartbeat_is_marked_failed(personas):
    now = timezone.now()
    stale = make_job(personas, state=State.RUNNING, heartbeat_at=now - timedelta(seconds=31))
    fresh = make_job(personas, state=State.RUNNING, heartbeat_at=now - timedelta(seconds=5))
    assert reap_stale() == 1
    stale.refresh_from_db()
    fresh.refresh_from_db()
    assert stale.state == State.FAILED and "no heartbeat" in stale.error
    assert fresh.state == State.RUNNING


def test_an_upload_is_stored_in_pieces_and_read_back_as_lines(personas, monkeypatch):
    monkeypatch.setattr(uploads, "CHUNK_BYTES", 7)
    job = make_job(personas)
    body = b"line one\nline two\r\nthree"
    assert uploads.store(job, [body[:5], body[5:]]) == (len(body), 3)
    assert UploadChunk.objects.filter(job=job).count() == 4  # 7 + 7 + 7 + 4 bytes
    assert list(uploads.open_upload(job)) == [b"line one\n", b"line two\r\n", b"three"]


@override_settings(JOBS_MAX_UPLOAD_BYTES=10)
def test_an_upload_over_the_limit_leaves_no_job(personas):
    with pytest.raises(uploads.UploadTooLarge, match="limit is 10 bytes"):
        start_job(
            kind="import", campaign_id=personas.campaign.pk, user=personas.manager, title="t",
            params={}, upload=[b"0123456789", b"x"], upload_name="x.txt",
        )  # fmt: skip
    assert Job.objects.count() == 0 and UploadChunk.objects.count() == 0


@override_settings(JOBS_SYNC_MAX_BYTES=100)
def test_a_large_api_upload_answers_202_with_the_job(personas):
    client = personas.client_for("manager")
    body = b"".join(b"q1 Q0 d%d %d 1.0 tag\n" % (i, i + 1) for i in range(20))
    response = client.post(
        "/api/v1/campaigns/campaign-a/imports/",
        {"kind": "run", "name": "r", "file": SimpleUploadedFile("r.txt", body)},
    )
    assert response.status_code == 202, response.content
    job = Job.objects.get()
    assert response.json()["id"] == job.pk and response["Location"].endswith(f"/jobs/{job.pk}/")
    assert (job.state, job.total, job.upload_bytes) == (State.QUEUED, 20, len(body))
    assert job.params["data"]["kind"] == ["run"] and job.params["data"]["name"] == ["r"]


@override_settings(JOBS_SYNC_MAX_BYTES=100)
def test_a_large_web_upload_goes_to_the_jobs_page(personas):
    client = personas.client_for("manager")
    body = b"q1\tquery one\n" * 20
    response = client.post(
        reverse("annotate:import", args=["campaign-a"]),
        {"kind": "queries", "file": SimpleUploadedFile("q.tsv", body)},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("jobs:campaign", args=["campaign-a"])
    assert Job.objects.get().title.startswith("queries: q.tsv")


def test_the_schema_documents_the_202_and_the_job_endpoints(personas):
    schema = personas.client_for("manager").get("/api/v1/schema/?format=json").json()
    imports = schema["paths"]["/api/v1/campaigns/{slug}/imports/"]["post"]["responses"]
    assert "202" in imports and "201" in imports
    assert "/api/v1/jobs/{id}/" in schema["paths"]
    assert "/api/v1/jobs/{id}/cancel/" in schema["paths"]
