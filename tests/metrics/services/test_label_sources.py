"""Comparing label sources: agreement against hand-computed values, scores under a derived
source against ``python -m metrics`` on its exported qrels, and the order of systems."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotate.models import BehaviourLog, Document, RunEntry
from annotate.services.campaigns import campaign_create
from annotate.services.imports import import_qrels
from annotate.services.labels.clicks import derive_clicks
from annotate.services.labels.competitor import import_competitor
from annotate.services.labels.logs import import_log
from metrics.services.label_sources import RATERS, order_change, round_half_up, sources_report
from tests.annotate.import_support import add_queries, write
from tests.annotate.judgment_data import grade, make_run, pool_item
from tests.metrics.trec_data import run_cli

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    campaign = campaign_create(name="Sources", slug="sources")
    add_queries(campaign, "q1", "q2")
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"d{i}", url=f"https://example.com/{i}")
        for i in range(1, 13)
    )
    return campaign


def qrels(campaign, tmp_path, name: str, lines: str):
    import_qrels(campaign=campaign, file=write(tmp_path, f"{name}.qrels", lines), source_name=name)


def test_agreement_matches_the_hand_computed_example(campaign, tmp_path):
    """Shared pairs, A: 3 3 2 1 1 and B: 3 2 2 1 2 (scale 1..3).

    confusion (rows A, columns B): [1 1 0; 0 1 0; 0 1 1]; exact 3/5.
    Linear kappa: observed disagreement 2; expected from the margins r = (2, 1, 2),
    c = (1, 3, 1): sum |i - j| r_i c_j / 5 = 4.4; kappa = 1 - 2 / 4.4 = 6/11.
    Ordinal alpha: coincidences o12 = o21 = o23 = o32 = 1, n = (3, 4, 3), delta(1,2) =
    delta(2,3) = 3.5^2, delta(1,3) = 7^2: alpha = 1 - 9 * 49 / 1470 = 0.7.
    """
    qrels(campaign, tmp_path, "A", "q1 0 d1 3\nq1 0 d2 3\nq1 0 d3 2\nq2 0 d4 1\nq2 0 d5 1\n"
          "q2 0 d6 2\n")  # fmt: skip
    qrels(campaign, tmp_path, "B", "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 2\nq2 0 d4 1\nq2 0 d5 2\n"
          "q2 0 d7 -1\n")  # fmt: skip
    report = sources_report(campaign=campaign)
    pair = next(a for a in report.agreements if (a.a, a.b) == ("A", "B"))
    assert (pair.a_pairs, pair.b_pairs, pair.both) == (6, 5, 5)  # -1: pooled, not a label
    assert pair.exact == pytest.approx(0.6)
    assert pair.kappa == pytest.approx(6 / 11)
    assert pair.alpha == pytest.approx(0.7)
    assert pair.categories == [1.0, 2.0, 3.0]
    assert pair.confusion == [[1, 1, 0], [0, 1, 0], [0, 1, 1]]
    raters = next(a for a in report.agreements if (a.a, a.b) == (RATERS, "A"))
    assert raters.both == 0 and raters.kappa is None and "no pair" in raters.note
    assert report.source("B").pairs == 5 and report.source("B").queries == 2


def test_the_raters_mean_is_rounded_half_up_before_agreement(campaign, tmp_path):
    users = [get_user_model().objects.create_user(username=f"r{i}") for i in range(2)]
    item = pool_item(campaign, "q1", "d1")
    grade(item, users[0], "Good")
    grade(item, users[1], "Fair")  # mean 2.5 -> 3
    other = pool_item(campaign, "q1", "d2")
    grade(other, users[0], "Fair")
    grade(other, users[1], "Bad")  # mean 1.5 -> 2
    qrels(campaign, tmp_path, "A", "q1 0 d1 3\nq1 0 d2 2\n")
    report = sources_report(campaign=campaign)
    pair = report.agreements[0]
    assert (pair.a, pair.b, pair.both, pair.exact) == (RATERS, "A", 2, 1.0)
    assert report.sources[0].label == "Raters (mean)"
    assert round_half_up(np.array([0.5, 1.5, 2.5, 2.4999])).tolist() == [1.0, 2.0, 3.0, 2.0]


def test_the_order_of_systems_hand_computed():
    # A orders the runs 0 > 1 > 2, B orders them 1 > 2 > 0: two of three pairs swap.
    change = order_change(a="A", b="B", x=np.array([0.9, 0.5, 0.1]), y=np.array([0.2, 0.6, 0.4]))
    assert (change.swapped, change.pairs, change.runs) == (2, 3, 3)
    assert change.tau == pytest.approx(-1 / 3)
    same = order_change(a="A", b="B", x=np.array([0.3, 0.2]), y=np.array([0.9, 0.1]))
    assert same.tau == pytest.approx(1.0) and same.swapped == 0
    alone = order_change(a="A", b="B", x=np.array([0.3]), y=np.array([0.9]))
    assert alone.tau is None and alone.pairs == 0


RUNS = {
    "alpha": ["d1", "d2", "d3", "d4", "d5"],
    "beta": ["d5", "d4", "d3", "d2", "d1"],
    "gamma": ["d9", "d1", "d10", "d2", "d11"],
}


def make_runs(campaign):
    for name, docs in RUNS.items():
        rows = [(q, d, r + 1, 1.0 - r / 10) for q in ("q1", "q2") for r, d in enumerate(docs)]
        make_run(campaign, name, rows)


def export_run(tmp_path, name: str):
    """The run's stored entries as a TREC run file."""
    path = tmp_path / f"{name}.run"
    rows = RunEntry.objects.filter(run__name=name).values_list(
        "query__external_id", "document__external_id", "rank", "score"
    )
    path.write_text("".join(f"{q} Q0 {d} {r} {s!r} {name}\n" for q, d, r, s in rows))
    return path


