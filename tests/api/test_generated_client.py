"""The API contract, checked the way a ranking team uses it: a Python client generated from the
live OpenAPI schema by openapi-python-client, run end to end against a live server with no
hand-written workaround. If the schema and the server disagree anywhere the script goes (an
upload typed as a URI, CSV described as JSON, an error status left out, an untyped result),
the generated client sends the wrong request, crashes parsing the answer, or raises
UnexpectedStatus, and this test fails.

Numbers are not trusted from the server: the scores the client reads are compared with
pytrec_eval run on the qrels and the run the client itself fetched and uploaded.
"""

from __future__ import annotations

import csv
import importlib
import io
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval
from django.test import Client as DjangoClient
from knox.models import AuthToken

from annotate.api.throttling import TokenRateThrottle
from annotate.models import Grade, SxsTask, Verdict
from tests.annotate.judgment_data import grade, pool_item

PACKAGE = "relevance_client"
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
RUN = "".join(
    f"{qid} Q0 {doc} {rank} {10 - rank} team-run\n"
    for qid, docs in (("q1", ["d2", "d1", "d9"]), ("q2", ["d3", "d4"]))
    for rank, doc in enumerate(docs, start=1)
)


def generate_client(schema: bytes, where: Path):
    """What the README tells a team to do: openapi-python-client on the served schema. No
    config beyond switching off its ruff post-hook (the formatter is not needed to import)."""
    (where / "schema.json").write_bytes(schema)
    (where / "config.yaml").write_text("post_hooks: []\n")
    done = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(where / "schema.json"),
            "--meta",
            "none",
            "--output-path",
            str(where / PACKAGE),
            "--config",
            str(where / "config.yaml"),
            "--fail-on-warning",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(where))
    importlib.invalidate_caches()
    return importlib.import_module(PACKAGE)


@pytest.fixture
def client_package(tmp_path):
    """The generated package, importable for this test only."""
    schema = DjangoClient().get("/api/v1/schema/?format=json")
    assert schema.status_code == 200
    yield generate_client(schema.content, tmp_path)
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
        del sys.modules[name]


@pytest.fixture
def campaign_data(personas, data):
    """Campaign A of the API fixtures with a few more grades (so the qrels have grades 1-3 on
    two queries) and verdicts on its comparison (so GSB has a decision)."""
    a = personas.campaign
    for qid, did, label in (("q1", "d2", "Fair"), ("q2", "d3", "Bad"), ("q2", "d4", "Good")):
        grade(pool_item(a, qid, did), personas.rater, label)
    for task, (value, side) in zip(
        SxsTask.objects.filter(comparison=data.comparison, identical=False).order_by("id"),
        [("G", "L"), ("S", "R")],
        strict=False,
    ):
        Verdict.objects.create(task=task, rater=personas.rater, value=value, candidate_side=side)
    return data


def ranking_team_script(client, *, slug: str, run_file: Path, comparison_id: int) -> dict:
    """A ranking team's CI job, written against the generated client only (README, "REST
    API"). Returns what it read, for the test to check."""
    from relevance_client.api.campaigns import (
        campaigns_list,
        campaigns_qrels_json_retrieve,
        campaigns_qrels_retrieve,
        campaigns_scores_compare_retrieve,
        campaigns_scores_retrieve,
    )
    from relevance_client.api.comparisons import comparisons_gsb_retrieve
    from relevance_client.api.grades import grades_csv_list
    from relevance_client.api.runs import runs_create, runs_list
    from relevance_client.models import RunUploadRequest
    from relevance_client.types import File

    campaigns = [c.slug for c in campaigns_list.sync(client=client).results]
    runs_before = [r.name for r in runs_list.sync(client=client, campaign=slug).results]
    with run_file.open("rb") as handle:
        upload = runs_create.sync(
            client=client,
            body=RunUploadRequest(
                campaign=slug,
                file=File(payload=handle, file_name=run_file.name, mime_type="text/plain"),
                name="team-run",
            ),
        )
    runs_after = [r.name for r in runs_list.sync(client=client, campaign=slug).results]
    qrels_text = campaigns_qrels_retrieve.sync(client=client, slug=slug)
    qrels = campaigns_qrels_json_retrieve.sync(client=client, slug=slug)
    scores = campaigns_scores_retrieve.sync(
        client=client, slug=slug, measure=["ndcg_cut.10", "P.5"]
    )
    compare = campaigns_scores_compare_retrieve.sync(
        client=client, slug=slug, a="bm25", b="team-run", measure=["ndcg_cut.10"]
    )
    gsb = comparisons_gsb_retrieve.sync(client=client, id=comparison_id)
    grades_csv = grades_csv_list.sync(client=client, campaign=slug)
    return {
        "campaigns": campaigns,
        "runs_before": runs_before,
        "upload": upload,
        "runs_after": runs_after,
        "qrels_text": qrels_text,
        "qrels": qrels,
        "scores": scores,
        "compare": compare,
        "gsb": gsb,
        "grades_csv": grades_csv,
    }


def _trec_eval(
    qrels_text: str, run_text: str, relevant_from: float, n_queries: int
) -> dict[str, float]:
    """Means over all the campaign's queries: a query without labels counts as 0, as the
    scores' basis says (the run answers every judged query)."""
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_text.splitlines():
        qid, _, doc, value = line.split()
        qrels.setdefault(qid, {})[doc] = int(value)
    run: dict[str, dict[str, float]] = {}
    for line in run_text.splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    ndcg = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    precision = pytrec_eval.RelevanceEvaluator(
        qrels, {"P.5"}, relevance_level=int(relevant_from)
    ).evaluate(run)
    return {
        "ndcg_cut_10": sum(ndcg[q]["ndcg_cut_10"] for q in qrels) / n_queries,
        "P_5": sum(precision[q]["P_5"] for q in qrels) / n_queries,
    }


