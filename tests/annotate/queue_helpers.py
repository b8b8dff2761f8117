"""Builders for queue tests: a campaign with queries, documents and pool items."""

from __future__ import annotations

import random
import threading
from collections import Counter

from django.contrib.auth import get_user_model
from django.db import connections

from annotate.judging.graded import GradeRefused, grade_submit, queue_items
from annotate.models import Document, PoolItem, Query, Role
from annotate.services.campaigns import membership_set


def build_pool(campaign, *, queries: int, docs_per_query: int) -> list[PoolItem]:
    items = []
    for q in range(queries):
        query = Query.objects.create(campaign=campaign, external_id=f"q{q}", text=f"query {q}")
        for d in range(docs_per_query):
            doc = Document.objects.create(
                campaign=campaign, external_id=f"q{q}-d{d}", title=f"Result {d} for {q}"
            )
            items.append(PoolItem.objects.create(campaign=campaign, query=query, document=doc))
    return items


def make_raters(campaign, count: int, prefix: str = "r") -> list:
    users = []
    for i in range(count):
        user = get_user_model().objects.create_user(username=f"{prefix}{i}", password="x")
        membership_set(campaign=campaign, user=user, role=Role.RATER)
        users.append(user)
    return users


def queue_setup(campaign, *, overlap: int, queries: int, docs_per_query: int, raters: int):
    """(campaign, items, raters, Good, Bad): the fixture of the queue tests."""
    campaign.overlap = overlap
    campaign.save()
    items = build_pool(campaign, queries=queries, docs_per_query=docs_per_query)
    users = make_raters(campaign, raters)
    return (
        campaign,
        items,
        users,
        campaign.labels.get(name="Good"),
        campaign.labels.get(name="Bad"),
    )


def handle(user, item) -> str:
    """The user's handle for a pool item (or its id), as their pages name it."""
    from annotate.judging import handles

    return handles.handle_for(user.pk, handles.GRADED, getattr(item, "pk", item))


def item_id(user, item_handle: str) -> int:
    """The pool item id a user's handle names (the services and the database use ids)."""
    from annotate.judging import handles

    return handles.task_id_for(user.pk, handles.GRADED, item_handle)


def grade_race(campaign, raters: list) -> Counter:
    """Every rater grades their queue in a thread of their own, all started together, each
    grade sent twice (a double click or a network retry) and 5% of them can't-judge; then
    each rater looks once more, as "Check again" lets them (a late can't-judge reopens an
    item after some raters stopped). Returns how many grades each (item, rater) created;
    raises the first error any thread met."""
    labels = list(campaign.labels.values_list("pk", flat=True))
    stored: Counter = Counter()
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(len(raters))

    def work(rater, seed: int, barrier: threading.Barrier) -> None:
        rng = random.Random(seed)
        try:
            barrier.wait(timeout=30)
            while batch := queue_items(rater=rater, campaign=campaign):
                for item in batch:
                    label = rng.choice(labels)
                    cant = rng.random() < 0.05
                    for _ in range(2):
                        try:
                            outcome = grade_submit(
                                rater=rater,
                                campaign=campaign,
                                item_id=item.pk,
                                label_id=None if cant else label,
                                cant_judge=cant,
                            )
                        except GradeRefused:
                            continue
                        if outcome.created:
                            with lock:
                                stored[(item.pk, rater.pk)] += 1
        except BaseException as exc:  # reported below, in the test's own thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(r, i, start)) for i, r in enumerate(raters)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    for i, rater in enumerate(raters):  # "Check again"
        work(rater, 1000 + i, threading.Barrier(1))
    assert not errors, errors
    return stored
