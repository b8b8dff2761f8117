"""Qrels out (TREC text, JSON, CSV, the rule stated) and files in (the import command's checks,
placeholders and ``file:line`` errors), through the API."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.models import Document, Run, RunEntry
from tests.annotate.judgment_data import grade, pool_item
from tests.api.conftest import api_client_for

QRELS = "/api/v1/campaigns/campaign-a/qrels/"


@pytest.fixture
def graded(personas, second_rater):
    """q1/d1 graded Good (3) and Bad (1); q1/d2 graded Fair (2) and Fair."""
    a = personas.campaign
    d1, d2 = pool_item(a, "q1", "d1"), pool_item(a, "q1", "d2")
    grade(d1, personas.rater, "Good")
    grade(d1, second_rater, "Bad")
    grade(d2, personas.rater, "Fair")
    grade(d2, second_rater, "Fair")


def _body(response) -> str:
    return b"".join(response.streaming_content).decode()


def test_qrels_are_trec_text_by_default_with_the_rule_in_the_headers(personas, graded):
    response = api_client_for(personas, "manager").get(QRELS)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["X-Aggregation"] == "mean"
    assert response["X-Grades"] == "whole grades, rounded half up"
    assert _body(response) == "q1 0 d1 2\nq1 0 d2 2\n"


def test_the_aggregation_can_be_overridden_and_grades_kept_real(personas, graded):
    client = api_client_for(personas, "manager")
    majority = client.get(QRELS, {"aggregation": "majority"})
    assert majority["X-Aggregation"] == "majority"
    assert _body(majority) == "q1 0 d1 1\nq1 0 d2 2\n"  # a tie goes to the lower grade
    median = client.get(QRELS, {"aggregation": "median", "real": "1"})
    assert _body(median) == "q1 0 d1 2\nq1 0 d2 2\n"


def test_qrels_as_json_state_the_rule(personas, graded):
    response = api_client_for(personas, "manager").get(QRELS, {"format": "json"})
    assert response["Content-Type"] == "application/json"
    body = json.loads(_body(response))
    assert body["aggregation"] == "mean"
    assert body["note"].startswith("mean of the raters' grades")
    assert body["count"] == 2
    assert body["qrels"][0] == {
        "query": "q1",
        "document": "d1",
        "grade": 2.0,
        "raters": 2,
        "adjudicated": False,
    }
    accept = api_client_for(personas, "manager").get(QRELS, HTTP_ACCEPT="application/json")
    assert json.loads(_body(accept))["count"] == 2


def test_qrels_as_csv(personas, graded):
    response = api_client_for(personas, "manager").get(QRELS, {"format": "csv", "real": "true"})
    assert response["X-Aggregation"] == "mean"
    assert _body(response).splitlines() == [
        "query,document,grade,raters,adjudicated",
        "q1,d1,2,2,false",
        "q1,d2,2,2,false",
    ]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"aggregation": "mode"}, "unknown aggregation rule 'mode'"),
        ({"real": "maybe"}, "real must be 1 or 0"),
        ({"source": "nope"}, "no label source 'nope'"),
        ({"source": "x", "aggregation": "mean"}, "not both"),
    ],
)
def test_bad_qrels_parameters_get_400_json_whatever_format_was_asked(personas, params, message):
    for fmt in ("trec", "json", "csv"):
        response = api_client_for(personas, "manager").get(QRELS, {**params, "format": fmt})
        assert response.status_code == 400
        assert response["Content-Type"] == "application/json"
        assert message in response.json()["detail"]


def test_an_empty_qrels_is_an_empty_answer(personas):
    response = api_client_for(personas, "manager").get(QRELS, {"format": "json"})
    assert json.loads(_body(response))["qrels"] == []


def _upload(client, url: str, content: bytes, name: str = "run.txt", **fields):
    upload = SimpleUploadedFile(name, content, content_type="text/plain")
    return client.post(url, {"file": upload, **fields}, format="multipart")


def test_a_run_upload_makes_placeholders_like_the_command(personas, data):
    client = api_client_for(personas, "manager")
    content = b"q1 Q0 d1 1 2.5 fresh\nq1 Q0 new-doc 2 1.5 fresh\n"
    response = _upload(client, "/api/v1/runs/", content, campaign="campaign-a")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["created"], body["placeholders"], body["runs"]) == (2, 1, ["fresh"])
    assert "placeholders" in body["warnings"][0]
    assert Document.objects.get(external_id="new-doc").is_placeholder
    run = Run.objects.get(name="fresh")
    entries = client.get(f"/api/v1/runs/{run.pk}/entries/").json()["results"]
    assert [(e["query"], e["document"], e["rank"], e["score"]) for e in entries] == [
        ("q1", "d1", 1, 2.5),
        ("q1", "new-doc", 2, 1.5),
    ]
    csv = client.get(f"/api/v1/runs/{run.pk}/entries/", {"format": "csv"})
    assert b"".join(csv.streaming_content).decode().splitlines()[1].endswith(",q1,d1,1,2.5")


def test_a_bad_line_is_named_and_nothing_is_imported(personas, data):
    client = api_client_for(personas, "manager")
    content = b"q1 Q0 d1 1 2.5 fresh\nq1 Q0 d2 two 1.5 fresh\n"
    response = _upload(client, "/api/v1/runs/", content, name="bad.txt", campaign="campaign-a")
    assert response.status_code == 400
    body = response.json()
    assert body["detail"].startswith("bad.txt:2: ")
    assert (body["file"], body["line"]) == ("bad.txt", 2)
    assert not Run.objects.filter(name="fresh").exists()
    assert RunEntry.objects.filter(run__name="fresh").count() == 0


def test_an_unknown_query_and_a_taken_run_name_are_refused(personas, data):
    client = api_client_for(personas, "manager")
    unknown = _upload(client, "/api/v1/runs/", b"zz Q0 d1 1 1 bm25x\n", campaign="campaign-a")
    assert unknown.status_code == 400
    assert "query 'zz' is not in this campaign" in unknown.json()["detail"]
    taken = _upload(client, "/api/v1/runs/", b"q1 Q0 d1 1 1 bm25\n", campaign="campaign-a")
    assert taken.status_code == 400
    assert "already exists" in taken.json()["detail"]
    replaced = _upload(
        client, "/api/v1/runs/", b"q1 Q0 d1 1 1 bm25\n", campaign="campaign-a", replace="true"
    )
    assert replaced.status_code == 201


def test_an_upload_without_a_file_or_with_bad_options_names_the_field(personas, data):
    client = api_client_for(personas, "manager")
    response = client.post("/api/v1/runs/", {"campaign": "campaign-a"}, format="multipart")
    assert response.status_code == 400
    assert "file" in response.json()["errors"]
    qrels = _upload(client, "/api/v1/campaigns/campaign-a/imports/", b"q1 0 d1 3\n", kind="qrels")
    assert qrels.status_code == 400
    assert "source" in qrels.json()["errors"]


def test_imported_qrels_are_served_as_a_source(personas, data):
    client = api_client_for(personas, "manager")
    response = _upload(
        client,
        "/api/v1/campaigns/campaign-a/imports/",
        b"q1 0 d1 3\nq1 0 d2 1\n",
        kind="qrels",
        source="editors",
    )
    assert response.status_code == 201, response.content
    out = client.get(QRELS, {"source": "editors"})
    assert out["X-Aggregation"] == "source"
    assert out["X-Label-Source"] == "editors"
    assert _body(out) == "q1 0 d1 3\nq1 0 d2 1\n"
    off_scale = _upload(
        client,
        "/api/v1/campaigns/campaign-a/imports/",
        b"q1 0 d1 7\n",
        name="q.txt",
        kind="qrels",
        source="other",
    )
    assert off_scale.status_code == 400
    assert off_scale.json()["detail"].startswith("q.txt:1: grade 7 is not on the label scale")