@pytest.mark.django_db(transaction=True)
def test_a_generated_client_runs_a_ranking_teams_script_end_to_end(
    client_package, personas, campaign_data, live_server, tmp_path, monkeypatch
):
    token = AuthToken.objects.create(user=personas.manager)[1]
    client = client_package.AuthenticatedClient(
        base_url=live_server.url, token=token, prefix="Token", raise_on_unexpected_status=True
    )
    run_file = tmp_path / "team-run.txt"
    run_file.write_text(RUN)

    got = ranking_team_script(
        client,
        slug=personas.campaign.slug,
        run_file=run_file,
        comparison_id=campaign_data.comparison.pk,
    )

    # Lists and the upload: the file arrived as a file (multipart, binary).
    assert got["campaigns"] == [personas.campaign.slug]
    assert "team-run" not in got["runs_before"] and "team-run" in got["runs_after"]
    assert got["upload"].runs == ["team-run"] and got["upload"].created == RUN.count("\n")

    # Qrels as TREC text and as typed JSON: the same labels.
    text_lines = sorted(tuple(line.split()) for line in got["qrels_text"].splitlines())
    json_lines = sorted((q.query, "0", q.document, str(int(q.grade))) for q in got["qrels"].qrels)
    assert (
        text_lines == json_lines
        and len(text_lines)
        == Grade.objects.filter(pool_item__campaign=personas.campaign)
        .values("pool_item")
        .distinct()
        .count()
    )
    assert got["qrels"].aggregation.value == personas.campaign.aggregation

    # Scores for two measures, named as documented (dots become underscores), checked against
    # pytrec_eval on the qrels and run the client itself handled.
    scores = got["scores"]
    assert scores.measures == ["P_5", "ndcg_cut_10"]
    team = next(s for s in scores.systems if s.run == "team-run")
    judged = {line.split()[0] for line in got["qrels_text"].splitlines()}
    assert scores.basis.n_queries - scores.basis.unjudged_queries == len(judged)
    expected = _trec_eval(
        got["qrels_text"], RUN, personas.campaign.relevant_from, scores.basis.n_queries
    )
    for name, value in expected.items():
        assert team.values[name].mean == pytest.approx(value, abs=1e-12), name

    # A typed comparison: the team run against bm25.
    compare = got["compare"]
    assert (compare.a.run, compare.b.run, compare.measure) == ("bm25", "team-run", "ndcg_cut_10")
    assert compare.diff == pytest.approx(compare.mean_b - compare.mean_a)
    assert compare.b.run_id == next(s.run_id for s in scores.systems if s.run == "team-run")

    # GSB: a closed set of decisions, a typed result.
    gsb = got["gsb"]
    assert gsb.decision.value in {"launch", "do_not_launch", "more_data"}
    assert gsb.result.decision.value == gsb.decision.value
    result, given = gsb.result, Verdict.objects.filter(task__comparison=campaign_data.comparison)
    assert result.good == given.filter(value="G").count() == 1
    assert result.bad == given.filter(value="B").count()
    # Identical lists count as Same without a rater (STATISTICS.md).
    assert result.same == given.filter(value="S").count() + result.identical_verdicts
    assert result.gsb == pytest.approx((result.good - result.bad) / result.n_verdicts)
    assert result.n_verdicts == result.good + result.same + result.bad
    assert result.ci_low <= result.gsb <= result.ci_high
    assert gsb.comparison.id == campaign_data.comparison.pk

    # Grades as CSV through the same client: one row per grade of the campaign.
    rows = list(csv.DictReader(io.StringIO(got["grades_csv"])))
    assert sorted(int(r["id"]) for r in rows) == sorted(
        Grade.objects.filter(pool_item__campaign=personas.campaign).values_list("id", flat=True)
    )

    # Refusals are typed errors, each with its documented Error body.
    other_token = AuthToken.objects.create(user=personas.other_manager)[1]
    _assert_typed_errors(client_package, client, live_server.url, other_token, monkeypatch)


def _assert_typed_errors(package, client, base_url: str, other_token: str, monkeypatch) -> None:
    from relevance_client.api.campaigns import campaigns_list, campaigns_retrieve
    from relevance_client.models import Error

    stranger = package.AuthenticatedClient(
        base_url=base_url, token="not-a-token", prefix="Token", raise_on_unexpected_status=True
    )
    unauthorized = campaigns_list.sync_detailed(client=stranger)
    assert unauthorized.status_code == 401
    assert isinstance(unauthorized.parsed, Error) and unauthorized.parsed.detail

    missing = campaigns_retrieve.sync_detailed(client=client, slug="campaign-b")
    assert missing.status_code == 404
    assert isinstance(missing.parsed, Error) and missing.parsed.detail

    # A token's limit brought down to two requests a minute: the third is refused.
    monkeypatch.setattr(TokenRateThrottle, "rate", "2/minute", raising=False)
    fresh = package.AuthenticatedClient(
        base_url=base_url, token=other_token, prefix="Token", raise_on_unexpected_status=True
    )
    assert [campaigns_list.sync_detailed(client=fresh).status_code for _ in range(2)] == [200, 200]
    throttled = campaigns_list.sync_detailed(client=fresh)
    assert throttled.status_code == 429
    assert isinstance(throttled.parsed, Error) and "throttled" in throttled.parsed.detail
    assert int(throttled.headers["Retry-After"]) > 0
