"""A fuzz pass over every upload and every JSON endpoint with hostile input (issue 15): NUL,
NaN and infinities, numbers that overflow, 5,000-digit integers, lone surrogates, deep
nesting, control characters, formula text, very long text and many extra keys, each among
the explicit examples, plus what hypothesis makes of them. No answer may be a 5xx, and a
refused request writes nothing. Runs on SQLite and on PostgreSQL (DATABASE_URL)."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from annotate.models import (
    Document,
    Grade,
    LabelSource,
    Query,
    Run,
    RunEntry,
    SourceLabel,
    System,
    Verdict,
)
from tests.api.conftest import api_client_for

FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)

# Text fragments a hostile file or body carries.
HOSTILE_TEXT = [
    "\x00",
    "\\u0000",
    "\ud800",
    "\\ud800",
    "\r",
    "\x07",
    "=1+1",
    "@SUM(A1)",
    "-2+3",
    "$\\foo$ cand",
    "x" * 30_000,
    "NaN",
    "1e400",
    "9" * 5_000,
    "[" * 100_000,
]
HOSTILE_JSON_VALUES = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "9" * 5_000,
    '"\\u0000"',
    '"\\ud800"',
    '"a\\rb"',
    "[" * 100_000 + "]" * 100_000,
    "{" + ", ".join(f'"k{i}": {i}' for i in range(10_000)) + "}",
    '"' + "y" * 100_000 + '"',
]


def _snapshot() -> tuple:
    return tuple(
        model.objects.count()
        for model in (
            Query,
            Document,
            System,
            Run,
            RunEntry,
            LabelSource,
            SourceLabel,
            Grade,
            Verdict,
        )
    )


# Each kind: (kind, file name, a valid line with {} where the fuzz text goes, extra form data).
UPLOADS = [
    ("queries", "q.tsv", "qz\t{}\n", {}),
    ("queries", "q.jsonl", '{{"id": "qz", "text": {}}}\n', {}),
    ("documents", "d.csv", "id,title,note\ndz,{},x\n", {}),
    ("documents", "d.jsonl", '{{"id": "dz", "title": "t", "note": {}}}\n', {}),
    ("run", "r.trec", "q1 Q0 dz 1 {} tag\n", {}),
    ("run", "r.trec", "q1 Q0 dz 1 1.0 {}\n", {}),
    ("qrels", "r.qrels", "q1 0 dz {}\n", {"source": "fuzz", "any_grade": "true"}),
    ("qrels", "r.qrels", "q1 0 d1 3\n", {"source": "{}"}),
    ("scored", "s.tsv", "Good q1 {}\n", {"name": "scored-run"}),
]


def _upload(client, kind: str, name: str, content: bytes, extra: dict):
    data = {"kind": kind, "file": SimpleUploadedFile(name, content), **extra}
    return client.post("/api/v1/campaigns/campaign-a/imports/", data, format="multipart")


def _fill(template: str, text: str) -> str:
    return (
        template.replace("{{", "\0open")
        .replace("}}", "\0close")
        .replace("{}", text)
        .replace("\0open", "{")
        .replace("\0close", "}")
    )


@pytest.mark.parametrize(
    "upload", UPLOADS, ids=[f"{u[0]}-{u[1]}-{i}" for i, u in enumerate(UPLOADS)]
)
@FUZZ
@given(text=st.sampled_from(HOSTILE_TEXT + HOSTILE_JSON_VALUES) | st.text(max_size=40))
@example(text="\x00")
@example(text="[" * 100_000)
@example(text="\r")
def test_an_upload_never_answers_5xx_and_a_refusal_writes_nothing(personas, data, upload, text):
    kind, name, template, extra = upload
    client = api_client_for(personas, "manager")
    extra = {key: _fill(value, text) for key, value in extra.items()}
    try:
        content = _fill(template, text).encode("utf-8", "surrogatepass")
    except UnicodeEncodeError:  # pragma: no cover - surrogatepass encodes every str
        return
    before = _snapshot()
    try:
        response = _upload(client, kind, name, content, extra)
    except ValueError:
        # The test client itself cannot encode a NUL or a surrogate into a form field.
        assert "\x00" in text or any("\ud800" <= c <= "\udfff" for c in text)
        return
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert _snapshot() == before
        assert "detail" in response.json() or "errors" in response.json()


def _json_bodies():
    values = st.sampled_from(HOSTILE_JSON_VALUES) | st.builds(json.dumps, st.text(max_size=20))
    return st.builds(
        lambda key, value: '{"campaign": "campaign-a", "item": 1, "' + key + '": ' + value + "}",
        st.sampled_from(["comment", "label", "seconds", "item", "action", "x"]),
        values,
    ) | st.sampled_from(HOSTILE_JSON_VALUES)


ENDPOINTS = [
    ("rater", "/api/v1/grades/"),
    ("rater", "/api/v1/verdicts/"),
    ("rater", "/api/v1/campaigns/campaign-a/queue/skip/"),
    ("manager", "/api/v1/comparisons/"),
    ("rater", "/judge/campaign-a/api/judgments/"),
]


@pytest.mark.parametrize(("persona", "url"), ENDPOINTS, ids=[e[1] for e in ENDPOINTS])
@FUZZ
@given(body=_json_bodies())
@example(body="[" * 100_000 + "]" * 100_000)
@example(body='{"campaign": "campaign-a", "item": 1, "comment": "\\u0000"}')
@example(body='{"campaign": "campaign-a", "item": 1, "seconds": NaN}')
def test_a_json_endpoint_never_answers_5xx_and_a_refusal_writes_nothing(
    personas, data, persona, url, body
):
    before = _snapshot()
    if url.startswith("/api/"):
        client = api_client_for(personas, persona)
        response = client.post(url, body, content_type="application/json")
    else:
        client = personas.client_for(persona)
        response = client.post(url, body, content_type="application/json")
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert _snapshot() == before


@FUZZ
@given(body=_json_bodies())
@example(body="[" * 100_000 + "]" * 100_000)
def test_the_sxs_json_endpoint_never_answers_5xx(personas, data, body):
    client = personas.client_for("rater")
    url = f"/sxs/campaign-a/{data.comparison.pk}/api/verdicts/"
    before = _snapshot()
    response = client.post(url, body, content_type="application/json")
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert _snapshot() == before
