"""A script's whole journey through the API, with a token as a script has: create a campaign,
upload queries, two runs and qrels, read scores and a comparison, and check every number
against ``python -m metrics`` run as a subprocess on the very same files."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken
from rest_framework.test import APIClient

from metrics.decide.ndcg import COMPARE_SEED

LEVEL = "2"  # the campaign's "relevant from" grade (Fair), passed to the command line as -l


def _files(tmp_path: Path) -> dict[str, Path]:
    """12 queries; two runs of 25 documents each; qrels with grades 1-3 on the label scale, a
    few judged documents no run retrieved, and every query judged (so the command line and the
    campaign count the same queries)."""
    rng = random.Random(7)
    queries, qrels, runs = [], [], {"bm25": [], "bert": []}
    for q in range(12):
        qid = f"q{q:02d}"
        queries.append(f"{qid}\tquery number {q}\n")
        docs = [f"{qid}-d{d:02d}" for d in range(40)]
        for doc in rng.sample(docs, 18):
            qrels.append(f"{qid} 0 {doc} {rng.choice([1, 1, 2, 3])}\n")
        for name in runs:
            for rank, doc in enumerate(rng.sample(docs, 25), start=1):
                runs[name].append(f"{qid} Q0 {doc} {rank} {round(rng.uniform(0, 50), 3)} {name}\n")
    out = {"queries": tmp_path / "queries.tsv", "qrels": tmp_path / "qrels.txt"}
    out["queries"].write_text("".join(queries))
    out["qrels"].write_text("".join(qrels))
    for name, lines in runs.items():
        out[name] = tmp_path / f"{name}.txt"
        out[name].write_text("".join(lines))
    return out


def _cli(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "metrics", *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=settings.BASE_DIR,
    )
    return json.loads(done.stdout)


def _upload(client: APIClient, url: str, path: Path, **fields) -> dict:
    upload = SimpleUploadedFile(path.name, path.read_bytes(), content_type="text/plain")
    response = client.post(url, {"file": upload, **fields}, format="multipart")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def script(personas) -> APIClient:
    personas.outsider.is_staff = True
    personas.outsider.save()
    _, token = AuthToken.objects.create(user=personas.outsider)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_a_script_uploads_files_and_reads_the_command_lines_scores(script, tmp_path):
    files = _files(tmp_path)
    created = script.post("/api/v1/campaigns/", {"name": "Ranking CI"}, format="json")
    assert created.status_code == 201, created.content
    slug = created.json()["slug"]
    assert created.json()["relevant_from"] == float(LEVEL)
    imports = f"/api/v1/campaigns/{slug}/imports/"
    assert _upload(script, imports, files["queries"], kind="queries")["created"] == 12
    for name in ("bm25", "bert"):
        assert _upload(script, "/api/v1/runs/", files[name], campaign=slug)["runs"] == [name]
    assert _upload(script, imports, files["qrels"], kind="qrels", source="truth")["created"] == 216

    qrels, bm25, bert = (str(files[k]) for k in ("qrels", "bm25", "bert"))
    # (API parameters, command-line options); one command run per option set and run file.
    cases = [
        ({"measure": "ndcg_cut.10"}, ()),  # from the report snapshot
        ({"measure": ["map", "P.10", "recip_rank", "err_cut.10"]}, ()),  # snapshot too
        ({"measure": ["recall.20", "bpref", "ndcg_cut.5,20"]}, ()),  # computed on request
        ({"measure": "ndcg_cut.10", "gain": "exponential"}, ("--gain", "exponential")),
        ({"measure": "ndcg_cut.10", "discount": "jarvelin"}, ("--discount", "jarvelin")),
    ]
    wanted: dict[tuple, list[str]] = {}
    for params, options in cases:
        measures = params["measure"] if isinstance(params["measure"], list) else [params["measure"]]
        wanted.setdefault(options, []).extend(measures)
    cli = {
        (options, run): _cli(
            "-q",
            "-c",
            "-l",
            LEVEL,
            "--format",
            "json",
            *options,
            *[a for m in measures for a in ("-m", m)],
            qrels,
            path,
        )
        for options, measures in wanted.items()
        for run, path in (("bm25", bm25), ("bert", bert))
    }
    for params, options in cases:
        query = {**params, "source": "truth"}
        response = script.get(f"/api/v1/campaigns/{slug}/scores/", query)
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["basis"]["rule"] == "source" and body["basis"]["source"] == "truth"
        assert (body["snapshot"] is None) == (params["measure"][0] == "recall.20")
        rows = script.get(f"/api/v1/campaigns/{slug}/scores/queries/", query).json()["rows"]
        for system in body["systems"]:
            expected = cli[(options, system["run"])]
            for name, value in system["values"].items():
                assert value["mean"] == pytest.approx(expected["all"][name], abs=1e-12), name
            mine = {r["query"]: r["values"] for r in rows if r["run"] == system["run"]}
            assert set(mine) == set(expected["per_query"])
            for qid, values in mine.items():
                assert values == pytest.approx(
                    {k: expected["per_query"][qid][k] for k in values}, abs=1e-12
                ), qid
        assert len(body["systems"]) == 2

    compare = script.get(
        f"/api/v1/campaigns/{slug}/scores/compare/",
        {"a": "bm25", "b": "bert", "measure": "ndcg_cut.10", "source": "truth"},
    )
    assert compare.status_code == 200, compare.content
    mine = compare.json()
    cli = _cli(
        "compare",
        "-c",
        "-l",
        LEVEL,
        "--format",
        "json",
        "--seed",
        str(COMPARE_SEED),
        "-m",
        "ndcg_cut.10",
        qrels,
        bm25,
        bert,
    )["measures"][0]
    for key in (
        "n",
        "mean_a",
        "mean_b",
        "diff",
        "t",
        "p_t",
        "ci_t_low",
        "ci_t_high",
        "p_randomization",
        "ci_boot_low",
        "ci_boot_high",
        "wins",
        "losses",
        "ties",
    ):
        assert mine[key] == pytest.approx(cli[key], abs=1e-12), key

    # The qrels come back as they went in.
    out = script.get(f"/api/v1/campaigns/{slug}/qrels/", {"source": "truth"})
    lines = b"".join(out.streaming_content).decode().splitlines()
    assert sorted(lines) == sorted(files["qrels"].read_text().splitlines())
