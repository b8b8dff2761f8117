"""CSV for every table, JSON for every refusal, throttling for anonymous and token callers."""

from __future__ import annotations

import csv
import io
import json

import pytest
from knox.models import AuthToken
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle

from annotate.api.throttling import TokenRateThrottle
from tests.api.conftest import api_client_for

# (url, first header columns) of tables read by a manager of campaign A.
TABLES = [
    ("/api/v1/campaigns/", ["slug", "name"]),
    ("/api/v1/queries/", ["id", "campaign", "external_id"]),
    ("/api/v1/documents/", ["id", "campaign", "external_id"]),
    ("/api/v1/systems/", ["id", "campaign", "name"]),
    ("/api/v1/runs/", ["id", "campaign", "system", "name"]),
    ("/api/v1/pool-items/", ["id", "campaign", "query", "document"]),
    ("/api/v1/grades/", ["id", "campaign", "item", "query"]),
    ("/api/v1/comparisons/", ["id", "campaign", "label"]),
    ("/api/v1/verdicts/", []),
    ("/api/v1/campaigns/campaign-a/scores/", ["run_id", "run", "system"]),
    ("/api/v1/campaigns/campaign-a/scores/queries/", ["query", "run_id", "run", "system"]),
    ("/api/v1/campaigns/campaign-a/agreement/", []),
    ("/api/v1/campaigns/campaign-a/progress/", ["username", "grades", "cant_judge"]),
]


def _text(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


@pytest.mark.parametrize(("url", "columns"), TABLES, ids=[t[0] for t in TABLES])
def test_every_table_comes_as_csv(personas, data, url, columns):
    client = api_client_for(personas, "manager")
    for response in (client.get(url, {"format": "csv"}), client.get(url, HTTP_ACCEPT="text/csv")):
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/csv")
        rows = list(csv.reader(io.StringIO(_text(response))))
        if columns:
            assert rows[0][: len(columns)] == columns
            assert len(rows) > 1


def test_the_scores_csv_flattens_each_measure(personas, data):
    client = api_client_for(personas, "manager")
    text = _text(client.get("/api/v1/campaigns/campaign-a/scores/", {"format": "csv"}))
    header = text.splitlines()[0].split(",")
    assert "values.ndcg_cut_10.mean" in header and "values.ndcg_cut_10.low" in header


def test_the_grades_csv_streams_every_matching_grade(personas, data):
    response = api_client_for(personas, "manager").get(
        "/api/v1/grades/", {"format": "csv", "label": "Good"}
    )
    assert response.streaming
    rows = list(csv.DictReader(io.StringIO(_text(response))))
    assert [(r["query"], r["document"], r["label"], r["grade"]) for r in rows] == [
        ("q1", "d1", "Good", "3")
    ]


@pytest.mark.parametrize(
    ("url", "params", "message"),
    [
        ("scores/", {"measure": "ndcg_cut.x"}, "ndcg_cut"),
        ("scores/", {"measure": "nope"}, "nope"),
        ("scores/", {"measure": "P.100000"}, "cut-offs above 1000"),
        ("scores/", {"measure": "runid"}, "runid"),
        ("scores/", {"gain": "quadratic"}, "gain must be"),
        ("scores/", {"discount": "ln"}, "discount must be"),
        ("scores/", {"ideal": "best"}, "ideal must be"),
        ("scores/", {"aggregation": "mode"}, "unknown aggregation rule"),
        ("scores/", {"source": "nope"}, "no label source"),
        ("scores/", {"k": "5", "measure": "ndcg_cut.0"}, "ndcg_cut"),
        ("scores/compare/", {"a": "bm25"}, "name system b"),
        ("scores/compare/", {"a": "bm25", "b": "bm25"}, "two different runs"),
        ("scores/compare/", {"a": "bm25", "b": "zzz"}, "no run 'zzz'"),
        ("scores/compare/", {"a": "bm25", "b": "bert", "measure": "P.5,10"}, "one measure"),
    ],
)
def test_bad_score_parameters_are_400_json_in_any_format(personas, data, url, params, message):
    client = api_client_for(personas, "manager")
    for fmt in ("json", "csv"):
        response = client.get(f"/api/v1/campaigns/campaign-a/{url}", {**params, "format": fmt})
        assert response.status_code == 400, _text(response)
        assert response["Content-Type"] == "application/json"
        assert message in response.json()["detail"]


def test_scores_state_their_labels_and_age(personas, data):
    client = api_client_for(personas, "manager")
    first = client.get("/api/v1/campaigns/campaign-a/scores/", {"measure": "map"}).json()
    assert first["basis"]["rule"] == "mean"
    assert first["snapshot"]["recomputed"] is True
    assert first["snapshot"]["settings"] == "k=10;gain=linear;discount=log2;ideal=judged"
    again = client.get("/api/v1/campaigns/campaign-a/scores/", {"measure": "map"}).json()
    assert again["snapshot"]["recomputed"] is False
    assert again["snapshot"]["computed_at"] == first["snapshot"]["computed_at"]
    assert again["snapshot"]["age_seconds"] >= 0
    other = client.get("/api/v1/campaigns/campaign-a/scores/", {"measure": "recall.5"}).json()
    assert other["snapshot"] is None


def test_an_unknown_path_or_id_is_a_json_404(personas, data):
    client = api_client_for(personas, "manager")
    for url in (
        "/api/v1/runs/9999999/",
        "/api/v1/runs/99999999999999999999999/entries/",
        "/api/v1/no-such-thing/",
        "/api/v1/campaigns/%C3%B5/queue/",
    ):
        response = client.get(url)
        assert response.status_code == 404
        assert response.json()["detail"]
    posted = client.post("/api/v1/campaigns/%C3%B5/queue/skip/", {}, format="json")
    assert (posted.status_code, posted["Content-Type"]) == (404, "application/json")


def test_a_method_not_allowed_is_a_json_405(personas, data):
    response = api_client_for(personas, "manager").delete(f"/api/v1/runs/{data.run.pk}/")
    assert response.status_code == 405
    assert response.json()["detail"]


def test_anonymous_callers_and_wrong_tokens_are_throttled(personas, monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})
    client = APIClient()
    codes = [client.get("/api/v1/me/").status_code for _ in range(2)]
    client.credentials(HTTP_AUTHORIZATION="Token guess")
    codes.append(client.get("/api/v1/me/").status_code)
    refused = client.get("/api/v1/me/")
    assert [*codes, refused.status_code] == [401, 401, 401, 429]
    assert "throttled" in refused.json()["detail"].lower()
    assert int(refused["Retry-After"]) > 0
    assert APIClient().get("/api/v1/schema/").status_code == 429


