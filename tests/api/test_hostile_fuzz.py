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

from annotate.models import Comparison, Label
from llmjudge.models import ModelJudge
from llmjudge.prompt import DEFAULT_TEMPLATE
from tests.api.conftest import api_client_for, make_campaign_data
from tests.support.shared_rows import rows_per_module

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


# The campaigns' runs, grades and comparisons, made once for the module's ~100 tests (made per
# test they were about half a second of each test's set-up); tests/api/conftest.py's `data`.
_module_rows, data = rows_per_module(make_campaign_data, name="data")


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
    runs twice for each of some 1,400 examples, and the ORM's cost per query was most of it)."""
    rows = {}
    for label, alias, sql in _snapshot_statements():
        with connections[alias].cursor() as cursor:
            cursor.execute(sql)
            rows[label] = cursor.fetchall()
    return rows


_STATEMENTS: list[tuple[str, str, str]] = []


def _snapshot_statements() -> list[tuple[str, str, str]]:
    """(model label, database alias, SELECT of all its rows) of every compared table, made
    once: walking the app registry for each snapshot was a third of its cost."""
    if not _STATEMENTS:
        for app in PROJECT_APPS:
            for model in apps.get_app_config(app).get_models():
                meta = model._meta
                if meta.model_name in VOLATILE or meta.proxy:
                    continue
                alias = router.db_for_read(model)
                quote = connections[alias].ops.quote_name
                table, pk = quote(meta.db_table), quote(meta.pk.column)
                _STATEMENTS.append((meta.label, alias, f"SELECT * FROM {table} ORDER BY {pk}"))
    return _STATEMENTS


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
# ranking and a behaviour log (the label sources page), the invitations' bulk list, and the gold
# page's two files (graded gold as CSV or qrels, side-by-side gold as CSV). The hostile text
# goes in the file and in the names.

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


def _gold_import(client, purpose, name, content, extra):
    url = reverse("annotate:gold_import", kwargs={"slug": "campaign-a"})
    data = {"purpose": purpose, "file": SimpleUploadedFile(name, content), **extra}
    return client.post(url, data)


def _gold_task_import(client, purpose, name, content, extra):
    url = reverse("annotate:gold_task_import", kwargs={"slug": "campaign-a"})
    comparison = Comparison.objects.get(campaign__slug="campaign-a")
    data = {"purpose": purpose, "comparison": comparison.pk, **extra}
    return client.post(url, data | {"file": SimpleUploadedFile(name, content)})


def _invitations(client, kind, name, content, extra):
    url = reverse("annotate:manage_invitations_bulk", kwargs={"slug": "campaign-a"})
    data = {"role": "rater", "days": 7, **extra}
    if content:
        data["upload"] = SimpleUploadedFile(name, content)
    return client.post(url, data)


GOLD_HEADER = "query,document,label,explanation\n"
SXS_GOLD_HEADER = "query,verdict,explanation\n"

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
    ("web", _gold_import, "honeypot", "g.csv", f"{GOLD_HEADER}q1,d1,Good,{{}}\n", {}),
    ("web", _gold_import, "honeypot", "g.csv", f"{GOLD_HEADER}q1,{{}},Good,x\n", {}),
    ("web", _gold_import, "quiz", "g.csv", f"{GOLD_HEADER}q1,d1,{{}},x\n", {}),
    ("web", _gold_import, "honeypot", "g.csv", f"{GOLD_HEADER}q1,d1,1..{{}},x\n", {}),
    ("web", _gold_import, "honeypot", "g.qrels", "q1 0 d1 {}\n", {}),
    ("web", _gold_import, "honeypot", "g.qrels", "q1 0 d1 2\n", {"purpose": "{}"}),
    ("web", _gold_task_import, "honeypot", "s.csv", f"{SXS_GOLD_HEADER}s1,G,{{}}\n", {}),
    ("web", _gold_task_import, "quiz", "s.csv", f"{SXS_GOLD_HEADER}{{}},G,x\n", {}),
    ("web", _gold_task_import, "quiz", "s.csv", f"{SXS_GOLD_HEADER}s1,{{}},x\n", {}),
    ("web", _gold_task_import, "quiz", "s.csv", "query,verdict,position\ns1,G,{}\n", {}),
    ("web", _gold_task_import, "quiz", "s.csv", "s1,G,x\n", {"comparison": "{}"}),
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


def _gold_item_body(personas, data, client) -> dict:
    good = Label.objects.get(campaign=personas.campaign, name="Good").pk
    return {
        "item": data.item.pk,
        "label": good,
        "accepted": [good],
        "low": 1,
        "high": 2,
        "explanation": "why",
        "purpose": "honeypot",
    }


