"""Handles instead of ids (#24): what they are, the old ids taken once for leases held when
handles came, the sides redrawn by migration 0017, and the API's filters that must not turn
an id into a handle for a rater."""

from __future__ import annotations

import importlib
import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import timezone

from annotate.judging import handles
from annotate.judging.sxs import candidate_side_for, sxs_queue, verdict_submit
from annotate.models import Grade, Lease, TaskLease
from annotate.services.sxs_setup import comparison_create
from tests.annotate.queue_helpers import build_pool, handle, item_id
from tests.annotate.sxs_helpers import distinct_lists, make_comparison, post_json, sxs_url
from tests.api.conftest import api_client_for

MIGRATION = importlib.import_module("annotate.migrations.0019_blind_handles_side_secret")


def test_a_handle_names_its_task_for_its_rater_and_kind_only():
    ids = [1, 2, 3, 1000, 2**31, 2**40 + 7, 2**63 - 1]
    for task in ids:
        mine = handles.handle_for(5, handles.GRADED, task)
        assert re.fullmatch(r"[A-Za-z0-9_-]{11}", mine)
        assert handles.task_id_for(5, handles.GRADED, mine) == task
        assert handles.handle_for(6, handles.GRADED, task) != mine  # another rater
        assert handles.handle_for(5, handles.SXS, task) != mine  # another kind
    assert len({handles.handle_for(5, handles.GRADED, t) for t in range(1, 2001)}) == 2000


@pytest.mark.parametrize("bad", [None, 7, "", "abc", "A" * 12, "!!!!!!!!!!!", "1" * 30, [1]])
def test_anything_else_names_no_task(bad):
    assert handles.task_id_for(5, handles.GRADED, bad) is None


def test_the_storage_key_names_neither_the_rater_nor_anything_by_id():
    key = handles.storage_key("judge-outbox", 42, "campaign-a")
    assert key.startswith("judge-outbox:campaign-a:") and "42" not in key.split(":")[-1]
    assert key != handles.storage_key("judge-outbox", 43, "campaign-a")


def test_an_old_numeric_id_is_taken_once_and_only_for_a_lease_held_when_handles_came(personas):
    build_pool(personas.campaign, queries=2, docs_per_query=2)
    client = personas.client_for("rater")
    url = reverse("annotate:judge_api", kwargs={"slug": "campaign-a"})
    shown = client.get(reverse("annotate:judge_api_queue", kwargs={"slug": "campaign-a"}))
    first = item_id(personas.rater, shown.json()["items"][0]["id"])
    good = personas.campaign.labels.get(name="Good").pk
    body = {"item": first, "label": good}
    assert post_json(client, url, body).status_code == 404  # a lease of this version: no
    Lease.objects.filter(rater=personas.rater, pool_item_id=first).update(legacy=True)
    answer = post_json(client, url, body)
    assert answer.status_code == 200 and answer.json()["result"] == "created"
    assert Grade.objects.filter(rater=personas.rater, pool_item_id=first).count() == 1
    # Once: the answer took the lease, and the id names nothing any more.
    assert post_json(client, url, {"item": first, "label": good}).status_code == 404


def test_the_page_hands_the_old_key_and_ids_only_while_old_leases_remain(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=2)
    client = personas.client_for("rater")
    page = reverse("annotate:judge", kwargs={"slug": "campaign-a"})
    assert "legacyStorageKey" not in client.get(page).context["js_state"]
    Lease.objects.filter(rater=personas.rater).update(legacy=True)
    state = client.get(page).context["js_state"]
    assert state["legacyStorageKey"] == f"judge-outbox:campaign-a:{personas.rater.pk}"
    held = Lease.objects.filter(rater=personas.rater).values_list("pool_item_id", flat=True)
    assert state["legacyIds"] == {str(pk): handle(personas.rater, pk) for pk in held}


