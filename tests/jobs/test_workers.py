"""Jobs run by real worker processes (`manage.py jobs_worker`), against the development
server, on the suite's database engine (SQLite or PostgreSQL): tests/jobs/stack.py."""

from __future__ import annotations

import signal
import time

import pytest

from tests.jobs.stack import PATIENCE, STALE, Stack, run_file

# One xdist worker runs the module, so the module's stack (a server and a database) is built
# once, not once per worker that happens to get one of its tests.
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.xdist_group("jobs-stack"),
]

BIG = 150_000  # lines: several seconds of importing, so a worker can be stopped midway


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    stack = Stack(tmp_path_factory.mktemp("stack"), tmp_path_factory)
    yield stack
    stack.close()


def entries(run: str) -> str:
    """The expression counting the entries of the run named `run` (for Stack.query_all)."""
    return f"RunEntry.objects.filter(run__name={run!r}).count()"


def runs(run: str) -> str:
    return f"Run.objects.filter(name={run!r}).count()"


def chunks(job_id: int) -> str:
    return f"UploadChunk.objects.filter(job_id={job_id}).count()"


def test_upload_answers_at_once_and_the_job_completes(stack):
    worker = stack.worker()
    try:
        response = stack.upload_run("ok", run_file(BIG))
        assert response.status_code == 202, response.text
        job = response.json()
        assert response.headers["Location"] == job["url"]
        # The request only stored the file: the import has not run when it answers.
        assert job["state"] == "queued" and job["done"] == 0 and job["total"] == BIG
        seen_running = stack.wait_job(job["id"], lambda j: j["state"] != "queued")
        done = stack.wait_job(job["id"], lambda j: j["finished"])
        assert done["state"] == "succeeded", done
        assert done["done"] == BIG and done["error"] == ""
        assert done["outcome"].startswith(f"ok.txt: {BIG:,} lines read; {BIG:,} run entries"), done
        assert seen_running["state"] in ("running", "succeeded")
        # (The stored upload is gone once the job ended: no chunks.)
        assert stack.query_all(entries("ok"), chunks(job["id"])) == [BIG, 0]
    finally:
        stack.stop(worker)


def test_a_worker_killed_mid_import_writes_nothing_and_its_job_fails(stack):
    worker = stack.worker()
    response = stack.upload_run("killed", run_file(BIG))
    job_id = response.json()["id"]
    stack.wait_job(job_id, lambda j: j["state"] == "running" and j["done"] > 0)
    stack.stop(worker, signal.SIGKILL)
    killed_at = time.monotonic()
    failed = stack.wait_job(job_id, lambda j: j["finished"])
    waited = time.monotonic() - killed_at
    assert failed["state"] == "failed", failed
    assert "stopped" in failed["error"] and "nothing was written" in failed["error"]
    # Marked failed by the heartbeat bound (plus polling slack), not by some later cleanup.
    assert waited < STALE + 30, waited
    assert stack.query_all(runs("killed"), entries("killed"), chunks(job_id)) == [0, 0, 0]


def test_a_cancelled_job_stops_and_writes_nothing(stack):
    worker = stack.worker()
    try:
        job_id = stack.upload_run("cancelled", run_file(BIG)).json()["id"]
        stack.wait_job(job_id, lambda j: j["state"] == "running" and j["done"] > 0)
        response = stack.api("POST", f"/api/v1/jobs/{job_id}/cancel/")
        assert response.status_code == 200, response.text
        stopped = stack.wait_job(job_id, lambda j: j["finished"])
        # Cancelled, not succeeded: it stopped before its commit. Whether that was while
        # reading (done < BIG) or between the set-based statements after it (the lines read
        # in under a heartbeat once the import got faster) does not matter: nothing is kept.
        assert stopped["state"] == "cancelled", stopped
        assert stack.query_all(runs("cancelled"), entries("cancelled")) == [0, 0]
        assert worker.poll() is None  # the worker goes on with the next job
    finally:
        stack.stop(worker)


def test_two_workers_never_run_one_job_twice(stack):
    names = [f"pair{i}" for i in range(8)]
    ids = [stack.upload_run(name, run_file(3_000, docs=name)).json()["id"] for name in names]
    workers = [stack.worker("worker-a"), stack.worker("worker-b")]
    try:
        deadline = time.monotonic() + PATIENCE
        # Polled through the API (a request, not a process per look).
        while time.monotonic() < deadline:
            if all(stack.job(job_id)["finished"] for job_id in ids):
                break
            time.sleep(0.5)
        # One process reads it all (each costs a Django start-up): the jobs' rows, how many
        # workers claimed each job's task, and the entries of each run.
        jobs = f"Job.objects.filter(pk__in={ids})"
        rows, claims, *counts = stack.query_all(
            f"list({jobs}.values_list('state', 'attempts', 'task_id', 'error'))",
            "[len(t.worker_ids) for t in DBTaskResult.objects.filter("
            f"pk__in=[j.task_id for j in {jobs}])]",
            *map(entries, names),
        )
        assert [r[0] for r in rows] == ["succeeded"] * len(ids), [r for r in rows if r[3]]
        assert [r[1] for r in rows] == [1] * len(ids)
        assert len({r[2] for r in rows}) == len(ids)  # a task of its own for each job
        assert claims == [1] * len(ids)
        assert counts == [3_000] * len(names)
    finally:
        for worker in workers:
            stack.stop(worker)


def test_outsiders_cannot_see_or_cancel_a_job(stack):
    job_id = stack.upload_run("private", run_file(2_000)).json()["id"]
    import requests

    # The campaign's rater: a member of the campaign, but not the job's owner nor a manager.
    headers = {"Authorization": f"Token {stack.rater_token}"}
    for method, path in (
        ("GET", f"/api/v1/jobs/{job_id}/"),
        ("POST", f"/api/v1/jobs/{job_id}/cancel/"),
    ):
        response = requests.request(method, stack.url + path, headers=headers, timeout=30)
        assert response.status_code == 404, (method, response.status_code)
    assert stack.job(job_id)["cancel_requested"] is False