def _gold_task_body(personas, data, client) -> dict:
    task = data.comparison.tasks.filter(identical=False).order_by("pk").first().pk
    return {"task": task, "value": "G", "explanation": "why", "purpose": "quiz"}


def _quiz_body(personas, data, client) -> dict:
    return {"required": False, "items": 3, "pass_percent": 80, "attempts": 2}


def _grant_body(personas, data, client) -> dict:
    return {"rater": personas.rater.pk}


def _standing_body(personas, data, client) -> dict:
    return {"note": "too fast"}


def _comparison_url(tail: str):
    return lambda d: f"/api/v1/comparisons/{d.comparison.pk}/{tail}"


def _standing_url(action: str):
    return lambda d: f"/api/v1/campaigns/campaign-a/raters/{d.grade.rater_id}/{action}/"


# (persona, url or a function of the data, a valid body's maker, method)
JSON_ENDPOINTS = [
    ("rater", "/api/v1/grades/", _grade_body, "post"),
    ("rater", "/api/v1/verdicts/", _verdict_body, "post"),
    ("rater", "/api/v1/campaigns/campaign-a/queue/skip/", _skip_body, "post"),
    ("rater", _comparison_url("queue/skip/"), _sxs_skip_body, "post"),
    ("manager", "/api/v1/campaigns/", _campaign_body, "post"),
    ("manager", "/api/v1/comparisons/", _comparison_body, "post"),
    ("rater", "/judge/campaign-a/api/judgments/", _judge_body, "post"),
    ("rater", _sxs_page_url, _sxs_page_body, "post"),
    ("manager", "/api/v1/campaigns/campaign-a/gold/", _gold_item_body, "post"),
    ("manager", _comparison_url("gold/"), _gold_task_body, "post"),
    ("manager", "/api/v1/campaigns/campaign-a/quiz/", _quiz_body, "patch"),
    ("manager", _comparison_url("quiz/"), _quiz_body, "patch"),
    ("manager", "/api/v1/campaigns/campaign-a/quiz/grants/", _grant_body, "post"),
    ("manager", _comparison_url("quiz/grants/"), _grant_body, "post"),
    ("manager", _standing_url("pause"), _standing_body, "post"),
    ("manager", _standing_url("exclude"), _standing_body, "post"),
]
JSON_IDS = [
    *("grades", "verdicts", "skip", "sxs-skip", "campaigns", "comparisons", "judge", "sxs"),
    *("gold", "sxs-gold", "quiz", "sxs-quiz", "grant", "sxs-grant", "pause", "exclude"),
]


def _hostile_bodies():
    """(which field, or None for a new one; the raw JSON put there)."""
    raw = st.sampled_from(HOSTILE_JSON_VALUES) | st.builds(json.dumps, st.text(max_size=20))
    return st.tuples(st.integers(min_value=0, max_value=9) | st.none(), raw)


@pytest.mark.parametrize(("persona", "url", "body_of", "method"), JSON_ENDPOINTS, ids=JSON_IDS)
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
    personas, data, persona, url, body_of, method, hostile
):
    api = url if isinstance(url, str) else url(data)
    client = (
        api_client_for(personas, persona)
        if api.startswith("/api/")
        else personas.client_for(persona)
    )
    with _rolled_back():
        body = body_of(personas, data, api_client_for(personas, persona))
        _post_hostile_field(getattr(client, method), api, body, hostile)


def _post_hostile_field(send, api: str, body: dict, hostile: tuple) -> None:
    keys = list(body)
    which, raw = hostile
    key = keys[which % len(keys)] if which is not None else "x"
    body[key] = HOSTILE
    text = json.dumps(body).replace(f'"{HOSTILE}"', raw)
    before = _snapshot()
    response = send(api, text, content_type="application/json")
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert _snapshot() == before, (key, raw[:40])


@pytest.mark.parametrize(("persona", "url", "body_of", "method"), JSON_ENDPOINTS, ids=JSON_IDS)
def test_the_fuzzed_bodies_are_taken_as_they_are(personas, data, persona, url, body_of, method):
    """Without the hostile field each body is taken, so the fuzz reaches past the first check."""
    api = url if isinstance(url, str) else url(data)
    client = (
        api_client_for(personas, persona)
        if api.startswith("/api/")
        else personas.client_for(persona)
    )
    body = body_of(personas, data, api_client_for(personas, persona))
    response = getattr(client, method)(api, json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 201), response.content[:300]