def _lease_with_side(task, rater, side: str, *, live: bool) -> TaskLease:
    ends = timezone.now() + timedelta(minutes=10 if live else -10)
    lease = TaskLease.objects.get(task=task, rater=rater)
    TaskLease.objects.filter(pk=lease.pk).update(candidate_side=side, expires_at=ends)
    return lease


def test_migration_redraws_the_sides_not_answered_nor_shown_and_tells_the_manager(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(6), seed=0)
    # No mirrored duplicate: an answer may otherwise add one (5% by default), a seventh task
    # the counts below would include (seen once in a whole-suite run).
    comparison.mirror_share = 0
    comparison.save(update_fields=["mirror_share"])
    rater = personas.rater
    answered = sxs_queue(rater=rater, comparison=comparison)[0][0]
    verdict = verdict_submit(rater=rater, task_id=answered.pk, chosen="left").verdict
    recorded = verdict.candidate_side
    held = sxs_queue(rater=rater, comparison=comparison, look_ahead=True)
    (live_task, _), (expired_task, _) = held[0], held[1]
    live = _lease_with_side(live_task, rater, "L", live=True)
    expired = _lease_with_side(expired_task, rater, "L", live=False)
    old_secret = comparison.side_secret

    MIGRATION.redraw_sides(apps, None)

    comparison.refresh_from_db()
    assert comparison.side_secret != old_secret and len(comparison.side_secret) == 64
    new_side = candidate_side_for(
        secret=comparison.side_secret, rater_id=rater.pk, task_id=expired_task.pk
    )
    assert TaskLease.objects.get(pk=expired.pk).candidate_side == new_side
    assert TaskLease.objects.get(pk=live.pk).candidate_side == "L"  # the page shows it now
    assert TaskLease.objects.filter(legacy=False).count() == 0
    verdict.refresh_from_db()
    assert verdict.candidate_side == recorded  # answered: untouched
    assert "5 unanswered tasks" in comparison.sides_notice
    assert "1 answered tasks" in comparison.sides_notice
    manager = personas.client_for("manager")
    report = manager.get(
        reverse(
            "annotate:sxs_report", kwargs={"slug": "campaign-a", "comparison_id": comparison.pk}
        )
    )
    assert "Sides redrawn." in report.content.decode()
    rater_page = personas.client_for("rater").get(sxs_url(comparison)).content.decode()
    assert "Sides redrawn" not in rater_page and comparison.side_secret not in rater_page


def test_each_new_comparison_has_its_own_secret_apart_from_the_seed(personas):
    first = make_comparison(personas.campaign, distinct_lists(2), name="one", seed=0)
    second = comparison_create(
        campaign=personas.campaign,
        name="two",
        baseline=first.baseline,
        candidate=first.candidate,
        seed=0,
    )
    assert first.side_secret != second.side_secret
    api = api_client_for(personas, "manager").get(f"/api/v1/comparisons/{first.pk}/")
    assert first.side_secret not in api.content.decode()


def test_a_rater_cannot_filter_their_grades_by_an_id_to_learn_its_handle(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=3)
    client = personas.client_for("rater")
    url = reverse("annotate:judge_api", kwargs={"slug": "campaign-a"})
    queue = reverse("annotate:judge_api_queue", kwargs={"slug": "campaign-a"})
    good = personas.campaign.labels.get(name="Good").pk
    for shown in client.get(queue).json()["items"]:
        post_json(client, url, {"item": shown["id"], "label": good})
    api = api_client_for(personas, "rater")
    rows = api.get("/api/v1/grades/").json()["results"]
    assert len(rows) == 3
    for row in rows:
        pk = item_id(personas.rater, row["item"])
        assert api.get(f"/api/v1/grades/?item={pk}").json()["results"] == []
        (found,) = api.get(f"/api/v1/grades/?item={row['item']}").json()["results"]
        assert found["item"] == row["item"]
    manager = api_client_for(personas, "manager")
    pk = item_id(personas.rater, rows[0]["item"])
    (row,) = manager.get(f"/api/v1/grades/?item={pk}").json()["results"]
    assert row["item"] == pk  # managers keep ids
