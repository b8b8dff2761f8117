"""Run a job worker: django-tasks-db's `db_worker`, plus what that worker lacks (README,
deployment): it registers itself in the jobs database and keeps that entry fresh, and it
marks failed the jobs of workers that stopped answering (jobs.services.reap_stale)."""

from __future__ import annotations

import atexit
import logging
import threading

from django.conf import settings
from django.db import connections
from django.utils import timezone
from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand

from jobs.models import Worker
from jobs.routers import jobs_db
from jobs.runner import worker_name
from jobs.services import reap_stale

logger = logging.getLogger(__name__)


def _watch(name: str, stop: threading.Event) -> None:
    """Every heartbeat: say this worker is alive, and reap other workers' dead jobs."""
    while not stop.wait(settings.JOBS_HEARTBEAT_SECONDS):
        try:
            Worker.objects.filter(name=name).update(seen_at=timezone.now())
            reap_stale()
        except Exception:  # retried at the next beat; a database restart must not kill us
            logger.exception("worker %s: watch failed", name)
    connections[jobs_db()].close()


def _unregister(name: str, stop: threading.Event) -> None:
    stop.set()
    try:
        Worker.objects.filter(name=name).delete()
    except Exception:
        logger.warning("worker %s: could not unregister", name)


class Command(DbWorkerCommand):
    help = "Run a background job worker (as many as you like, on any machine)"

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        parser.set_defaults(worker_id=worker_name()[:64])

    def handle(self, *args, **options) -> None:
        name = worker_name()
        now = timezone.now()
        Worker.objects.update_or_create(name=name, defaults={"started_at": now, "seen_at": now})
        reap_stale()
        stop = threading.Event()
        threading.Thread(target=_watch, args=(name, stop), daemon=True, name="watch").start()
        atexit.register(_unregister, name, stop)
        super().handle(*args, **options)
