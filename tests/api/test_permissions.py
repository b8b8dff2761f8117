"""Every endpoint with every persona (tests/conftest.py): the API enforces the pages' rules.

Managers see everything of their campaigns; raters only their own queue, grades and verdicts;
anyone else gets 404 for a campaign's things (its existence is not revealed) or an empty list;
anonymous callers get 401.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.judging import handles
from annotate.models import Query, SxsTask
from tests.api.conftest import api_client_for
from tests.conftest import PERSONA_NAMES


def statuses(default: int = 404, **given: int) -> dict[str, int]:
    out = dict.fromkeys(PERSONA_NAMES, default)
    out["anonymous"] = 401
    out.update(given)
    return out


MANAGER_ONLY = statuses(manager=200)
RATER_ONLY = statuses(rater=200)
MEMBERS = statuses(manager=200, rater=200)
EVERYONE = statuses(200, outsider=200, anonymous=401)


def _first_query(data) -> int:
    return Query.objects.get(campaign=data.run.campaign, external_id="q1").pk


def _first_task(data) -> str:
    tasks = SxsTask.objects.filter(comparison=data.comparison, identical=False)
    return _rater_handle(handles.SXS, tasks.order_by("pk").first().pk)


def _rater_handle(kind: str, task_id: int) -> str:
    """The rater persona's handle for a task: what their queue would have named it. Every
    persona sends the same one; it names nothing for anyone else."""
    rater = get_user_model().objects.get(username="rater")
    return handles.handle_for(rater.pk, kind, task_id)


# (name, url builder, expected status per persona)
READS = [
    ("me", lambda d: "/api/v1/me/", EVERYONE),
    ("campaign", lambda d: "/api/v1/campaigns/campaign-a/", MEMBERS),
    ("query", lambda d: f"/api/v1/queries/{_first_query(d)}/", MANAGER_ONLY),
    ("document", lambda d: f"/api/v1/documents/{d.item.document_id}/", MANAGER_ONLY),
    ("system", lambda d: f"/api/v1/systems/{d.run.system_id}/", MANAGER_ONLY),
    ("run", lambda d: f"/api/v1/runs/{d.run.pk}/", MANAGER_ONLY),
    ("run entries", lambda d: f"/api/v1/runs/{d.run.pk}/entries/", MANAGER_ONLY),
    ("pool item", lambda d: f"/api/v1/pool-items/{d.item.pk}/", MANAGER_ONLY),
    ("grade", lambda d: f"/api/v1/grades/{d.grade.pk}/", MEMBERS),
    ("queue", lambda d: "/api/v1/campaigns/campaign-a/queue/", RATER_ONLY),
    ("qrels", lambda d: "/api/v1/campaigns/campaign-a/qrels/", MANAGER_ONLY),
    ("comparison", lambda d: f"/api/v1/comparisons/{d.comparison.pk}/", MEMBERS),
    ("tasks", lambda d: f"/api/v1/comparisons/{d.comparison.pk}/tasks/", MANAGER_ONLY),
    ("sxs queue", lambda d: f"/api/v1/comparisons/{d.comparison.pk}/queue/", RATER_ONLY),
    ("gsb", lambda d: f"/api/v1/comparisons/{d.comparison.pk}/gsb/", MANAGER_ONLY),
    ("scores", lambda d: "/api/v1/campaigns/campaign-a/scores/", MANAGER_ONLY),
    ("query scores", lambda d: "/api/v1/campaigns/campaign-a/scores/queries/", MANAGER_ONLY),
    (
        "compare",
        lambda d: "/api/v1/campaigns/campaign-a/scores/compare/?a=bm25&b=bert",
        MANAGER_ONLY,
    ),
    ("agreement", lambda d: "/api/v1/campaigns/campaign-a/agreement/", MANAGER_ONLY),
    ("progress", lambda d: "/api/v1/campaigns/campaign-a/progress/", MANAGER_ONLY),
    ("gold", lambda d: "/api/v1/campaigns/campaign-a/gold/", MANAGER_ONLY),
    ("gold accuracy", lambda d: "/api/v1/campaigns/campaign-a/gold/accuracy/", MANAGER_ONLY),
    ("sxs gold", lambda d: f"/api/v1/comparisons/{d.comparison.pk}/gold/", MANAGER_ONLY),
    (
        "sxs gold accuracy",
        lambda d: f"/api/v1/comparisons/{d.comparison.pk}/gold/accuracy/",
        MANAGER_ONLY,
    ),
    ("rater quality", lambda d: "/api/v1/campaigns/campaign-a/raters/quality/", MANAGER_ONLY),
]


# One test per endpoint, every persona inside it: the campaign data is built once per endpoint.
@pytest.mark.parametrize(("name", "url", "expected"), READS, ids=[r[0] for r in READS])
def test_reads_answer_each_persona_as_the_pages_do(personas, data, name, url, expected):
    got = {}
    for persona in PERSONA_NAMES:
        response = api_client_for(personas, persona).get(url(data))
        got[persona] = response.status_code
        assert response["Content-Type"].startswith(("application/json", "text/plain"))
        if response.status_code != 200:
            assert response.json()["detail"]
    assert got == expected


# List endpoints: which campaigns' rows each persona sees.
A, B = {"campaign-a"}, {"campaign-b"}
SEEN_BY_MANAGERS = {"manager": A, "other_manager": B}
LISTS = [
    ("/api/v1/queries/", "campaign", SEEN_BY_MANAGERS),
    ("/api/v1/documents/", "campaign", SEEN_BY_MANAGERS),
    ("/api/v1/systems/", "campaign", SEEN_BY_MANAGERS),
    ("/api/v1/runs/", "campaign", SEEN_BY_MANAGERS),
    ("/api/v1/pool-items/", "campaign", SEEN_BY_MANAGERS),
    ("/api/v1/grades/", "campaign", {**SEEN_BY_MANAGERS, "rater": A, "other_rater": B}),
    ("/api/v1/comparisons/", "campaign", {**SEEN_BY_MANAGERS, "rater": A, "other_rater": B}),
]


@pytest.mark.parametrize(("url", "key", "seen"), LISTS, ids=[row[0] for row in LISTS])
def test_lists_hold_only_what_the_persona_may_see(personas, data, url, key, seen):
    assert api_client_for(personas, "anonymous").get(url).status_code == 401
    got, expected = {}, {}
    for persona in PERSONA_NAMES[:-1]:
        response = api_client_for(personas, persona).get(url)
        assert response.status_code == 200
        got[persona] = {row[key] for row in response.json()["results"]}
        expected[persona] = seen.get(persona, set())
    assert got == expected


def test_a_rater_sees_their_grades_without_external_ids_and_comparisons_by_number(personas, data):
    client = api_client_for(personas, "rater")
    (row,) = client.get("/api/v1/grades/").json()["results"]
    assert row["rater"] == "rater"
    assert row["query"] is None and row["document"] is None
    assert row["query_text"] == "text of q1"
    (comparison,) = client.get("/api/v1/comparisons/").json()["results"]
    assert comparison["label"] == "Side-by-side 1"
    hidden = ("name", "baseline", "candidate", "baseline_system", "candidate_system")
    assert all(comparison[key] is None for key in hidden)
    assert "PRODSYSTEM" not in client.get("/api/v1/comparisons/").content.decode()


def test_a_manager_sees_everything_of_their_campaign(personas, data):
    client = api_client_for(personas, "manager")
    (row,) = client.get("/api/v1/grades/").json()["results"]
    assert (row["query"], row["document"], row["label"], row["grade"]) == ("q1", "d1", "Good", 3)
    (comparison,) = client.get("/api/v1/comparisons/").json()["results"]
    assert comparison["name"] == "A: prod vs cand"
    assert comparison["baseline"] == "RUNBASE-7731"


def _queries_file():
    return SimpleUploadedFile("q.tsv", b"q9\tnew query\n", content_type="text/plain")


def _run_file():
    return SimpleUploadedFile("r.txt", b"q1 Q0 d9 1 5.0 newrun\n", content_type="text/plain")


WRITES = [
    (
        "grade",
        "/api/v1/grades/",
        lambda d: {
            "campaign": "campaign-a",
            "item": _rater_handle(handles.GRADED, d.item.pk),
            "label": "Good",
        },
        "json",
        statuses(rater=200),  # the rater's own grade again: stored once, unchanged
    ),
    (
        "skip",
        "/api/v1/campaigns/campaign-a/queue/skip/",
        lambda d: {"item": _rater_handle(handles.GRADED, d.item.pk)},
        "json",
        statuses(rater=409),  # already graded: change the grade instead
    ),
    (
        "verdict",
        "/api/v1/verdicts/",
        lambda d: {"comparison": d.comparison.pk, "task": _first_task(d), "chosen": "left"},
        "json",
        statuses(rater=403),  # not leased to the rater yet
    ),
    (
        "import",
        "/api/v1/campaigns/campaign-a/imports/",
        lambda d: {"kind": "queries", "file": _queries_file()},
        "multipart",
        statuses(manager=201),
    ),
    (
        "run upload",
        "/api/v1/runs/",
        lambda d: {"campaign": "campaign-a", "file": _run_file()},
        "multipart",
        statuses(manager=201),
    ),
    (
        "comparison",
        "/api/v1/comparisons/",
        lambda d: {"campaign": "campaign-a", "name": "n", "baseline": "bm25", "candidate": "bert"},
        "json",
        statuses(manager=201),
    ),
    (
        "campaign",
        "/api/v1/campaigns/",
        lambda d: {"name": "New campaign"},
        "json",
        statuses(403),  # staff only; no persona is staff
    ),
]


@pytest.mark.parametrize(
    ("name", "url", "body", "fmt", "expected"), WRITES, ids=[w[0] for w in WRITES]
)
def test_writes_answer_each_persona_as_the_pages_do(personas, data, name, url, body, fmt, expected):
    got = {}
    # The allowed persona goes last, so the refusals are checked against unchanged data.
    for persona in sorted(PERSONA_NAMES, key=lambda p: expected[p] < 400):
        response = api_client_for(personas, persona).post(url, body(data), format=fmt)
        got[persona] = response.status_code
        if response.status_code >= 400:
            assert response.json()["detail"]
    assert got == expected


def test_a_staff_user_creates_a_campaign_and_manages_it(personas):
    personas.outsider.is_staff = True
    personas.outsider.save()
    client = api_client_for(personas, "outsider")
    response = client.post("/api/v1/campaigns/", {"name": "Fresh start"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["slug"], body["role"], body["aggregation"]) == ("fresh-start", "manager", "mean")
    assert [label["name"] for label in body["labels"]] == ["Good", "Fair", "Bad"]
    again = client.post("/api/v1/campaigns/", {"name": "Fresh start"}, format="json")
    assert again.status_code == 400
    assert "slug" in again.json()["errors"]
