"""Side-by-side through the API: a blind queue, verdicts under the page's rules, and the GSB
result with its interval, sign test and decision (STATISTICS.md)."""

from __future__ import annotations

import pytest

from annotate.models import TaskLease, Verdict
from tests.annotate.sxs_helpers import (
    BASE_RUN,
    BASE_SYSTEM,
    CAND_RUN,
    CAND_SYSTEM,
    SCORE_TOP,
    distinct_lists,
    make_comparison,
    task_handle,
    task_id,
)
from tests.api.conftest import api_client_for


def _verdict(client, comparison, task: int, chosen: str, **extra):
    body = {"comparison": comparison.pk, "task": task, "chosen": chosen, **extra}
    return client.post("/api/v1/verdicts/", body, format="json")


def _choose(rater, handle: str, value: str) -> str:
    """The side a rater must pick for Good/Same/Bad, from the side recorded with the lease."""
    if value == "S":
        return "same"
    side = TaskLease.objects.get(rater=rater, task_id=task_id(rater, handle)).candidate_side
    candidate = "left" if side == "L" else "right"
    return candidate if value == "G" else {"left": "right", "right": "left"}[candidate]


def test_the_queue_is_blind(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(2))
    response = api_client_for(personas, "rater").get(f"/api/v1/comparisons/{comparison.pk}/queue/")
    assert response.status_code == 200
    body = response.json()
    task = body["tasks"][0]
    assert set(task) == {"id", "query", "description", "left", "right"}
    assert [len(task["left"]), len(task["right"])] == [3, 3]
    text = response.content.decode()
    for secret in (BASE_SYSTEM, CAND_SYSTEM, BASE_RUN, CAND_RUN, str(SCORE_TOP), "candidate"):
        assert secret not in text


def test_seed_002_through_the_api_gives_its_gsb_and_decision(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(4))
    rater = api_client_for(personas, "rater")
    answers = iter("GSBB")
    given = 0
    while True:
        tasks = rater.get(f"/api/v1/comparisons/{comparison.pk}/queue/").json()["tasks"]
        if not tasks:
            break
        task = tasks[0]["id"]
        response = _verdict(rater, comparison, task, _choose(personas.rater, task, next(answers)))
        assert response.status_code == 201, response.content
        given += 1
    assert given == 4
    body = api_client_for(personas, "manager").get(f"/api/v1/comparisons/{comparison.pk}/gsb/")
    assert body.status_code == 200
    result = body.json()["result"]
    assert (result["good"], result["same"], result["bad"]) == (1, 1, 2)
    assert result["gsb"] == pytest.approx(-0.25)
    assert result["se"] == pytest.approx(0.4146, abs=1e-4)
    assert result["ci_low"] == pytest.approx(-0.7783, abs=1e-4)
    assert result["ci_high"] == pytest.approx(0.5047, abs=1e-4)
    assert result["sign_p"] == pytest.approx(1.0)
    assert body.json()["decision"] == "do_not_launch"
    assert body.json()["headline"].startswith("Do not launch")
    launch = body.json()["launch"]
    assert (launch["state"], launch["path"], launch["provisional"]) == (
        "do_not_launch",
        "fixed",
        False,
    )
    assert (launch["planned_queries"], launch["completed_queries"]) == (4, 4)
    assert launch["fixed_interval"]["low"] == pytest.approx(-0.7783, abs=1e-4)
    assert -1 <= launch["sequence_interval"]["low"] <= launch["sequence_interval"]["high"] <= 1
    assert launch["sentence"].startswith("The candidate was preferred on 1 of 4 answers")
    csv = api_client_for(personas, "manager").get(
        f"/api/v1/comparisons/{comparison.pk}/gsb/", {"format": "csv"}
    )
    assert csv["Content-Type"].startswith("text/csv")
    lines = csv.content.decode().splitlines()
    assert lines[0].startswith("query,text,tasks,good,same,bad")
    assert len(lines) == 5


def test_a_rater_sees_their_verdicts_as_sides_never_as_good_or_bad(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(1))
    client = api_client_for(personas, "rater")
    task = client.get(f"/api/v1/comparisons/{comparison.pk}/queue/").json()["tasks"][0]["id"]
    response = _verdict(client, comparison, task, "left", strength=2, reason="fresher")
    assert response.status_code == 201
    assert response.json()["verdict"]["chosen"] == "left"
    assert response.json()["verdict"]["value"] is None
    assert response.json()["verdict"]["candidate_side"] is None
    again = _verdict(client, comparison, task, "left", strength=2)
    assert (again.status_code, again.json()["result"]) == (200, "unchanged")
    (row,) = client.get("/api/v1/verdicts/").json()["results"]
    assert (row["chosen"], row["value"], row["strength"]) == ("left", None, 2)
    (managed,) = api_client_for(personas, "manager").get("/api/v1/verdicts/").json()["results"]
    assert managed["value"] == Verdict.objects.get().value
    assert managed["candidate_side"] in ("L", "R")


