"""One rater's own requests racing on PostgreSQL: a skip against a grade, a skip against a
verdict, sent at once as two tabs would, through the judging pages' JSON endpoints. Before the
one-answer rule (AnswerClaim) 6 of 10 rounds stored both a grade and a skip, and the rater's
progress read "done 2 of 2" for a one-item pool."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from annotate.models import Grade, Skip, SxsTask, TaskSkip, Verdict
from tests.annotate.queue_helpers import build_pool, item_id
from tests.annotate.sxs_helpers import distinct_lists, make_comparison, sxs_url, task_id

ROUNDS = 10

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race(rater, url: str, bodies: list[dict]) -> list[int]:
    """POST the bodies at once, each from its own client and database connection."""
    clients = []
    for _ in bodies:
        client = Client()
        client.force_login(rater)
        clients.append(client)
    start = threading.Barrier(len(bodies))
    statuses: list[int] = [0] * len(bodies)

    def send(index: int) -> None:
        try:
            start.wait(timeout=30)
            response = clients[index].post(
                url, json.dumps(bodies[index]), content_type="application/json"
            )
            statuses[index] = response.status_code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return statuses


def test_a_skip_and_a_grade_at_once_store_exactly_one(personas):
    assert connection.vendor == "postgresql"
    good = personas.campaign.labels.get(name="Good")
    slug = {"slug": personas.campaign.slug}
    build_pool(personas.campaign, queries=ROUNDS, docs_per_query=1)
    client = Client()
    client.force_login(personas.rater)
    for round_ in range(ROUNDS):
        item = client.get(reverse("annotate:judge_api_queue", kwargs=slug)).json()["items"][0]
        statuses = race(
            personas.rater,
            reverse("annotate:judge_api", kwargs=slug),
            [{"item": item["id"], "action": "skip"}, {"item": item["id"], "label": good.pk}],
        )
        mine = {"pool_item_id": item_id(personas.rater, item["id"]), "rater": personas.rater}
        answers = Grade.objects.filter(**mine).count() + Skip.objects.filter(**mine).count()
        assert answers == 1, statuses
        assert sorted(statuses) == [200, 409]  # the other one is told, not lost silently
        progress = client.get(reverse("annotate:judge_api_progress", kwargs=slug)).json()
        assert progress["progress"]["done"] == round_ + 1


def test_a_skip_and_a_verdict_at_once_store_exactly_one(personas):
    assert connection.vendor == "postgresql"
    comparison = make_comparison(personas.campaign, distinct_lists(ROUNDS))
    client = Client()
    client.force_login(personas.rater)
    for round_ in range(ROUNDS):
        task = client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"][0]
        statuses = race(
            personas.rater,
            sxs_url(comparison, "sxs_api"),
            [{"task": task["id"], "action": "skip"}, {"task": task["id"], "chosen": "left"}],
        )
        mine = {"task_id": task_id(personas.rater, task["id"]), "rater": personas.rater}
        answers = Verdict.objects.filter(**mine).count() + TaskSkip.objects.filter(**mine).count()
        assert answers == 1, statuses
        assert sorted(statuses) == [200, 409]
        assert (
            SxsTask.objects.get(pk=mine["task_id"]).counted
            == Verdict.objects.filter(**mine).count()
        )
        progress = client.get(sxs_url(comparison, "sxs_api_progress")).json()
        assert progress["progress"]["done"] == round_ + 1
