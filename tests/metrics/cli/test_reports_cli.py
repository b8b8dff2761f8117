"""The same numbers reached two ways: the systems table of the report, and `python -m metrics -c
-l <relevant_from>` (a separate process) on the exported qrels (the export service, real grades,
adjudications included) and the runs written out as TREC files."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from annotate.models import LabelSource, SourceLabel
from annotate.services.adjudication import adjudication_set
from annotate.services.exports import export_qrels
from metrics.services.scores import MeasureSettings
from metrics.services.snapshots import scores_snapshot
from tests.metrics.report_helpers import make_world, write_chunks, write_run

ROOT = Path(__file__).resolve().parents[3]
TOL = 1e-12


def cli(qrels: Path, run: Path, *, level: float, settings: MeasureSettings, top: float) -> dict:
    k = settings.k
    args = [
        sys.executable,
        "-m",
        "metrics",
        "-c",
        "-q",
        "-l",
        f"{level:g}",
        "--format",
        "json",
        "--gain",
        settings.gain,
        "--discount",
        settings.discount,
        "--ideal",
        settings.ideal,
        "--max-grade",
        f"{top:g}",
        "-m",
        f"ndcg_cut.1-{k}",
        "-m",
        "map",
        "-m",
        f"P.{k}",
        "-m",
        "recip_rank",
        "-m",
        f"err_cut.{k}",
        "-m",
        f"judged.{k}",
        str(qrels),
        str(run),
    ]
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def download(client, url: str) -> list[dict]:
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


@pytest.fixture
def world(personas):
    return make_world(personas.campaign)


@pytest.mark.parametrize(
    ("rule", "settings"),
    [
        ("mean", MeasureSettings()),
        ("median", MeasureSettings(k=5, gain="exponential", discount="jarvelin")),
        ("majority", MeasureSettings(k=7, ideal="retrieved")),
    ],
)
def test_the_systems_table_equals_the_command_line_on_the_exports(
    world, personas, tmp_path, rule, settings
):
    campaign = world.campaign
    # A ruling on a pair: it must reach the CLI through the qrels export too.
    item = campaign.pool_items.order_by("pk").first()
    adjudication_set(
        campaign=campaign,
        manager=personas.manager,
        item_id=item.pk,
        label_id=campaign.labels.get(name="Good").pk,
    )
    qrels = write_chunks(
        export_qrels(campaign=campaign, rule=rule, real=True).chunks, tmp_path / "qrels"
    )
    summary = scores_snapshot(campaign=campaign, settings=settings, rule=rule).summary
    assert summary["adjudicated"] == 1
    client = personas.client_for("manager")
    params = (
        f"aggregation={rule}&k={settings.k}&gain={settings.gain}&discount={settings.discount}"
        f"&ideal={settings.ideal}"
    )
    base = reverse("metrics:systems", kwargs={"slug": campaign.slug})
    table = {row["run"]: row for row in download(client, f"{base}?{params}&download=systems")}
    queries_url = reverse("metrics:queries", kwargs={"slug": campaign.slug})
    per_query = download(client, f"{queries_url}?{params}&download=queries")
    labels = {m["key"]: m["label"] for m in summary["measures"]}

    assert len(summary["systems"]) == len(world.runs) == 3
    for system in summary["systems"]:
        run = next(r for r in world.runs if r.pk == system["run_id"])
        expected = cli(
            qrels,
            write_run(run, tmp_path / run.name),
            level=campaign.relevant_from,
            settings=settings,
            top=3,
        )
        for key, label in labels.items():
            assert system["values"][key]["mean"] == pytest.approx(expected["all"][key], abs=TOL)
            assert float(table[run.name][label]) == pytest.approx(expected["all"][key], abs=TOL)
        for i in range(1, settings.k + 1):
            assert system["curve"][i - 1] == pytest.approx(
                expected["all"][f"ndcg_cut_{i}"], abs=TOL
            )
        # Per query (the CLI prints the queries the run has results for).
        name = f"{run.name} {labels[settings.ndcg]}"
        mine = {row["query_id"]: float(row[name]) for row in per_query}
        for qid, values in expected["per_query"].items():
            assert mine[qid] == pytest.approx(values[settings.ndcg], abs=TOL)
        # Queries without results count as 0 on both sides (-c).
        skipped = set(expected["queries"]) - set(expected["per_query"])
        assert all(mine[q] == 0 for q in skipped)
        assert set(mine) == set(expected["queries"])
    # gamma has no results for q03: it still counts (as 0), in both places.
    gamma = next(s for s in summary["systems"] if s["run"] == "gamma")
    assert gamma["queries_with_results"] == 7 and summary["n_queries"] == 8


def test_an_imported_label_source_equals_the_command_line_too(world, personas, tmp_path):
    campaign = world.campaign
    source = LabelSource.objects.create(campaign=campaign, name="team x")
    docs = {d.external_id: d for d in campaign.documents.all()}
    rows = []
    for q in world.queries:
        for j, grade in enumerate((0, 1, 2, 3, -1, 2.5)):
            rows.append(
                SourceLabel(
                    source=source, query=q, document=docs[f"{q.external_id}-d{j}"], grade=grade
                )
            )
    SourceLabel.objects.bulk_create(rows)
    qrels = write_chunks(
        export_qrels(campaign=campaign, source_name="team x", real=True).chunks,
        tmp_path / "qrels",
    )
    settings = MeasureSettings(k=6, gain="exponential")
    summary = scores_snapshot(campaign=campaign, settings=settings, source=source).summary
    assert (summary["rule"], summary["source"]) == ("source", "team x")
    for system in summary["systems"]:
        run = next(r for r in world.runs if r.pk == system["run_id"])
        expected = cli(
            qrels,
            write_run(run, tmp_path / run.name),
            level=campaign.relevant_from,
            settings=settings,
            top=3,
        )
        for key in (m["key"] for m in summary["measures"]):
            assert system["values"][key]["mean"] == pytest.approx(expected["all"][key], abs=TOL)
