"""Grading through the API obeys the judging page's rules: the queue leases, the lease decides
who may grade, an item never gets more raters than it needs, a repeat is stored once."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from annotate.models import Grade, GradeChange, Lease
from tests.annotate.queue_helpers import build_pool, handle, item_id
from tests.annotate.sxs_helpers import SCORE_TOP
from tests.api.conftest import api_client_for

QUEUE = "/api/v1/campaigns/campaign-a/queue/"


def _grade(client, item: int, **body):
    return client.post(
        "/api/v1/grades/", {"campaign": "campaign-a", "item": item, **body}, format="json"
    )


def test_the_queue_leases_one_query_and_names_the_labels(personas):
    build_pool(personas.campaign, queries=2, docs_per_query=3)
    body = api_client_for(personas, "rater").get(QUEUE).json()
    assert len(body["items"]) == 3
    assert {item["query"] for item in body["items"]} == {"query 0"}
    assert [(label["name"], label["key"], label["number"]) for label in body["labels"]] == [
        ("Good", "g", 1),
        ("Fair", "f", 2),
        ("Bad", "b", 3),
    ]
    assert body["progress"]["assigned"] == 6
    assert Lease.objects.filter(rater=personas.rater).count() == 3


def test_the_queue_tells_a_rater_nothing_of_systems_runs_ranks_or_scores(personas, data):
    Lease.objects.all().delete()
    Grade.objects.all().delete()
    text = api_client_for(personas, "rater").get(QUEUE).content.decode()
    for secret in ("bm25", "bert", "RUNBASE", "PRODSYSTEM", "rank", "score", str(SCORE_TOP)):
        assert secret not in text


def test_a_leased_item_is_graded_once_then_changed_with_history(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=2)
    client = api_client_for(personas, "rater")
    item = client.get(QUEUE).json()["items"][0]["id"]
    first = _grade(client, item, label="good", seconds=4.5)
    assert first.status_code == 201
    assert first.json()["result"] == "created"
    assert first.json()["grade"]["label"] == "Good"
    again = _grade(client, item, label="Good")
    assert (again.status_code, again.json()["result"]) == (200, "unchanged")
    # A different grade from a script that had not read the stored one: a conflict that says
    # what is stored, and the token that replaces it.
    unseen = _grade(client, item, cant_judge=True, comment="broken page")
    assert unseen.status_code == 409
    assert unseen.json()["conflict"]["replaces"] == first.json()["grade"]["replaces"]
    changed = _grade(
        client,
        item,
        cant_judge=True,
        comment="broken page",
        replaces=unseen.json()["conflict"]["replaces"],
    )
    assert (changed.status_code, changed.json()["result"]) == (200, "changed")
    assert changed.json()["grade"]["cant_judge"] is True
    assert Grade.objects.count() == 1
    assert GradeChange.objects.get().label.name == "Good"


def test_an_item_not_leased_to_the_rater_is_refused(personas):
    items = build_pool(personas.campaign, queries=2, docs_per_query=2)
    client = api_client_for(personas, "rater")
    held = {item_id(personas.rater, item["id"]) for item in client.get(QUEUE).json()["items"]}
    other = next(i.pk for i in items if i.pk not in held)
    response = _grade(client, handle(personas.rater, other), label="Good")
    assert response.status_code == 403
    assert response.json() == {"detail": "This item is not assigned to you."}


def test_two_raters_never_share_an_item_that_needs_one(personas, second_rater):
    build_pool(personas.campaign, queries=1, docs_per_query=2)
    first = api_client_for(personas, "rater").get(QUEUE).json()["items"]
    second_client = api_client_for(personas, "rater")
    second_client.force_authenticate(second_rater)
    assert second_client.get(QUEUE).json()["items"] == []
    mine = handle(second_rater, item_id(personas.rater, first[0]["id"]))
    assert _grade(second_client, mine, label="Good").status_code == 403
    # The first rater's handle names nothing for the second.
    assert _grade(second_client, first[0]["id"], label="Good").status_code == 404


def test_a_late_grade_on_an_item_graded_meanwhile_is_refused_with_409(personas, second_rater):
    build_pool(personas.campaign, queries=1, docs_per_query=1)
    client = api_client_for(personas, "rater")
    item = client.get(QUEUE).json()["items"][0]["id"]
    Lease.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    other = api_client_for(personas, "rater")
    other.force_authenticate(second_rater)
    theirs = other.get(QUEUE).json()["items"][0]["id"]
    assert item_id(second_rater, theirs) == item_id(personas.rater, item)
    assert theirs != item  # each rater has their own handle for it
    assert _grade(other, theirs, label="Bad").status_code == 201
    late = _grade(client, item, label="Good")
    assert late.status_code == 409
    assert "not needed" in late.json()["detail"]


def test_it_rejects_a_label_off_the_scale_naming_the_scale(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=1)
    client = api_client_for(personas, "rater")
    item = client.get(QUEUE).json()["items"][0]["id"]
    response = _grade(client, item, label="Perfect")
    assert response.status_code == 400
    assert (
        response.json()["detail"]
        == "No label 'Perfect' on this campaign's scale (Good, Fair, Bad)."
    )
    assert _grade(client, item).status_code == 400
    assert _grade(client, item, label_id=999999).status_code == 400


def test_it_rejects_malformed_input_with_the_field_named(personas):
    client = api_client_for(personas, "rater")
    response = client.post("/api/v1/grades/", {"campaign": "campaign-a"}, format="json")
    assert response.status_code == 400
    assert "item" in response.json()["errors"]
    assert response.json()["detail"].startswith("item: ")
    response = client.post("/api/v1/grades/", "not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"].startswith("JSON parse error")


def test_a_skipped_item_is_not_offered_again(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=2)
    client = api_client_for(personas, "rater")
    items = [i["id"] for i in client.get(QUEUE).json()["items"]]
    response = client.post(f"{QUEUE}skip/", {"item": items[0]}, format="json")
    assert response.status_code == 200
    assert [i["id"] for i in client.get(QUEUE).json()["items"]] == items[1:]


def test_grades_filter_by_rater_query_label_and_time(personas, data, second_rater):
    manager = api_client_for(personas, "manager")

    def ids(**params):
        response = manager.get("/api/v1/grades/", params)
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["results"]]

    assert ids(campaign="campaign-a") == [data.grade.pk]
    assert ids(rater="rater") == [data.grade.pk]
    assert ids(rater="rater2") == []
    assert ids(query="q1", label="Good") == [data.grade.pk]
    assert ids(label="Bad") == []
    before = (data.grade.changed_at - timedelta(seconds=1)).isoformat()
    after = (data.grade.changed_at + timedelta(seconds=1)).isoformat()
    assert ids(changed_after=before, changed_before=after) == [data.grade.pk]
    assert ids(changed_after=after) == []
    assert manager.get("/api/v1/grades/", {"changed_after": "yesterday"}).status_code == 400


def test_grades_page_by_cursor_in_id_order(personas):
    items = build_pool(personas.campaign, queries=1, docs_per_query=5)
    label = personas.campaign.labels.get(name="Fair")
    for item in items:
        Grade.objects.create(pool_item=item, rater=personas.rater, label=label)
    client = api_client_for(personas, "manager")
    seen, url = [], "/api/v1/grades/?page_size=2"
    while url:
        body = client.get(url).json()
        seen += [row["id"] for row in body["results"]]
        url = body["next"]
    assert seen == sorted(Grade.objects.values_list("pk", flat=True))
