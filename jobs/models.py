"""A background job: what it does, for which campaign, who started it, where it is.

The rows live on the `jobs` database alias (jobs/routers.py), so they name the campaign and
the user by id rather than by foreign key: on SQLite that alias is another file.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class State(models.TextChoices):
    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    SUCCEEDED = "succeeded", _("succeeded")
    FAILED = "failed", _("failed")
    CANCELLED = "cancelled", _("cancelled")


FINISHED = (State.SUCCEEDED, State.FAILED, State.CANCELLED)


class Kind(models.TextChoices):
    IMPORT = "import", _("import")
    POOLING = "pooling", _("pooling")
    SOURCES = "sources", _("label source")
    RECOMPUTE = "recompute", _("report recomputation")
    MODEL = "model", _("model judge")


class Job(models.Model):
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # What the job does, in words for its page ("run: run1.txt (40.1 MB)").
    title = models.CharField(max_length=300)
    params = models.JSONField(default=dict)
    campaign_id = models.BigIntegerField(db_index=True)
    created_by_id = models.BigIntegerField(null=True)
    created_by_name = models.CharField(max_length=150, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    # Progress in `unit`s (lines of the file, items); total 0 when unknown.
    unit = models.CharField(max_length=20, default="lines")
    done = models.BigIntegerField(default=0)
    total = models.BigIntegerField(default=0)
    rate = models.FloatField(default=0.0)  # units per second, since the job started
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    cancel_requested = models.BooleanField(default=False)
    # The import summary (or other outcome) on success; `file:line: why` on failure.
    outcome = models.TextField(blank=True)
    warnings = models.JSONField(default=list)
    error = models.TextField(blank=True)
    worker = models.CharField(max_length=100, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    task_id = models.CharField(max_length=64, blank=True)
    upload_name = models.CharField(max_length=300, blank=True)
    upload_bytes = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["state", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"job {self.pk} ({self.kind}, {self.state})"

    @property
    def finished(self) -> bool:
        return self.state in FINISHED


class UploadChunk(models.Model):
    """One piece of a job's uploaded file, stored in the database so that a worker on any
    machine reads it; deleted when the job ends."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="chunks")
    seq = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "seq"], name="jobs_chunk_seq")]

    def __str__(self) -> str:
        return f"piece {self.seq} of job {self.job_id}"


class Worker(models.Model):
    """A running `jobs_worker` process, as it last reported itself (README: seeing workers)."""

    name = models.CharField(max_length=100, unique=True)  # host:pid
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()
    job_id = models.BigIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name