def test_scores_under_derived_sources_equal_the_command_line_on_their_export(campaign, tmp_path):
    make_runs(campaign)
    # A competitor list per query; and a log whose clicks favour d5 and d1.
    competitor = "".join(
        f"{q},https://www.example.com/{d}/,{r}\n"
        for q in ("q1", "q2")
        for r, d in enumerate([5, 2, 8, 1, 12, 3, 4], start=1)
    )
    import_competitor(campaign=campaign, file=write(tmp_path, "c.csv", competitor), name="rival")
    # A log: a filler query sets CTR(p) near 0.3 / p; d1 and d2 beat it, the rest fall short.
    log = ["qid,docno,position,impressions,clicks"]
    log += [f"zz,x,{p},10000,{3000 // p}" for p in range(1, 7)]
    for q in ("q1", "q2"):
        for p, d in enumerate(["d1", "d2", "d3", "d4", "d5", "d6"], start=1):
            log.append(f"{q},{d},{p},100,{ {'d1': 60, 'd2': 30}.get(d, 1) }")
    import_log(campaign=campaign, file=write(tmp_path, "log.csv", "\n".join(log)), name="w")
    # Floor 5: d3 to d6 (about 6 to 13 expected clicks) keep their Bad labels, as the test needs.
    derive_clicks(log=BehaviourLog.objects.get(name="w"), name="w", min_expected_clicks=5)

    report = sources_report(campaign=campaign, k=5)
    names = ["ndcg_cut_5", "map", "P_5", "recip_rank", "judged_5"]
    assert [m for m, _ in report.measures] == names
    for source in ("competitor:rival", "clicks:w"):
        qrels_path = tmp_path / f"{source.replace(':', '-')}.qrels"
        call_command(
            "export_qrels", campaign="sources", source=source, real=True, output=str(qrels_path)
        )
        for row in report.runs:
            run_path = export_run(tmp_path, row.run)
            args = [arg for m in ("ndcg_cut.5", "map", "P.5", "recip_rank", "judged.5")
                    for arg in ("-m", m)]  # fmt: skip
            done = run_cli(
                *args, "-c", "-l", "2", "--format", "json", "--precision", "12",
                str(qrels_path), str(run_path),
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            expected = json.loads(done.stdout)["all"]
            for name in names:
                assert row.values[source][name] == pytest.approx(expected[name], abs=1e-9), (
                    source,
                    row.run,
                    name,
                )
    # Clicks: alpha > beta > gamma; the competitor: beta > alpha > gamma. One pair of three
    # swaps: tau = (2 - 1) / 3.
    clicks = [r.values["clicks:w"]["ndcg_cut_5"] for r in report.runs]
    rival = [r.values["competitor:rival"]["ndcg_cut_5"] for r in report.runs]
    assert [r.run for r in report.runs] == ["alpha", "beta", "gamma"]
    assert clicks[0] > clicks[1] > clicks[2] and rival[1] > rival[0] > rival[2]
    change = next(o for o in report.orders if {o.a, o.b} == {"competitor:rival", "clicks:w"})
    assert (change.swapped, change.pairs) == (1, 3)
    assert change.tau == pytest.approx(1 / 3)


def test_bad_parameters_are_refused(campaign):
    with pytest.raises(ValueError, match="k must be"):
        sources_report(campaign=campaign, k=0)
    with pytest.raises(ValueError, match="aggregation rule"):
        sources_report(campaign=campaign, rule="mode")


def test_a_campaign_without_runs_or_sources_still_reports(campaign):
    report = sources_report(campaign=campaign)
    assert [s.key for s in report.sources] == [RATERS]
    assert report.runs == [] and report.agreements == [] and report.orders == []


def test_purchases_reproduce_seed_001(tmp_path):
    """Seed 001: recommended A, B, C, D, E; bought A, D, G, F, K. NDCG@5 (Järvelin–Kekäläinen
    discount) is 0.75 with the ideal from the list, 0.4212 with every bought item in it."""
    from annotate.models import LabelSource
    from annotate.services.aggregation import source_qrels
    from annotate.services.labels.purchases import derive_purchases
    from metrics.core import ndcg

    campaign = campaign_create(name="Seed 001", slug="seed-001")
    add_queries(campaign, "u1")
    items = "ABCDEFGHK"
    Document.objects.bulk_create(Document(campaign=campaign, external_id=i) for i in items)
    rows = ["qid,docno,position,impressions,clicks,purchases"]
    rows += [f"u1,{d},{p},1,0,{int(d in 'AD')}" for p, d in enumerate("ABCDE", start=1)]
    rows += [f"u1,{d},{p},1,1,1" for p, d in enumerate("GFK", start=6)]
    import_log(campaign=campaign, file=write(tmp_path, "buys.csv", "\n".join(rows)), name="b")
    derive_purchases(log=BehaviourLog.objects.get(name="b"), name="b")
    table = source_qrels(source=LabelSource.objects.get(name="purchases:b"))
    qrels = {
        "u1": dict(zip(table.document_external_id.tolist(), table.grade.tolist(), strict=True))
    }
    assert qrels == {"u1": {"A": 3.0, "B": 0.0, "C": 0.0, "D": 3.0, "E": 0.0, "F": 3.0,
                            "G": 3.0, "K": 3.0}}  # fmt: skip
    run = {"u1": {d: 5.0 - i for i, d in enumerate("ABCDE")}}
    assert ndcg(qrels, run, 5, discount="jarvelin", ideal="retrieved") == pytest.approx(0.75)
    assert ndcg(qrels, run, 5, discount="jarvelin") == pytest.approx(0.4212, abs=5e-5)
