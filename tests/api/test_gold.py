"""Gold through the API: managers mark, list and unmark gold and read each rater's accuracy;
every other persona is refused and changes nothing."""

from __future__ import annotations

import pytest

from annotate.models import GoldItem, GoldTask, PoolItem, SxsTask
from tests.api.conftest import api_client_for
from tests.conftest import PERSONA_NAMES

OUTSIDERS = {"rater": 404, "other_rater": 404, "other_manager": 404, "outsider": 404}


def _refused_for_all_but_the_manager(personas, send) -> None:
    others = [name for name in PERSONA_NAMES if name != "manager"]
    got = {name: send(api_client_for(personas, name)).status_code for name in others}
    assert got == {**OUTSIDERS, "anonymous": 401}


def test_a_manager_marks_lists_and_unmarks_gold_items_no_one_else_can(personas, data):
    good = personas.campaign.labels.get(name="Good")
    url = "/api/v1/campaigns/campaign-a/gold/"
    body = {"item": data.item.pk, "label": good.pk, "explanation": "plainly on topic"}
    for name in [n for n in PERSONA_NAMES if n != "manager"]:
        response = api_client_for(personas, name).post(url, body, format="json")
        assert response.status_code == (401 if name == "anonymous" else 404)
        assert not GoldItem.objects.exists()
    manager = api_client_for(personas, "manager")
    response = manager.post(url, {**body, "low": 1, "high": 3}, format="json")
    assert response.status_code == 201, response.json()
    made = response.json()
    assert made["item"] == data.item.pk and made["explanation"] == "plainly on topic"
    assert set(made["accepted"]) >= {good.pk}
    assert PoolItem.objects.get(pk=data.item.pk).gold
    (listed,) = manager.get(url).json()
    assert listed["query"] == "q1" and listed["purpose"] == "honeypot"
    # Real work's lists leave the answer to gold out for the manager; the rater sees their own.
    assert manager.get("/api/v1/grades/").json()["results"] == []
    assert len(api_client_for(personas, "rater").get("/api/v1/grades/").json()["results"]) == 1
    accuracy = manager.get(url + "accuracy/").json()
    (row,) = accuracy  # the rater's grade (Good) on the item is now an answer to gold
    assert row["rater"] == "rater" and row["exact"]["k"] == 1 and row["exact"]["n"] == 1
    gone = f"{url}{data.item.pk}/"
    _refused_for_all_but_the_manager(personas, lambda c: c.delete(gone))
    assert GoldItem.objects.count() == 1
    assert manager.delete(gone).json() == {"id": data.item.pk, "gold": False}
    assert not PoolItem.objects.get(pk=data.item.pk).gold
    assert manager.delete(gone).status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {"item": "x", "label": 1},
        {"label": 1},
        {"item": 1, "label": 10**30},
        {"item": 1, "label": 1, "purpose": "fun"},
        {"item": 1, "label": 1, "low": 1},
        {"item": 1, "label": 1, "low": 3, "high": 1},
        {"item": 1, "label": 1, "explanation": "x" * 2001},
        "not an object",
    ],
)
def test_bad_gold_is_a_400_with_a_message_and_changes_nothing(personas, data, body):
    manager = api_client_for(personas, "manager")
    body = body if isinstance(body, str) else {**body}
    if isinstance(body, dict) and body.get("item") == 1:
        body["item"] = data.item.pk
    if isinstance(body, dict) and body.get("label") == 1:
        body["label"] = personas.campaign.labels.get(name="Good").pk
    response = manager.post("/api/v1/campaigns/campaign-a/gold/", body, format="json")
    assert response.status_code == 400 and response.json()["detail"]
    assert not GoldItem.objects.exists()


def test_another_campaigns_item_or_label_is_refused(personas, data):
    manager = api_client_for(personas, "manager")
    other_item = PoolItem.objects.filter(campaign=personas.other_campaign).first()
    good = personas.campaign.labels.get(name="Good")
    other_label = personas.other_campaign.labels.get(name="Good")
    url = "/api/v1/campaigns/campaign-a/gold/"
    if other_item is not None:
        response = manager.post(url, {"item": other_item.pk, "label": good.pk}, format="json")
        assert response.status_code == 400
    response = manager.post(url, {"item": data.item.pk, "label": other_label.pk}, format="json")
    assert response.status_code == 400
    assert not GoldItem.objects.exists()


def test_a_manager_marks_gold_tasks_no_one_else_can(personas, data):
    task = SxsTask.objects.filter(comparison=data.comparison, identical=False).first()
    url = f"/api/v1/comparisons/{data.comparison.pk}/gold/"
    body = {"task": task.pk, "value": "G", "explanation": "more on topic"}
    for name in [n for n in PERSONA_NAMES if n != "manager"]:
        response = api_client_for(personas, name).post(url, body, format="json")
        assert response.status_code == (401 if name == "anonymous" else 404)
    assert not GoldTask.objects.exists()
    manager = api_client_for(personas, "manager")
    response = manager.post(url, body, format="json")
    assert response.status_code == 201 and response.json()["value"] == "G"
    assert manager.post(url, {**body, "value": "Q"}, format="json").status_code == 400
    assert [row["task"] for row in manager.get(url).json()] == [task.pk]
    assert manager.get(url + "accuracy/").json() == []
    other = f"/api/v1/comparisons/{data.other_comparison.pk}/gold/"
    assert manager.post(other, body, format="json").status_code == 404
    assert manager.delete(f"{url}{task.pk}/").status_code == 200
    assert not SxsTask.objects.get(pk=task.pk).gold
