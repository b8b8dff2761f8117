"""Odd JSON and odd text give a 4xx (or an import error) that names the line or the field, and
write nothing: NUL, NaN, numbers that overflow, huge integers, lone surrogates, deep nesting,
control characters in names. Run on SQLite and PostgreSQL (they fail differently)."""

from __future__ import annotations

import io
import json

import pytest
from django.urls import reverse

from annotate.models import Document, Grade, LabelSource, Query, SourceLabel, Verdict
from annotate.services.imports import ImportFailed
from annotate.services.imports.documents import import_documents
from annotate.services.imports.qrels import import_qrels
from annotate.services.imports.queries import import_queries
from tests.annotate.judgment_data import grade, pool_item
from tests.annotate.queue_helpers import build_pool
from tests.annotate.sxs_helpers import distinct_lists, make_comparison, post_json, sxs_url
from tests.api.conftest import api_client_for

DEEP = "[" * 100_000 + "]" * 100_000
# (a JSON document line, what the error says)
HOSTILE_DOCUMENTS = [
    ('{"id": "d\\u0000x", "title": "t"}', "NUL"),
    ('{"id": "d1", "title": "a\\u0000b"}', "NUL"),
    ('{"id": "d1", "extra": {"k": "a\\u0000"}}', "NUL"),
    ('{"id": "d1", "extra": {"k\\u0000": 1}}', "NUL"),
    ('{"id": "d1", "score": NaN}', "NaN is not allowed"),
    ('{"id": "d1", "score": Infinity}', "Infinity is not allowed"),
    ('{"id": "d1", "score": 1e400}', "too large"),
    ('{"id": "d1", "score": ' + "9" * 5_000 + "}", "5,000 digits is too large"),
    ('{"id": "d1", "title": "\\ud800"}', "lone surrogate"),
    ('{"id": "d\\udfff", "title": "t"}', "lone surrogate"),
    ('{"id": "d1", "extra": ' + DEEP[:200] + DEEP[-200:] + "}", "nested more than 64"),
    ('{"id": "d1", "extra": ' + DEEP + "}", "nested more than 64"),
]


@pytest.mark.parametrize(("line", "reason"), HOSTILE_DOCUMENTS, ids=range(len(HOSTILE_DOCUMENTS)))
def test_a_hostile_documents_line_is_refused_with_its_line(personas, line, reason):
    data = ('{"id": "d0", "title": "fine"}\n' + line + "\n").encode()
    with pytest.raises(ImportFailed) as caught:
        import_documents(campaign=personas.campaign, file=io.BytesIO(data), name="d.jsonl")
    assert str(caught.value).startswith("d.jsonl:2: ")
    assert reason in str(caught.value)
    assert not Document.objects.exists()


@pytest.mark.parametrize(
    "line",
    [
        '{"id": "q1", "text": "a\\u0000b"}',
        '{"id": "q1", "text": "ok", "intent": "\\ud83d"}',
        '{"id": "q1", "text": ' + DEEP + "}",
        '{"id": ' + "1" * 5_000 + ', "text": "x"}',
    ],
    ids=["nul", "surrogate", "deep", "digits"],
)
def test_a_hostile_queries_line_is_refused_with_its_line(personas, line):
    data = ('{"id": "q0", "text": "fine"}\n' + line + "\n").encode()
    with pytest.raises(ImportFailed, match=r"^q.jsonl:2: "):
        import_queries(campaign=personas.campaign, file=io.BytesIO(data), name="q.jsonl")
    assert not Query.objects.exists()


@pytest.mark.parametrize("name", ["team\rx", "team\nx", "tab\there", "bell\x07", "x" * 201, " "])
def test_a_label_source_name_with_a_control_character_or_too_long_is_refused(personas, name):
    Query.objects.create(campaign=personas.campaign, external_id="q1", text="x")
    with pytest.raises(ImportFailed, match=r"^q.txt: label source name "):
        import_qrels(
            campaign=personas.campaign,
            file=io.BytesIO(b"q1 0 d1 3\n"),
            source_name=name,
            name="q.txt",
        )
    assert not LabelSource.objects.exists() and not SourceLabel.objects.exists()


def test_a_stored_label_source_name_with_cr_does_not_break_csv_downloads(personas):
    """Stored before names were checked: the downloads still answer (the name travels in the
    X-Report-Basis header, where a CR used to raise BadHeaderError, a 500)."""
    c = personas.campaign
    item = pool_item(c, "q1", "d1")
    grade(item, personas.rater, "Good")
    source = LabelSource.objects.create(campaign=c, name="team\rX-Evil: 1")
    SourceLabel.objects.create(source=source, query=item.query, document=item.document, grade=3)
    url = reverse("metrics:systems", kwargs={"slug": "campaign-a"})
    client = personas.client_for("manager")
    response = client.get(url, {"source": source.name, "download": "systems"})
    assert response.status_code == 200
    assert "\r" not in response["X-Report-Basis"] and "X-Evil" not in response.headers