# ---------------------------------------------------------------------------------------------
# The manager's web forms that came after the first pass: a model judge's (new, saved and
# previewed), and the gold and quiz pages' forms. One field of a form the page would take (or
# a new one) carries a hostile text.


def _judge_form(personas, data) -> dict:
    return {
        "name": "gpt", "base_url": "http://127.0.0.1:9/v1", "model": "m-1",
        "api_key_env": "LLMJUDGE_KEY_OPENAI", "temperature": "0", "samples": "1",
        "max_concurrency": "2", "requests_per_minute": "60", "max_requests": "100",
        "max_tokens": "100000", "max_output_tokens": "100", "timeout_seconds": "30",
        "scope": "pool", "query_ids": "q1", "examples": "0", "template": DEFAULT_TEMPLATE,
    }  # fmt: skip


def _saved_judge_form(action: str):
    def body(personas, data) -> dict:
        form = _judge_form(personas, data)
        fields = {k: v for k, v in form.items() if k not in ("base_url", "query_ids")}
        ModelJudge.objects.create(campaign=personas.campaign, base_url=form["base_url"], **fields)
        return form | {"action": action}

    return body


def _gold_mark_form(personas, data) -> dict:
    labels = Label.objects.filter(campaign=personas.campaign)
    good = labels.get(name="Good").pk
    return {
        "query": "q1", "document": "d1", "label": good, "also": [good],
        "explanation": "why", "purpose": "honeypot",
    }  # fmt: skip


def _gold_task_form(personas, data) -> dict:
    return {
        "comparison": data.comparison.pk, "query": "s1", "position": "", "value": "G",
        "explanation": "why", "purpose": "quiz",
    }  # fmt: skip


def _quiz_form(personas, data) -> dict:
    return {
        "comparison": data.comparison.pk, "quiz_required": "", "quiz_items": "3",
        "quiz_pass_percent": "80", "quiz_attempts": "2",
    }  # fmt: skip


def _quiz_grant_form(personas, data) -> dict:
    return {"comparison": data.comparison.pk, "rater": personas.rater.pk}


# (the page's url name, the maker of a form it takes)
FORMS = [
    ("llmjudge:judges", _judge_form),
    ("llmjudge:judge", _saved_judge_form("save")),
    ("llmjudge:judge", _saved_judge_form("preview")),
    ("annotate:gold_mark", _gold_mark_form),
    ("annotate:gold_task_mark", _gold_task_form),
    ("annotate:manage_quiz_settings", _quiz_form),
    ("annotate:quiz_grant", _quiz_grant_form),
    ("annotate:gold_share", lambda personas, data: {"share": "0.2"}),
]
FORM_IDS = [
    *("judge-new", "judge-save", "judge-preview"),
    *("gold", "gold-task", "quiz", "grant", "share"),
]


def _form_url(name: str) -> str:
    args = ["campaign-a", "gpt"] if name == "llmjudge:judge" else ["campaign-a"]
    return reverse(name, args=args)


@pytest.mark.parametrize(("name", "form_of"), FORMS, ids=FORM_IDS)
@FUZZ
@given(
    which=st.integers(min_value=0, max_value=20) | st.none(),
    text=st.sampled_from(HOSTILE_TEXT + HOSTILE_JSON_VALUES) | st.text(max_size=40),
)
@example(which=0, text="\x00")
@example(which=1, text="9" * 5_000)
@example(which=2, text="1e400")
@example(which=3, text="NaN")
@example(which=4, text="-1")
@example(which=5, text="x" * 30_000)
@example(which=0, text="99999999999999999999")
@example(which=None, text="\r")
def test_every_field_of_the_later_forms_is_refused_or_taken_never_a_5xx(
    personas, data, name, form_of, which, text
):
    client = personas.client_for("manager")
    with _rolled_back():
        form = form_of(personas, data)
        keys = list(form)
        form[keys[which % len(keys)] if which is not None else "x"] = text
        _post_and_check(lambda: client.post(_form_url(name), form), text)


@pytest.mark.parametrize(("name", "form_of"), FORMS, ids=FORM_IDS)
def test_the_fuzzed_forms_are_taken_as_they_are(personas, data, name, form_of):
    """Without the hostile field each form is taken, so the fuzz reaches past the first check."""
    response = personas.client_for("manager").post(_form_url(name), form_of(personas, data))
    assert response.status_code in (200, 302), response.content[:300]
    assert b'class="error' not in response.content, response.content.decode()[:2000]
