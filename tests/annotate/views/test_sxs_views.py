"""The rater's side-by-side pages and JSON: who gets in, the plain form flow, the JSON flow,
refusals, CSRF, changing an answer, the home page, and blindness."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from annotate.judging.sxs import sxs_queue, verdict_submit
from annotate.models import Side, TaskLease, Verdict, VerdictChange
from tests.annotate.queue_helpers import make_raters
from tests.annotate.sxs_helpers import (
    BASE_RUN,
    BASE_SYSTEM,
    CAND_RUN,
    CAND_SYSTEM,
    distinct_lists,
    make_comparison,
    post_json,
    sxs_url,
    task_handle,
    task_id,
)
from tests.conftest import PERSONA_NAMES


@pytest.fixture
def comparison(personas):
    lists = distinct_lists(3)
    lists["q1"] = (["shared", "q1-a1"], ["q1-b0", "shared"])  # one document on both sides
    return make_comparison(personas.campaign, lists, name="PRODSYSTEM vs BERTSYSTEM, Q4")


def snapshot() -> tuple:
    return (
        sorted(Verdict.objects.values_list("task_id", "rater_id", "value", "strength", "reason")),
        VerdictChange.objects.count(),
    )


def first_task(client: Client, comparison) -> dict:
    return client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"][0]


# ---- Who gets in ------------------------------------------------------------------------------


@pytest.mark.parametrize("persona", PERSONA_NAMES)
def test_only_the_campaigns_raters_reach_the_side_by_side_pages(personas, comparison, persona):
    client = personas.client_for(persona)
    held = sxs_queue(rater=personas.rater, comparison=comparison)
    task_url = sxs_url(comparison, "sxs_task", handle=task_handle(personas.rater, held[0][0]))
    for url in (sxs_url(comparison), task_url):
        response = client.get(url)
        if persona == "anonymous":
            assert response.status_code == 302 and "/login/" in response["Location"]
        elif persona == "rater":
            assert response.status_code == 200
        elif persona == "manager" and url == sxs_url(comparison):
            # A manager who is not a rater is shown the read-only preview (#21,
            # tests/annotate/views/test_preview.py); the task pages stay closed.
            assert response.status_code == 302 and response["Location"].endswith("/preview/")
        else:
            assert response.status_code == 404, (persona, url)
    responses = {
        "queue": client.get(sxs_url(comparison, "sxs_api_queue")),
        "verdicts": post_json(client, sxs_url(comparison, "sxs_api"), {}),
    }
    for name, response in responses.items():
        assert response["Content-Type"] == "application/json"
        if persona == "rater":
            assert response.status_code == (200 if name == "queue" else 400)
        else:
            assert response.status_code == (401 if persona == "anonymous" else 404)
            assert response.json()["ok"] is False


def test_a_comparison_of_another_campaign_is_404_even_with_a_valid_slug(personas, comparison):
    client = personas.client_for("other_rater")
    url = reverse("annotate:sxs", kwargs={"slug": "campaign-b", "comparison_id": comparison.pk})
    assert client.get(url).status_code == 404
    assert post_json(client, url + "api/verdicts/", {}).status_code == 404


@pytest.mark.parametrize("number", [0, 2**63, 10**30])
def test_a_comparison_number_out_of_the_databases_range_is_404(personas, comparison, number):
    # The rater's reads are hand-written statements: SQLite's driver cannot take an integer
    # above 2**63 (OverflowError, a 500) where the ORM's lookup found nothing.
    client = personas.client_for("rater")
    url = reverse("annotate:sxs", kwargs={"slug": "campaign-a", "comparison_id": number})
    assert client.get(url).status_code == 404
    assert client.get(url + "api/queue/").status_code == 404


# ---- Without JavaScript ---------------------------------------------------------------------


def test_the_screen_shows_the_query_both_lists_and_the_keys(personas, comparison):
    response = personas.client_for("rater").get(sxs_url(comparison))
    html = response.content.decode()
    task = response.context["task"]
    assert task["query"] in html
    for doc in task["left"] + task["right"]:
        assert doc["title"] in html and doc["url"] in html
    assert "Left better" in html and "About the same" in html and "Right better" in html
    for key in ("←", "→", "↓", ">A<", ">S<", ">D<", ">1<", ">2<", ">3<", "⌫"):
        assert key in html, key
    assert 'id="rater-progress"' in html
    assert "Side-by-side 1" in html


def test_a_document_on_both_sides_is_marked_on_both(personas, comparison):
    client = personas.client_for("rater")
    tasks = client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"]
    first = task_id(personas.rater, tasks[0]["id"])
    verdict_submit(rater=personas.rater, task_id=first, chosen="same")
    task = next(t for t in client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"])
    assert task["query"] == "query text q1"
    left = {d["title"]: d["pair"] for d in task["left"]}
    right = {d["title"]: d["pair"] for d in task["right"]}
    assert left["Title of shared"] == right["Title of shared"] == 1
    assert sorted(left.values()) == sorted(right.values()) == [0, 1]
    # Each side says where the twin is shown on the other: a moved result is easy to see.
    twins = {side: {d["title"]: d["twin"] for d in task[side]} for side in ("left", "right")}
    shared_left = [d["title"] for d in task["left"]].index("Title of shared") + 1
    shared_right = [d["title"] for d in task["right"]].index("Title of shared") + 1
    assert twins["left"]["Title of shared"] == shared_right
    assert twins["right"]["Title of shared"] == shared_left
    for side in ("left", "right"):
        assert all(t == 0 for title, t in twins[side].items() if title != "Title of shared")
    html = client.get(sxs_url(comparison)).content.decode()
    # Both are marked for the pointer to link them (sxs.js); in words only when one moved: a
    # tag on every shared result would tell nothing (issue 21).
    assert html.count('<li class="sxs-result is-shared" data-pair="1">') == 2
    assert 'class="badge"' not in html
    moved = f"#{shared_right} on the right", f"#{shared_left} on the left"
    assert all((text in html) == (shared_left != shared_right) for text in moved)


def test_an_answer_posted_without_javascript_is_stored_and_redirects(personas, comparison):
    client = personas.client_for("rater")
    page = client.get(sxs_url(comparison))
    shown = page.context["task"]["id"]
    response = client.post(
        sxs_url(comparison),
        {"task": shown, "chosen": "left", "strength": "2", "reason": " fuller ", "shown_at": "1"},
    )
    assert response.status_code == 302 and response["Location"] == sxs_url(comparison)
    verdict = Verdict.objects.get()
    assert verdict.task_id == task_id(personas.rater, shown)
    assert verdict.strength == 2 and verdict.reason == "fuller"
    assert verdict.value == ("G" if verdict.candidate_side == Side.LEFT else "B")
    # The next page shows the next task and a way back to the answer just given.
    page = client.get(sxs_url(comparison))
    assert page.context["task"]["id"] != shown
    assert sxs_url(comparison, "sxs_task", handle=shown) in page.content.decode()


@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        ({"chosen": "candidate"}, 400, "Choose Left better"),
        ({"chosen": ""}, 400, "Choose Left better"),
        ({"chosen": "left", "strength": "5"}, 400, "strength"),
        ({"chosen": "left", "task": "999999"}, 404, "not part of this comparison"),
    ],
)
def test_a_refused_form_post_answers_4xx_and_says_why(personas, comparison, data, status, message):
    client = personas.client_for("rater")
    task_id = client.get(sxs_url(comparison)).context["task"]["id"]
    before = snapshot()
    response = client.post(sxs_url(comparison), {"task": task_id, **data})
    assert response.status_code == status
    assert message in response.content.decode()
    assert snapshot() == before


def test_changing_an_answer_on_its_page_keeps_the_sides_and_the_earlier_answer(
    personas, comparison
):
    client = personas.client_for("rater")
    shown = client.get(sxs_url(comparison)).context["task"]["id"]
    client.post(sxs_url(comparison), {"task": shown, "chosen": "right", "strength": "3"})
    url = sxs_url(comparison, "sxs_task", handle=shown)
    page = client.get(url)
    html = page.content.decode()
    assert "Right better (much)" in html
    assert 'id="choose-right" aria-keyshortcuts="ArrowRight D" aria-pressed="true"' in html
    assert 'name="replaces" value="right:3"' in html
    assert client.post(url, {"task": task_id, "chosen": "same"}).status_code == 409  # unseen
    posted = {"task": 12345, "chosen": "same", "replaces": page.context["replaces"]}
    response = client.post(url, posted)  # the URL names the task
    assert response.status_code == 302
    verdict = Verdict.objects.get()
    expected = (task_id(personas.rater, shown), "S", None)
    assert (verdict.task_id, verdict.value, verdict.strength) == expected
    assert VerdictChange.objects.count() == 1


def test_a_task_the_rater_never_held_is_404(personas, comparison):
    client = personas.client_for("rater")
    client.get(sxs_url(comparison))
    other = comparison.tasks.exclude(leases__rater=personas.rater).first()
    for name in (task_handle(personas.rater, other), str(other.pk), "AAAAAAAAAAA"):
        assert client.get(sxs_url(comparison, "sxs_task", handle=name)).status_code == 404


def test_when_everything_is_answered_the_rater_sees_all_done(personas, comparison):
    client = personas.client_for("rater")
    while tasks := client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"]:
        post_json(
            client, sxs_url(comparison, "sxs_api"), {"task": tasks[0]["id"], "chosen": "same"}
        )
    response = client.get(sxs_url(comparison))
    assert response.status_code == 200
    assert "All done" in response.content.decode()
    assert Verdict.objects.count() == 3


# ---- JSON -------------------------------------------------------------------------------------


def test_a_json_answer_is_stored_once_and_answers_with_what_comes_next(personas, comparison):
    client = personas.client_for("rater")
    state = client.get(sxs_url(comparison, "sxs_api_queue")).json()
    assert [t["query"] for t in state["tasks"]] == ["query text q0", "query text q1"]  # prefetched
    body = {"task": state["tasks"][0]["id"], "chosen": "right", "strength": None, "reason": ""}
    first = post_json(client, sxs_url(comparison, "sxs_api"), body).json()
    again = post_json(client, sxs_url(comparison, "sxs_api"), body).json()
    assert first["result"] == "created" and again["result"] == "unchanged"
    assert Verdict.objects.count() == 1
    assert "progress" not in first  # counting is slow: the page asks for it once per query
    progress = client.get(sxs_url(comparison, "sxs_api_progress")).json()
    assert progress["progress"]["done"] == 1
    assert [t["query"] for t in first["tasks"]] == ["query text q1", "query text q2"]


def test_a_verdict_gets_the_tasks_its_page_holds_by_name_alone(personas, comparison):
    client = personas.client_for("rater")
    held = [t["id"] for t in client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"]]
    body = {"task": held[0], "chosen": "left", "strength": 2, "known": held}
    reply = post_json(client, sxs_url(comparison, "sxs_api"), body).json()
    assert reply["result"] == "created"
    whole = client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"]
    assert (
        [t["id"] for t in reply["tasks"]] == [t["id"] for t in whole] == [held[1], whole[1]["id"]]
    )
    assert reply["tasks"][0] == {"id": held[1], "known": True}
    assert reply["tasks"][1] == whole[1] and whole[1]["left"] and whole[1]["right"]


@pytest.mark.parametrize("persona", PERSONA_NAMES)
def test_the_progress_endpoint_counts_for_the_rater_alone(personas, comparison, persona):
    client = personas.client_for(persona)
    ((task, _),) = sxs_queue(rater=personas.rater, comparison=comparison)[:1]
    verdict_submit(rater=personas.rater, comparison=comparison, task_id=task.pk, chosen="same")
    response = client.get(sxs_url(comparison, "sxs_api_progress"))
    assert response["Content-Type"] == "application/json"
    if persona != "rater":
        assert response.status_code == (401 if persona == "anonymous" else 404)
        assert response.json()["ok"] is False
        return
    data = response.json()
    # Three queries, one task each, one rater per task: one answered, two left.
    assert data["progress"] == {
        "done": 1,
        "verdicts": 1,
        "cant_judge": 0,
        "skipped": 0,
        "left": 2,
        "assigned": 3,
    }
    assert data["overall"] == {"counted": 1, "needed": 3}


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ("not json", 400),
        ("[1, 2]", 400),
        ({"chosen": "left"}, 400),
        ({"task": -1, "chosen": "left"}, 400),
        ({"task": "TASK", "chosen": "up"}, 400),
        ({"task": "TASK", "chosen": "left", "strength": 0}, 400),
        ({"task": "OTHER", "chosen": "left"}, 403),
        ({"task": 10**9, "chosen": "left"}, 404),
        ({"task": "TASK", "chosen": "left", "known": "TASK"}, 400),
        ({"task": "TASK", "chosen": "left", "known": [7]}, 400),
    ],
)
def test_refused_json_answers_are_4xx_and_leave_the_database_unchanged(
    personas, comparison, body, status
):
    client = personas.client_for("rater")
    held = client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"][0]["id"]
    other = task_handle(
        personas.rater, comparison.tasks.exclude(leases__rater=personas.rater).first()
    )
    if isinstance(body, dict):
        names = {"TASK": held, "OTHER": other}
        body = {k: names.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    before = snapshot()
    response = post_json(client, sxs_url(comparison, "sxs_api"), body)
    assert response.status_code == status
    assert response.json()["ok"] is False and response.json()["error"]
    assert snapshot() == before


def test_answers_without_a_valid_csrf_token_are_refused(personas, comparison):
    client = Client(enforce_csrf_checks=True)
    client.force_login(personas.rater)
    task_id = client.get(sxs_url(comparison)).context["task"]["id"]
    body = {"task": task_id, "chosen": "left"}
    before = snapshot()
    assert post_json(client, sxs_url(comparison, "sxs_api"), body).status_code == 403
    response = post_json(client, sxs_url(comparison, "sxs_api"), body, HTTP_X_CSRFTOKEN="x" * 32)
    assert response.status_code == 403
    assert client.post(sxs_url(comparison), body).status_code == 403
    assert snapshot() == before
    token = client.cookies["csrftoken"].value
    response = post_json(client, sxs_url(comparison, "sxs_api"), body, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200 and Verdict.objects.count() == 1


# ---- Home --------------------------------------------------------------------------------------


def test_home_shows_the_side_by_side_queue_without_its_name(personas, comparison):
    client = personas.client_for("rater")
    html = client.get(reverse("annotate:home")).content.decode()
    assert "Side-by-side comparisons" in html and "Start comparing" in html
    assert f'href="{sxs_url(comparison)}"' in html
    assert "PRODSYSTEM" not in html and "0 of 3 done" in html
    other = personas.client_for("other_rater").get(reverse("annotate:home")).content.decode()
    assert sxs_url(comparison) not in other


# ---- Blind -------------------------------------------------------------------------------------

SECRETS = [
    BASE_SYSTEM, CAND_SYSTEM, BASE_RUN, CAND_RUN, "PRODSYSTEM", "BERTSYSTEM", "123457",
    "candidate", "baseline", "Candidate", "Baseline", "rank", "score", "OTHER-RATER-", "PEER-NOTE",
]  # fmt: skip


def test_nothing_a_rater_receives_tells_the_sides_systems_runs_scores_or_peers(
    personas, comparison
):
    comparison.raters_per_task = 2
    comparison.save()
    (other,) = make_raters(personas.campaign, 1, prefix="OTHER-RATER-")
    for task, _ in sxs_queue(rater=other, comparison=comparison):
        verdict_submit(rater=other, task_id=task.pk, chosen="left", reason="PEER-NOTE")
    client = personas.client_for("rater")
    pages = [client.get(sxs_url(comparison)), client.get(sxs_url(comparison, "sxs_api_queue"))]
    shown = pages[1].json()["tasks"][0]["id"]
    pages.append(
        post_json(client, sxs_url(comparison, "sxs_api"), {"task": shown, "chosen": "left"})
    )
    pages.append(
        post_json(client, sxs_url(comparison, "sxs_api"), {"task": 10**9, "chosen": "left"})
    )
    pages += [
        client.get(sxs_url(comparison, "sxs_task", handle=shown)),
        client.get(sxs_url(comparison)),
        client.get(reverse("annotate:home")),
    ]
    for response in pages:
        text = response.content.decode()
        for secret in SECRETS:
            assert secret not in text, (secret, response.request["PATH_INFO"])
        # No Good/Bad wording either: with the chosen side it would give the sides away.
        assert not re.search(r"\b(Good|Bad)\b", text), response.request["PATH_INFO"]
    # Nor do the JSON payloads carry a side field.
    for task in pages[1].json()["tasks"]:
        assert set(task) == {"id", "query", "description", "left", "right"}
        for doc in task["left"] + task["right"]:
            assert set(doc) == {"title", "url", "snippet", "pair", "twin"}


def test_the_lease_side_decides_what_is_shown_on_the_left(personas, comparison):
    client = personas.client_for("rater")
    task = first_task(client, comparison)
    lease = TaskLease.objects.get(task_id=task_id(personas.rater, task["id"]), rater=personas.rater)
    left_titles = [d["title"] for d in task["left"]]
    expected = "b" if lease.candidate_side == Side.LEFT else "a"  # candidate docs are q0-b*
    assert left_titles == [f"Title of q0-{expected}{j}" for j in range(3)]


def test_my_answers_lists_verdicts_cant_judge_and_skips_as_the_rater_saw_them(personas, comparison):
    client = personas.client_for("rater")
    url = sxs_url(comparison, "sxs_api")
    tasks = client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"]
    post_json(client, url, {"task": tasks[0]["id"], "chosen": "right", "strength": 2})
    post_json(client, url, {"task": tasks[0]["id"], "chosen": "left", "replaces": "right:2"})
    post_json(client, url, {"task": tasks[1]["id"], "action": "skip"})
    third = client.get(sxs_url(comparison, "sxs_api_queue")).json()["tasks"][0]["id"]
    post_json(client, url, {"task": third, "chosen": "cant_judge", "reason": "blank page"})
    page = client.get(sxs_url(comparison, "sxs_history"))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Left better" in html and "<s>Right better (clearly)</s>" in html
    assert "Can&#x27;t judge" in html and "(blank page)" in html
    assert f'data-skipped-task="{tasks[1]["id"]}"' in html
    # The rater's own words only: never Good or Bad for the candidate, nor the systems.
    for secret in ("Good", "Bad", "candidate", comparison.baseline.name, comparison.name):
        assert secret not in html
    # Opening the skipped task offers to undo the skip.
    skipped = client.get(sxs_url(comparison, "sxs_task", handle=tasks[1]["id"]))
    assert 'id="unskip-button"' in skipped.content.decode()


@pytest.mark.parametrize("persona", ["other_rater", "outsider", "other_manager"])
def test_my_answers_is_404_for_anyone_but_the_comparisons_raters(personas, comparison, persona):
    response = personas.client_for(persona).get(sxs_url(comparison, "sxs_history"))
    assert response.status_code == 404