BAD_BODIES = [
    (DEEP, "nested"),
    ('{"item": 1, "action": "label", "seconds": NaN}', "NaN"),
    ('{"item": 1, "action": "label", "seconds": 1e400}', "too large"),
    ('{"item": 1, "action": "label", "comment": "\\ud800"}', "surrogate"),
    ('{"item": 1, "action": "label", "comment": "a\\u0000"}', "NUL"),
    ('{"item": ' + "7" * 5_000 + "}", "digits"),
]


@pytest.mark.parametrize(("body", "why"), BAD_BODIES, ids=[w for _, w in BAD_BODIES])
def test_the_judging_json_endpoint_answers_400(personas, body, why):
    build_pool(personas.campaign, queries=1, docs_per_query=2)
    client = personas.client_for("rater")
    url = reverse("annotate:judge_api", kwargs={"slug": "campaign-a"})
    response = post_json(client, url, body)
    assert response.status_code == 400, response.content[:200]
    assert why in response.json()["error"]
    assert not Grade.objects.exists()


@pytest.mark.parametrize(("body", "why"), BAD_BODIES, ids=[w for _, w in BAD_BODIES])
def test_the_sxs_json_endpoint_answers_400(personas, body, why):
    comparison = make_comparison(personas.campaign, distinct_lists(2))
    client = personas.client_for("rater")
    response = post_json(client, sxs_url(comparison, "sxs_api"), body)
    assert response.status_code == 400, response.content[:200]
    assert why in response.json()["error"]
    assert not Verdict.objects.exists()


@pytest.mark.parametrize(("body", "why"), BAD_BODIES, ids=[w for _, w in BAD_BODIES])
def test_the_grades_api_answers_400_naming_the_problem(personas, body, why):
    item = build_pool(personas.campaign, queries=1, docs_per_query=2)[0]
    body = body.replace('"item": 1', f'"campaign": "campaign-a", "item": {item.pk}')
    client = api_client_for(personas, "rater")
    response = client.post("/api/v1/grades/", body, content_type="application/json")
    assert response.status_code == 400, response.content[:200]
    assert why in response.json()["detail"]
    assert not Grade.objects.exists()


def test_the_api_still_reads_ordinary_json(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=2)
    client = api_client_for(personas, "rater")
    item = client.get("/api/v1/campaigns/campaign-a/queue/").json()["items"][0]["id"]
    body = {"campaign": "campaign-a", "item": item, "label": "Good", "comment": "é ✓"}
    response = client.post("/api/v1/grades/", json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 201), response.content[:300]
    assert Grade.objects.get().comment == "é ✓"


# Bodies read whole are bounded by Django's DATA_UPLOAD_MAX_MEMORY_SIZE (DRF reads JSON and form
# bodies through request.body); above it the API and the judging endpoints answered Django's
# HTML 400 page, which says nothing. Now a JSON 413 that says what the limit is.
BIG_COMMENT = "x" * 5_000


@pytest.fixture
def small_bodies(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2_000


def _leased_item(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=2)
    client = api_client_for(personas, "rater")
    return client.get("/api/v1/campaigns/campaign-a/queue/").json()["items"][0]["id"]


def test_an_api_json_body_above_the_bound_is_a_413(personas, small_bodies):
    item = _leased_item(personas)
    body = {"campaign": "campaign-a", "item": item, "label": "Good", "comment": BIG_COMMENT}
    client = api_client_for(personas, "rater")
    response = client.post("/api/v1/grades/", json.dumps(body), content_type="application/json")
    assert response.status_code == 413, response.content[:200]
    assert "larger than 1.953 KiB" in response.json()["detail"]
    assert not Grade.objects.exists()


def test_an_api_form_body_above_the_bound_is_a_413(personas, small_bodies):
    item = _leased_item(personas)
    body = {"campaign": "campaign-a", "item": item, "label": "Good", "comment": BIG_COMMENT}
    client = api_client_for(personas, "rater")
    response = client.post("/api/v1/grades/", body, format=None)  # urlencoded
    assert response.status_code == 413, response.content[:200]
    assert not Grade.objects.exists()


def test_the_api_reads_a_body_within_the_bound(personas, small_bodies):
    item = _leased_item(personas)
    body = {"campaign": "campaign-a", "item": item, "label": "Good", "comment": "short"}
    client = api_client_for(personas, "rater")
    response = client.post("/api/v1/grades/", json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 201), response.content[:300]


def test_a_judging_json_body_above_the_bound_is_a_json_413(personas, small_bodies):
    item = build_pool(personas.campaign, queries=1, docs_per_query=2)[0]
    url = reverse("annotate:judge_api", kwargs={"slug": "campaign-a"})
    body = {"item": item.pk, "action": "label", "comment": BIG_COMMENT}
    response = post_json(personas.client_for("rater"), url, body)
    assert response.status_code == 413, response.content[:200]
    assert response.json()["error"] == "The request body is too large."
    assert not Grade.objects.exists()
