"""The label-sources pages: who may see and use them, what the report shows, its downloads, and
the upload forms (a bad file stores nothing and says which line)."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotate.models import BehaviourLog, Document, LabelSource, SourceLabel
from annotate.services.imports import import_qrels
from tests.annotate.import_support import add_queries, counts
from tests.annotate.judgment_data import make_run
from tests.conftest import PERSONA_NAMES

pytestmark = pytest.mark.django_db

ALLOWED = {"manager"}


def report_url(campaign, **params) -> str:
    url = reverse("metrics:sources", kwargs={"slug": campaign.slug})
    return url + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")


def add_url(campaign) -> str:
    return reverse("metrics:sources_add", kwargs={"slug": campaign.slug})


@pytest.fixture
def data(personas):
    campaign = personas.campaign
    add_queries(campaign, "q1", "q2")
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"d{i}", url=f"https://example.com/{i}")
        for i in range(1, 7)
    )
    for name, docs in {"prod": ["d1", "d2", "d3"], "cand": ["d3", "d2", "d1"]}.items():
        make_run(campaign, name, [(q, d, r, 1.0 / r) for q in ("q1", "q2")
                                  for r, d in enumerate(docs, start=1)])  # fmt: skip
    qrels = "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d3 3\n"
    import_qrels(campaign=campaign, file=io.BytesIO(qrels.encode()), source_name="team")
    return personas


@pytest.mark.parametrize("name", PERSONA_NAMES)
def test_only_the_campaigns_managers_see_the_report(data, name):
    response = data.client_for(name).get(report_url(data.campaign))
    if name == "anonymous":
        assert response.status_code == 302 and "/login/" in response["Location"]
    else:
        assert response.status_code == (200 if name in ALLOWED else 404)


@pytest.mark.parametrize("name", PERSONA_NAMES)
def test_only_the_campaigns_managers_may_upload(data, name, tmp_path):
    before = counts()
    upload = SimpleUploadedFile("rival.csv", b"q1,d1,1\nq1,d2,2\n")
    response = data.client_for(name).post(
        add_url(data.campaign),
        {"action": "competitor", "competitor-file": upload, "competitor-name": "rival",
         "competitor-match": "auto"},
    )  # fmt: skip
    page = data.client_for(name).get(add_url(data.campaign))
    if name == "anonymous":
        assert response.status_code == 302 and "/login/" in response["Location"]
        assert page.status_code == 302
    elif name in ALLOWED:
        assert response.status_code == 302
        assert page.status_code == 200
        assert LabelSource.objects.filter(name="competitor:rival").exists()
        return
    else:
        assert response.status_code == 404 and page.status_code == 404
    assert counts() == before


def test_the_report_shows_sources_agreement_scores_and_a_chart(data):
    response = data.client_for("manager").get(report_url(data.campaign, k=3))
    html = response.content.decode()
    assert response.status_code == 200
    for testid in ("sources-table", "agreement-table", "scores-table", "orders-table"):
        assert f'data-testid="{testid}"' in html
    assert "<svg" in html and "NDCG@3 of every run under each label source" in html
    assert "team" in html and "Raters (mean)" in html
    assert "judged@3" in html


@pytest.mark.parametrize("download", ["scores", "agreement", "confusion", "orders"])
def test_every_table_downloads_as_csv(data, download):
    response = data.client_for("manager").get(report_url(data.campaign, download=download))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert len(rows) >= 2
    if download == "scores":
        header = rows[0]
        assert header[:3] == ["system", "run", "source"] and "NDCG@10" in header
        team = [r for r in rows[1:] if r[2] == "team"]
        assert {r[1] for r in team} == {"prod", "cand"}


@pytest.mark.parametrize("query", ["k=0", "k=abc", "aggregation=mode", "download=nope"])
def test_bad_parameters_answer_400(data, query):
    key, value = query.split("=")
    response = data.client_for("manager").get(report_url(data.campaign, **{key: value}))
    assert response.status_code == 400


def test_a_bad_competitor_file_stores_nothing_and_names_the_line(data):
    before = counts()
    upload = SimpleUploadedFile("rival.csv", b"q1,d1,1\nq1,d2,second\n")
    response = data.client_for("manager").post(
        add_url(data.campaign),
        {"action": "competitor", "competitor-file": upload, "competitor-name": "rival",
         "competitor-match": "auto"},
    )  # fmt: skip
    assert response.status_code == 400
    assert "rival.csv:2: rank &#x27;second&#x27; is not a whole number" in response.content.decode()
    assert counts() == before


def test_bad_bands_are_a_form_error(data):
    upload = SimpleUploadedFile("rival.csv", b"q1,d1,1\n")
    response = data.client_for("manager").post(
        add_url(data.campaign),
        {"action": "competitor", "competitor-file": upload, "competitor-name": "rival",
         "competitor-match": "auto", "competitor-bands": "1-3:Superb"},
    )  # fmt: skip
    assert response.status_code == 400
    assert "not a label of the scale" in response.content.decode()
    assert not LabelSource.objects.filter(name="competitor:rival").exists()


def test_a_log_uploaded_then_derived_becomes_a_source(data):
    log = (
        "qid,docno,position,impressions,clicks,purchases\n"
        "q1,d1,1,100,50,1\nq1,d2,2,100,5,0\nq2,d3,1,100,20,0\nq2,d1,2,100,30,2\n"
    )
    client = data.client_for("manager")
    response = client.post(
        add_url(data.campaign),
        {"action": "log", "log-file": SimpleUploadedFile("week.csv", log.encode()),
         "log-name": "week", "log-match": "auto"},
    )  # fmt: skip
    assert response.status_code == 302
    week = BehaviourLog.objects.get(campaign=data.campaign, name="week")
    for method in ("clicks", "purchases"):
        response = client.post(
            add_url(data.campaign),
            {"action": "derive", "derive-log": week.pk, "derive-method": method},
        )
        assert response.status_code == 302, response.content.decode()
    assert SourceLabel.objects.filter(source__name="clicks:week").count() == 4
    assert SourceLabel.objects.filter(source__name="purchases:week").count() == 4
    html = client.get(report_url(data.campaign)).content.decode()
    assert "clicks:week" in html and "clicks over expected clicks from log" in html


def test_the_derive_form_takes_the_floor_on_expected_clicks(data):
    log = "qid,docno,position,impressions,clicks\nq1,d1,1,100,50\nq1,d2,2,100,5\n"
    client = data.client_for("manager")
    client.post(
        add_url(data.campaign),
        {"action": "log", "log-file": SimpleUploadedFile("w.csv", log.encode()),
         "log-name": "w", "log-match": "auto"},
    )  # fmt: skip
    w = BehaviourLog.objects.get(campaign=data.campaign, name="w")
    bad = client.post(
        add_url(data.campaign),
        {"action": "derive", "derive-log": w.pk, "derive-method": "clicks",
         "derive-min_expected_clicks": "-1"},
    )  # fmt: skip
    assert bad.status_code == 400 and not LabelSource.objects.filter(name="clicks:w").exists()
    # gamma 1 and 0.1 (the log's click-through rates, 0.5 and 0.05); q1's mean is 55 clicks
    # over 110 examinations: d1 expects about 50 clicks, d2 about 5.
    response = client.post(
        add_url(data.campaign),
        {"action": "derive", "derive-log": w.pk, "derive-method": "clicks",
         "derive-min_expected_clicks": "30"},
    )  # fmt: skip
    assert response.status_code == 302
    source = LabelSource.objects.get(name="clicks:w")
    assert source.params["min_expected_clicks"] == 30
    assert source.params["too_little_data"] == 1 and source.labels.count() == 1
    html = client.get(report_url(data.campaign)).content.decode()
    assert "1 of 2 pairs had fewer than 30 expected clicks: too little data" in html


def test_an_unknown_action_is_refused(data):
    response = data.client_for("manager").post(add_url(data.campaign), {"action": "drop"})
    assert response.status_code == 400


def test_another_campaigns_log_cannot_be_derived(data, tmp_path):
    other = BehaviourLog.objects.create(campaign=data.other_campaign, name="theirs")
    response = data.client_for("manager").post(
        add_url(data.campaign),
        {"action": "derive", "derive-log": other.pk, "derive-method": "clicks"},
    )
    assert response.status_code == 400
    assert not LabelSource.objects.filter(name="clicks:theirs").exists()
