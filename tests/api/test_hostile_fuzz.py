"""A fuzz pass over every upload and every JSON endpoint with hostile input (issue 15): NUL,
NaN and infinities, numbers that overflow, 5,000-digit integers, lone surrogates, deep
nesting, control characters, formula text, very long text and many extra keys, each among
the explicit examples, plus what hypothesis makes of them. No answer may be a 5xx, and a
refused request writes nothing. Runs on SQLite and on PostgreSQL (DATABASE_URL)."""

from __future__ import annotations

import json
import os
from contextlib import contextmanager

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections, router, transaction
from django.urls import reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from annotate.models import Label
from tests.api.conftest import api_client_for

# The hostile inputs are explicit examples and always run; the generated ones come on
# top. Derandomized, so every run tries the same ones (HOSTILE_FUZZ_EXAMPLES=200 for a deeper
# pass by hand).
FUZZ = settings(
    max_examples=int(os.environ.get("HOSTILE_FUZZ_EXAMPLES", "10")),
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


# Rows a refused request may legitimately touch: the leases a rater's request renews or takes
# (both kinds) and the job workers' heartbeats. Every other row of the project's apps is
# compared, not only counted, so an update is seen as well as an insert.
VOLATILE = {"lease", "tasklease", "worker"}
PROJECT_APPS = ("annotate", "metrics", "jobs", "llmjudge")


@contextmanager
def _rolled_back():
    """Each example from the fixture's state: hypothesis runs its examples inside one test,
    so what one example stores (a grade that empties the queue) would change the next."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def _snapshot() -> dict:
    """Every row of every table of the project's apps, as stored (read with plain SQL: this
    runs twice for each of some 700 examples, and the ORM's cost per query was most of it)."""
    rows = {}
    for app in PROJECT_APPS:
        for model in apps.get_app_config(app).get_models():
            if model._meta.model_name in VOLATILE or model._meta.proxy:
                continue
            connection = connections[router.db_for_read(model)]
            meta = model._meta
            table, pk = map(connection.ops.quote_name, (meta.db_table, meta.pk.column))
            sql = f"SELECT * FROM {table} ORDER BY {pk}"
            with connection.cursor() as cursor:
                cursor.execute(sql)
                rows[model._meta.label] = cursor.fetchall()
    return rows


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


# ---------------------------------------------------------------------------------------------
# Every other upload: the web import form (every kind), the API's run upload, a competitor's
# ranking and a behaviour log (the label sources page), the invitations' bulk list. (There is
# no gold upload: gold tasks are not built.) The hostile text goes in the file and in the names.

WEB_IMPORTS = [*UPLOADS, ("run", "r.trec", "q1 Q0 d1 1 1.0 tag\n", {"name": "{}"})]


def _web_import(client, kind, name, content, extra):
    url = reverse("annotate:import", kwargs={"slug": "campaign-a"})
    return client.post(url, {"kind": kind, "file": SimpleUploadedFile(name, content), **extra})


def _api_run(client, kind, name, content, extra):
    data = {"campaign": "campaign-a", "file": SimpleUploadedFile(name, content), **extra}
    return client.post("/api/v1/runs/", data, format="multipart")


def _sources(client, action, name, content, extra):
    url = reverse("metrics:sources_add", kwargs={"slug": "campaign-a"})
    data = {"action": action, "file": SimpleUploadedFile(name, content), "match": "auto", **extra}
    return client.post(url, data)


def _invitations(client, kind, name, content, extra):
    url = reverse("annotate:manage_invitations_bulk", kwargs={"slug": "campaign-a"})
    data = {"role": "rater", "days": 7, **extra}
    if content:
        data["upload"] = SimpleUploadedFile(name, content)
    return client.post(url, data)


# (who posts, how, kind, file name, file content with {} for the text, form fields)
OTHER_UPLOADS = [
    *[("web", _web_import, *upload) for upload in WEB_IMPORTS],
    ("api", _api_run, "run", "r.trec", "q1 Q0 d9 1 1.0 {}\n", {}),
    ("api", _api_run, "run", "r.trec", "q1 Q0 d9 1 1.0 tag\n", {"name": "{}"}),
    ("web", _sources, "competitor", "c.trec", "q1 Q0 {} 1 1.0 tag\n", {"name": "c"}),
    ("web", _sources, "competitor", "c.csv", "qid,docno,rank\nq1,d1,{}\n", {"name": "c"}),
    ("web", _sources, "competitor", "c.trec", "q1 Q0 d1 1 1.0 tag\n", {"name": "{}"}),
    (
        "web",
        _sources,
        "log",
        "l.csv",
        "qid,docno,position,impressions,clicks\nq1,d1,1,{},1\n",
        {"name": "log"},
    ),
    ("web", _sources, "log", "l.jsonl", '{{"qid": "q1", "docno": {}}}\n', {"name": "log"}),
    (
        "web",
        _sources,
        "log",
        "l.csv",
        "qid,docno,position,impressions,clicks\nq1,d1,1,5,1\n",
        {"name": "{}"},
    ),
    ("web", _invitations, "invite", "p.csv", "name,email\n{},x@example.com\n", {}),
    ("web", _invitations, "invite", "p.txt", "", {"people": "{}\nok@example.com"}),
]


@pytest.mark.parametrize(
    "upload",
    OTHER_UPLOADS,
    ids=[f"{u[1].__name__}-{u[2]}-{u[3]}-{i}" for i, u in enumerate(OTHER_UPLOADS)],
)
@FUZZ
@given(text=st.sampled_from(HOSTILE_TEXT + HOSTILE_JSON_VALUES) | st.text(max_size=40))
@example(text="\x00")
@example(text="\ud800")
@example(text="[" * 100_000)
@example(text="\r")
@example(text="9" * 5_000)
@example(text="1e400")
@example(text="NaN")
def test_every_other_upload_never_answers_5xx_and_a_refusal_writes_nothing(
    personas, data, upload, text
):
    how, post, kind, name, template, extra = upload
    client = api_client_for(personas, "manager") if how == "api" else personas.client_for("manager")
    extra = {key: _fill(value, text) for key, value in extra.items()}
    content = _fill(template, text).encode("utf-8", "surrogatepass")
    with _rolled_back():
        _post_and_check(lambda: post(client, kind, name, content, extra), text)


def _post_and_check(send, text: str) -> None:
    before = _snapshot()
    try:
        response = send()
    except ValueError:
        # The test client itself cannot encode a NUL or a surrogate into a form field.
        assert "\x00" in text or any("\ud800" <= c <= "\udfff" for c in text)
        return
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert _snapshot() == before


# ---------------------------------------------------------------------------------------------
# Every JSON endpoint with a body the endpoint would take, one field of it (or a new one)
# replaced by a hostile JSON value, so the value reaches the endpoint's own checks and service.

HOSTILE = "__hostile__"


def _grade_body(personas, data, client) -> dict:
    item = client.get("/api/v1/campaigns/campaign-a/queue/").json()["items"][0]["id"]
    return {"campaign": "campaign-a", "item": item, "label": "Good", "comment": "", "seconds": 3}


def _sxs_task(data, client) -> str:
    return client.get(f"/api/v1/comparisons/{data.comparison.pk}/queue/").json()["tasks"][0]["id"]


def _verdict_body(personas, data, client) -> dict:
    task = _sxs_task(data, client)
    return {"comparison": data.comparison.pk, "task": task, "chosen": "left", "strength": 2}


def _skip_body(personas, data, client) -> dict:
    return {"item": _grade_body(personas, data, client)["item"], "undo": False}


def _sxs_skip_body(personas, data, client) -> dict:
    return {"task": _sxs_task(data, client), "undo": False}


def _campaign_body(personas, data, client) -> dict:
    personas.manager.is_staff = True  # only staff create campaigns
    return {
        "name": "Fuzz",
        "slug": "fuzz",
        "description": "d",
        "guidelines": "g",
        "overlap": 2,
        "lease_minutes": 30,
        "aggregation": "mean",
        "relevant_from": 1.0,
    }


def _comparison_body(personas, data, client) -> dict:
    return {
        "campaign": "campaign-a",
        "name": "fuzz",
        "baseline": "bm25",
        "candidate": "bert",
        "depth": 3,
        "min_gsb": 0.0,
        "seed": 1,
    }


def _judge_body(personas, data, client) -> dict:
    queue = personas.client_for("rater").get(
        reverse("annotate:judge_api_queue", kwargs={"slug": "campaign-a"})
    )
    item = queue.json()["items"][0]["id"]
    label = Label.objects.get(campaign=personas.campaign, name="Good").pk
    body = {"item": item, "action": "label", "label": label, "comment": "", "seconds": 2}
    return body | {"known": [item]}  # what the page holds (judge-core.js sends it)


def _sxs_page_body(personas, data, client) -> dict:
    url = reverse(
        "annotate:sxs_api_queue", kwargs={"slug": "campaign-a", "comparison_id": data.comparison.pk}
    )
    task = personas.client_for("rater").get(url).json()["tasks"][0]["id"]
    return {"task": task, "chosen": "left", "strength": 1, "reason": "", "known": [task]}


def _sxs_page_url(data) -> str:
    kwargs = {"slug": "campaign-a", "comparison_id": data.comparison.pk}
    return reverse("annotate:sxs_api", kwargs=kwargs)


# (persona, url or a function of the data, a valid body's maker)
JSON_ENDPOINTS = [
    ("rater", "/api/v1/grades/", _grade_body),
    ("rater", "/api/v1/verdicts/", _verdict_body),
    ("rater", "/api/v1/campaigns/campaign-a/queue/skip/", _skip_body),
    ("rater", lambda d: f"/api/v1/comparisons/{d.comparison.pk}/queue/skip/", _sxs_skip_body),
    ("manager", "/api/v1/campaigns/", _campaign_body),
    ("manager", "/api/v1/comparisons/", _comparison_body),
    ("rater", "/judge/campaign-a/api/judgments/", _judge_body),
    ("rater", _sxs_page_url, _sxs_page_body),
]


def _hostile_bodies():
    """(which field, or None for a new one; the raw JSON put there)."""
    raw = st.sampled_from(HOSTILE_JSON_VALUES) | st.builds(json.dumps, st.text(max_size=20))
    return st.tuples(st.integers(min_value=0, max_value=9) | st.none(), raw)


@pytest.mark.parametrize(
    ("persona", "url", "body_of"),
    JSON_ENDPOINTS,
    ids=["grades", "verdicts", "skip", "sxs-skip", "campaigns", "comparisons", "judge", "sxs"],
)
@FUZZ
@given(hostile=_hostile_bodies())
@example(hostile=(1, '"\\u0000"'))
@example(hostile=(1, '"\\ud800"'))
@example(hostile=(0, "NaN"))
@example(hostile=(0, "1e400"))
@example(hostile=(1, "9" * 5_000))
@example(hostile=(2, "[" * 100_000 + "]" * 100_000))
@example(hostile=(None, '"a\\rb"'))
@example(hostile=(3, '"' + "y" * 100_000 + '"'))
def test_every_json_field_of_every_json_endpoint_is_refused_or_taken_never_a_5xx(
    personas, data, persona, url, body_of, hostile
):
    api = url if isinstance(url, str) else url(data)
    client = (
        api_client_for(personas, persona)
        if api.startswith("/api/")
        else personas.client_for(persona)
    )
    with _rolled_back():
        _post_hostile_field(
            client, api, body_of(personas, data, api_client_for(personas, persona)), hostile
        )


def _post_hostile_field(client, api: str, body: dict, hostile: tuple) -> None:
    keys = list(body)
    which, raw = hostile
    key = keys[which % len(keys)] if which is not None else "x"
    body[key] = HOSTILE
    text = json.dumps(body).replace(f'"{HOSTILE}"', raw)
    before = _snapshot()
    response = client.post(api, text, content_type="application/json")
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert _snapshot() == before, (key, raw[:40])


@pytest.mark.parametrize(
    ("persona", "url", "body_of"),
    JSON_ENDPOINTS,
    ids=["grades", "verdicts", "skip", "sxs-skip", "campaigns", "comparisons", "judge", "sxs"],
)
def test_the_fuzzed_bodies_are_taken_as_they_are(personas, data, persona, url, body_of):
    """Without the hostile field each body is taken, so the fuzz reaches past the first check."""
    api = url if isinstance(url, str) else url(data)
    client = (
        api_client_for(personas, persona)
        if api.startswith("/api/")
        else personas.client_for(persona)
    )
    body = body_of(personas, data, api_client_for(personas, persona))
    response = client.post(api, json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 201), response.content[:300]