def test_token_clients_are_throttled_and_the_browser_is_not(personas, monkeypatch):
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"token": "2/minute"})
    _, token = AuthToken.objects.create(user=personas.rater)
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert [script.get("/api/v1/me/").status_code for _ in range(3)] == [200, 200, 429]
    browser = personas.client_for("rater")
    assert {browser.get("/api/v1/me/").status_code for _ in range(4)} == {200}


def test_the_comparison_gives_statistics_md_section_6s_case(personas, data, monkeypatch):
    """STATISTICS.md section 6: A = .50 .60 .70 .40 .80 .30, B = .60 .65 .68 .55 .80 .42 give
    a mean difference of 0.0667, t = 2.4008, p = 0.0616, interval [-0.0047, 0.1380] and an
    exact randomization p of 0.1250."""
    from metrics.api import endpoints as metrics_api
    from metrics.services.scores_request import Scores

    a = [0.50, 0.60, 0.70, 0.40, 0.80, 0.30]
    b = [0.60, 0.65, 0.68, 0.55, 0.80, 0.42]
    systems = [
        {"run_id": 1, "run": "A", "system": "A", "scored": True, "queries_with_results": 6},
        {"run_id": 2, "run": "B", "system": "B", "scored": True, "queries_with_results": 6},
    ]
    scores = Scores(
        names=["map"],
        qids=[f"q{i}" for i in range(6)],
        systems=systems,
        per_query={1: {"map": a}, 2: {"map": b}},
        basis={
            "rule": "mean",
            "source": None,
            "relevance_level": 2.0,
            "max_grade": 3.0,
            "n_queries": 6,
            "unjudged_queries": 0,
            "adjudicated": 0,
        },
        snapshot=None,
    )
    monkeypatch.setattr(metrics_api, "campaign_scores", lambda **kwargs: scores)
    response = api_client_for(personas, "manager").get(
        "/api/v1/campaigns/campaign-a/scores/compare/", {"a": "A", "b": "B", "measure": "map"}
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["diff"] == pytest.approx(0.0667, abs=1e-4)
    assert body["t"] == pytest.approx(2.4008, abs=1e-4)
    assert body["p_t"] == pytest.approx(0.0616, abs=1e-4)
    assert (body["ci_t_low"], body["ci_t_high"]) == (
        pytest.approx(-0.0047, abs=1e-4),
        pytest.approx(0.1380, abs=1e-4),
    )
    assert body["p_randomization"] == pytest.approx(0.125)
    assert body["randomization_exact"] is True
    assert body["ci_boot_low"] < body["diff"] < body["ci_boot_high"]


def test_a_forged_forwarded_for_header_does_not_reset_the_anonymous_limit(monkeypatch):
    # Each request claims another client address; with no trusted proxy configured the header
    # is ignored and the connection's address is the one counted.
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})
    codes = [
        APIClient().get("/api/v1/me/", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code
        for i in range(4)
    ]
    assert codes == [401, 401, 401, 429]


# The schema's CSV operations at their own paths (annotate.api.schema): each answers what
# ?format=csv answers on the JSON path beside it.
CSV_PATHS = [
    ("/api/v1/grades.csv", "/api/v1/grades/"),
    ("/api/v1/pool-items.csv", "/api/v1/pool-items/"),
    ("/api/v1/campaigns/campaign-a/scores.csv", "/api/v1/campaigns/campaign-a/scores/"),
    (
        "/api/v1/campaigns/campaign-a/scores/queries.csv",
        "/api/v1/campaigns/campaign-a/scores/queries/",
    ),
    ("/api/v1/campaigns/campaign-a/qrels.csv", "/api/v1/campaigns/campaign-a/qrels/"),
]


@pytest.mark.parametrize(("csv_path", "json_path"), CSV_PATHS, ids=[p[0] for p in CSV_PATHS])
def test_a_csv_path_answers_what_format_csv_answers(personas, data, csv_path, json_path):
    client = api_client_for(personas, "manager")
    by_path = client.get(csv_path, HTTP_ACCEPT="application/json")  # the path wins
    by_format = client.get(json_path, {"format": "csv"})
    assert by_path.status_code == by_format.status_code == 200
    assert by_path["Content-Type"] == by_format["Content-Type"]
    text = _text(by_path)
    assert text == _text(by_format) and text.count("\n") > 1


def test_the_json_qrels_path_answers_json_and_the_default_stays_trec_text(personas, data):
    client = api_client_for(personas, "manager")
    answer = client.get("/api/v1/campaigns/campaign-a/qrels.json", HTTP_ACCEPT="text/plain")
    assert answer["Content-Type"] == "application/json"
    assert json.loads(_text(answer))["count"] == 1
    text = _text(client.get("/api/v1/campaigns/campaign-a/qrels/"))
    assert text.split() == ["q1", "0", "d1", "3"]


@pytest.mark.parametrize("path", ["/api/v1/grades/", "/api/v1/grades.csv", "/api/v1/verdicts/"])
def test_times_with_any_offset_python_reads_are_answered_not_a_500(personas, data, path):
    """PostgreSQL refuses offsets beyond ±15:59 that ISO 8601 parsing accepts: they are
    turned to UTC first; a time before year 1 in UTC is a 400."""
    client = api_client_for(personas, "manager")
    far = client.get(path, {"changed_after": "2000-01-01T00:00:00-18:08"})
    assert far.status_code == 200
    early = client.get(path, {"changed_after": "0001-01-01T00:00:00+14:00"})
    assert early.status_code == 400 and "out of range" in early.json()["detail"]