def test_a_task_not_leased_is_refused_and_a_bad_choice_named(personas):
    # Three queries: the queue holds the first and looks ahead to the second only.
    comparison = make_comparison(personas.campaign, distinct_lists(3))
    client = api_client_for(personas, "rater")
    held = client.get(f"/api/v1/comparisons/{comparison.pk}/queue/").json()["tasks"]
    held_ids = [task_id(personas.rater, t["id"]) for t in held]
    other = comparison.tasks.exclude(pk__in=held_ids).first()
    assert (
        _verdict(client, comparison, task_handle(personas.rater, other), "same").status_code == 403
    )
    # Its id is refused too: ids are taken only for leases held when handles came.
    assert _verdict(client, comparison, other.pk, "same").status_code == 404
    bad = _verdict(client, comparison, held[0]["id"], "up")
    assert bad.status_code == 400
    assert "chosen" in bad.json()["errors"]


def test_a_manager_sets_up_a_comparison_and_reads_its_tasks(personas, data):
    client = api_client_for(personas, "manager")
    response = client.post(
        "/api/v1/comparisons/",
        {
            "campaign": "campaign-a",
            "name": "bm25 vs bert",
            "baseline": "bm25",
            "candidate": "bert",
            "depth": 2,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    created = response.json()
    assert (created["baseline"], created["candidate"], created["depth"]) == ("bm25", "bert", 2)
    tasks = client.get(f"/api/v1/comparisons/{created['id']}/tasks/").json()["results"]
    assert created["tasks"] == len(tasks) > 0
    twice = client.post(
        "/api/v1/comparisons/",
        {"campaign": "campaign-a", "name": "bm25 vs bert", "baseline": "bm25", "candidate": "nope"},
        format="json",
    )
    assert twice.status_code == 400
    assert twice.json()["detail"] == "No run named 'nope' in this campaign."


def test_the_api_keeps_the_answer_rules_skip_cant_judge_and_conflicts(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(3))
    client = api_client_for(personas, "rater")
    queue = f"/api/v1/comparisons/{comparison.pk}/queue/"
    skip_url = f"/api/v1/comparisons/{comparison.pk}/queue/skip/"
    first = client.get(queue).json()["tasks"][0]["id"]
    skipped = client.post(skip_url, {"task": first}, format="json")
    assert (skipped.status_code, skipped.json()["result"]) == (200, "skipped")
    # A verdict on the skipped task, from a script that did not know of the skip: 409.
    refused = _verdict(client, comparison, first, "left")
    assert refused.status_code == 409
    assert refused.json()["conflict"] == {"stored": {"skipped": True}, "replaces": "skip"}
    undone = client.post(skip_url, {"task": first, "undo": True}, format="json")
    assert undone.json()["result"] == "unskipped"
    assert first in [t["id"] for t in client.get(queue).json()["tasks"]]
    cant = _verdict(client, comparison, first, "cant_judge", reason="blank pages")
    assert cant.status_code == 201
    body = cant.json()["verdict"]
    assert (body["chosen"], body["cant_judge"], body["replaces"]) == (
        "cant_judge",
        True,
        "cant_judge",
    )
    # Changing it needs the token the API gave; without, a conflict that names what is stored.
    unseen = _verdict(client, comparison, first, "right", strength=2)
    assert unseen.status_code == 409
    assert unseen.json()["conflict"]["stored"] == {"chosen": "cant_judge", "strength": None}
    changed = _verdict(client, comparison, first, "right", strength=2, replaces=body["replaces"])
    assert (changed.status_code, changed.json()["result"]) == (200, "changed")
    assert changed.json()["verdict"]["replaces"] == "right:2"
    verdict = Verdict.objects.get()
    assert (verdict.cant_judge, verdict.reason) == (False, "")


def test_an_outsider_cannot_skip_a_task(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(1))
    task = (
        api_client_for(personas, "rater")
        .get(f"/api/v1/comparisons/{comparison.pk}/queue/")
        .json()["tasks"][0]["id"]
    )
    for persona in ("other_rater", "outsider", "other_manager"):
        response = api_client_for(personas, persona).post(
            f"/api/v1/comparisons/{comparison.pk}/queue/skip/", {"task": task}, format="json"
        )
        assert response.status_code == 404, persona
    assert not TaskLease.objects.exclude(rater=personas.rater).exists()
