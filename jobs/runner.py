"""Running one job in a worker: claim it, keep its heartbeat and progress up to date from a
second thread, stop it when cancelled, record how it ended.

Progress, heartbeat and the cancel flag go through the `jobs` alias from the heartbeat
thread (its own connection), so they commit while the job's own work is still one open
transaction on the default database: that transaction is all or nothing, and a cancelled or
killed job leaves nothing of it.
"""

from __future__ import annotations

import fcntl
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connections
from django.db.models import F
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django_tasks import task

from jobs.models import Job, State, Worker
from jobs.routers import jobs_db

logger = logging.getLogger(__name__)


class JobCancelled(Exception):
    """Raised inside a job at its next progress report once a manager cancelled it."""


class WorkerDied(Exception):
    """What the queue records for a task whose worker stopped (jobs.services.reap_stale)."""


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass
class Outcome:
    summary: str
    warnings: list[str] = field(default_factory=list)


class JobContext:
    """Handed to a job's work: `progress(done)` after each step, which raises JobCancelled
    once the job was cancelled."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.done = 0
        self.total = job.total
        self.cancelled = threading.Event()
        # What the job has done so far in words ("120 requests, 53,000 tokens"), shown as
        # its outcome while it runs; the final outcome replaces it.
        self.note = ""

    def progress(self, done: int, total: int | None = None) -> None:
        self.done = done
        if total is not None:
            self.total = total
        self.check()

    def check(self) -> None:
        if self.cancelled.is_set():
            raise JobCancelled


class Heartbeat(threading.Thread):
    """Every JOBS_HEARTBEAT_SECONDS: write the heartbeat and progress, read the cancel flag."""

    def __init__(self, context: JobContext, started: float) -> None:
        super().__init__(name=f"heartbeat-{context.job.pk}", daemon=True)
        self.context = context
        self.started = started
        self.stopping = threading.Event()

    def run(self) -> None:
        try:
            while not self.stopping.wait(settings.JOBS_HEARTBEAT_SECONDS):
                self.beat()
        finally:
            connections[jobs_db()].close()

    def beat(self) -> None:
        ctx = self.context
        elapsed = max(time.monotonic() - self.started, 1e-6)
        try:
            now = timezone.now()
            fields = {"heartbeat_at": now, "done": ctx.done, "total": ctx.total,
                      "rate": ctx.done / elapsed}  # fmt: skip
            if ctx.note:
                fields["outcome"] = ctx.note
            alive = Job.objects.filter(pk=ctx.job.pk, state=State.RUNNING).update(**fields)
            Worker.objects.filter(name=ctx.job.worker).update(seen_at=now)
            flag = Job.objects.filter(pk=ctx.job.pk).values_list("cancel_requested", flat=True)
            # Not running any more (cancelled, or reaped while this process was stalled):
            # stop too, rather than commit work the job's page already calls failed.
            if not alive or flag.first():
                ctx.cancelled.set()
        except Exception:  # a lost beat is retried at the next one; the reaper has the last word
            logger.exception("job %s: heartbeat failed", ctx.job.pk)


@task()
def run_job(job_id: int) -> str:
    """The queue's task: run the job once. A job already taken (by another worker) or
    cancelled while queued is left alone."""
    name = worker_name()
    now = timezone.now()
    claimed = Job.objects.filter(pk=job_id, state=State.QUEUED).update(
        state=State.RUNNING,
        started_at=now,
        heartbeat_at=now,
        worker=name[:100],
        attempts=F("attempts") + 1,
    )
    if not claimed:
        return "not queued"
    job = Job.objects.get(pk=job_id)
    Worker.objects.filter(name=name).update(job_id=job_id, seen_at=now)
    context = JobContext(job)
    heartbeat = Heartbeat(context, time.monotonic())
    heartbeat.start()
    try:
        # Its outcome and errors (`file:line: why`) in the language of whoever started it.
        with translation.override(job_language(job)):
            state, outcome, error = _perform(job, context)
    except BaseException:
        # The worker was told to stop at once (a second SIGTERM or Ctrl-C): the job's
        # transaction was rolled back on the way out.
        with translation.override(job_language(job)):
            stopped = _("the worker was stopped: nothing was written")
        _record(job, context, State.FAILED, None, stopped)
        raise
    finally:
        heartbeat.stopping.set()
        heartbeat.join()
        _finish(job)
    _record(job, context, state, outcome, error)
    return state


@contextmanager
def one_writer(context: JobContext) -> Iterator[None]:
    """SQLite has one writer at a time, and refuses (rather than waits for) a transaction
    that read before it wrote while another one writes: two workers importing at once would
    fail one import with "database is locked". SQLite lives on one machine, so its workers
    take turns through a lock file beside the database. Cancelling works while waiting."""
    connection = connections["default"]
    name = str(connection.settings_dict["NAME"])
    if connection.vendor != "sqlite" or name.startswith("file:") or ":memory:" in name:
        yield
        return
    with open(f"{name}.jobs-lock", "a") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                context.check()
                time.sleep(0.2)
        # BEGIN IMMEDIATE: the job's transaction takes the write lock when it starts (waiting
        # for a web request's write, up to the busy timeout), never half-way.
        if not hasattr(connection, "transaction_mode"):
            connection.get_connection_params()
        previous, connection.transaction_mode = connection.transaction_mode, "IMMEDIATE"
        try:
            yield
        finally:
            connection.transaction_mode = previous
            fcntl.flock(lock, fcntl.LOCK_UN)


def _perform(job: Job, context: JobContext) -> tuple[str, Outcome | None, str]:
    from jobs.kinds import KINDS

    try:
        with one_writer(context):
            outcome = KINDS[job.kind](job, context)
    except JobCancelled as exc:
        # A job that keeps some work on purpose (a model judge's paid-for replies) says so.
        return State.CANCELLED, None, str(exc) or _("cancelled: nothing was written")
    except Exception as exc:
        expected = _expected_error(exc)
        if expected is None:
            logger.exception("job %s failed", job.pk)
            error = _("internal error (%(name)s); see the logs") % {"name": type(exc).__name__}
            return State.FAILED, None, error
        return State.FAILED, None, expected
    # Cancelled after its last progress report, it committed all the same: it succeeded.
    return State.SUCCEEDED, outcome, ""


def job_language(job: Job) -> str:
    """The language the job was started in (jobs from before it was kept: the default)."""
    from jobs.services import LANGUAGE_PARAM

    return job.params.get(LANGUAGE_PARAM) or settings.LANGUAGE_CODE


def _expected_error(exc: Exception) -> str | None:
    """The message of a refusal the job's service raises on bad input (`file:line: why`)."""
    from annotate.services.imports import ImportFailed

    if isinstance(exc, ImportFailed | ValueError):
        return str(exc)
    return None


def _finish(job: Job) -> None:
    from jobs.uploads import discard

    discard(job.pk)
    Worker.objects.filter(name=job.worker).update(job_id=None, seen_at=timezone.now())


def _record(job: Job, context: JobContext, state: str, outcome: Outcome | None, error: str):
    done = context.done if state != State.SUCCEEDED else max(context.done, context.total)
    now = timezone.now()
    seconds = (now - job.started_at).total_seconds() if job.started_at else 0.0
    Job.objects.filter(pk=job.pk, state=State.RUNNING).update(
        state=state,
        finished_at=now,
        heartbeat_at=now,
        done=done,
        rate=done / seconds if seconds > 0 else 0.0,
        total=context.total,
        outcome=outcome.summary if outcome else "",
        warnings=outcome.warnings if outcome else [],
        error=error,
    )
